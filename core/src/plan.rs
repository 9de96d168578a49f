//! The planner: one budget per pending result of a turn, so that the next
//! request fits as a whole. Three parallel tool calls that each fit their
//! own cap can together overflow the model's window or a proxy's body limit;
//! the planner shares what the request has left among them.
//!
//! # The rule
//!
//! Every result gets the same number of text bytes `L` (the level), or its
//! whole text when that is smaller, or the per-result ceiling when that is
//! smaller: `x = min(size, ceiling, L)`. `L` is the largest level at which
//! the results together stay within every limit given, so results that fit
//! keep everything, no budget is spent on a result smaller than its share,
//! and the rest share what is left max-min fairly (water filling). A cut
//! result's tokens and body bytes are taken in proportion to its text
//! (`x * tokens / bytes`): the preview is made of its own lines.
//!
//! Media (images, audio) cannot be cut: their tokens and body bytes come off
//! the limits first. A level below the least budget a session accepts (the
//! notice needs room) or below the host's floor is an `invalid-budget`
//! error naming what is missing, never a silent overflow or a preview too
//! small to use. Integer arithmetic only: the same input gives the same plan
//! every time, which prompt caches depend on.
//!
//! Body bytes are what a result adds to a JSON request body: its text as a
//! JSON string, without the quotes ([`json_string_len`]), non-ASCII kept as
//! UTF-8 (as JavaScript's `JSON.stringify` and serde_json write it).

use crate::bisect::largest;
use crate::budget::{Budget, NoticeRoom};
use crate::error::CapError;

/// What one pending result takes in the next request, whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResultSize {
    /// Bytes of its text (all text parts together).
    pub bytes: u64,
    /// Estimated tokens of its text.
    pub tokens: u64,
    /// Bytes its text adds to a JSON request body.
    pub body_bytes: u64,
    /// Tokens of its media parts, which pass through whole.
    pub media_tokens: u64,
    /// Body bytes of its media parts (their base64 data and fields).
    pub media_body_bytes: u64,
}

/// What the next request has left for this turn's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// Tokens of the model's window left for the results; `None`: no limit.
    pub max_tokens: Option<u64>,
    /// Request body bytes left for the results; `None`: no limit.
    pub max_body_bytes: Option<u64>,
    /// The least text bytes a cut result may get: a plan that would give
    /// less fails, so that the host sheds something else (older outputs,
    /// a result) instead of sending previews too small to use. 0: only the
    /// notice's own minimum.
    pub floor_bytes: u32,
    /// The per-result budget: no result gets more (its `max_bytes`, and its
    /// `max_tokens` when set), and its other fields shape every budget of
    /// the plan. `max_bytes` 0 means no per-result ceiling.
    pub ceiling: Budget,
}

/// The budget for each result, in order: the ceiling's fields with
/// `max_bytes` (and `max_tokens` when the request is limited in tokens)
/// set to the result's share. A result that keeps its whole text gets the
/// ceiling itself (or its own size when there is no ceiling).
pub fn plan(
    sizes: &[ResultSize],
    limits: &RequestLimits,
    room: NoticeRoom,
) -> Result<Vec<Budget>, CapError> {
    limits.ceiling.validate(room)?;
    let least = room.bytes as u64;
    let media_tokens: u64 = sizes.iter().map(|s| s.media_tokens).sum();
    let media_body: u64 = sizes.iter().map(|s| s.media_body_bytes).sum();
    let left = |limit: Option<u64>, media: u64, what: &str| -> Result<Option<u64>, CapError> {
        match limit {
            None => Ok(None),
            Some(l) if media <= l => Ok(Some(l - media)),
            Some(l) => Err(CapError::InvalidBudget(format!(
                "the media parts alone take {media} {what}, over the {l} left: no cut of the \
                 text can make the request fit"
            ))),
        }
    };
    let limits_left = Left {
        tokens: left(limits.max_tokens, media_tokens, "tokens")?,
        body: left(limits.max_body_bytes, media_body, "body bytes")?,
    };
    let results: Vec<Shape> = sizes
        .iter()
        .map(|s| Shape::new(s, &limits.ceiling))
        .collect();
    let top = results.iter().map(|r| r.cap).max().unwrap_or(0);
    let fits = |level: u64| limits_left.allows(&results, level);
    // Max-min fair: the highest level within the limits (0 when not even
    // that fits: then every result would be cut to nothing).
    let level = largest(0, top, fits).unwrap_or(0);
    let short = results.iter().filter(|r| level < r.cap).count();
    let floor = u64::from(limits.floor_bytes);
    if short > 0 && level < floor {
        return Err(CapError::InvalidBudget(format!(
            "the request has room for {level} bytes of text per result, below the floor of \
             {floor}: {short} of {} results must be cut that far; shed something else or send \
             fewer results in this request",
            results.len()
        )));
    }
    if short > 0 && level < least {
        return Err(CapError::InvalidBudget(format!(
            "the request has room for {level} bytes of text per result, below the {least} \
             bytes a cut result needs for its notice: {short} of {} results must be cut; raise \
             the limits or send fewer results in this request",
            results.len()
        )));
    }
    let budgets: Vec<Budget> = results.iter().map(|r| r.budget(level, limits)).collect();
    // A ceiling of `max-bytes` 0 is not checked by itself; the budgets it
    // shapes are.
    for budget in &budgets {
        budget.validate(room)?;
    }
    // A token share must leave room for the notice too.
    if let Some(tokens) = budgets
        .iter()
        .filter_map(|b| b.max_tokens)
        .find(|&t| u64::from(t) < room.tokens)
    {
        return Err(CapError::InvalidBudget(format!(
            "the request has room for {tokens} tokens per cut result, below the {} tokens a \
             cut result needs for its notice: raise the limits or send fewer results in this \
             request",
            room.tokens
        )));
    }
    Ok(budgets)
}

