//! Capping one tool result: decide, spill through the host's store, preview,
//! and account for every byte.
//!
//! A text that does not fit becomes a preview and a notice
//! ([`crate::preview`] chooses and renders it); what it leaves out is
//! spilled whole and accounted for to the byte.

use std::borrow::Cow;

pub use crate::capper::{Capped, Capper, SpillStore};
pub use crate::preview::whole::{JSON_HEADER, JSON_MAX_INPUT};
pub use crate::settings::{PreviewFeatures, PreviewSettings, RedactionSettings};

use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Original, spill_output};
use crate::error::CapError;
use crate::naming;
use crate::notice::Saved;
use crate::preview::Preview;
use crate::preview::whole::{Shared, preview_within};
use crate::redact::Redactor;
use crate::room::NoticeParts;
use crate::text::{BlockLines, count_lines};
use crate::token_sample::{Sampling, sampled_estimate};

impl Capper {
    /// Fit `text` to `budget`, spilling the full text to `store` if it is cut.
    /// Fails only for an invalid budget; a failed spill is reported in the
    /// result.
    pub fn cap(
        &self,
        text: &str,
        budget: &Budget,
        call_id: &str,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        self.cap_text(Cow::Borrowed(text), budget, &Call::new(call_id), store)
    }

    /// [`cap`](Self::cap) of the result of `call`: a failed call is stated
    /// in the notice and its preview leans to the tail.
    pub fn cap_call(
        &self,
        text: &str,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        self.cap_text(Cow::Borrowed(text), budget, call, store)
    }

    /// [`cap`](Self::cap) for a caller that owns the text: a text that fits
    /// comes back as it went in, without a copy.
    pub fn cap_owned(
        &self,
        text: String,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        self.cap_text(Cow::Owned(text), budget, call, store)
    }

    fn cap_text(
        &self,
        text: Cow<'_, str>,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        budget.validate(self.room)?;
        call.validate()?;
        self.cap_checking_cut(text, budget, call, store)
    }

