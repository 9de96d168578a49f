//! Capping an MCP `CallToolResult` given as JSON (WIT `cap-mcp`).
//!
//! The content blocks map to content parts and go through [`cap_parts`]'s
//! own path (texts and embedded resource texts share the budget; images,
//! audio, blobs, `resource_link` and unknown blocks pass through). What this
//! module adds is MCP's shape:
//!
//! - Every block that passes through is written back exactly as received
//!   (its raw JSON), and a result that fits comes back as the very input
//!   string.
//! - A cut result's notice is its own first `text` block; the preview (what
//!   `cap` shows before its notice) stands where the first textual block was.
//! - `structuredContent` is never cut. It is kept, as received, when the
//!   whole result fits, or when it takes at most half of the budget (bytes,
//!   and estimated tokens when limited) and the rest is still a budget this
//!   session accepts: the texts then get the rest. Otherwise it is dropped
//!   whole and saved as its own spill (call id `<id>-structured`); a note of
//!   [`notice::STRUCTURED_NOTE_LINES`] lines in the notice block says so and
//!   where, and its room comes out of the texts' budget.
//! - The reference and accounting go into `_meta["tool-output-cap/cap"]`
//!   ([`meta::META_KEY`]) whenever something was cut or dropped.

mod blocks;
mod body;
mod extras;

mod lift;
pub mod meta;
mod streamed;

pub use streamed::McpStream;

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Capped, Capper, SpillStore, spill_output};
use crate::error::CapError;
use crate::naming;
use crate::notice::{self, Saved};
use crate::parts::{CappedParts, Part, Placed, cap_parts_checking_cut, cut_layout, joined_text};
use crate::raw_json as json;
use crate::redact::json::Shown;
use crate::redact::merge_counts;
use crate::refs::OverflowRef;
use crate::text::count_lines;
use meta::DroppedStructured;

/// How a result that did not fit is shaped. Mirrors WIT `mcp-options`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct McpOptions {
    /// Also add `resource_link` blocks to the spilled files.
    pub resource_link: bool,
}

/// An MCP result fitted to a budget. Mirrors WIT `capped-mcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedMcp {
    /// The result as JSON: the input itself when it fit.
    pub result: String,
    /// The accounting of the joined text of the content blocks (`text` is
    /// that text, or its preview and notice).
    pub report: Capped,
    /// `structuredContent` was dropped.
    pub structured_dropped: bool,
    /// Where the dropped `structuredContent` was saved.
    pub structured_spill: Option<OverflowRef>,
}

/// Fit the MCP `CallToolResult` `result` (JSON) to `budget` (see the module
/// documentation). `call.is_error` is set when the result says `isError:
/// true`. Fails with `invalid-argument` for input that is not a result
/// object with a list of object blocks, and with `invalid-budget` as `cap`
/// does, or when a dropped `structuredContent`'s note leaves texts that
/// must be cut less than this session's least budget.
pub fn cap_mcp(
    capper: &Capper,
    result: String,
    budget: &Budget,
    call: &Call,
    options: McpOptions,
    store: &mut dyn SpillStore,
) -> Result<CappedMcp, CapError> {
    cap_mcp_lifting(
        capper,
        result,
        budget,
        call,
        options,
        store,
        lift::LIFT_MIN_BYTES,
    )
}

/// [`cap_mcp`], lifting a text out of the result's JSON when its raw
/// string takes at least `lift_min` bytes ([`lift`]; tests move it).
fn cap_mcp_lifting(
    capper: &Capper,
    result: String,
    budget: &Budget,
    call: &Call,
    options: McpOptions,
    store: &mut dyn SpillStore,
    lift_min: usize,
) -> Result<CappedMcp, CapError> {
    budget.validate(capper.room())?;
    call.validate()?;
    let parsed = blocks::parse(&result)?;
    let Some(target) = lift::target(&result, &parsed, budget, lift_min) else {
        let (fitted, out) = cap_parsed(capper, &parsed, None, budget, call, options, store)?;
        drop(parsed);
        return Ok(fitted.into_result(out.unwrap_or(result)));
    };
    // One text is huge and will be cut: it is decoded where the JSON was.
    drop(parsed);
    let lifted = lift::lift(result, target);
    let parsed = blocks::parse(&lifted.json)?;
    let text = Some((lifted.block, lifted.text));
    let (fitted, out) = cap_parsed(capper, &parsed, text, budget, call, options, store)?;
    let out = match out {
        Some(out) => out,
        // Not reached (a lifted text is cut); should it be, the result
        // keeps its text, written anew.
        None => {
            let text = fitted.parts.get(lifted.block).and_then(part_text);
            lift::restore(&lifted.json, lifted.at, text.unwrap_or_default())
        }
    };
    Ok(fitted.into_result(out))
}

