//! Capping one tool result: decide, spill through the host's store, preview,
//! and account for every byte.
//!
//! # The preview
//!
//! A text that does not fit becomes a preview and a notice, within every
//! limit of the budget, notice included:
//!
//! ```text
//! <head: the first lines>
//! [... 90232 bytes omitted here (bytes 629..90861 of the full output, from line 23) ...]
//! <tail: the last lines>
//! [toolcap] ...the notice...
//! ```
//!
//! With every refinement on ([`PreviewFeatures::ALL`]):
//!
//! - **Notable lines** of the omitted middle stand between two markers
//!   instead of the one gap marker, each with its line number
//!   ([`crate::notable`] gives the format and the patterns), within a
//!   quarter of the budget.
//! - **Folding**: a run of lines that differ only in numbers shows one line
//!   and `[... 118 more lines like the one above]` (`below` in the tail;
//!   [`crate::fold`]).
//! - **Fill**: the side chosen last cuts the line that does not fit to fill
//!   its room, and the budget still left flows back to lines cut by
//!   `max-line-bytes` and to the partly shown lines at the gap, so a single
//!   huge line shows both of its ends up to the budget. Cuts inside a line
//!   keep extended grapheme clusters whole.
//! - **JSON**: a whole JSON object or array becomes one header line
//!   ([`JSON_HEADER`]), a preview that is valid JSON
//!   ([`crate::json_preview`]), and the notice.
//!
//! # Accounting
//!
//! `omitted-bytes` counts the bytes of the input not shown verbatim;
//! `omitted-lines` the lines of which no byte is shown (folded lines, the
//! similar lines a notable line stands for, and whole lines of the gap);
//! `gap-line` is the line of the first omitted byte; `notable-lines` the
//! lines shown with a `[line N]` prefix; `folded-lines` the lines behind
//! fold markers. All are counted from the ranges of the input the preview
//! shows. A JSON preview is a new rendering, not ranges of the input, so it
//! is accounted for simply: `omitted-bytes` is how much shorter it is than
//! the input, `omitted-lines` how many fewer lines it has, and `gap-line` the
//! first line where it differs from the input.
//!
//! Tokens: the preview's `tokens` are always counted whole. The input's
//! (`original-tokens` of a cut output, and `tokens` of a result that fits
//! a budget without `max-tokens`) only report, so a large input's are
//! estimated from evenly spread samples ([`crate::token_sample`], which
//! states the bounds); with `max-tokens` they are counted whole.
//!
//! # Large inputs
//!
//! A text above [`crate::capper::LARGE_INPUT`] (8 MiB for what looks like
//! JSON), under a budget of at most an eighth of that, gets the one-pass
//! preview of [`crate::stream`] instead: the same head, tail, notable lines
//! and notice, chosen from what a bounded memory can keep, with no folding,
//! no JSON preview and no diff analysis. `cap` and `cap-stream` then give the
//! same result for the same text, whatever its size.

use std::borrow::Cow;

pub use crate::capper::{Capped, Capper, SpillStore};
pub use crate::settings::{PreviewFeatures, PreviewSettings, RedactionSettings};

