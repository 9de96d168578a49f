//! The preview of a text that does not fit: what to keep, then one
//! renderer.
//!
//! # Layout of the module
//!
//! What to keep:
//!
//! - [`cut`]: head and tail, cut on line, char and grapheme boundaries,
//!   and [`cut::fill`], which gives the budget left back to cut lines;
//! - [`fold`]: runs of similar lines folded into one marker;
//! - [`notable`]: failure lines of the omitted middle; a new tool's failure
//!   line is taught in one file, `notable/classify.rs`;
//! - [`search`]: windows around the call's search hits in long lines;
//! - [`diff`]: the rare changes of a unified diff;
//! - [`json`]: a JSON document's items, rendered as valid JSON;
//! - [`whole`]: the whole-text preview, which uses all of the above on a
//!   text in memory.
//!
//! The one-pass preview of a text too large to hold ([`crate::stream`])
//! chooses from what it kept, with the same markers.
//!
//! How it is shown: [`render`], the one renderer both previews hand their
//! choice to, and `account`, which counts what both leave out. Nothing here
//! imports [`crate::stream`] or [`crate::cap`]: they call in, never the
//! other way.
//!
//! # Format
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
//! With every refinement on ([`crate::settings::PreviewFeatures::ALL`]):
//!
//! - **Notable lines** of the omitted middle stand between two markers
//!   instead of the one gap marker, each with its line number
//!   ([`crate::preview::notable`] gives the format and the patterns), within a
//!   quarter of the budget.
//! - **Folding**: a run of lines that differ only in numbers shows one line
//!   and `[... 118 more lines like the one above]` (`below` in the tail;
//!   [`crate::preview::fold`]).
//! - **Fill**: the side chosen last cuts the line that does not fit to fill
//!   its room, and the budget still left flows back to lines cut by
//!   `max-line-bytes` and to the partly shown lines at the gap, so a single
//!   huge line shows both of its ends up to the budget. Cuts inside a line
//!   keep extended grapheme clusters whole.
//! - **JSON**: a whole JSON object or array becomes one header line
//!   ([`whole::JSON_HEADER`]), a preview that is valid JSON
//!   ([`crate::preview::json`]), and the notice.
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
//! states the bounds); with `max-tokens` an input within `max-bytes` is
//! counted whole.
//!
//! # Large inputs
//!
//! A text above [`crate::capper::LARGE_INPUT`] (8 MiB for what looks like
//! JSON), under a budget of at most an eighth of that, gets the one-pass
//! preview of [`crate::stream`] instead: the same head, tail, notable lines
//! and notice, chosen from what a bounded memory can keep, with no folding,
//! no JSON preview and no diff analysis. `cap` and `cap-stream` then give the
//! same result for the same text, whatever its size.

use crate::notice::Loss;

pub(crate) mod account;
pub mod cut;
pub mod diff;
pub mod fold;
pub mod json;
pub mod notable;
pub mod one_pass;
pub mod render;
pub mod search;
pub mod whole;

/// A preview with its notice, and what it shows.
pub(crate) struct Preview {
    pub(crate) text: String,
    pub(crate) loss: Loss,
    pub(crate) notable: u64,
    pub(crate) folded: u64,
    /// Estimated tokens of `text`, once counted.
    pub(crate) tokens: u64,
}