/// A parsed result made ready to fit: the call with the result's
/// `isError`, its blocks as parts, which of them are textual, the extras,
/// and with redaction the structured content as the model is shown it.
struct Prepared<'c> {
    call: Call,
    parts: Vec<Part>,
    textual: Vec<bool>,
    extras: extras::Extras,
    /// Redacts every string the model can be shown; `None` without redaction.
    shown: Option<Shown<'c>>,
    structured_shown: Option<Box<RawValue>>,
}

impl<'c> Prepared<'c> {
    /// `parsed` made ready, its block `lifted.0` given the text `lifted.1`
    /// (lifted out of its JSON).
    fn of(
        capper: &'c Capper,
        parsed: &blocks::McpResult<'_>,
        lifted: Option<(usize, String)>,
        budget: &Budget,
        call: &Call,
    ) -> Self {
        let call = Call {
            is_error: call.is_error || parsed.is_error,
            ..call.clone()
        };
        let mut parts: Vec<Part> = parsed.blocks.iter().map(|b| blocks::part_of(b)).collect();
        if let Some((block, text)) = lifted {
            match parts.get_mut(block) {
                Some(Part::Text(t)) => *t = text,
                Some(Part::Resource(r)) => r.text = Some(text),
                _ => unreachable!("a lifted text is a textual block's"),
            }
        }
        let textual: Vec<bool> = parts.iter().map(|p| part_text(p).is_some()).collect();
        let extras = extras::Extras::of(parsed, &parts, capper.estimator(), budget);
        // With redaction, every string the model can be shown is redacted, the
        // structured content first: its redacted size is what the budget sees.
        let mut shown = capper.redactor().map(Shown::new);
        let structured_shown: Option<Box<RawValue>> = match (&mut shown, parsed.structured) {
            (Some(shown), Some(s)) => shown.value(s).and_then(|v| RawValue::from_string(v).ok()),
            _ => None,
        };
        Prepared {
            call,
            parts,
            textual,
            extras,
            shown,
            structured_shown,
        }
    }
}

/// [`cap_mcp`] of a parsed result, whose block `lifted.0` has the text
/// `lifted.1` (lifted out of its JSON). The output is `None` when it is
/// the input as received.
fn cap_parsed(
    capper: &Capper,
    parsed: &blocks::McpResult<'_>,
    lifted: Option<(usize, String)>,
    budget: &Budget,
    call: &Call,
    options: McpOptions,
    store: &mut dyn SpillStore,
) -> Result<(Fitted, Option<String>), CapError> {
    let prepared = Prepared::of(capper, parsed, lifted, budget, call);
    let structured_shown = prepared.structured_shown.as_deref();
    let structured = Structured::of(parsed.structured, structured_shown);
    let fits = |parts: &[Part], budget: &Budget| capper.fits_whole(&joined_text(parts), budget);
    let call = &prepared.call;
    let plan = fit(
        capper,
        prepared.parts,
        parsed,
        prepared.extras,
        structured,
        budget,
        call,
        store,
        &fits,
    )?;
    let capped = plan.cap_texts(capper, call, store)?;
    Ok(output(
        parsed,
        capped,
        &prepared.textual,
        options,
        prepared.shown,
        structured_shown,
    ))
}

/// The result written for `capped`; `None` when it is the input as received.
fn output(
    parsed: &blocks::McpResult<'_>,
    mut capped: Fitted,
    textual: &[bool],
    options: McpOptions,
    mut shown: Option<Shown<'_>>,
    structured_shown: Option<&RawValue>,
) -> (Fitted, Option<String>) {
    if !capped.changed() && shown.is_none() {
        return (capped, None);
    }
    let out = write(
        parsed,
        &capped,
        textual,
        options,
        shown.as_mut(),
        structured_shown,
    );
    if let Some(shown) = shown {
        merge_counts(&mut capped.report.redactions, &shown.counts);
    }
    if !capped.changed() {
        return (capped, None);
    }
    (capped, Some(out))
}

