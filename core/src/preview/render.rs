//! The one renderer of a text preview. The whole-text preview
//! ([`crate::preview::whole`]) and the one-pass preview
//! ([`crate::preview::one_pass`]) choose what to keep; both hand this
//! module the same `Layout`, and it writes the same format:
//!
//! ```text
//! <head items>
//! <the gap marker, or the open marker, the notable lines and the close marker>
//! <tail items>
//! <the notice>
//! ```

use std::fmt::Display;

use crate::notice::gap_marker;
use crate::preview::fold;
use crate::text::digits;

/// One piece of a rendered preview, over offsets of type `P` into the text
/// (`usize` for a text in memory, `u64` for one read in one pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<P = usize> {
    /// Bytes `start..end` of the original, verbatim.
    Range(P, P),
    /// The marker of a line shortened by `max-line-bytes`; how many bytes of
    /// that line are not shown. Renders nothing when 0.
    LineCut(P),
    /// The marker that starts a window of a line (a notable line's window
    /// around a search hit): how many bytes of the line before it are not
    /// shown, `[... M bytes cut] `. Renders nothing when 0.
    LeadCut(P),
    /// The marker between two parts of a line shown apart (its start, and a
    /// window around a search hit in the part `max-line-bytes` cut): how
    /// many bytes between them are not shown, ` [... M bytes cut] `.
    MidCut(P),
    /// A LF that is not in the original: it ends a line shown in part.
    Newline,
    /// The `[line N] ` prefix of a notable line ([`line_prefix`]).
    LineNo {
        /// Its 1-based line number.
        line: u64,
        /// Lines like it that are not shown.
        similar: u64,
    },
    /// The marker line (LF included) of `lines` folded lines: like the line
    /// above it, or below it in the tail.
    Fold {
        /// Lines of the input it stands for.
        lines: u64,
        /// True in the tail: the folded lines precede the line shown.
        below: bool,
    },
}

/// Where the text's bytes come from: the text itself, or what a one-pass
/// reader kept of it. Every range an [`Item`] names must be kept.
pub(crate) trait Source<P> {
    /// Bytes `a..e` of the text.
    fn slice(&self, a: P, e: P) -> &str;
}

impl Source<usize> for str {
    fn slice(&self, a: usize, e: usize) -> &str {
        &self[a..e]
    }
}

/// The middle of a preview that does not show the whole text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Omitted<'a, P> {
    /// Bytes `from..to` of the text are not in head or tail.
    pub(crate) from: u64,
    pub(crate) to: u64,
    /// Lines of bytes `from` and `to - 1`.
    pub(crate) first_line: u64,
    pub(crate) last_line: u64,
    /// The notable lines shown between the markers, each ending in a LF.
    pub(crate) notable: &'a [Item<P>],
    /// How many notable lines those items are.
    pub(crate) notable_lines: usize,
}

/// What a text preview shows, in order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'a, P> {
    pub(crate) head: &'a [Item<P>],
    /// `None` when head and tail meet.
    pub(crate) middle: Option<Omitted<'a, P>>,
    pub(crate) tail: &'a [Item<P>],
}

/// The preview of `layout` over `source`, then `notice`. `capacity` is
/// what the caller expects it to take.
pub(crate) fn render<P: Offset, S: Source<P> + ?Sized>(
    source: &S,
    layout: &Layout<'_, P>,
    notice: &str,
    capacity: usize,
) -> String {
    let mut out = String::with_capacity(capacity);
    render_items(source, layout.head, &mut out);
    if let Some(m) = layout.middle {
        if m.notable_lines == 0 {
            out.push_str(&gap_marker(m.from, m.to, m.first_line));
        } else {
            let (first, last) = (m.first_line, m.last_line);
            out.push_str(&open_marker(m.from, m.to, first, last, m.notable_lines));
            out.push('\n');
            render_items(source, m.notable, &mut out);
            out.push_str(&close_marker(first, last));
        }
        out.push('\n');
    }
    render_items(source, layout.tail, &mut out);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(notice);
    out
}

/// Render `items` of `source` into `out`.
pub(crate) fn render_items<P: Offset, S: Source<P> + ?Sized>(
    source: &S,
    items: &[Item<P>],
    out: &mut String,
) {
    for item in items {
        match *item {
            Item::Range(a, e) => out.push_str(source.slice(a, e)),
            Item::LineCut(n) | Item::LeadCut(n) if n.is_zero() => {}
            Item::LineCut(n) => out.push_str(&line_cut_marker(n)),
            Item::LeadCut(n) => out.push_str(&lead_cut_marker(n)),
            Item::MidCut(n) => out.push_str(&mid_cut_marker(n)),
            Item::Newline => out.push('\n'),
            Item::LineNo { line, similar } => out.push_str(&line_prefix(line, similar)),
            Item::Fold { lines, below } => {
                out.push_str(&fold::marker(lines, below));
                out.push('\n');
            }
        }
    }
}

/// An offset into a text: `usize` or `u64`.
pub trait Offset: Copy + Display {
    /// True for 0.
    fn is_zero(self) -> bool;
}

impl Offset for usize {
    fn is_zero(self) -> bool {
        self == 0
    }
}

impl Offset for u64 {
    fn is_zero(self) -> bool {
        self == 0
    }
}

/// The marker before the notable lines; `lines` are `first..=last`.
pub fn open_marker(from: u64, to: u64, first: u64, last: u64, count: usize) -> String {
    format!(
        "[... lines {first}..{last} omitted here (bytes {from}..{to} of the full output), all but \
         these {count} notable lines ...]"
    )
}

/// The marker after the notable lines.
pub fn close_marker(first: u64, last: u64) -> String {
    format!("[... end of the omitted lines {first}..{last} ...]")
}

/// The text of a [`Item::LineCut`] marker.
pub fn line_cut_marker(cut: impl Display) -> String {
    format!(" [... {cut} bytes cut]")
}

/// The text of a [`Item::LeadCut`] marker: as long as [`line_cut_marker`].
pub fn lead_cut_marker(cut: impl Display) -> String {
    format!("[... {cut} bytes cut] ")
}

/// The text of a [`Item::MidCut`] marker.
pub fn mid_cut_marker(cut: impl Display) -> String {
    format!(" [... {cut} bytes cut] ")
}

/// Bytes of the marker of `cut` bytes: nothing for 0.
pub fn line_cut_len(cut: usize) -> usize {
    if cut == 0 {
        0
    } else {
        " [...  bytes cut]".len() + digits(cut as u64)
    }
}

/// Longest marker for a line of `len` bytes.
pub fn max_marker_len(len: usize) -> usize {
    " [...  bytes cut]".len() + digits(len as u64)
}

/// The prefix of a notable line: `[line N] `, or `[line N and K more like
/// it] ` for a line that stands for K more.
pub fn line_prefix(line: u64, similar: u64) -> String {
    if similar == 0 {
        format!("[line {line}] ")
    } else {
        format!("[line {line} and {similar} more like it] ")
    }
}

/// The length of [`line_prefix`] for a line number of `line_digits` digits.
pub(crate) fn line_prefix_len(line_digits: usize, similar: u64) -> usize {
    if similar == 0 {
        "[line ] ".len() + line_digits
    } else {
        "[line  and  more like it] ".len() + line_digits + digits(similar)
    }
}