    /// [`cap`](Self::cap) under a budget checked only when the text must be
    /// cut: for a share of a budget (what `cap-mcp` leaves the texts beside
    /// a structured result), which may be below the least room for a notice
    /// and still hold a small text whole. `budget.max_bytes` must not be 0.
    pub(crate) fn cap_checking_cut(
        &self,
        text: Cow<'_, str>,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        let Some(redactor) = &self.redactor else {
            return self.cap_plain(text, budget, call, store, None);
        };
        let (redacted, counts) = redactor.redact(&text);
        if counts.is_empty() {
            return self.cap_plain(text, budget, call, store, None);
        }
        let redacted = redacted.into_owned();
        // The model sees the redacted text; the file keeps the output as it
        // was unless the policy redacts spills too.
        let original = (!self.redact_spill).then_some(Original {
            bytes: text.as_bytes(),
            lossy: false,
        });
        let mut capped = self.cap_plain(Cow::Owned(redacted), budget, call, store, original)?;
        capped.redactions = counts.iter().map(|(k, n)| (k.to_owned(), n)).collect();
        Ok(capped)
    }

    /// [`cap_call`](Self::cap_call) of an output given as bytes, valid
    /// UTF-8 or not, as [`crate::CapStream`] caps it: the preview is made
    /// from `String::from_utf8_lossy` of `bytes`, and the file holds `bytes`
    /// exactly (unless the session redacts spills: then the redacted text),
    /// with the reference stating their size and digest. For bytes that are
    /// not valid UTF-8, a full notice says the preview is a lossy decoding.
    pub fn cap_bytes(
        &self,
        bytes: &[u8],
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        call.validate()?;
        match std::str::from_utf8(bytes) {
            Ok(text) => self.cap_call(text, budget, call, store),
            Err(_) => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                self.cap_stream_text(text, Some(bytes), budget, call, store)
            }
        }
    }

    /// [`cap_owned`](Self::cap_owned) of a stream's `text`, the lossy
    /// decoding of `raw` when that was not valid UTF-8 (`None`: `text` is
    /// the bytes). See [`cap_bytes`](Self::cap_bytes).
    pub(crate) fn cap_stream_text(
        &self,
        text: String,
        raw: Option<&[u8]>,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        let Some(raw) = raw else {
            return self.cap_owned(text, budget, call, store);
        };
        budget.validate(self.room)?;
        call.validate()?;
        // A session that redacts spills saves the redacted text (the text
        // itself when there is nothing to redact), as a stream does.
        let original = (self.redactor.is_none() || !self.redact_spill).then_some(Original {
            bytes: raw,
            lossy: true,
        });
        let Some(redactor) = &self.redactor else {
            return self.cap_plain(Cow::Owned(text), budget, call, store, original);
        };
        let (redacted, counts) = redactor.redact(&text);
        if counts.is_empty() {
            drop(redacted);
            return self.cap_plain(Cow::Owned(text), budget, call, store, original);
        }
        let redacted = redacted.into_owned();
        let mut capped = self.cap_plain(Cow::Owned(redacted), budget, call, store, original)?;
        capped.redactions = counts.iter().map(|(k, n)| (k.to_owned(), n)).collect();
        Ok(capped)
    }

    /// The redaction policy's detectors, if the session has one.
    pub fn redactor(&self) -> Option<&Redactor> {
        self.redactor.as_ref()
    }

    /// Whether spills are redacted too (otherwise they keep the output).
    pub fn redacts_spill(&self) -> bool {
        self.redact_spill
    }

    /// [`cap_text`](Self::cap_text) of a text already redacted; `original`,
    /// when given, is what the spill file holds instead of `text`.
    pub(crate) fn cap_plain(
        &self,
        text: Cow<'_, str>,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
        original: Option<Original<'_>>,
    ) -> Result<Capped, CapError> {
        let counted = match self.measure(&text, budget) {
            Measured::Fits { lines, tokens } => {
                return Ok(unchanged(text.into_owned(), lines, tokens));
            }
            Measured::Over { counted } => counted,
        };
        // A no-op for `cap`'s own budgets; a share of one is checked here.
        budget.validate(self.room)?;
        let looks_json = crate::stream::looks_json(text.as_bytes(), self.large_input);
        if crate::stream::is_large(text.len(), looks_json, budget, self.large_input) {
            return crate::stream::cap_whole(self, &text, budget, call, store, original);
        }
        self.cut(&text, budget, call, store, original, counted)
    }

    /// Whether `text`, redacted as this session redacts, fits `budget`
    /// whole (bytes, lines and estimated tokens), whatever room the budget
    /// leaves for a notice. Nothing is saved.
    pub fn fits_whole(&self, text: &str, budget: &Budget) -> bool {
        let fits = |text: &str| {
            lines_if_fit(text, budget).is_some()
                && self
                    .tokens_if_limited(text, budget)
                    .is_none_or(|(_, within)| within)
        };
        match self.redactor.as_ref().map(|r| r.redact(text).0) {
            Some(redacted) => fits(&redacted),
            None => fits(text),
        }
    }

    /// Whether `text` fits `budget` whole, with its lines and estimated
    /// tokens when it does. Without `max-tokens` no token limit can bind,
    /// so the tokens only report, and a large text's are estimated from
    /// samples ([`Sampling::FIT`]).
    fn measure(&self, text: &str, budget: &Budget) -> Measured {
        let Some(lines) = lines_if_fit(text, budget) else {
            return Measured::Over { counted: None };
        };
        let tokens = match self.tokens_if_limited(text, budget) {
            Some((tokens, true)) => tokens,
            Some((tokens, false)) => {
                return Measured::Over {
                    counted: Some(tokens),
                };
            }
            None => sampled_estimate(&self.estimator, text, Sampling::FIT),
        };
        Measured::Fits { lines, tokens }
    }

    /// With `max-tokens`: the whole estimate of `text`, and whether it is
    /// within the limit (or the budget is disabled). Without: `None`,
    /// nothing counted.
    fn tokens_if_limited(&self, text: &str, budget: &Budget) -> Option<(u64, bool)> {
        let limit = budget.max_tokens?;
        let tokens = self.estimator.estimate(text);
        Some((tokens, budget.is_disabled() || tokens <= u64::from(limit)))
    }

    /// Spill and preview a text that does not fit; `counted` is its token
    /// estimate when it was counted whole to decide.
    fn cut(
        &self,
        text: &str,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
        original: Option<Original<'_>>,
        counted: Option<u64>,
    ) -> Result<Capped, CapError> {
        let bytes = text.len() as u64;
        // Count the lines while hashing: one pass over memory, not two; the
        // line at each block's end spares the preview's numbering a count
        // from the nearest end.
        let mut blocks = BlockLines::default();
        let digest = naming::content_digest_with(text.as_bytes(), |block| blocks.add(block));
        let index = blocks.index(text.as_bytes());
        let lines = index.lines();
        let saved = match original {
            None => spill_output(&self.scheme, store, call, text.as_bytes(), &digest, lines),
            Some(o) => {
                let digest = naming::content_digest(o.bytes);
                spill_output(&self.scheme, store, call, o.bytes, &digest, lines)
            }
        };
        let outcome = match &saved {
            Ok(r) => Saved::Spilled(r),
            Err(e) => Saved::Failed(e.message()),
        };
        let notice = NoticeParts {
            call,
            style: &self.settings.notice,
            features: self.settings.features,
            lossy: original.is_some_and(|o| o.lossy),
        };
        let shared = Shared::new(text, &self.patterns);
        let preview = self.within_tokens(budget, |b| {
            preview_within(b, &index, outcome, &notice, &shared)
        })?;
        let (spill, spill_error) = match saved {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Capped {
            text: preview.text,
            truncated: true,
            original_bytes: bytes,
            original_lines: lines,
            omitted_bytes: preview.loss.omitted_bytes,
            omitted_lines: preview.loss.omitted_lines,
            gap_line: Some(preview.loss.gap_line),
            notable_lines: preview.notable,
            folded_lines: preview.folded,
            // Counted whole already when its tokens decided the cut.
            original_tokens: counted.unwrap_or_else(|| {
                sampled_estimate(
                    &self.estimator,
                    text,
                    Sampling::under(budget, Sampling::REPORT),
                )
            }),
            tokens: preview.tokens,
            spill,
            spill_error,
            redactions: Vec::new(),
        })
    }

    /// The preview `make` builds under `budget`, within its `max-tokens`:
    /// while the estimate is over, the byte budget shrinks in proportion
    /// (with a margin) and the preview is built again. The least budget
    /// leaves room for the notice in tokens, so this ends within a few
    /// rounds; if it does not, the budget is refused.
    pub(crate) fn within_tokens(
        &self,
        budget: &Budget,
        make: impl Fn(&Budget) -> Preview,
    ) -> Result<Preview, CapError> {
        let mut preview = make(budget);
        preview.tokens = self.estimator.estimate(&preview.text);
        let Some(limit) = budget.max_tokens.map(u64::from) else {
            return Ok(preview);
        };
        let mut shrunk = *budget;
        for _ in 0..TOKEN_ROUNDS {
            // The session's least budget holds its longest notice; this
            // result's own may be shorter and leave room for dense text, so
            // the bytes may go below it, down to the notice alone.
            if preview.tokens <= limit || shrunk.max_bytes <= 1 {
                break;
            }
            let len = preview.text.len() as u64;
            let target = (len * limit / preview.tokens) * 95 / 100;
            shrunk.max_bytes = u32::try_from(target)
                .unwrap_or(u32::MAX)
                .min(shrunk.max_bytes - 1)
                .max(1);
            preview = make(&shrunk);
            preview.tokens = self.estimator.estimate(&preview.text);
        }
        if preview.tokens > limit {
            return Err(CapError::InvalidBudget(format!(
                "max-tokens {limit} is below what this result's notice alone takes ({} tokens)",
                preview.tokens
            )));
        }
        Ok(preview)
    }
}