/// The text of a textual part.
fn part_text(part: &Part) -> Option<&str> {
    match part {
        Part::Text(t) => Some(t),
        Part::Resource(r) => r.text.as_deref(),
        _ => None,
    }
}

/// The structured content as received, and as the model is shown it.
#[derive(Clone, Copy)]
struct Structured<'a> {
    received: &'a RawValue,
    shown: &'a RawValue,
}

impl<'a> Structured<'a> {
    fn of(received: Option<&'a RawValue>, shown: Option<&'a RawValue>) -> Option<Self> {
        received.map(|received| Structured {
            received,
            shown: shown.unwrap_or(received),
        })
    }
}

/// The texts capped and the structured content's fate.
struct Fitted {
    /// The parts as `cap-parts` returns them (redacted when they fit).
    parts: Vec<Part>,
    /// Where each part of a cut result comes from ([`cut_layout`] of the
    /// parts capped: the blocks', or with the extras as text).
    layout: Vec<Placed>,
    /// The extras took more than half of the budget and were capped as text.
    extras_as_text: bool,
    report: Capped,
    dropped: Option<DroppedStructured>,
    /// The note on the dropped structured content, for the notice block.
    note: Option<String>,
}

impl Fitted {
    /// Whether the output differs from the input.
    fn changed(&self) -> bool {
        self.report.truncated || self.dropped.is_some() || !self.report.redactions.is_empty()
    }

    fn into_result(self, result: String) -> CappedMcp {
        CappedMcp {
            result,
            structured_dropped: self.dropped.is_some(),
            structured_spill: self.dropped.and_then(|d| d.saved.ok()),
            report: self.report,
        }
    }
}

/// What [`fit`] decided before the texts are capped: the parts whose texts
/// are capped, in which budget, and the structured content's fate.
#[derive(Debug)]
struct Plan {
    parts: Vec<Part>,
    budget: Budget,
    layout: Vec<Placed>,
    extras_as_text: bool,
    dropped: Option<Dropped>,
}

/// A structured content dropped and saved (or not: why).
#[derive(Debug)]
struct Dropped {
    bytes: u64,
    saved: Result<OverflowRef, CapError>,
    /// What an `invalid-budget` of the texts' cap says instead: how much
    /// room the note took.
    too_small: String,
}

impl Plan {
    /// The texts of `parts` capped in `budget`; nothing dropped.
    fn kept(parts: Vec<Part>, budget: Budget) -> Self {
        Plan {
            layout: cut_layout(&parts),
            parts,
            budget,
            extras_as_text: false,
            dropped: None,
        }
    }

    /// `error` of capping the texts, as the caller is told it.
    fn map_error(&self, error: CapError) -> CapError {
        match (error, &self.dropped) {
            (CapError::InvalidBudget(_), Some(d)) => CapError::InvalidBudget(d.too_small.clone()),
            (other, _) => other,
        }
    }

    /// The texts capped whole (as `cap-parts` caps them), and the plan done.
    fn cap_texts(
        self,
        capper: &Capper,
        call: &Call,
        store: &mut dyn SpillStore,
    ) -> Result<Fitted, CapError> {
        let mut plan = self;
        let parts = std::mem::take(&mut plan.parts);
        let capped = cap_parts_checking_cut(capper, parts, &plan.budget, call, store)
            .map_err(|e| plan.map_error(e))?;
        Ok(plan.done(capper, call, capped))
    }

    /// The plan done with its texts capped as `capped`.
    fn done(self, capper: &Capper, call: &Call, capped: CappedParts) -> Fitted {
        let (dropped, note) = match self.dropped {
            None => (None, None),
            Some(d) => {
                let outcome = match &d.saved {
                    Ok(r) => Saved::Spilled(r),
                    Err(e) => Saved::Failed(e.message()),
                };
                let style = &capper.settings().notice;
                let note = notice::structured_note(
                    d.bytes,
                    outcome,
                    call,
                    style,
                    !capped.report.truncated,
                );
                let dropped = DroppedStructured {
                    bytes: d.bytes,
                    saved: d.saved.map_err(|e| e.to_string()),
                };
                (Some(dropped), Some(note))
            }
        };
        Fitted {
            parts: capped.parts,
            layout: self.layout,
            extras_as_text: self.extras_as_text,
            report: capped.report,
            dropped,
            note,
        }
    }
}