use crate::budget::{Budget, Keep};
use crate::call::Call;
use crate::capper::{Original, Preview, spill_output};
use crate::cut::{self, Allowance, Last, Middle, Shape, Side};
use crate::error::CapError;
use crate::notable::{self, Patterns, Room, Selection};
use crate::notice::{self, GAP_LINES, Loss, NoticeForm, Saved};
use crate::redact::Redactor;
use crate::room::{NoticeParts, call_room, effective_keep, lean_to_tail};
use crate::text::{LineIndex, count_lfs, count_lines, digits};
use crate::token_sample::{Sampling, sampled_estimate};
use crate::{diff, fold, json_preview, naming, search};

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
        if let Some((lines, tokens)) = self.measure_if_fits(&text, budget) {
            return Ok(unchanged(text.into_owned(), lines, tokens));
        }
        // A no-op for `cap`'s own budgets; a share of one is checked here.
        budget.validate(self.room)?;
        let looks_json = crate::stream::looks_json(text.as_bytes(), self.large_input);
        if crate::stream::is_large(text.len(), looks_json, budget, self.large_input) {
            return crate::stream::cap_whole(self, &text, budget, call, store, original);
        }
        self.cut(&text, budget, call, store, original)
    }

    /// Whether `text`, redacted as this session redacts, fits `budget`
    /// whole (bytes, lines and estimated tokens), whatever room the budget
    /// leaves for a notice. Nothing is saved.
    pub fn fits_whole(&self, text: &str, budget: &Budget) -> bool {
        let fits = |text: &str| {
            lines_if_fit(text, budget).is_some()
                && self.exact_tokens_if_fit(text, budget) != Some(None)
        };
        match self.redactor.as_ref().map(|r| r.redact(text).0) {
            Some(redacted) => fits(&redacted),
            None => fits(text),
        }
    }

    /// The lines and estimated tokens of `text` when it fits `budget` whole.
    /// Without `max-tokens` no token limit can bind, so the tokens only
    /// report, and a large text's are estimated from samples
    /// ([`Sampling::FIT`]).
    fn measure_if_fits(&self, text: &str, budget: &Budget) -> Option<(u64, u64)> {
        let lines = lines_if_fit(text, budget)?;
        let tokens = match self.exact_tokens_if_fit(text, budget) {
            Some(exact) => exact?,
            None => sampled_estimate(&self.estimator, text, Sampling::FIT),
        };
        Some((lines, tokens))
    }

    /// With `max-tokens`: `Some` of the exact estimate of `text` when it is
    /// within the limit (or the budget is disabled), `Some(None)` when it
    /// is over. Without: `None`, nothing counted.
    fn exact_tokens_if_fit(&self, text: &str, budget: &Budget) -> Option<Option<u64>> {
        let limit = budget.max_tokens?;
        let tokens = self.estimator.estimate(text);
        Some((budget.is_disabled() || tokens <= u64::from(limit)).then_some(tokens))
    }

    /// Spill and preview a text that does not fit.
    fn cut(
        &self,
        text: &str,
        budget: &Budget,
        call: &Call,
        store: &mut dyn SpillStore,
        original: Option<Original<'_>>,
    ) -> Result<Capped, CapError> {
        let bytes = text.len() as u64;
        // Count the lines while hashing: one pass over memory, not two.
        let mut lfs = 0;
        let digest = naming::content_digest_with(text.as_bytes(), |block| lfs += count_lfs(block));
        let index = LineIndex::with_lfs(text.as_bytes(), lfs);
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
        let preview = self.within_tokens(budget, |b| {
            preview_within(text, b, &index, outcome, &notice, &self.patterns)
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
            original_tokens: sampled_estimate(
                &self.estimator,
                text,
                Sampling::unless_max_tokens(budget, Sampling::REPORT),
            ),
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

/// The first line of a JSON preview.
pub const JSON_HEADER: &str =
    "[toolcap] JSON document cut to fit; the notice at the end says where the full output is.";

/// Largest input given a JSON preview. Parsing builds the whole document in
/// memory, several times the text's size; a larger document gets the text
/// preview, which needs no more memory than the budget.
pub const JSON_MAX_INPUT: usize = 8 * 1024 * 1024;

/// Build the preview and notice for a text that does not fit. When a head's
/// fold ran up to the tail, the preview that folds less is tried too, and
/// the one that shows more of the text kept: folding is worth it only when
/// it frees room for something better.
fn preview_within(
    text: &str,
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    patterns: &Patterns,
) -> Preview {
    let (folded, refoldable) =
        preview_shaped(text, budget, index, outcome, notice, patterns, false);
    if !refoldable {
        return folded;
    }
    let (refolded, _) = preview_shaped(text, budget, index, outcome, notice, patterns, true);
    if refolded.loss.omitted_bytes < folded.loss.omitted_bytes {
        refolded
    } else {
        folded
    }
}

/// [`preview_within`] with a fold that meets the tail kept (`refold`
/// false) or shortened; and whether one met the tail.
fn preview_shaped(
    text: &str,
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    patterns: &Patterns,
    refold: bool,
) -> (Preview, bool) {
    let bytes = text.len() as u64;
    let lines = index.lines();
    let max_bytes = budget.max_bytes as usize;
    let features = notice.features;
    let full_room = call_room(bytes, lines, outcome, notice, NoticeForm::Full);
    let form = notice.form(budget, full_room.0 + full_room.1);
    if features.json
        && let Some(json) = json_within(text, budget, index, outcome, notice, form, patterns)
    {
        return (json, false);
    }
    let (notice_room, gap_room) = call_room(bytes, lines, outcome, notice, form);
    let allow = Allowance {
        bytes: max_bytes.saturating_sub(notice_room + gap_room),
        lines: budget.max_lines.map_or(usize::MAX, |m| {
            (m as usize).saturating_sub((form.lines() + GAP_LINES) as usize)
        }),
    };
    let shape = Shape {
        max_line: budget.max_line_bytes.map(|m| m as usize),
        graphemes: features.fill,
        fill_room: features.fill,
        fold_reach: features.fold.then_some(0),
        spare_last_line: false,
        refold,
    };
    let leaning = lean_to_tail(budget, notice);
    let terms = notice.call.search_terms().unwrap_or_default();
    let notables = if features.notable {
        let searched = Searched {
            patterns,
            terms: &terms,
        };
        with_notable_lines(text, index, &leaning, allow, shape, searched, gap_room)
    } else {
        None
    };
    let (mut chosen, mut selection, used) = notables.unwrap_or_else(|| {
        (
            choose(text, &leaning, allow, shape),
            Selection::default(),
            (0, 0),
        )
    });
    if features.fill {
        join_split_line(&mut chosen);
    }
    // Number the notable lines and render them; their markers' room beyond
    // the gap marker's comes out of the allowance.
    let (head_end, tail_start) = (chosen.head_end, chosen.tail_start);
    selection.number(
        text.as_bytes(),
        (head_end, index.line_of(head_end)),
        (tail_start, index.line_of(tail_start)),
    );
    let markers = notable::marker_overhead(bytes, lines, gap_room);
    let last = if effective_keep(&leaning) == Keep::Head {
        Last::Head
    } else {
        Last::Tail
    };
    // Budget left goes to the lines cut (`fill`); a side that grows up to
    // a notable line takes it in (`adjoin`) and may grow on.
    // The last step is always an adjoin: a side that the last fill grew up
    // to a notable line takes it in.
    for round in 0..=FILL_ROUNDS {
        let adjoined = adjoin(text, &mut chosen, &mut selection);
        if round == FILL_ROUNDS || !features.fill || (!adjoined && fill_done(&chosen, &selection)) {
            break;
        }
        let notable_bytes = selection.cost(text, 0).0 + selection.digits_len();
        let markers = if selection.lines.is_empty() {
            0
        } else {
            markers
        };
        debug_assert!(selection.lines.is_empty() || notable_bytes + markers <= used.0);
        let (head_end, tail_start) = (chosen.head_end, chosen.tail_start);
        let shown_lines = chosen.head.lines + chosen.tail.lines + selection.lines.len();
        // Without a gap, the gap marker's room is free too.
        let no_gap = head_end >= tail_start;
        let room = Allowance {
            bytes: (allow.bytes + if no_gap { gap_room } else { 0 })
                .saturating_sub(chosen.head.bytes + chosen.tail.bytes + notable_bytes + markers),
            lines: allow
                .lines
                .saturating_add(if no_gap { GAP_LINES as usize } else { 0 })
                .saturating_sub(shown_lines + usize::from(!selection.lines.is_empty())),
        };
        let middle = Middle {
            head_end,
            tail_start,
            head_max: selection
                .lines
                .first()
                .map_or(tail_start, |s| s.reach(text).0),
            tail_min: selection.lines.last().map_or(head_end, |s| s.reach(text).1),
            new_line: Some(last),
        };
        (chosen.head_end, chosen.tail_start) =
            cut::fill(text, &mut chosen.head, &mut chosen.tail, room, middle);
        chosen.filled = true;
    }
    // A window taken in by both sides can close the middle inside a line.
    join_split_line(&mut chosen);
    if selection.lines.is_empty() {
        let may_shorten = budget.max_line_bytes.is_some();
        reach_hit_in_split_line(text, &mut chosen, &terms, &shape, may_shorten);
    }
    // Hits in the parts of head and tail lines that `max-line-bytes` cut
    // are in no middle: those lines show windows in place.
    if budget.max_line_bytes.is_some() {
        search::open_cut_lines(text, &mut chosen.head, &terms);
        search::open_cut_lines(text, &mut chosen.tail, &terms);
    }
    let (notable_items, _) = selection.items(text);
    let Chosen {
        head,
        head_end,
        tail,
        tail_start,
        refoldable,
        ..
    } = chosen;
    let loss = account(text, index, &head, &selection, &tail);
    // Never reserve the budget itself: max-bytes may be huge next to the text.
    let mut out = String::with_capacity(max_bytes.min(text.len() + notice_room + gap_room));
    cut::render(text, &head.items, &mut out);
    if head_end < tail_start {
        let first_line = index.line_of(head_end);
        let last_line = index.line_of(tail_start - 1);
        if selection.lines.is_empty() {
            out.push_str(&notice::gap_marker(
                head_end as u64,
                tail_start as u64,
                index.line_of(head_end),
            ));
        } else {
            out.push_str(&notable::open_marker(
                head_end as u64,
                tail_start as u64,
                first_line,
                last_line,
                selection.lines.len(),
            ));
            out.push('\n');
            cut::render(text, &notable_items, &mut out);
            out.push_str(&notable::close_marker(first_line, last_line));
        }
        out.push('\n');
    }
    cut::render(text, &tail.items, &mut out);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&notice::render_notice_lossy(
        &loss,
        outcome,
        notice.call,
        notice.style,
        form,
        notice.lossy,
    ));
    debug_assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
    let preview = Preview {
        text: out,
        loss,
        notable: selection.lines.len() as u64,
        folded: head.folded + tail.folded,
        tokens: 0,
    };
    (preview, refoldable)
}

/// A line the head shows in part and the tail shows the rest of, with
/// nothing omitted between them, is one line: the LF added after the
/// head's part goes.
fn join_split_line(chosen: &mut Chosen) {
    if let [.., cut::Item::Range(_, e), cut::Item::Newline] = chosen.head.items[..]
        && e == chosen.head_end
        && chosen.tail_start == e
        && chosen.tail.start() == Some(e)
    {
        chosen.head.items.pop();
        chosen.head.bytes -= 1;
        chosen.head.lines -= 1;
    }
}

/// Bytes shown beside a hit that a split line's part is moved to show.
const HIT_CONTEXT: usize = 64;

/// A search's first hit in the part of a line that head and tail leave out
/// between them (each shows one of its ends, the gap between): the nearer
/// side's part grows to show the hit and a little around it, and the other
/// side's part gives up as many bytes, when it has them; failing that, with
/// `max-line-bytes`, the text's last line is shortened instead
/// ([`shorten_split_line`]). Without a notable line in the middle, such a
/// hit had none of the middle's windows: the sides first took the line
/// otherwise (the tail as one line shortened, or its end), and `fill` then
/// split it around the hit.
fn reach_hit_in_split_line(
    text: &str,
    chosen: &mut Chosen,
    terms: &[&str],
    shape: &Shape,
    may_shorten: bool,
) {
    let b = text.as_bytes();
    let (e, t) = (chosen.head_end, chosen.tail_start);
    let [.., cut::Item::Range(a, end), cut::Item::Newline] = chosen.head.items[..] else {
        return;
    };
    let Some(&cut::Item::Range(ts, te)) = chosen.tail.items.first() else {
        return;
    };
    let in_one_line = end == e && e < t && ts == t && memchr::memchr(b'\n', &b[e..t]).is_none();
    if !in_one_line {
        return;
    }
    // Where the tail's part of the line ends (it may show lines after it).
    let part_end = memchr::memchr(b'\n', &b[t..te]).map_or(te, |i| t + i);
    // The first of the alternatives' first hits in the gap.
    let Some((hit, hit_end)) = terms
        .iter()
        .filter_map(|term| {
            let at = memchr::memmem::find(b, term.as_bytes())?;
            (at < t && at + term.len() > e).then_some((at, at + term.len()))
        })
        .min()
    else {
        return;
    };
    let line_start = memchr::memrchr(b'\n', &b[a..e]).map_or(a, |i| a + i + 1);
    // Toward the head: its part grows to the hit, the tail's gives as much.
    let head_end = shape
        .floor(text, (hit_end + HIT_CONTEXT).min(t))
        .max(hit_end);
    let tail_start = shape.ceil(text, t + (head_end - e));
    let (head_end, tail_start) = if head_end < tail_start && tail_start < part_end {
        (head_end, tail_start)
    } else {
        // Toward the tail: its part grows back to the hit, the head's gives.
        let tail_start = shape
            .floor(text, hit.saturating_sub(HIT_CONTEXT).max(e + 1))
            .min(hit);
        let head_end = shape.floor(text, e.saturating_sub(t - tail_start));
        if tail_start <= e || head_end <= line_start || head_end >= tail_start {
            if may_shorten {
                shorten_split_line(text, chosen, shape);
            }
            return;
        }
        (head_end, tail_start)
    };
    let items = chosen.head.items.len();
    if let cut::Item::Range(_, end) = &mut chosen.head.items[items - 2] {
        *end = head_end;
    }
    chosen.tail.items[0] = cut::Item::Range(tail_start, te);
    chosen.head.bytes = chosen.head.bytes + head_end - e;
    chosen.tail.bytes = chosen.tail.bytes + t - tail_start;
    (chosen.head_end, chosen.tail_start) = (head_end, tail_start);
}

/// The text's last line, split between head and tail around a hit too far
/// from the head's part to reach, shown instead as the line `max-line-bytes`
/// shortens (the head's part, then the cut), where `open_cut_lines` opens
/// the hit's window: the line's end gives way to the hit.
fn shorten_split_line(text: &str, chosen: &mut Chosen, shape: &Shape) {
    let b = text.as_bytes();
    let (e, t) = (chosen.head_end, chosen.tail_start);
    let ([.., cut::Item::Range(a, _), cut::Item::Newline], [cut::Item::Range(_, line_end)]) =
        (&chosen.head.items[..], &chosen.tail.items[..])
    else {
        return;
    };
    let (a, line_end) = (*a, *line_end);
    // Only the text's last line: the tail shows nothing after it.
    if memchr::memchr(b'\n', &b[t..line_end]).is_some_and(|i| t + i + 1 < line_end) {
        return;
    }
    let body = match &b[..line_end] {
        [.., b'\r', b'\n'] => line_end - 2,
        [.., b'\n'] => line_end - 1,
        _ => line_end,
    };
    if body <= e {
        return;
    }
    // The bytes the tail's part and the head's LF took go to the start,
    // less the cut marker.
    let freed = (line_end - t + 1).saturating_sub(cut::line_cut_len(body - e) + (line_end - body));
    let shown = shape.floor(text, (e + freed).min(body - 1)).max(e);
    let start = memchr::memrchr(b'\n', &b[a..e]).map_or(a, |i| a + i + 1);
    let head = &mut chosen.head;
    head.items.truncate(head.items.len() - 2);
    if start > a {
        head.items.push(cut::Item::Range(a, start));
    }
    head.bytes -= e - start + 1;
    head.lines -= 1;
    let mut items = vec![
        cut::Item::Range(start, shown),
        cut::Item::LineCut(body - shown),
    ];
    if line_end > body {
        items.push(cut::Item::Range(body, line_end));
    }
    chosen.tail.items = items;
    chosen.tail.bytes = (shown - start) + cut::line_cut_len(body - shown) + (line_end - body);
    (chosen.head_end, chosen.tail_start) = (start, start);
}

/// Whether `fill` has nothing more to do: it ran, and no side reached a
/// notable line it could take in.
fn fill_done(chosen: &Chosen, selection: &Selection) -> bool {
    chosen.filled
        && selection
            .lines
            .first()
            .is_none_or(|s| s.start != chosen.head_end)
        && selection
            .lines
            .last()
            .is_none_or(|s| s.end != chosen.tail_start)
}

/// Notable lines right after the head, or right before the tail, join it
/// as plain lines (a cut one keeps its cut, and shows its own line break):
/// nothing is omitted between them, and the side can then go on past them.
/// Whether any did.
fn adjoin(text: &str, chosen: &mut Chosen, selection: &mut Selection) -> bool {
    let before = selection.lines.len();
    while let Some(&first) = selection.lines.first()
        && first.start == chosen.head_end
        && let Some((items, bytes)) = plain_line(text, &first)
    {
        chosen.head.items.extend(items);
        chosen.head.bytes += bytes;
        chosen.head.lines += 1;
        chosen.head_end = first.end;
        selection.lines.remove(0);
    }
    while let Some(&last) = selection.lines.last()
        && last.end == chosen.tail_start
        && let Some((items, bytes)) = plain_line(text, &last)
    {
        chosen.tail.items.splice(0..0, items);
        chosen.tail.bytes += bytes;
        chosen.tail.lines += 1;
        chosen.tail_start = last.start;
        selection.lines.pop();
    }
    while let Some(&first) = selection.lines.first()
        && first.window
        && first.from == chosen.head_end
        && join_window_to_head(text, &mut chosen.head, &first)
    {
        chosen.head_end = first.range(text).1;
        selection.lines.remove(0);
    }
    while let Some(&last) = selection.lines.last()
        && last.window
        && last.range(text).1 == chosen.tail_start
        && join_window_to_tail(text, &mut chosen.tail, &last)
    {
        chosen.tail_start = last.from;
        selection.lines.pop();
    }
    selection.lines.len() < before
}

/// Times the budget left is given back ([`cut::fill`]) at most: each can
/// grow a side up to the next notable line, which it then takes in.
const FILL_ROUNDS: usize = 8;

/// A window that starts where the head ends continues it: the head's part
/// of the line grows by the window (or the window starts the head's next
/// line, shown in part). Whether it could.
fn join_window_to_head(text: &str, head: &mut Side, w: &notable::Shown) -> bool {
    let (a, e) = w.range(text);
    let ends_line = text.as_bytes()[e - 1] == b'\n';
    match head.items[..] {
        [.., cut::Item::Range(s, end), cut::Item::Newline] if end == a => {
            head.items.truncate(head.items.len() - 2);
            head.items.push(cut::Item::Range(s, e));
            head.bytes += e - a;
            if ends_line {
                head.bytes -= 1;
            } else {
                head.items.push(cut::Item::Newline);
            }
            true
        }
        _ if a == w.start && (a == 0 || text.as_bytes()[a - 1] == b'\n') => {
            head.items.push(cut::Item::Range(a, e));
            head.bytes += e - a;
            if !ends_line {
                head.items.push(cut::Item::Newline);
                head.bytes += 1;
            }
            head.lines += 1;
            true
        }
        _ => false,
    }
}

/// A window that ends where the tail starts continues it backwards: the
/// tail's first line, shown in part, starts earlier (or the window is the
/// end of the line before the tail's first). Whether it could.
fn join_window_to_tail(text: &str, tail: &mut Side, w: &notable::Shown) -> bool {
    let (a, e) = w.range(text);
    let b = text.as_bytes();
    match tail.items.first() {
        Some(&cut::Item::Range(s, end)) if s == e && b[e - 1] != b'\n' => {
            tail.items[0] = cut::Item::Range(a, end);
            tail.bytes += e - a;
            true
        }
        Some(&cut::Item::Range(s, _)) if s == e && b[e - 1] == b'\n' => {
            tail.items.insert(0, cut::Item::Range(a, e));
            tail.bytes += e - a;
            tail.lines += 1;
            true
        }
        _ => false,
    }
}

/// The items of a notable line shown as a plain line, and their bytes;
/// `None` for a line without LF.
fn plain_line(text: &str, s: &notable::Shown) -> Option<(Vec<cut::Item>, usize)> {
    let b = text.as_bytes();
    if b[s.end - 1] != b'\n' || s.window {
        return None;
    }
    let (a, e) = s.range(text);
    if e == s.end {
        return Some((vec![cut::Item::Range(a, e)], e - a));
    }
    // A CRLF stays whole: the CR is shown with the LF, not cut.
    let body = if b[s.end - 2] == b'\r' && s.end - 2 >= e {
        s.end - 2
    } else {
        s.end - 1
    };
    let cut = body - e;
    let marker = if cut == 0 {
        0
    } else {
        cut::line_cut_marker(cut).len()
    };
    let items = vec![
        cut::Item::Range(a, e),
        cut::Item::LineCut(cut),
        cut::Item::Range(body, s.end),
    ];
    Some((items, (e - a) + marker + (s.end - body)))
}

/// Head, tail and the notable lines of the middle between them, within
/// `allow`: head and tail are chosen with [`notable::SHARE_PERCENT`] of it
/// set aside, the notable lines of the middle they leave take what they need
/// of that share, and [`cut::fill`] gives the rest back. `None` when the
/// middle has no notable line that fits. With the selection come the bytes
/// and lines it uses, markers included.
fn with_notable_lines(
    text: &str,
    index: &LineIndex<'_>,
    budget: &Budget,
    allow: Allowance,
    shape: Shape,
    searched: Searched<'_>,
    gap_room: usize,
) -> Option<(Chosen, Selection, (usize, usize))> {
    let Searched { patterns, terms } = searched;
    let bytes = text.len() as u64;
    let overhead = notable::marker_overhead(bytes, index.lines(), gap_room);
    let share = Allowance {
        bytes: allow.bytes * notable::SHARE_PERCENT / 100,
        lines: if allow.lines == usize::MAX {
            usize::MAX
        } else {
            allow.lines * notable::SHARE_PERCENT / 100
        },
    };
    let room = Room {
        bytes: share.bytes.checked_sub(overhead)?,
        lines: share.lines.checked_sub(1).filter(|&l| l > 0)?,
        max_line: shape.max_line,
        line_digits: digits(index.lines()),
    };
    let less = |used: (usize, usize)| Allowance {
        bytes: allow.bytes - used.0,
        lines: if allow.lines == usize::MAX {
            usize::MAX
        } else {
            allow.lines - used.1
        },
    };
    let provisional = choose(text, budget, less((share.bytes, share.lines)), shape);
    // The search's hits are looked for in every omitted byte of the middle,
    // the parts of lines head and tail show in part included.
    let middle = (provisional.head_end, provisional.tail_start);
    let hits = if terms.is_empty() || middle.0 >= middle.1 {
        Vec::new()
    } else {
        search::first_hits(text.as_bytes(), middle.0, middle.1, terms)
    };
    let bounds = provisional.scan_bounds(text);
    if bounds.is_none() && hits.is_empty() {
        return None;
    }
    // Whole lines only: an empty range when the middle has none.
    let (lo, hi) = bounds.unwrap_or((middle.0, middle.0));
    let mut candidates = Vec::new();
    if lo < hi {
        // As many distinct lines as could ever be shown, twice over.
        let keep = room.lines.min(room.bytes / 12).clamp(1, 2048) * 2;
        candidates = notable::scan(text, lo, hi, patterns, keep);
        if diff::is_diff(text) {
            // Code that mentions errors is not a failure: in a diff, the rare
            // changes stand in for the failure lines; the host's patterns stay.
            candidates.retain(|c| c.score >= notable::HOST_SCORE);
            candidates.extend(diff::rare_changes(text, lo, hi, keep));
        }
    }
    let hits = notable::Hits {
        hits: &hits,
        terms: terms.len(),
        middle,
    };
    let selection = notable::select_with_hits(text, &candidates, lo, hi, room, &hits);
    if selection.lines.is_empty() {
        return None;
    }
    // What the lines leave of their share goes to `cut::fill`: the middle
    // stays as scanned, so no chosen line is lost to a growing head.
    let cost = selection.cost(text, room.line_digits);
    Some((provisional, selection, (cost.0 + overhead, cost.1 + 1)))
}

/// What the notable lines are looked for with: the session's patterns and
/// the call's search terms.
#[derive(Clone, Copy)]
struct Searched<'a> {
    patterns: &'a Patterns,
    terms: &'a [&'a str],
}

