//! Previews of JSON documents that are themselves valid JSON: when the whole
//! output is one JSON object or array, the preview keeps its shape instead of
//! cutting the text mid-token.
//!
//! What an agent sees in such a preview:
//!
//! - **The top-level kind and every key path.** Objects keep all their keys,
//!   in document order. Only when even the keys cannot fit does an object keep
//!   its first keys and end with one marker entry
//!   `"[toolcap: N keys omitted]": null`.
//! - **Arrays: first and last items.** An array too long for the budget keeps
//!   its first `k` and last `m` items (`k >= m`, about two thirds at the head)
//!   with one marker element between them, the JSON string
//!   `"[toolcap: N items omitted]"`. The marker is not an item and does not
//!   count as one.
//! - **Long strings: a head.** A string too long for the budget keeps its
//!   first bytes, cut on a character boundary, followed by
//!   `…[toolcap: N bytes omitted]` inside the same string (`N` counts UTF-8
//!   bytes of the original string, not of its JSON escape). A string is cut
//!   only when that makes it shorter.
//! - **Scalars whole.** Numbers, booleans and null are never changed.
//! - **Fair shrinking.** Every array is cut to the same number of items and
//!   every string to the same number of bytes, the largest that fit, so the
//!   large and deep parts shrink first and small siblings survive whole.
//!
//! Markers have a fixed form (`items`, `keys` and `bytes` even for a count of
//! one) so that they are recognised again: previewing a preview with the same
//! or a larger budget changes nothing, and with a smaller budget each marker's
//! count grows by what is newly dropped, so no count is lost. A string in the
//! original that happens to have a marker's form is taken for one.
//!
//! Rendering is serde_json's: compact, or pretty with 2-space indentation.
//! Nesting is bounded as serde_json's parser bounds it ([`MAX_DEPTH`]): a
//! container at that depth that holds containers is shown as its marker only,
//! so every preview parses again.

use serde_json::{Map, Number, Value};

/// The deepest nesting of arrays and objects that serde_json parses (its
/// recursion limit). [`parse_document`] never returns deeper documents, and
/// [`preview`] never renders deeper ones.
pub const MAX_DEPTH: usize = 127;

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
/// is one JSON object or array; `None` for a bare scalar, several documents
/// (JSON Lines), text that merely contains JSON, invalid JSON, empty text, or
/// nesting deeper than [`MAX_DEPTH`].
pub fn parse_document(text: &str) -> Option<Value> {
    let start = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !start.starts_with(['{', '[']) {
        return None;
    }
    serde_json::from_str(start).ok()
}

/// The preview of `doc` with the most detail whose rendering is at most
/// `max_bytes` bytes, or `None` when not even the skeleton fits (the top
/// level with only its marker: `["[toolcap: N items omitted]"]` or
/// `{"[toolcap: N keys omitted]":null}`). A document that fits is rendered
/// whole. `pretty` chooses serde_json's 2-space pretty rendering over the
/// compact one; pass whether the original text had a line break inside it.
///
/// The search raises one detail level (items kept per array and bytes kept
/// per string together) while the rendering fits, then items alone and
/// strings alone with the room left. Objects lose keys only when level zero
/// does not fit, or when not one item of the arrays fits with every key and
/// one item with the first keys of each object keeps at least every key the
/// item-less preview showed. Each trial rendering stops at `max_bytes`, so
/// the work is bounded by the budget times a few dozen trials, plus a scan
/// of the arrays the trials visit.
pub fn preview(doc: &Value, max_bytes: usize, pretty: bool) -> Option<JsonPreview> {
    if let Some(whole) = render(doc, Limits::ALL, max_bytes, pretty) {
        return Some(whole);
    }
    let search = Search { doc, max_bytes, pretty };
    // Level zero keeps no item; one item may be shorter than its marker.
    let no_item = Limits::BARE;
    let one_item = Limits { items: 1, ..no_item };
    let mut lim = if search.fits(no_item) {
        no_item
    } else if search.fits(one_item) {
        one_item
    } else {
        let keys = largest(0, search.max_keys(), |keys| search.fits(Limits { keys, ..no_item }))?;
        Limits { keys, ..no_item }
    };
    if let Some(level) = largest(lim.items, search.max_items(), |l| search.fits(lim.at_level(l))) {
        lim = lim.at_level(level);
    }
    lim = search.grow(lim)?;
    let shown = search.run(lim)?;
    if lim.items == 0 && shown.longest_cut_array > 0 {
        // Not one item fits with all its keys: try one with fewer keys.
        let keys = largest(shown.widest_object, search.max_keys(), |keys| {
            search.fits(Limits { keys, ..one_item })
        });
        if let Some(keys) = keys {
            lim = search.grow(Limits { keys, ..one_item })?;
        }
    }
    render(doc, lim, max_bytes, pretty)
}