/// Whether the texts of some parts keep every limit of a budget whole.
type TextsFit<'f> = &'f dyn Fn(&[Part], &Budget) -> bool;

/// Plan the texts' cap, keeping the extras or capping them as text, and
/// keeping or dropping (and saving) the structured content.
#[allow(clippy::too_many_arguments)]
fn fit(
    capper: &Capper,
    parts: Vec<Part>,
    parsed: &blocks::McpResult<'_>,
    extras: extras::Extras,
    structured: Option<Structured<'_>>,
    budget: &Budget,
    call: &Call,
    store: &mut dyn SpillStore,
    fits: TextsFit<'_>,
) -> Result<Plan, CapError> {
    if budget.is_disabled() {
        return Ok(Plan::kept(parts, *budget));
    }
    let raw = structured.map_or("", |s| s.shown.get());
    let tokens = if budget.max_tokens.is_some() {
        capper.estimator().estimate(raw)
    } else {
        0
    };
    // Everything fits as it is: nothing moves.
    if let Some(rest) = less(
        budget,
        raw.len() as u64 + extras.bytes,
        tokens + extras.tokens,
        0,
    ) && fits(&parts, &rest)
    {
        return Ok(Plan::kept(parts, rest));
    }
    // The extras keep their place in at most half of the budget, as long as
    // the texts can still be cut in the rest; otherwise they are text.
    let beside_extras = less(budget, extras.bytes, extras.tokens, 0)
        .filter(|rest| extras.may_stay(budget) && rest.validate(capper.room()).is_ok());
    let (parts, budget, extras_as_text) = match beside_extras {
        Some(rest) => (parts, rest, false),
        None => (extras::as_text(parts, parsed), *budget, true),
    };
    let mut plan = match structured {
        Some(s) => fit_structured(capper, parts, s, raw, tokens, &budget, call, store, fits)?,
        None => Plan::kept(parts, budget),
    };
    plan.extras_as_text = extras_as_text;
    Ok(plan)
}

/// Keep the structured content (`raw` as shown, `tokens` estimated when
/// limited) when it takes at most half of `budget`, else drop it.
#[allow(clippy::too_many_arguments)]
fn fit_structured(
    capper: &Capper,
    parts: Vec<Part>,
    structured: Structured<'_>,
    raw: &str,
    tokens: u64,
    budget: &Budget,
    call: &Call,
    store: &mut dyn SpillStore,
    fits: TextsFit<'_>,
) -> Result<Plan, CapError> {
    if let Some(rest) = less(budget, raw.len() as u64, tokens, 0) {
        let half = raw.len() as u64 * 2 <= u64::from(budget.max_bytes)
            && budget.max_tokens.is_none_or(|t| tokens * 2 <= u64::from(t));
        if fits(&parts, &rest) || (half && rest.validate(capper.room()).is_ok()) {
            return Ok(Plan::kept(parts, rest));
        }
    }
    drop_structured(capper, parts, structured, budget, call, store)
}

