//! Previews of JSON documents that are themselves valid JSON: when the whole
//! output is one JSON object or array, the preview keeps its shape instead of
//! cutting the text mid-token.
//!
//! - **The text's own bytes.** Every part a preview keeps (a value, a key,
//!   the head of a string, the whitespace and separators between them) is
//!   written as the text has it: indentation, spacing, key order, escapes
//!   and the spelling of numbers. Only markers are new, each with the
//!   whitespace of the first part it stands for, so that a pretty document
//!   stays indented and a compact one compact.
//!
//! What an agent sees in such a preview:
//!
//! - **The top-level kind and every key path.** Objects keep all their keys,
//!   in document order (a repeated key as often as the text has it). Only
//!   when not even one item of each array fits with every key does each
//!   object keep its first keys, as many as fit, and end with one marker
//!   entry `"[toolcap: N keys omitted]": null`.
//! - **Arrays: first and last items, and the failures between them.** An
//!   array too long for the budget keeps its first `k` and last `m` items
//!   (`k >= m`, about two thirds at the head). When items of its omitted
//!   middle report a failure (the notable items below), the best of them
//!   that fit are kept too, in place. Each run of items not shown becomes
//!   one marker element, the JSON string `"[toolcap: N items omitted]"`:
//!   `[a, b, "[toolcap: 40 items omitted]", X, "[toolcap: 57 items
//!   omitted]", z]` shows items 0, 1, 42 and 100 of 101. A marker is not an
//!   item and does not count as one; the counts of an array's markers and
//!   its items shown add up to its length.
//! - **Groups of omitted items.** When the items of an array are objects
//!   that share a categorical field (a short string held by most of them,
//!   with few distinct values; `status`, `conclusion`, `phase`, `level` and
//!   other state names first; see the `groups` module), each marker also counts the
//!   items it stands for by that field's value, the largest group first and
//!   the items without a value last as `other`: `"[toolcap: 139 items
//!   omitted; conclusion: 120 success, 17 cancelled, 2 failure]"`. The
//!   counts are exact.
//! - **Notable items.** An item is notable when some string in it, or some
//!   entry `key: value` with a scalar value, reads as a failure line to
//!   [`crate::preview::notable::classify`] (`"conclusion": "failure"`, `"log.level":
//!   "error"`, `"reason": "OOMKilled"`, `"failed": true`, a string starting
//!   `java.net.SocketTimeoutException: ...`), when it has an `error`,
//!   `errors`, `exception`, `failure` or `failures` entry with a non-empty
//!   value, or when a string or key in it holds one of the host's patterns
//!   ([`parse_document_with`]), which rank first. Counts of zero and empty
//!   values are not failures (`"errors": []`, `"error": null`, `"failed":
//!   0`). The best come first (host pattern, then the surest failure, then
//!   the earliest), at most a few hundred per array are considered, and
//!   they are shown under the same limits as the other items (strings cut,
//!   keys dropped alike). Notable items take what room the first and last
//!   items leave, about a quarter of it; when not even one fits there, the
//!   detail level is lowered until one does, if one can. A document without
//!   notable items is previewed as if this rule did not exist.
//! - **Long strings: a head.** A string too long for the budget keeps its
//!   first bytes, cut between two grapheme clusters (never inside an emoji
//!   sequence or between a letter and its combining marks), followed by
//!   `…[toolcap: N bytes omitted]` inside the same string (`N` counts UTF-8
//!   bytes of the original string, not of its JSON escape). The head keeps
//!   its escapes as written. A string is cut only when that makes it
//!   shorter, as text and as the string it stands for.
//! - **Scalars whole.** Numbers, booleans and null are never cut, and
//!   numbers keep their spelling (`1.0e3` stays `1.0e3`).
//! - **Fair shrinking.** Every array is cut to the same number of items and
//!   every string to the same number of bytes, the largest that fit; room
//!   left then keeps small arrays whole. So the large parts shrink first and
//!   small siblings survive whole.
//!
//! Markers have a fixed form (`items`, `keys` and `bytes` even for a count of
//! one) so that they are recognised again: previewing a preview with the same
//! or a larger budget changes nothing, and with a smaller budget each marker's
//! count grows by what is newly dropped, so no count is lost: markers next to
//! items newly dropped merge into one that counts them all. The items between
//! two markers of a preview are notable items of the middle, and a smaller
//! preview finds them again as long as they still read as failures (a
//! string cut shorter may no longer). A string or key in the original that
//! happens to have a marker's form is taken for one.
//!
//! A preview keeps the text's line breaks, or (`pretty` unset) drops every
//! whitespace run that holds one, which puts the preview on one line and
//! keeps the spacing within lines (`"key": value`). Nesting is bounded as
//! serde_json bounds it ([`MAX_DEPTH`]), and a preview is never deeper than
//! its document, so every preview parses again.