/// Trial renderings of one document under one budget.
struct Search<'a> {
    doc: &'a Value,
    max_bytes: usize,
    pretty: bool,
}

impl Search<'_> {
    fn run(&self, lim: Limits) -> Option<Renderer> {
        Renderer::run(self.doc, lim, self.max_bytes, self.pretty)
    }

    fn fits(&self, lim: Limits) -> bool {
        self.run(lim).is_some()
    }

    /// Every item costs a byte and a separator: more can never fit.
    fn max_items(&self) -> usize {
        self.max_bytes / 2
    }

    /// Every key costs `"":0` and a separator: more can never fit.
    fn max_keys(&self) -> usize {
        self.max_bytes / 5
    }

    /// `lim` (which fits) with the room left used: more items, longer
    /// strings, more keys, in turn until none grows. Each is raised only as
    /// far as it changes the rendering (the longest array, string or object
    /// still cut), so that a part not shown yet does not raise its limit
    /// past what the parts shown later allow.
    fn grow(&self, mut lim: Limits) -> Option<Limits> {
        loop {
            let before = lim;
            let top = self.run(lim)?.longest_cut_array.min(self.max_items());
            lim.items = largest(lim.items, top, |items| self.fits(Limits { items, ..lim }))?;
            let top = self.run(lim)?.longest_cut_array.min(self.max_items());
            lim.whole_items = largest(lim.whole_items, top, |whole_items| {
                self.fits(Limits { whole_items, ..lim })
            })?;
            let top = self.run(lim)?.longest_cut_string.min(self.max_bytes);
            lim.string = largest(lim.string, top, |string| {
                self.fits(Limits { string, ..lim })
            })?;
            let top = self.run(lim)?.longest_cut_object.min(self.max_keys());
            lim.keys = largest(lim.keys, top, |keys| self.fits(Limits { keys, ..lim }))?;
            if lim == before {
                return Some(lim);
            }
        }
    }
}

/// Bytes a string keeps per item an array keeps, at one detail level: a
/// level keeps `level` items per array and `STRING_BYTES_PER_ITEM * level`
/// bytes per string.
const STRING_BYTES_PER_ITEM: usize = 16;

/// How much of each part a rendering keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    /// Items kept per array, markers not counted.
    items: usize,
    /// Arrays of at most this many items are kept whole (small siblings
    /// survive whole when the room left cannot take one more item of each
    /// array).
    whole_items: usize,
    /// Bytes kept per string, markers not counted.
    string: usize,
    /// Keys kept per object, markers not counted.
    keys: usize,
}

impl Limits {
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

