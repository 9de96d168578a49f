//! Capping one tool result: decide, spill through the host's store, preview,
//! and account for every byte.

use std::borrow::Cow;

use crate::budget::{Budget, Keep, NoticeRoom};
use crate::call::Call;
use crate::cut::{self, Allowance, Side};
use crate::error::CapError;
use crate::naming;
use crate::notice::{self, GAP_LINES, Loss, NoticeForm, NoticeStyle, Saved};
use crate::refs::{OverflowRef, RefScheme};
use crate::text::{LineIndex, count_lfs, count_lines, digits};

/// Where full outputs go. The guest writes through WASI; tests use memory or
/// real directories.
pub trait SpillStore {
    /// Save `content` as `<thread_dir>/<file_name>`, atomically: a reader
    /// never sees a partial file under that name.
    fn save(&mut self, thread_dir: &str, file_name: &str, content: &[u8]) -> Result<(), CapError>;
}

/// A tool result fitted to a budget. Mirrors WIT `capped`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    /// Text for the model.
    pub text: String,
    /// True when `text` is a preview.
    pub truncated: bool,
    /// Size of the input.
    pub original_bytes: u64,
    /// Lines of the input.
    pub original_lines: u64,
    /// Input bytes not in the preview.
    pub omitted_bytes: u64,
    /// Input lines of which no byte is in the preview.
    pub omitted_lines: u64,
    /// 1-based line of the first omitted byte.
    pub gap_line: Option<u64>,
    /// Notable (failure) lines of the omitted part shown in the preview.
    pub notable_lines: u64,
    /// Lines of the preview folded into repetition markers.
    pub folded_lines: u64,
    /// Where the full output was saved.
    pub spill: Option<OverflowRef>,
    /// Why it could not be saved.
    pub spill_error: Option<String>,
}

/// Which of the preview's refinements are on. All are by default; the
/// benchmarks turn them off to measure the 0.1 preview (plain head and tail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewFeatures {
    /// Notable (failure) lines of the omitted middle are shown.
    pub notable: bool,
    /// Runs of repeated lines are folded.
    pub fold: bool,
    /// A whole JSON document gets a valid JSON preview.
    pub json: bool,
    /// Budget left over flows back to long lines, so the preview uses it.
    pub fill: bool,
    /// The compact notice for small budgets, and a tail-leaning preview of a
    /// failed call.
    pub adaptive_notice: bool,
}

impl PreviewFeatures {
    /// Every refinement on: what sessions use.
    pub const ALL: PreviewFeatures = PreviewFeatures {
        notable: true,
        fold: true,
        json: true,
        fill: true,
        adaptive_notice: true,
    };
    /// Every refinement off: the 0.1 preview, for comparison.
    pub const NONE: PreviewFeatures = PreviewFeatures {
        notable: false,
        fold: false,
        json: false,
        fill: false,
        adaptive_notice: false,
    };
}

impl Default for PreviewFeatures {
    fn default() -> Self {
        PreviewFeatures::ALL
    }
}

/// What a session chooses about its previews and notices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreviewSettings {
    /// How notices point into a spill.
    pub notice: NoticeStyle,
    /// The host's own notable-line patterns: literal substrings, matched
    /// case-sensitively, in addition to the built-in failure patterns.
    pub notable_patterns: Vec<String>,
    /// Which refinements are on.
    pub features: PreviewFeatures,
}

/// Longest host pattern for notable lines.
pub const MAX_PATTERN_BYTES: usize = 200;
/// Most host patterns for notable lines.
pub const MAX_PATTERNS: usize = 64;

impl PreviewSettings {
    /// Checks the read tool's name and the host's patterns.
    pub fn validate(&self) -> Result<(), CapError> {
        self.notice.validate()?;
        if self.notable_patterns.len() > MAX_PATTERNS {
            return Err(CapError::InvalidSettings(format!(
                "at most {MAX_PATTERNS} notable-patterns, got {}",
                self.notable_patterns.len()
            )));
        }
        for pattern in &self.notable_patterns {
            if pattern.is_empty()
                || pattern.len() > MAX_PATTERN_BYTES
                || pattern.contains(['\n', '\r'])
            {
                return Err(CapError::InvalidSettings(format!(
                    "each notable pattern must be 1 to {MAX_PATTERN_BYTES} bytes on one line, \
                     got {:?}",
                    crate::text::truncate_str(pattern, MAX_PATTERN_BYTES)
                )));
            }
        }
        Ok(())
    }
}

