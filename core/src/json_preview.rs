//! Previews of JSON documents that are themselves valid JSON: when the whole
//! output is one JSON object or array, the preview keeps its shape instead of
//! cutting the text mid-token.
//!
//! What an agent sees in such a preview:
//!
//! - **The top-level kind and every key path.** Objects keep all their keys,
//!   in document order (a repeated key as often as the text has it). Only
//!   when not even one item of each array fits with every key does each
//!   object keep its first keys, as many as fit, and end with one marker
//!   entry `"[toolcap: N keys omitted]": null`.
//! - **Arrays: first and last items.** An array too long for the budget keeps
//!   its first `k` and last `m` items (`k >= m`, about two thirds at the head)
//!   with one marker element between them, the JSON string
//!   `"[toolcap: N items omitted]"`. The marker is not an item and does not
//!   count as one.
//! - **Long strings: a head.** A string too long for the budget keeps its
//!   first bytes, cut between two grapheme clusters (never inside an emoji
//!   sequence or between a letter and its combining marks), followed by
//!   `…[toolcap: N bytes omitted]` inside the same string (`N` counts UTF-8
//!   bytes of the original string, not of its JSON escape). A string is cut
//!   only when that makes it shorter.
//! - **Scalars whole.** Numbers, booleans and null are never cut. Numbers are
//!   written as serde_json writes them: `1.0e3` becomes `1000.0`, and an
//!   integer beyond 64 bits becomes the nearest float.
//! - **Fair shrinking.** Every array is cut to the same number of items and
//!   every string to the same number of bytes, the largest that fit; room
//!   left then keeps small arrays whole. So the large parts shrink first and
//!   small siblings survive whole.
//!
//! Markers have a fixed form (`items`, `keys` and `bytes` even for a count of
//! one) so that they are recognised again: previewing a preview with the same
//! or a larger budget changes nothing, and with a smaller budget each marker's
//! count grows by what is newly dropped, so no count is lost. A string or key
//! in the original that happens to have a marker's form is taken for one.
//!
//! Rendering is serde_json's: compact, or pretty with 2-space indentation.
//! Nesting is bounded by serde_json's parser ([`MAX_DEPTH`]), and a preview
//! is never deeper than its document, so every preview parses again.

mod doc;
mod marker;
mod render;

use doc::Node;
use render::Renderer;

/// The deepest nesting of arrays and objects that serde_json parses (its
/// recursion limit); [`parse_document`] refuses deeper text.
pub const MAX_DEPTH: usize = 127;

/// A JSON object or array parsed from a text it borrows.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    root: Node<'a>,
}

/// What a JSON preview kept and dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPreview {
    /// The preview: valid JSON, at most the requested number of bytes.
    pub text: String,
    /// Sum of the counts of the array markers in `text`.
    pub omitted_items: u64,
    /// Sum of the counts of the key markers in `text`.
    pub omitted_keys: u64,
    /// Strings in `text` that end with a string marker.
    pub shortened_strings: u64,
}

/// The document when the whole of `text` (JSON whitespace around it allowed)
/// is one JSON object or array that serde_json parses; `None` for a bare
/// scalar, several documents (JSON Lines), text that merely contains JSON,
/// invalid JSON (a lone surrogate escape, a number out of range), empty
/// text, or nesting deeper than [`MAX_DEPTH`]. Only text that starts like a
/// document is parsed.
pub fn parse_document(text: &str) -> Option<Document<'_>> {
    let start = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !start.starts_with(['{', '[']) {
        return None;
    }
    let root = serde_json::from_str(start).ok()?;
    Some(Document { root })
}

/// The preview of `doc` with the most detail whose rendering is at most
/// `max_bytes` bytes, or `None` when not even the skeleton fits (the top
/// level with only its marker: `["[toolcap: N items omitted]"]` or
/// `{"[toolcap: N keys omitted]":null}`). A document that fits is rendered
/// whole, though as serde_json writes it rather than byte for byte as its
/// text (spacing, escapes, numbers). `pretty` chooses serde_json's 2-space
/// pretty rendering over the compact one; pass whether the original text
/// had a line break inside it.
///
/// The search raises one detail level (items kept per array and bytes kept
/// per string together) while the rendering fits, then uses the room left
/// for more items, small arrays whole, and longer strings. Objects lose keys
/// only when not even one item of each array fits with every key; then each
/// object keeps as many first keys as fit with one item, never fewer than
/// the widest object the item-less preview showed. Each trial rendering
/// stops at `max_bytes`, so the work is a few dozen renderings of at most
/// the budget, plus a scan of the arrays they visit.
pub fn preview(doc: &Document<'_>, max_bytes: usize, pretty: bool) -> Option<JsonPreview> {
    search(
        doc,
        Room {
            bytes: max_bytes,
            lines: usize::MAX,
            pretty,
        },
    )
}

/// [`preview`] that also has at most `max_lines` lines (LF-separated; a
/// compact preview is one line). A pretty skeleton takes three lines, so
/// with fewer this is `None` when `pretty` is set.
pub fn preview_lines(
    doc: &Document<'_>,
    max_bytes: usize,
    max_lines: usize,
    pretty: bool,
) -> Option<JsonPreview> {
    if max_lines == 0 {
        return None;
    }
    search(
        doc,
        Room {
            bytes: max_bytes,
            lines: max_lines,
            pretty,
        },
    )
}

/// Where a rendering must fit, and its layout.
#[derive(Debug, Clone, Copy)]
struct Room {
    bytes: usize,
    lines: usize,
    pretty: bool,
}