/// Bytes of `text` as the contents of a JSON string: `"` and `\` and the
/// control characters escaped (`\n` and the like take 2 bytes, the others
/// `\u00XX` 6), everything else as it is.
pub fn json_string_len(text: &str) -> u64 {
    let extra: u64 = text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..0x20 => 5,
            _ => 0,
        })
        .sum();
    text.len() as u64 + extra
}

/// The per-result ceiling in text bytes for a text of `size` (`u64::MAX`
/// when none): its `max-bytes`, and the bytes whose share of the text's
/// tokens is its `max-tokens`.
fn ceiling_bytes(ceiling: &Budget, size: &ResultSize) -> u64 {
    if ceiling.is_disabled() {
        return u64::MAX;
    }
    let bytes = u64::from(ceiling.max_bytes);
    match ceiling.max_tokens.map(u64::from) {
        Some(t) if size.tokens > t => {
            let by_tokens = (u128::from(size.bytes) * u128::from(t)) / u128::from(size.tokens);
            bytes.min(u64::try_from(by_tokens).unwrap_or(u64::MAX))
        }
        _ => bytes,
    }
}

/// What is left of the limits once media is taken off.
struct Left {
    tokens: Option<u64>,
    body: Option<u64>,
}

impl Left {
    /// True when every result at `level` stays within both limits.
    fn allows(&self, results: &[Shape], level: u64) -> bool {
        let (mut tokens, mut body) = (0u64, 0u64);
        for r in results {
            let x = r.kept(level);
            tokens = tokens.saturating_add(r.tokens_of(x));
            body = body.saturating_add(r.body_of(x));
        }
        self.tokens.is_none_or(|t| tokens <= t) && self.body.is_none_or(|b| body <= b)
    }
}

/// One result as the planner sees it.
struct Shape {
    size: ResultSize,
    /// Most text bytes it may keep: its size, or the ceiling.
    cap: u64,
}

impl Shape {
    fn new(size: &ResultSize, ceiling: &Budget) -> Shape {
        Shape {
            size: *size,
            cap: size.bytes.min(ceiling_bytes(ceiling, size)),
        }
    }

    /// Text bytes kept at `level`.
    fn kept(&self, level: u64) -> u64 {
        self.cap.min(level)
    }

    /// True when `x` bytes are the whole text.
    fn whole(&self, x: u64) -> bool {
        x >= self.size.bytes
    }

    /// Tokens of `x` of its bytes: all of them when whole, else in
    /// proportion, rounded up.
    fn tokens_of(&self, x: u64) -> u64 {
        if self.whole(x) {
            self.size.tokens
        } else {
            proportion(x, self.size.tokens, self.size.bytes)
        }
    }

    /// Body bytes of `x` of its bytes, likewise.
    fn body_of(&self, x: u64) -> u64 {
        if self.whole(x) {
            self.size.body_bytes
        } else {
            proportion(
                x,
                self.size.body_bytes.max(self.size.bytes),
                self.size.bytes,
            )
        }
    }

    /// Its budget at `level`.
    fn budget(&self, level: u64, limits: &RequestLimits) -> Budget {
        let x = self.kept(level);
        if self.whole(x) {
            let mut whole = limits.ceiling;
            if whole.is_disabled() {
                return whole;
            }
            whole.max_bytes = whole.max_bytes.max(clamp_u32(self.size.bytes));
            return whole;
        }
        let mut cut = limits.ceiling;
        cut.max_bytes = clamp_u32(x);
        if limits.max_tokens.is_some() {
            let share = clamp_u32(self.tokens_of(x));
            cut.max_tokens = Some(cut.max_tokens.map_or(share, |t| t.min(share)));
        }
        cut
    }
}

fn clamp_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `x * num / den` rounded up, without overflow (`den` > 0 when called for
/// a cut, since a cut keeps fewer bytes than the text has).
fn proportion(x: u64, num: u64, den: u64) -> u64 {
    if den == 0 {
        return 0;
    }
    let p = (u128::from(x) * u128::from(num)).div_ceil(u128::from(den));
    u64::try_from(p).unwrap_or(u64::MAX)
}