/// Caps results for one session.
#[derive(Debug)]
pub struct Capper {
    scheme: RefScheme,
    settings: PreviewSettings,
    room: NoticeRoom,
}

/// Largest number a notice can hold, for worst-case sizes.
const MAX_NUMBER: u64 = u64::MAX;

impl Capper {
    /// A capper for the session described by `scheme`, with the default
    /// settings.
    pub fn new(scheme: RefScheme) -> Self {
        Capper::with_settings(scheme, PreviewSettings::default())
            .expect("the default settings are valid")
    }

    /// A capper with explicit settings; fails with `invalid-settings` for a
    /// bad read tool name or notable pattern.
    pub fn with_settings(scheme: RefScheme, settings: PreviewSettings) -> Result<Self, CapError> {
        settings.validate()?;
        let room = worst_room(&scheme, &settings);
        Ok(Capper {
            scheme,
            settings,
            room,
        })
    }

    /// The session's preview settings.
    pub fn settings(&self) -> &PreviewSettings {
        &self.settings
    }

    /// The session's reference scheme.
    pub fn scheme(&self) -> &RefScheme {
        &self.scheme
    }

    /// The least budget this session accepts.
    pub fn room(&self) -> NoticeRoom {
        self.room
    }

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
        let bytes = text.len() as u64;
        let within_bytes = budget.is_disabled() || bytes <= u64::from(budget.max_bytes);
        if within_bytes {
            let lines = count_lines(text.as_bytes());
            if fits(budget, bytes, lines) {
                return Ok(unchanged(text.into_owned(), lines));
            }
        }
        self.cut(&text, budget, call, store)
    }

    /// Spill and preview a text that does not fit.
    fn cut(
        &self,
        text: &str,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        let bytes = text.len() as u64;
        // Count the lines while hashing: one pass over memory, not two.
        let mut lfs = 0;
        let digest = naming::content_digest_with(text.as_bytes(), |block| lfs += count_lfs(block));
        let index = LineIndex::with_lfs(text.as_bytes(), lfs);
        let lines = index.lines();
        let file_name = naming::spill_file_name(&call.id, &digest);
        let saved = store
            .save(self.scheme.thread_dir(), &file_name, text.as_bytes())
            .map(|()| self.scheme.make_ref(&file_name, bytes, lines, &digest));
        let outcome = match &saved {
            Ok(r) => Saved::Spilled(r),
            Err(e) => Saved::Failed(e.message()),
        };
        let notice = NoticeParts {
            call,
            style: &self.settings.notice,
            features: self.settings.features,
        };
        let (preview, loss) = preview_within(text, budget, &index, outcome, &notice);
        let (spill, spill_error) = match saved {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Capped {
            text: preview,
            truncated: true,
            original_bytes: bytes,
            original_lines: lines,
            omitted_bytes: loss.omitted_bytes,
            omitted_lines: loss.omitted_lines,
            gap_line: Some(loss.gap_line),
            notable_lines: 0,
            folded_lines: 0,
            spill,
            spill_error,
        })
    }
}

fn fits(budget: &Budget, bytes: u64, lines: u64) -> bool {
    budget.is_disabled()
        || (bytes <= u64::from(budget.max_bytes)
            && budget.max_lines.is_none_or(|m| lines <= u64::from(m)))
}

fn unchanged(text: String, lines: u64) -> Capped {
    Capped {
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
    }
}

/// What the notice of one cut is made of, besides its numbers.
#[derive(Debug, Clone, Copy)]
struct NoticeParts<'a> {
    call: &'a Call,
    style: &'a NoticeStyle,
    features: PreviewFeatures,
}