/// What [`Capper::measure`] found of a text under a budget.
enum Measured {
    /// It fits whole: its lines and estimated tokens.
    Fits { lines: u64, tokens: u64 },
    /// It must be cut; its tokens, when they were counted whole to decide
    /// (the count its report gives, as [`Sampling::under`] says).
    Over { counted: Option<u64> },
}

/// Rounds of [`Capper::within_tokens`] at most.
const TOKEN_ROUNDS: usize = 8;

/// The lines of `text` when it fits `budget`'s bytes and lines.
fn lines_if_fit(text: &str, budget: &Budget) -> Option<u64> {
    let bytes = text.len() as u64;
    if !budget.is_disabled() && bytes > u64::from(budget.max_bytes) {
        return None;
    }
    let lines = count_lines(text.as_bytes());
    fits(budget, bytes, lines).then_some(lines)
}

fn fits(budget: &Budget, bytes: u64, lines: u64) -> bool {
    budget.is_disabled()
        || (bytes <= u64::from(budget.max_bytes)
            && budget.max_lines.is_none_or(|m| lines <= u64::from(m)))
}

fn unchanged(text: String, lines: u64, tokens: u64) -> Capped {
    Capped {
        original_tokens: tokens,
        tokens,
        original_bytes: text.len() as u64,
        text,
        truncated: false,
        original_lines: lines,
        omitted_bytes: 0,
        omitted_lines: 0,
        gap_line: None,
        notable_lines: 0,
        folded_lines: 0,
        spill: None,
        spill_error: None,
        redactions: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::RefScheme;

    #[test]
    fn least_budget_is_the_documented_formula() {
        // wit/types.wit, `budget.max-bytes`: 615 bytes plus the display root
        // and the thread folder, which is at most 65 bytes.
        let long = "é".repeat(100);
        let cases = [
            ("/", "t"),
            ("/spill-host", "thread-1"),
            ("/home/me/.cache/agent/spill/", "thread-1"),
            ("/x", "agent/thread-1"),
            ("/x", &"z".repeat(48)),
            ("/x", &"z".repeat(49)),
            ("/x", "abc-0123456789abcdef"),
            ("/x", "0123456789abcdef"),
            ("/x", "abc0123456789abcdef"),
            ("/Жизнь", &long),
            ("/x", "t1"),
            ("/x", "T1"),
            ("/x", "CON"),
            ("/x", "con"),
            ("/x", "nul"),
            ("/x", "com1"),
            ("/x", "com10"),
            ("/x", "lpt"),
        ];
        // The folder's length in the WIT's words.
        let documented_folder = |id: &str| {
            let plain = id.len() <= 48
                && id.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
                });
            let b = id.as_bytes();
            let hex_end = b.len() >= 16 && b[b.len() - 16..].iter().all(u8::is_ascii_hexdigit);
            let hashed_look = hex_end && (b.len() == 16 || b[b.len() - 17] == b'-');
            let mut devices = vec!["con".to_owned(), "prn".into(), "aux".into(), "nul".into()];
            for n in 0..10 {
                devices.extend([format!("com{n}"), format!("lpt{n}")]);
            }
            let device = devices.iter().any(|d| d == id);
            if plain && !hashed_look && !device {
                id.len()
            } else {
                id.len().min(48) + 17
            }
        };
        for (root, thread) in cases {
            let scheme = RefScheme::new(root, thread, vec![0; 16]).unwrap();
            let folder = scheme.thread_dir().len();
            assert_eq!(folder, documented_folder(thread), "{thread}");
            assert!(folder <= 65, "{thread}: {folder}");
            let want = 615 + scheme.display_root().len() + folder;
            let room = Capper::new(scheme).room();
            assert_eq!((room.bytes, room.lines), (want, 3), "{root} {thread}");
        }
    }
}