    fn at_level(self, level: usize) -> Limits {
        Limits {
            items: level,
            string: level.saturating_mul(STRING_BYTES_PER_ITEM),
            ..self
        }
    }
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

const ITEMS_MARKER: (&str, &str) = ("[toolcap: ", " items omitted]");
const KEYS_MARKER: (&str, &str) = ("[toolcap: ", " keys omitted]");
const STRING_MARKER: (&str, &str) = ("…[toolcap: ", " bytes omitted]");

/// The count of `s` when it is exactly `prefix N suffix` with `N` decimal.
fn marker_count(s: &str, (prefix, suffix): (&str, &str)) -> Option<u64> {
    let n = s.strip_prefix(prefix)?.strip_suffix(suffix)?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

fn marker(count: u64, (prefix, suffix): (&str, &str)) -> String {
    format!("{prefix}{count}{suffix}")
}

/// Index and count of the first array marker among `items`.
fn items_marker(items: &[Value]) -> Option<(usize, u64)> {
    items.iter().enumerate().find_map(|(i, v)| match v {
        Value::String(s) if s.starts_with('[') => marker_count(s, ITEMS_MARKER).map(|n| (i, n)),
        _ => None,
    })
}

/// Count of the key marker when it is the last entry of `map`.
fn keys_marker(map: &Map<String, Value>) -> Option<u64> {
    match map.iter().next_back() {
        Some((k, Value::Null)) => marker_count(k, KEYS_MARKER),
        _ => None,
    }
}

/// The head and count of a string that ends with a string marker.
fn string_marker(s: &str) -> Option<(&str, u64)> {
    if !s.ends_with(STRING_MARKER.1) {
        return None;
    }
    let at = s.rfind(STRING_MARKER.0)?;
    Some((&s[..at], marker_count(&s[at..], STRING_MARKER)?))
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Array(_) | Value::Object(_))
}

/// Head and tail items kept of an array of which `limit` items are shown,
/// when at most `head_pool` can come from the head and `tail_pool` from the
/// tail (the sides of an earlier marker). About two thirds go to the head.
fn split(limit: usize, head_pool: usize, tail_pool: usize) -> (usize, usize) {
    let head = (limit - limit / 3).min(head_pool);
    let tail = (limit - head).min(tail_pool);
    ((limit - tail).min(head_pool), tail)
}

/// The rendering of `doc` under `lim` with its counts, or `None` when it
/// exceeds `max` bytes.
fn render(doc: &Value, lim: Limits, max: usize, pretty: bool) -> Option<JsonPreview> {
    let r = Renderer::run(doc, lim, max, pretty)?;
    Some(JsonPreview {
        text: String::from_utf8(r.out).ok()?,
        omitted_items: r.items,
        omitted_keys: r.keys,
        shortened_strings: r.strings,
    })
}

/// The rendering went over its byte limit.
struct Full;

type Step = Result<(), Full>;

/// Writes the JSON of a document under [`Limits`], stopping at `max` bytes.
/// Strings, keys and numbers are written by serde_json; the structure
/// follows serde_json's compact and pretty formatters (the tests check the
/// whole rendering against serde_json's).
struct Renderer {
    out: Vec<u8>,
    max: usize,
    pretty: bool,
    lim: Limits,
    /// Sum of the array markers' counts.
    items: u64,
    /// Sum of the key markers' counts.
    keys: u64,
    /// Strings with a marker.
    strings: u64,
    /// Bytes before the marker of the longest string cut by this rendering.
    longest_cut_string: usize,
    /// Items of the longest array cut by this rendering, markers not counted.
    longest_cut_array: usize,
    /// Keys of the widest object cut by this rendering, markers not counted.
    longest_cut_object: usize,
    /// Keys shown of the widest object shown, markers not counted.
    widest_object: usize,
}

impl Renderer {
    fn new(lim: Limits, max: usize, pretty: bool) -> Renderer {
        Renderer {
            out: Vec::with_capacity(max.min(1 << 16)),
            max,
            pretty,
            lim,
            items: 0,
            keys: 0,
            strings: 0,
            longest_cut_string: 0,
            longest_cut_array: 0,
            longest_cut_object: 0,
            widest_object: 0,
        }
    }

    /// The finished renderer of `doc`, or `None` when it exceeds `max` bytes.
    fn run(doc: &Value, lim: Limits, max: usize, pretty: bool) -> Option<Renderer> {
        let mut r = Renderer::new(lim, max, pretty);
        r.value(doc, 0).ok()?;
        Some(r)
    }

    fn check(&self, more: usize) -> Step {
        if self.out.len().saturating_add(more) > self.max {
            Err(Full)
        } else {
            Ok(())
        }
    }

    fn raw(&mut self, bytes: &[u8]) -> Step {
        self.check(bytes.len())?;
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    /// `s` as a JSON string, escaped by serde_json.
    fn str(&mut self, s: &str) -> Step {
        self.check(s.len() + 2)?;
        serde_json::to_writer(&mut self.out, s).map_err(|_| Full)?;
        self.check(0)
    }

    fn number(&mut self, n: &Number) -> Step {
        serde_json::to_writer(&mut self.out, n).map_err(|_| Full)?;
        self.check(0)
    }

    /// What comes before an element of a container at `level`.
    fn separator(&mut self, first: &mut bool, level: usize) -> Step {
        if !std::mem::take(first) {
            self.raw(b",")?;
        }
        if self.pretty {
            self.raw(b"\n")?;
            self.indent(level)?;
        }
        Ok(())
    }

    fn close(&mut self, bracket: u8, empty: bool, level: usize) -> Step {
        if self.pretty && !empty {
            self.raw(b"\n")?;
            self.indent(level - 1)?;
        }
        self.raw(&[bracket])
    }

    fn indent(&mut self, level: usize) -> Step {
        const SPACES: &[u8; 64] = &[b' '; 64];
        let mut left = 2 * level;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.raw(&SPACES[..n])?;
            left -= n;
        }
        Ok(())
    }