/// Save the structured content; the texts are capped in what its note leaves.
fn drop_structured(
    capper: &Capper,
    parts: Vec<Part>,
    structured: Structured<'_>,
    budget: &Budget,
    call: &Call,
    store: &mut dyn SpillStore,
) -> Result<Plan, CapError> {
    let bytes = structured.shown.get().len() as u64;
    let structured_call = Call {
        id: format!("{}-structured", call.id),
        ..call.clone()
    };
    // Redacted as JSON (it stays valid) when the policy redacts spills;
    // otherwise as received.
    let content = if capper.redacts_spill() {
        structured.shown.get()
    } else {
        structured.received.get()
    };
    let digest = naming::content_digest(content.as_bytes());
    let lines = count_lines(content.as_bytes());
    let saved = spill_output(
        capper.scheme(),
        store,
        &structured_call,
        content.as_bytes(),
        &digest,
        lines,
    );
    let outcome = match &saved {
        Ok(r) => Saved::Spilled(r),
        Err(e) => Saved::Failed(e.message()),
    };
    let style = &capper.settings().notice;
    // The room is the longer note, with the failure stated; the note stated
    // after a text notice leaves it out.
    let longest = notice::structured_note(bytes, outcome, call, style, true);
    let too_small = format!(
        "max-bytes {} is too small for this result: its structuredContent ({bytes} \
         bytes) did not fit and the note saying so takes {} bytes, which leaves its \
         texts, which must be cut, less than the least budget this session accepts \
         ({} bytes; {} estimated tokens and {} lines when limited)",
        budget.max_bytes,
        longest.len() + 1,
        capper.room().bytes,
        capper.room().tokens,
        capper.room().lines,
    );
    let room = less(
        budget,
        longest.len() as u64 + 1,
        capper.estimator().estimate(&longest) + 1,
        notice::STRUCTURED_NOTE_LINES as u32,
    )
    .ok_or_else(|| CapError::InvalidBudget(too_small.clone()))?;
    Ok(Plan {
        dropped: Some(Dropped {
            bytes,
            saved,
            too_small,
        }),
        ..Plan::kept(parts, room)
    })
}

/// `budget` less what something beside the texts takes; `None` when that
/// leaves no byte, token or line.
fn less(budget: &Budget, bytes: u64, tokens: u64, lines: u32) -> Option<Budget> {
    let max_bytes = u32::try_from(u64::from(budget.max_bytes).checked_sub(bytes)?).ok()?;
    let max_tokens = match budget.max_tokens {
        None => None,
        Some(t) => Some(u32::try_from(u64::from(t).checked_sub(tokens)?).ok()?),
    };
    let max_lines = match budget.max_lines {
        None => None,
        Some(l) => Some(l.checked_sub(lines)?),
    };
    let left = Budget {
        max_bytes,
        max_tokens,
        max_lines,
        ..*budget
    };
    (max_bytes > 0 && max_tokens != Some(0) && max_lines != Some(0)).then_some(left)
}

/// The output result: the input's members in order (a repeated one once),
/// with the new content, without a dropped `structuredContent`, and with
/// the record added to `_meta` when something was cut or dropped.
fn write(
    parsed: &blocks::McpResult<'_>,
    fitted: &Fitted,
    textual: &[bool],
    options: McpOptions,
    mut shown: Option<&mut Shown<'_>>,
    structured_shown: Option<&RawValue>,
) -> String {
    let content = content(parsed, fitted, textual, options, shown.as_deref_mut());
    let cut = fitted.report.truncated || fitted.dropped.is_some();
    // Extras capped as text are in the preview and the spill, not here.
    let extras_cut = fitted.extras_as_text && fitted.report.truncated;
    // The server's own `_meta` members, redacted when the session redacts;
    // the record of this cap is added when something was cut or dropped.
    let server_meta: Vec<(&str, String)> = parsed
        .meta
        .iter()
        .flat_map(|m| m.unique())
        .filter(|(k, _)| !extras_cut && (!cut || *k != meta::META_KEY))
        .map(|(k, v)| {
            let value = shown.as_deref_mut().and_then(|s| s.value(v));
            (k, value.unwrap_or_else(|| v.get().to_owned()))
        })
        .collect();
    let meta_changed = parsed.meta.as_ref().is_some_and(|m| {
        m.unique()
            .zip(&server_meta)
            .any(|((_, v), (_, new))| v.get() != new)
    });
    let meta = (cut || meta_changed).then(|| {
        let mut out = String::new();
        let record = cut.then(|| meta::record(&fitted.report, fitted.dropped.as_ref()));
        json::push_object(
            &mut out,
            server_meta
                .iter()
                .map(|(k, v)| (*k, v.as_str()))
                .chain(record.as_deref().map(|r| (meta::META_KEY, r))),
        );
        out
    });
    // Other members the server added are shown to the model too.
    let others: Vec<Option<String>> = parsed
        .members
        .unique()
        .map(|(key, value)| match extras::is_extra_member(key) {
            false => None,
            true => shown.as_deref_mut().and_then(|s| s.value(value)),
        })
        .collect();
    let has = |key: &str| parsed.members.get(key).is_some();
    let mut members: Vec<(&str, &str)> = Vec::new();
    if !has("content") {
        members.push(("content", &content));
    }
    for ((key, value), other) in parsed.members.unique().zip(&others) {
        match key {
            "content" => members.push((key, &content)),
            "structuredContent" if fitted.dropped.is_some() => {}
            "structuredContent" => {
                members.push((key, structured_shown.unwrap_or(value).get()));
            }
            "_meta" => members.push((key, meta.as_deref().unwrap_or(value.get()))),
            _ if extras_cut && extras::is_extra_member(key) => {}
            _ => members.push((key, other.as_deref().unwrap_or(value.get()))),
        }
    }
    if let Some(meta) = meta.as_deref()
        && !has("_meta")
    {
        members.push(("_meta", meta));
    }
    let mut out = String::new();
    json::push_object(&mut out, members);
    out
}