/// The JSON preview of a whole JSON document: [`JSON_HEADER`], the preview,
/// the notice. `None` when the text is not one JSON object or array, or no
/// preview fits (then the text preview applies).
fn json_within(
    text: &str,
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    form: NoticeForm,
    patterns: &Patterns,
) -> Option<Preview> {
    if text.len() > JSON_MAX_INPUT {
        return None;
    }
    // An item or string that holds a hit of the call's search is notable,
    // as one with a host pattern is.
    let terms = notice.call.search_terms().unwrap_or_default();
    let searched;
    let patterns = if terms.is_empty() {
        patterns
    } else {
        searched = patterns.with_terms(&terms);
        &searched
    };
    let doc = json_preview::parse_document_with(text, patterns)?;
    let bytes = text.len() as u64;
    let lines = index.lines();
    let (notice_room, _) = call_room(bytes, lines, outcome, notice, form);
    let reserve = notice_room + JSON_HEADER.len() + 1;
    let max_json = (budget.max_bytes as usize).checked_sub(reserve)?;
    let max_lines = budget.max_lines.map_or(usize::MAX, |m| {
        (m as usize).saturating_sub(form.lines() as usize + 1)
    });
    if max_lines == 0 {
        return None;
    }
    let pretty = text.trim().contains('\n');
    let mut json = json_preview::preview(&doc, max_json, pretty)?;
    if count_lines(json.text.as_bytes()) > max_lines as u64 {
        // Too many lines pretty: one compact line keeps the structure.
        json = json_preview::preview(&doc, max_json, false)?;
        if count_lines(json.text.as_bytes()) > max_lines as u64 {
            return None;
        }
    }
    let same = text
        .bytes()
        .zip(json.text.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(json.text.len().min(text.len()));
    let loss = Loss {
        original_bytes: bytes,
        original_lines: lines,
        omitted_bytes: bytes.saturating_sub(json.text.len() as u64),
        omitted_lines: lines.saturating_sub(count_lines(json.text.as_bytes())),
        gap_line: index.line_of(same).min(lines.max(1)),
    };
    let mut out = String::with_capacity(reserve + json.text.len());
    out.push_str(JSON_HEADER);
    out.push('\n');
    out.push_str(&json.text);
    out.push('\n');
    out.push_str(&notice::render_notice_lossy(
        &loss,
        outcome,
        notice.call,
        notice.style,
        form,
        notice.lossy,
    ));
    debug_assert!(out.len() <= budget.max_bytes as usize);
    Some(Preview {
        text: out,
        loss,
        notable: 0,
        folded: 0,
        tokens: 0,
    })
}

/// Head and tail of a preview, and the omitted middle between them.
#[derive(Debug, Clone)]
struct Chosen {
    head: Side,
    /// Where the middle starts: after the head and the lines it folded.
    head_end: usize,
    tail: Side,
    /// Where the middle ends: before the tail and the lines it folded.
    tail_start: usize,
    /// `cut::fill` has run.
    filled: bool,
    /// The head's fold ran up to the tail ([`Shape::refold`]).
    refoldable: bool,
}

impl Chosen {
    /// The whole lines of the middle, `lo..hi`, where notable lines are
    /// looked for; `None` when there are none.
    fn scan_bounds(&self, text: &str) -> Option<(usize, usize)> {
        let b = text.as_bytes();
        if self.head_end >= self.tail_start {
            return None;
        }
        let lo = if self.head_end == 0 || b[self.head_end - 1] == b'\n' {
            self.head_end
        } else {
            memchr::memchr(b'\n', &b[self.head_end..self.tail_start])
                .map(|i| self.head_end + i + 1)?
        };
        let hi = if self.tail_start == text.len() || b[self.tail_start - 1] == b'\n' {
            self.tail_start
        } else {
            memchr::memrchr(b'\n', &b[lo..self.tail_start]).map(|i| lo + i + 1)?
        };
        (lo < hi).then_some((lo, hi))
    }
}

/// The start of the earliest line before `end` such that the lines from it
/// to `end`, each shortened to `max_line` and marked, take at most `room`
/// bytes; `None` when not even one line does.
fn before_lines_worth(
    text: &str,
    end: usize,
    room: usize,
    max_line: Option<usize>,
) -> Option<usize> {
    let b = text.as_bytes();
    let (mut at, mut used) = (end, 0);
    while at > 0 {
        let start = memchr::memrchr(b'\n', &b[..at - 1]).map_or(0, |i| i + 1);
        let line = at - start;
        let shown = max_line.map_or(line, |m| line.min(m + cut::max_marker_len(line) + 1));
        if used + shown > room {
            break;
        }
        used += shown;
        at = start;
    }
    (at < end).then_some(at)
}

/// Split the allowance between head and tail as `keep` asks; the tail gets
/// whatever the head leaves.
fn choose(text: &str, budget: &Budget, allow: Allowance, shape: Shape) -> Chosen {
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
    let head_shape = Shape {
        fill_room: shape.fill_room && keep == Keep::Head,
        fold_reach: shape.fold_reach.map(|_| fold::reach(head_allow.bytes)),
        spare_last_line: keep != Keep::Head,
        ..shape
    };
    let (mut head, mut head_end) = cut::head(text, text.len(), head_allow, head_shape);
    if keep == Keep::Head {
        return Chosen {
            head,
            head_end,
            tail: Side::default(),
            tail_start: text.len(),
            filled: false,
            refoldable: false,
        };
    }
    let tail_allow = Allowance {
        bytes: allow.bytes - head.bytes,
        lines: allow.lines.saturating_sub(head.lines),
    };
    let tail_shape = Shape {
        fold_reach: shape.fold_reach.map(|_| fold::reach(tail_allow.bytes)),
        ..shape
    };
    let (mut tail, mut tail_start) = cut::tail(text, head_end, tail_allow, tail_shape);
    // A head whose fold ran up to the tail took lines the tail had room
    // for: the head folds up to what the tail can show, and the tail shows it.
    // (The tail may show the end of the line the head ends in, the text's
    // last: it meets the head there.)
    let spare = tail_allow.bytes - tail.bytes.min(tail_allow.bytes);
    let b = text.as_bytes();
    let meets = tail_start >= head_end && memchr::memchr(b'\n', &b[head_end..tail_start]).is_none();
    let line_start = memchr::memrchr(b'\n', &b[..head_end]).map_or(0, |i| i + 1);
    let refold_end = (head.folded > 0 && meets)
        .then(|| before_lines_worth(text, line_start, spare, shape.max_line))
        .flatten();
    let refold = refold_end.is_some();
    if shape.refold
        && let Some(end) = refold_end
    {
        (head, head_end) = cut::head(text, end, head_allow, head_shape);
        let tail_allow = Allowance {
            bytes: allow.bytes - head.bytes,
            lines: allow.lines.saturating_sub(head.lines),
        };
        (tail, tail_start) = cut::tail(text, head_end, tail_allow, tail_shape);
    }
    Chosen {
        head,
        head_end,
        tail,
        tail_start,
        filled: false,
        refoldable: refold,
    }
}

/// Exact loss accounting from the ranges actually shown: the head's and the
/// tail's, and the notable lines' (numbered).
fn account(
    text: &str,
    index: &LineIndex<'_>,
    head: &Side,
    notable: &Selection,
    tail: &Side,
) -> Loss {
    let b = text.as_bytes();
    let lines = index.lines();
    // Each shown range with the first and last line it touches, in order.
    let mut spans: Vec<(usize, usize, u64, u64)> = Vec::new();
    let (mut pos, mut line) = (0, 1);
    let mut forward = |p: usize| {
        line += count_lfs(&b[pos..p]);
        pos = p;
        line
    };
    for (a, e) in head.ranges() {
        let first = forward(a);
        spans.push((a, e, first, forward(e - 1)));
    }
    for s in &notable.lines {
        let (a, e) = s.range(text);
        spans.push((a, e, s.line, s.line));
    }
    let mut back = Vec::new();
    let (mut pos, mut line) = (text.len(), index.line_of(text.len()));
    let mut backward = |p: usize| {
        line -= count_lfs(&b[p..pos]);
        pos = p;
        line
    };
    for (a, e) in tail.ranges().collect::<Vec<_>>().into_iter().rev() {
        let last = backward(e - 1);
        back.push((a, e, backward(a), last));
    }
    spans.extend(back.into_iter().rev());
    let shown: usize = spans.iter().map(|&(a, e, _, _)| e - a).sum();
    let mut touched = 0;
    let mut last_counted = 0;
    for &(_, _, first, last) in &spans {
        let first = first.max(last_counted + 1);
        if last >= first {
            touched += last - first + 1;
            last_counted = last;
        }
    }
    let mut gap = 0;
    for &(a, e, _, _) in &spans {
        if a > gap {
            break;
        }
        gap = gap.max(e);
    }
    Loss {
        original_bytes: text.len() as u64,
        original_lines: lines,
        omitted_bytes: (text.len() - shown) as u64,
        omitted_lines: lines - touched,
        gap_line: index.line_of(gap),
    }
}

#[cfg(test)]
mod search_tests;

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