mod doc;
mod groups;
mod marker;
mod render;
mod score;
mod shape;
mod tree;

use render::Renderer;
use score::Host;
use tree::Node;

use crate::bisect::largest;
use crate::preview::notable::Patterns;

/// The deepest nesting of arrays and objects that serde_json parses (its
/// recursion limit); [`parse_document`] refuses deeper text, as it refuses
/// whatever else serde_json does.
pub const MAX_DEPTH: usize = 127;

/// A JSON object or array parsed from a text it borrows, with its notable
/// items noted.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    /// The text the spans of `root` are in.
    text: &'a str,
    root: Node<'a>,
    /// Some array has notable items.
    notable: bool,
}

impl Document<'_> {
    /// True when some array of the document has notable items: items that
    /// report a failure, which a cut array keeps from its middle.
    pub fn has_notable_items(&self) -> bool {
        self.notable
    }
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
/// document is parsed. Items are scored for failures by the built-in rules
/// only; see [`parse_document_with`].
pub fn parse_document(text: &str) -> Option<Document<'_>> {
    parse(text, Host(None))
}

/// [`parse_document`] that also takes a string value or object key holding
/// one of the host's `patterns` (literal substrings) for a notable item, the
/// most notable.
pub fn parse_document_with<'a>(text: &'a str, patterns: &Patterns) -> Option<Document<'a>> {
    parse(text, Host(Some(patterns)))
}

fn parse<'a>(text: &'a str, host: Host<'_>) -> Option<Document<'a>> {
    let start = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !start.starts_with(['{', '[']) || u32::try_from(start.len()).is_err() {
        return None;
    }
    let parsed = doc::parse(start, host)?;
    Some(Document {
        text: start,
        root: parsed.root,
        notable: parsed.notable,
    })
}

/// The preview of `doc` with the most detail whose rendering is at most
/// `max_bytes` bytes, or `None` when not even the skeleton fits (the top
/// level with only its marker: `["[toolcap: N items omitted]"]` or
/// `{"[toolcap: N keys omitted]":null}`). A document that fits is its text,
/// byte for byte (without the whitespace around it). `pretty` keeps the
/// text's line breaks; unset, the preview is one line (whitespace that
/// holds a line break is dropped).
///
/// The search raises one detail level (items kept per array and bytes kept
/// per string together) while the rendering fits, then uses the room left
/// for more items, small arrays whole, and longer strings. When the document
/// has notable items, the level is chosen in three quarters of the room, and
/// the room left goes to notable items first. Objects lose keys
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
/// preview without `pretty` is one line). A skeleton of a document written
/// on several lines takes as many as its text puts around the marker.
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
    /// Keep the text's line breaks (else one line).
    pretty: bool,
}

impl Room {
    /// The room the detail level is chosen in when notable items take the
    /// rest.
    fn without_notable_share(self) -> Room {
        Room {
            bytes: self.bytes - self.bytes / NOTABLE_SHARE,
            lines: self.lines - self.lines / NOTABLE_SHARE,
            pretty: self.pretty,
        }
    }
}