/// The new content list (JSON).
fn content(
    parsed: &blocks::McpResult<'_>,
    fitted: &Fitted,
    textual: &[bool],
    options: McpOptions,
    mut shown: Option<&mut Shown<'_>>,
) -> String {
    let report = &fitted.report;
    let text_block = |text: &str| {
        let mut b = String::from(r#"{"type":"text","text":"#);
        json::push_string(&mut b, text);
        b.push('}');
        b
    };
    let (preview, notice_text) = if report.truncated {
        let (preview, notice) = notice::split_notice(&report.text);
        let with_note = match &fitted.note {
            Some(note) => format!("{notice}\n{note}"),
            None => notice.to_owned(),
        };
        (preview, Some(with_note))
    } else {
        ("", fitted.note.clone())
    };
    let mut list: Vec<Cow<'_, str>> = Vec::new();
    if let Some(n) = &notice_text {
        list.push(Cow::Owned(text_block(n)));
    }
    if options.resource_link {
        if let Some(r) = &report.spill {
            list.push(Cow::Owned(meta::resource_link(r, "text/plain")));
        }
        if let Some(Ok(r)) = fitted.dropped.as_ref().map(|d| &d.saved) {
            list.push(Cow::Owned(meta::resource_link(r, "application/json")));
        }
    }
    // A block written as received, or with every string the model is shown
    // redacted (its other members: annotations, a link's uri and name...).
    if report.truncated {
        for placed in &fitted.layout {
            list.push(match *placed {
                Placed::Preview => Cow::Owned(text_block(preview)),
                Placed::Kept(i) => raw_block(parsed.blocks[i], shown.as_deref_mut()),
                Placed::TextRemoved(i) => Cow::Owned(shown_block(
                    blocks::with_text(parsed.blocks[i], true, None),
                    shown.as_deref_mut(),
                )),
            });
        }
    } else {
        let redacted = !report.redactions.is_empty();
        // (Extras capped as text but not cut are written as received.)
        for (i, part) in fitted.parts.iter().take(parsed.blocks.len()).enumerate() {
            list.push(match part {
                Part::Text(t) if redacted && textual[i] => Cow::Owned(shown_block(
                    blocks::with_text(parsed.blocks[i], false, Some(t)),
                    shown.as_deref_mut(),
                )),
                Part::Resource(r) if redacted && textual[i] => Cow::Owned(shown_block(
                    blocks::with_text(parsed.blocks[i], true, r.text.as_deref()),
                    shown.as_deref_mut(),
                )),
                _ => raw_block(parsed.blocks[i], shown.as_deref_mut()),
            });
        }
    }
    let mut out = String::from("[");
    for (i, b) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(b);
    }
    out.push(']');
    out
}

/// A block written anew, with its other strings redacted when the session
/// redacts.
fn shown_block(block: String, shown: Option<&mut Shown<'_>>) -> String {
    let Some(shown) = shown else {
        return block;
    };
    let redacted = serde_json::from_str::<&RawValue>(&block)
        .ok()
        .and_then(|raw| shown.block(raw));
    redacted.unwrap_or(block)
}

/// A block as received, or with every string the model is shown redacted
/// (its other members: annotations, a link's uri and name...).
fn raw_block<'b>(block: &'b RawValue, shown: Option<&mut Shown<'_>>) -> Cow<'b, str> {
    match shown.and_then(|s| s.block(block)) {
        Some(redacted) => Cow::Owned(redacted),
        None => Cow::Borrowed(block.get()),
    }
}

#[cfg(test)]
mod tests;
