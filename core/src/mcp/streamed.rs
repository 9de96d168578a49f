//! `stream-mcp`: [`cap_mcp`](super::cap_mcp) of a result whose one huge
//! text is handed over apart, in pieces, so that neither the result nor
//! the text is ever held whole.
//!
//! The caller gives the result's JSON with that text's string written
//! `""` (the *skeleton*: small), then the string's raw body in pieces. The
//! text is longer than the budget, so the texts are sure to be cut: the
//! skeleton alone decides what `cap-mcp` would (the structured content
//! kept or dropped and saved, the extras kept or made text, the texts'
//! budget). The texts, joined as `cap-mcp` joins them, then go through a
//! [`CapStream`], which spills them as they arrive and keeps only what the
//! preview needs. The result is the one `cap-mcp` gives for the whole
//! result, byte for byte.

use super::body::BodyDecoder;
use super::{Plan, Prepared, Structured, blocks, fit, output, part_text};
use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Capper, SpillStore};
use crate::error::CapError;
use crate::mcp::{CappedMcp, McpOptions};
use crate::parts::{Part, parts_capped_as};
use crate::stream::{CapStream, SpillWriter};

/// A result being capped as its huge text arrives. Create it with
/// [`McpStream::new`], [`write`](McpStream::write) the text's raw string
/// body in any pieces, and [`finish`](McpStream::finish).
#[derive(Debug)]
pub struct McpStream {
    skeleton: String,
    budget: Budget,
    /// The call, with the result's `isError`.
    call: Call,
    options: McpOptions,
    plan: Plan,
    /// The raw body's length, as declared, and what has arrived of it.
    raw_bytes: u64,
    received: u64,
    body: BodyDecoder,
    /// One piece decoded, reused.
    decoded: String,
    texts: CapStream,
    /// The texts of the blocks after the streamed one, as joined.
    suffix: String,
}