impl NoticeParts<'_> {
    /// The form of notice for a cut under `budget`: compact when the full
    /// one would take more than a quarter of the bytes or lines.
    fn form(&self, budget: &Budget, full_room: usize) -> NoticeForm {
        if !self.features.adaptive_notice {
            return NoticeForm::Full;
        }
        let lines_tight = budget
            .max_lines
            .is_some_and(|m| u64::from(m) < 4 * (notice::NOTICE_LINES + GAP_LINES));
        if full_room * 4 > budget.max_bytes as usize || lines_tight {
            NoticeForm::Compact
        } else {
            NoticeForm::Full
        }
    }
}

/// The worst-case room of any notice of this session: numbers of 20 digits,
/// the longest file name, the longest failure reason and tool name. Budgets
/// must leave room for the smallest form that can be chosen.
fn worst_room(scheme: &RefScheme, settings: &PreviewSettings) -> NoticeRoom {
    let form = if settings.features.adaptive_notice {
        NoticeForm::Compact
    } else {
        NoticeForm::Full
    };
    let worst = Loss {
        original_bytes: MAX_NUMBER,
        original_lines: MAX_NUMBER,
        omitted_bytes: MAX_NUMBER,
        omitted_lines: MAX_NUMBER,
        gap_line: MAX_NUMBER - 40,
    };
    let long_ref = OverflowRef {
        path: String::new(),
        relative_path: String::new(),
        bytes: MAX_NUMBER,
        lines: MAX_NUMBER,
        digest: "0".repeat(naming::DIGEST_HEX),
        tag: "0".repeat(crate::refs::TAG_HEX),
    };
    let failed_call = Call {
        id: String::new(),
        tool: Some("x".repeat(crate::call::MAX_TOOL_NAME_BYTES)),
        exit_code: Some(i32::MIN),
        is_error: true,
    };
    let style = &settings.notice;
    let spilled =
        notice::render_notice(&worst, Saved::Spilled(&long_ref), &failed_call, style, form).len()
            + (scheme.max_token_len() - RefScheme::token(&long_ref).len());
    let reason = "x".repeat(notice::MAX_REASON_BYTES);
    let failed =
        notice::render_notice(&worst, Saved::Failed(&reason), &failed_call, style, form).len();
    let gap = notice::gap_marker(0, MAX_NUMBER, MAX_NUMBER).len() + 1;
    NoticeRoom {
        bytes: spilled.max(failed) + gap + 1,
        lines: form.lines() + GAP_LINES,
    }
}

/// The room this call's notice needs in `form`, with its real path, reason
/// and call, and numbers bounded by the input's size.
fn call_room(
    bytes: u64,
    lines: u64,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    form: NoticeForm,
) -> usize {
    let bound = Loss {
        original_bytes: bytes,
        original_lines: lines,
        omitted_bytes: bytes,
        // At least 2: "0 whole lines" of a one-line text is longer than "1 whole line".
        omitted_lines: lines.max(2),
        gap_line: lines.max(1),
    };
    let text = notice::render_notice(&bound, outcome, notice.call, notice.style, form).len();
    let gap = "[...  bytes omitted here (bytes .. of the full output, from line ) ...]".len()
        + 3 * digits(bytes)
        + digits(lines.max(1))
        + 1;
    text + gap + 1
}

/// Build the preview and notice for a text that does not fit.
fn preview_within(
    text: &str,
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
) -> (String, Loss) {
    let bytes = text.len() as u64;
    let lines = index.lines();
    let max_bytes = budget.max_bytes as usize;
    let form = notice.form(
        budget,
        call_room(bytes, lines, outcome, notice, NoticeForm::Full),
    );
    let reserve = call_room(bytes, lines, outcome, notice, form);
    let allow = Allowance {
        bytes: max_bytes.saturating_sub(reserve),
        lines: budget.max_lines.map_or(usize::MAX, |m| {
            (m as usize).saturating_sub((form.lines() + GAP_LINES) as usize)
        }),
    };
    let max_line = budget.max_line_bytes.map(|m| m as usize);
    let leaning = lean_to_tail(budget, notice);
    let (head, head_end, tail) = choose(text, &leaning, allow, max_line);
    let loss = account(text, index, &head, &tail);
    // Never reserve the budget itself: max-bytes may be huge next to the text.
    let mut out = String::with_capacity(max_bytes.min(text.len() + reserve));
    cut::render(text, &head.items, &mut out);
    let tail_start = tail.ranges().next().map_or(text.len(), |(a, _)| a);
    if head_end < tail_start {
        let gap_line = index.line_of(head_end);
        out.push_str(&notice::gap_marker(
            head_end as u64,
            tail_start as u64,
            gap_line,
        ));
        out.push('\n');
    }
    cut::render(text, &tail.items, &mut out);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&notice::render_notice(
        &loss,
        outcome,
        notice.call,
        notice.style,
        form,
    ));
    debug_assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
    (out, loss)
}