/// [`preview`], unless that preview would have more than `max_lines` lines:
/// then [`TooTall`], often before the search ends. A host that shows a
/// pretty document on one line when it is too tall (the cap does) skips the
/// rest of a search whose result it would drop.
pub fn preview_unless_taller(
    doc: &Document<'_>,
    max_bytes: usize,
    pretty: bool,
    max_lines: usize,
) -> Result<Option<JsonPreview>, TooTall> {
    let room = Room {
        bytes: max_bytes,
        lines: usize::MAX,
        pretty,
    };
    let preview = search_unless_taller(doc, room, max_lines)?;
    match preview {
        Some(p) if p.text.split('\n').count() > max_lines => Err(TooTall),
        p => Ok(p),
    }
}

/// The preview [`preview_unless_taller`] refused: it has too many lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooTall;

fn search(doc: &Document<'_>, room: Room) -> Option<JsonPreview> {
    search_unless_taller(doc, room, usize::MAX).unwrap_or(None)
}

/// [`search`], stopped with [`TooTall`] at a rendering taller than
/// `max_lines` that the search's last step only grows: each of its limits
/// then is at most the result's, and a rendering shows no fewer lines when a
/// limit is raised, so the result would be taller too (the tests hold each
/// refusal to the whole search's preview).
fn search_unless_taller(
    doc: &Document<'_>,
    room: Room,
    max_lines: usize,
) -> Result<Option<JsonPreview>, TooTall> {
    if let Some(whole) = render(doc, Limits::ALL, room) {
        return Ok(Some(whole));
    }
    let full = Search {
        doc,
        room,
        notable: doc.notable,
    };
    let grown = |lim: Limits| -> Result<Option<JsonPreview>, TooTall> {
        if max_lines < usize::MAX && full.run(lim).is_some_and(|r| r.lines() > max_lines) {
            return Err(TooTall);
        }
        Ok(full.grow(lim).and_then(|lim| render(doc, lim, room)))
    };
    if doc.notable {
        // The detail level as without notable items, in less room; then
        // notable items, then more detail, in the whole room.
        let smaller = Search {
            room: room.without_notable_share(),
            notable: false,
            ..full
        };
        if let Some(lim) = smaller.level() {
            let lim = smaller.fewer_keys(lim).unwrap_or(lim);
            let lim = full.one_notable(lim).unwrap_or(lim);
            return grown(lim);
        }
    }
    let Some(level) = full.level() else {
        return Ok(None);
    };
    if level.items > 0 {
        // Every array shows an item, so the keys stay: the choice is this
        // level grown.
        return grown(level);
    }
    Ok(full
        .choose_from(level)
        .and_then(|lim| render(doc, lim, room)))
}

/// Notable items may take about one part in this many of the room: the
/// detail level is chosen in the rest.
const NOTABLE_SHARE: usize = 4;

/// One item per array, no string byte, every key.
const ONE_ITEM: Limits = Limits {
    items: 1,
    ..Limits::BARE
};

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
    /// Notable items kept from the middle of a cut array, besides its first
    /// and last items.
    notable: usize,
}

impl Limits {
    /// Everything.
    const ALL: Limits = Limits {
        items: usize::MAX,
        whole_items: usize::MAX,
        string: usize::MAX,
        keys: usize::MAX,
        notable: usize::MAX,
    };