    /// `v`, inside `depth` containers.
    fn value(&mut self, v: &Value, depth: usize) -> Step {
        match v {
            Value::Null => self.raw(b"null"),
            Value::Bool(true) => self.raw(b"true"),
            Value::Bool(false) => self.raw(b"false"),
            Value::Number(n) => self.number(n),
            Value::String(s) => self.string(s),
            Value::Array(a) => self.array(a, depth + 1),
            Value::Object(o) => self.object(o, depth + 1),
        }
    }

    fn string(&mut self, s: &str) -> Step {
        let (head, prior) = match string_marker(s) {
            Some((head, n)) => (head, Some(n)),
            None => (s, None),
        };
        if head.len() > self.lim.string {
            let cut = head.floor_char_boundary(self.lim.string);
            self.check(cut + 2)?;
            let omitted = prior.unwrap_or(0).saturating_add((head.len() - cut) as u64);
            let cut = format!("{}{}", &head[..cut], marker(omitted, STRING_MARKER));
            if cut.len() < s.len() {
                self.strings += 1;
                self.longest_cut_string = self.longest_cut_string.max(head.len());
                return self.str(&cut);
            }
        }
        self.strings += u64::from(prior.is_some());
        self.str(s)
    }

    /// An array at nesting `level`.
    fn array(&mut self, a: &[Value], level: usize) -> Step {
        let found = items_marker(a);
        let prior = found.map_or(0, |(_, n)| n);
        let real = a.len() - usize::from(found.is_some());
        let limit = if level >= MAX_DEPTH && a.iter().any(is_container) {
            0
        } else if real <= self.lim.whole_items {
            real
        } else {
            self.lim.items
        };
        self.raw(b"[")?;
        let mut first = true;
        if real <= limit {
            for (i, v) in a.iter().enumerate() {
                self.separator(&mut first, level)?;
                match v {
                    Value::String(s) if found.is_some_and(|(at, _)| at == i) => {
                        self.items = self.items.saturating_add(prior);
                        self.str(s)?;
                    }
                    _ => self.value(v, level)?,
                }
            }
        } else {
            let (head, tail) = match found {
                Some((at, _)) => (&a[..at], &a[at + 1..]),
                None => (a, a),
            };
            let (k, m) = split(limit, head.len(), tail.len());
            self.longest_cut_array = self.longest_cut_array.max(real);
            let omitted = prior.saturating_add((real - k - m) as u64);
            for v in &head[..k] {
                self.separator(&mut first, level)?;
                self.value(v, level)?;
            }
            self.separator(&mut first, level)?;
            self.items = self.items.saturating_add(omitted);
            self.str(&marker(omitted, ITEMS_MARKER))?;
            for v in &tail[tail.len() - m..] {
                self.separator(&mut first, level)?;
                self.value(v, level)?;
            }
        }
        self.close(b']', first, level)
    }

    /// An object at nesting `level`.
    fn object(&mut self, o: &Map<String, Value>, level: usize) -> Step {
        let limit = if level >= MAX_DEPTH && o.values().any(is_container) {
            0
        } else {
            self.lim.keys
        };
        let prior = keys_marker(o);
        let real = o.len() - usize::from(prior.is_some());
        let (shown, omitted) = if real <= limit {
            (real, prior)
        } else {
            self.longest_cut_object = self.longest_cut_object.max(real);
            (
                limit,
                Some(prior.unwrap_or(0).saturating_add((real - limit) as u64)),
            )
        };
        self.widest_object = self.widest_object.max(shown);
        self.raw(b"{")?;
        let mut first = true;
        for (k, v) in o.iter().take(shown) {
            self.entry(&mut first, k, level)?;
            self.value(v, level)?;
        }
        if let Some(n) = omitted {
            self.entry(&mut first, &marker(n, KEYS_MARKER), level)?;
            self.keys = self.keys.saturating_add(n);
            self.raw(b"null")?;
        }
        self.close(b'}', first, level)
    }

    /// The separator and key of an entry of an object at `level`.
    fn entry(&mut self, first: &mut bool, key: &str, level: usize) -> Step {
        self.separator(first, level)?;
        self.str(key)?;
        self.raw(if self.pretty { b": " } else { b":" })
    }
}

#[cfg(test)]
mod tests;