/// A failed call's head-and-tail preview gives the head half its usual share:
/// errors and summaries come last.
fn lean_to_tail(budget: &Budget, notice: &NoticeParts<'_>) -> Budget {
    let lean = notice.features.adaptive_notice
        && notice.call.failed()
        && budget.keep == Keep::HeadAndTail
        && budget.head_percent < 100;
    Budget {
        head_percent: if lean {
            budget.head_percent / 2
        } else {
            budget.head_percent
        },
        ..*budget
    }
}

/// The choice `budget` really makes: `head-and-tail` with `head-percent` 100
/// leaves nothing to a tail and is `head`; with 0 it is `tail`.
fn effective_keep(budget: &Budget) -> Keep {
    match (budget.keep, budget.head_percent) {
        (Keep::HeadAndTail, 100) => Keep::Head,
        (Keep::HeadAndTail, 0) => Keep::Tail,
        (keep, _) => keep,
    }
}

/// Split the allowance between head and tail as `keep` asks; the tail gets
/// whatever the head leaves.
fn choose(
    text: &str,
    budget: &Budget,
    allow: Allowance,
    max_line: Option<usize>,
) -> (Side, usize, Side) {
    let keep = effective_keep(budget);
    let share = match keep {
        Keep::Head => 100,
        Keep::Tail => 0,
        Keep::HeadAndTail => usize::from(budget.head_percent),
    };
    let head_allow = Allowance {
        bytes: allow.bytes * share / 100,
        lines: if allow.lines == usize::MAX {
            usize::MAX
        } else {
            allow.lines * share / 100
        },
    };
    let (head, head_end) = cut::head(text, text.len(), head_allow, max_line);
    if keep == Keep::Head {
        return (head, head_end, Side::default());
    }
    let tail_allow = Allowance {
        bytes: allow.bytes - head.bytes,
        lines: allow.lines.saturating_sub(head.lines),
    };
    let (tail, _) = cut::tail(text, head_end, tail_allow, max_line);
    (head, head_end, tail)
}

/// Exact loss accounting from the ranges actually shown.
fn account(text: &str, index: &LineIndex<'_>, head: &Side, tail: &Side) -> Loss {
    let lines = index.lines();
    let shown = (head.shown() + tail.shown()) as u64;
    let mut cursor = 0;
    let mut gap = None;
    for (a, e) in head.ranges().chain(tail.ranges()) {
        if a > cursor && gap.is_none() {
            gap = Some(cursor);
        }
        cursor = e;
    }
    let gap = gap.unwrap_or(cursor);
    let head_last = head
        .ranges()
        .last()
        .map_or(0, |(_, e)| index.line_of(e - 1));
    let tail_first = tail
        .ranges()
        .next()
        .map_or(lines + 1, |(a, _)| index.line_of(a));
    Loss {
        original_bytes: text.len() as u64,
        original_lines: lines,
        omitted_bytes: text.len() as u64 - shown,
        omitted_lines: tail_first.saturating_sub(head_last + 1),
        gap_line: index.line_of(gap),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ];
        // The folder's length in the WIT's words.
        let documented_folder = |id: &str| {
            let plain = id.len() <= 48
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            let b = id.as_bytes();
            let hex_end = b.len() >= 16 && b[b.len() - 16..].iter().all(u8::is_ascii_hexdigit);
            let hashed_look = hex_end && (b.len() == 16 || b[b.len() - 17] == b'-');
            if plain && !hashed_look {
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
            assert_eq!(
                room,
                NoticeRoom {
                    bytes: want,
                    lines: 3
                },
                "{root} {thread}"
            );
        }
    }
}