impl McpStream {
    /// Start capping the result `skeleton` whose content block `block`
    /// (a `text` block or an embedded resource) has its text written `""`,
    /// and whose true text is the JSON string body of `raw_bytes` bytes to
    /// be written. Fails with `invalid-argument` when `skeleton` is not a
    /// result `cap-mcp` takes, when that block holds no such `""`, or when
    /// the text might not be cut (`raw_bytes` is at most six times
    /// `max-bytes`, or the budget is disabled: give the whole result to
    /// `cap-mcp`); with `invalid-budget` as `cap-mcp` does.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        capper: &Capper,
        skeleton: String,
        block: u32,
        raw_bytes: u64,
        budget: &Budget,
        call: &Call,
        options: McpOptions,
        store: &mut dyn SpillStore,
        sink: &mut dyn SpillWriter,
    ) -> Result<McpStream, CapError> {
        budget.validate(capper.room())?;
        call.validate()?;
        // No escape takes more than six bytes per byte it decodes to.
        if budget.is_disabled() || raw_bytes / 6 <= u64::from(budget.max_bytes) {
            return Err(CapError::InvalidArgument(format!(
                "a streamed text must be sure to be cut: a raw string of {raw_bytes} bytes \
                 may decode to no more than max-bytes ({}); give the whole result to cap-mcp",
                budget.max_bytes
            )));
        }
        let block = block as usize;
        let parsed = blocks::parse(&skeleton)?;
        let placeholder = parsed
            .blocks
            .get(block)
            .and_then(|b| blocks::text_string(b));
        if placeholder.map(|s| s.get()) != Some("\"\"") {
            return Err(CapError::InvalidArgument(format!(
                "content[{block}] of the skeleton must be a text block or an embedded \
                 resource whose text is written \"\", where the streamed text goes"
            )));
        }
        let Prepared {
            call: result_call,
            parts,
            extras,
            structured_shown,
            ..
        } = Prepared::of(capper, &parsed, None, budget, call);
        let structured = Structured::of(parsed.structured, structured_shown.as_deref());
        // The streamed text alone is longer than the budget: no texts fit.
        let never = |_: &[Part], _: &Budget| false;
        let plan = fit(
            capper,
            parts,
            &parsed,
            extras,
            structured,
            budget,
            &result_call,
            store,
            &never,
        )?;
        let mut texts = CapStream::new(capper, plan.budget, result_call.clone())
            .map_err(|e| plan.map_error(e))?;
        let (prefix, suffix) = around(&plan.parts, block);
        // The texts decode to at most the raw body's bytes.
        let most = usize::try_from(raw_bytes).unwrap_or(usize::MAX);
        texts.expect_bytes(
            prefix
                .len()
                .saturating_add(most)
                .saturating_add(suffix.len()),
        );
        texts.write_text(capper, &prefix, sink);
        drop(parsed);
        Ok(McpStream {
            skeleton,
            budget: *budget,
            call: result_call,
            options,
            plan,
            raw_bytes,
            received: 0,
            body: BodyDecoder::default(),
            decoded: String::new(),
            texts,
            suffix,
        })
    }

    /// The call, with the result's `isError`: what its spill records.
    pub fn call(&self) -> &Call {
        &self.call
    }

    /// Write the next piece of the text's raw string body. Fails with
    /// `invalid-argument` past the declared length, or for what a JSON
    /// string cannot hold; the stream is then of no further use.
    pub fn write(
        &mut self,
        capper: &Capper,
        raw: &str,
        sink: &mut dyn SpillWriter,
    ) -> Result<(), CapError> {
        self.received += raw.len() as u64;
        if self.received > self.raw_bytes {
            return Err(CapError::InvalidArgument(format!(
                "the streamed text is longer than the {} bytes declared",
                self.raw_bytes
            )));
        }
        self.decoded.clear();
        self.body.feed(raw, &mut self.decoded)?;
        self.texts.write_text(capper, &self.decoded, sink);
        Ok(())
    }

    /// The capped result: what `cap-mcp` gives for the whole result. Fails
    /// with `invalid-argument` when less than the declared length arrived,
    /// when the body ends inside an escape, or (only with redaction) when
    /// the texts fit once redacted, which the skeleton could not tell:
    /// `cap-mcp` of the whole result then keeps them.
    pub fn finish(
        mut self,
        capper: &Capper,
        sink: &mut dyn SpillWriter,
        store: &mut dyn SpillStore,
    ) -> Result<CappedMcp, CapError> {
        if self.received != self.raw_bytes {
            return Err(CapError::InvalidArgument(format!(
                "the streamed text ended after {} of the {} bytes declared",
                self.received, self.raw_bytes
            )));
        }
        self.decoded.clear();
        self.body.finish(&mut self.decoded)?;
        self.decoded.push_str(&self.suffix);
        self.texts.write_text(capper, &self.decoded, sink);
        let mut plan = self.plan;
        let report = self
            .texts
            .finish(capper, sink, store)
            .map_err(|e| plan.map_error(e))?;
        if !report.truncated {
            return Err(CapError::InvalidArgument(
                "the texts fit the budget once redacted: give the whole result to cap-mcp".into(),
            ));
        }
        let parts = std::mem::take(&mut plan.parts);
        let fitted = plan.done(capper, &self.call, parts_capped_as(capper, parts, report));
        let parsed = blocks::parse(&self.skeleton)?;
        let prepared = Prepared::of(capper, &parsed, None, &self.budget, &self.call);
        let (fitted, out) = output(
            &parsed,
            fitted,
            &prepared.textual,
            self.options,
            prepared.shown,
            prepared.structured_shown.as_deref(),
        );
        let out = out.expect("a cut result is written anew");
        Ok(fitted.into_result(out))
    }
}

/// The texts of `parts` before and after `block`'s, as joined with it:
/// each text before and its line break, each line break and text after.
fn around(parts: &[Part], block: usize) -> (String, String) {
    let mut prefix = String::new();
    for text in parts[..block].iter().filter_map(part_text) {
        prefix.push_str(text);
        prefix.push('\n');
    }
    let mut suffix = String::new();
    for text in parts[block + 1..].iter().filter_map(part_text) {
        suffix.push('\n');
        suffix.push_str(text);
    }
    (prefix, suffix)
}