fn search(doc: &Document<'_>, room: Room) -> Option<JsonPreview> {
    if let Some(whole) = render(&doc.root, Limits::ALL, room) {
        return Some(whole);
    }
    let search = Search {
        root: &doc.root,
        room,
    };
    // Level zero keeps no item, but one item may be shorter than a marker.
    let one_item = Limits {
        items: 1,
        ..Limits::BARE
    };
    let mut lim = if search.fits(Limits::BARE) {
        Limits::BARE
    } else if search.fits(one_item) {
        one_item
    } else {
        let keys = largest(0, search.max_keys(), |keys| {
            search.fits(Limits {
                keys,
                ..Limits::BARE
            })
        })?;
        Limits {
            keys,
            ..Limits::BARE
        }
    };
    if let Some(level) = largest(lim.items, search.max_items(), |l| {
        search.fits(lim.at_level(l))
    }) {
        lim = lim.at_level(level);
    }
    lim = search.grow(lim)?;
    let shown = search.run(lim)?;
    if lim.items == 0 && shown.longest_cut_array > 0 {
        // Not one item fits with all its keys: one item with the first keys
        // of each object says more than a marker.
        let keys = largest(shown.widest_object, search.max_keys(), |keys| {
            search.fits(Limits { keys, ..one_item })
        });
        if let Some(keys) = keys {
            lim = search.grow(Limits { keys, ..one_item })?;
        }
    }
    render(&doc.root, lim, room)
}

/// Bytes a string keeps per item an array keeps, at one detail level.
const STRING_BYTES_PER_ITEM: usize = 16;

/// Rounds of [`Search::grow`] at most: it bounds the work.
const GROW_ROUNDS: usize = 4;

/// How much of each part a rendering keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    /// Items kept per array, markers not counted.
    items: usize,
    /// Arrays of at most this many items are kept whole.
    whole_items: usize,
    /// Bytes kept per string, markers not counted.
    string: usize,
    /// Keys kept per object, markers not counted.
    keys: usize,
}

impl Limits {
    /// Everything.
    const ALL: Limits = Limits {
        items: usize::MAX,
        whole_items: usize::MAX,
        string: usize::MAX,
        keys: usize::MAX,
    };

    /// No item, no string byte, every key.
    const BARE: Limits = Limits {
        items: 0,
        whole_items: 0,
        string: 0,
        keys: usize::MAX,
    };

    /// `level` items per array and `STRING_BYTES_PER_ITEM` bytes per string
    /// for each.
    fn at_level(self, level: usize) -> Limits {
        Limits {
            items: level,
            string: level.saturating_mul(STRING_BYTES_PER_ITEM),
            ..self
        }
    }
}

/// The rendering of `root` under `lim` with its counts, or `None` when it
/// does not fit `room`.
fn render(root: &Node<'_>, lim: Limits, room: Room) -> Option<JsonPreview> {
    let r = Renderer::run(root, lim, room)?;
    Some(JsonPreview {
        text: String::from_utf8(r.out).ok()?,
        omitted_items: r.items,
        omitted_keys: r.keys,
        shortened_strings: r.strings,
    })
}

/// The largest `x` in `lo..=hi` for which `ok(x)` holds, found by bisection
/// (so `ok` is taken as monotone), or `None` when `ok(lo)` fails.
fn largest(lo: usize, hi: usize, mut ok: impl FnMut(usize) -> bool) -> Option<usize> {
    if !ok(lo) {
        return None;
    }
    if hi <= lo || ok(hi) {
        return Some(hi.max(lo));
    }
    let (mut good, mut bad) = (lo, hi);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// Trial renderings of one document under one budget.
struct Search<'d, 'a> {
    root: &'d Node<'a>,
    room: Room,
}

impl Search<'_, '_> {
    fn run(&self, lim: Limits) -> Option<Renderer> {
        Renderer::run(self.root, lim, self.room)
    }

    fn fits(&self, lim: Limits) -> bool {
        self.run(lim).is_some()
    }

    /// Every item costs a byte and a separator: more can never fit.
    fn max_items(&self) -> usize {
        self.room.bytes / 2
    }

    /// Every key costs `"":0` and a separator: more can never fit.
    fn max_keys(&self) -> usize {
        self.room.bytes / 5
    }

    /// `lim` (which fits) with the room left used: more items, small arrays
    /// whole, longer strings, more keys, in turn until none grows. Each is
    /// raised only as far as it changes the rendering (the longest array,
    /// string or object still cut), so that a part not shown yet does not
    /// raise its limit past what the parts shown later allow.
    fn grow(&self, mut lim: Limits) -> Option<Limits> {
        // A few rounds: each after the first only takes crumbs.
        for _ in 0..GROW_ROUNDS {
            let before = lim;
            let top = self.run(lim)?.longest_cut_array.min(self.max_items());
            lim.items = largest(lim.items, top, |items| self.fits(Limits { items, ..lim }))?;
            let top = self.run(lim)?.longest_cut_array.min(self.max_items());
            lim.whole_items = largest(lim.whole_items, top, |whole_items| {
                self.fits(Limits { whole_items, ..lim })
            })?;
            let top = self.run(lim)?.longest_cut_string.min(self.room.bytes);
            lim.string = largest(lim.string, top, |string| {
                self.fits(Limits { string, ..lim })
            })?;
            let top = self.run(lim)?.longest_cut_object.min(self.max_keys());
            lim.keys = largest(lim.keys, top, |keys| self.fits(Limits { keys, ..lim }))?;
            if lim == before {
                break;
            }
        }
        Some(lim)
    }
}

#[cfg(test)]
mod tests;