    /// No item, no string byte, every key, no notable item.
    const BARE: Limits = Limits {
        items: 0,
        whole_items: 0,
        string: 0,
        keys: usize::MAX,
        notable: 0,
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
fn render(doc: &Document<'_>, lim: Limits, room: Room) -> Option<JsonPreview> {
    let r = Renderer::run(doc.text, &doc.root, lim, room)?;
    Some(JsonPreview {
        text: String::from_utf8(r.out).ok()?,
        omitted_items: r.items,
        omitted_keys: r.keys,
        shortened_strings: r.strings,
    })
}

/// Trial renderings of one document under one budget.
#[derive(Clone, Copy)]
struct Search<'d, 'a> {
    doc: &'d Document<'a>,
    room: Room,
    /// Whether to raise [`Limits::notable`].
    notable: bool,
}

impl<'a> Search<'_, 'a> {
    fn run(&self, lim: Limits) -> Option<Renderer<'a>> {
        Renderer::run(self.doc.text, &self.doc.root, lim, self.room)
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

    /// The most detailed limits that fit, from a detail level
    /// ([`Search::level`]): grown ([`Search::grow`]), with fewer keys only
    /// when not even one item of each array fits with all of them.
    fn choose_from(&self, level: Limits) -> Option<Limits> {
        let lim = self.grow(level)?;
        match self.fewer_keys(lim) {
            Some(lim) => self.grow(lim),
            None => Some(lim),
        }
    }

    /// One detail level (items and string bytes together) as high as fits,
    /// from no item or, when not even that fits, the first keys of each
    /// object; `None` when not even the skeleton fits.
    fn level(&self) -> Option<Limits> {
        let lim = if self.fits(Limits::BARE) {
            Limits::BARE
        } else if self.fits(ONE_ITEM) {
            ONE_ITEM
        } else {
            let keys = largest(0, self.max_keys(), |keys| {
                self.fits(Limits {
                    keys,
                    ..Limits::BARE
                })
            })?;
            Limits {
                keys,
                ..Limits::BARE
            }
        };
        let level = largest(lim.items, self.max_items(), |l| self.fits(lim.at_level(l)));
        Some(level.map_or(lim, |level| lim.at_level(level)))
    }

    /// When `lim` (which fits) shows no item of an array it cuts: one item
    /// with the first keys of each object, as many as fit and never fewer
    /// than `lim` shows, which says more than a marker. `None` when `lim`
    /// shows items, cuts no array, or that does not fit.
    fn fewer_keys(&self, lim: Limits) -> Option<Limits> {
        let shown = self.run(lim)?;
        if lim.items > 0 || shown.longest_cut_array == 0 {
            return None;
        }
        let keys = largest(shown.widest_object, self.max_keys(), |keys| {
            self.fits(Limits { keys, ..ONE_ITEM })
        })?;
        Some(Limits { keys, ..ONE_ITEM })
    }

    /// When not even one notable item fits with `lim` (which fits), though
    /// a cut array has some: the highest lower level at which one does.
    /// Items of a large array can take most of the room; one that reports a
    /// failure says more than another first item. `None` when one fits, no
    /// array has any, or not even one fits without items.
    fn one_notable(&self, lim: Limits) -> Option<Limits> {
        let with_one = |l: usize| Limits {
            notable: 1,
            ..lim.at_level(l)
        };
        if self.run(lim)?.most_notable == 0 || self.fits(with_one(lim.items)) {
            return None;
        }
        let level = largest(0, lim.items.checked_sub(1)?, |l| self.fits(with_one(l)))?;
        Some(with_one(level))
    }

    /// `lim` (which fits) with the room left used: notable items (when the
    /// search raises them), more items, small arrays whole, longer strings,
    /// more keys, in turn until none grows. Each is
    /// raised only as far as it changes the rendering (the longest array,
    /// string or object still cut), so that a part not shown yet does not
    /// raise its limit past what the parts shown later allow.
    fn grow(&self, mut lim: Limits) -> Option<Limits> {
        // A few rounds: each after the first only takes crumbs.
        for _ in 0..GROW_ROUNDS {
            let before = lim;
            if self.notable {
                let top = self.run(lim)?.most_notable;
                if top > lim.notable {
                    lim.notable = largest(lim.notable, top, |notable| {
                        self.fits(Limits { notable, ..lim })
                    })?;
                }
            }
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
