//! The parsed document, built in one pass over the text: each value with
//! where it is ([`Span`]), so that a preview writes the document's own
//! bytes; strings borrowed from the text unless they hold an escape;
//! objects as lists of entries. It accepts exactly the texts serde_json
//! parses as one value (its grammar, escapes, lone surrogates refused,
//! numbers in range, nesting to [`MAX_DEPTH`]); the tests hold the two to
//! each other (`tests/grammar.rs`, the `json_document` fuzz target).
//! Building the tree from serde_json's events, then finding the spans in a
//! second walk of the text, took 13.6 ms for a 4 MiB document; one pass takes
//! 11.2 ms. Most of what is left is writing the tree and scoring values.
//!
//! While parsing, every value is scored ([`score`]) and each array notes its
//! markers and its notable items, so that trial renderings scan no array.

use std::borrow::Cow;
use std::cmp::Reverse;

use memchr::memchr2;

use super::MAX_DEPTH;
use super::groups;
use super::marker;
use super::score::{self, Host};
use super::shape;
use super::tree::{ArrayInfo, Entry, Kind, MAX_NOTABLE, Node, Span};
use crate::raw_json::strict_escape;

/// A parsed document's root, and whether some array has notable items.
pub(super) struct Parsed<'a> {
    pub root: Node<'a>,
    pub notable: bool,
}

/// Parses `text`, which must be one JSON value and nothing else (JSON
/// whitespace around it allowed), scoring strings and keys against `host`
/// patterns too; `None` for anything serde_json refuses. The caller refuses
/// texts longer than `u32::MAX` bytes.
pub(super) fn parse<'a>(text: &'a str, host: Host<'_>) -> Option<Parsed<'a>> {
    let mut parser = Parser {
        text,
        b: text.as_bytes(),
        at: 0,
        depth: 0,
        st: State {
            items: Vec::new(),
            keys: Vec::new(),
            markers: Vec::new(),
            notable: Vec::new(),
            line: String::new(),
            host,
            found: false,
        },
    };
    parser.value()?;
    let root = parser.st.items.pop()?;
    (skip_space(parser.b, parser.at) == parser.b.len()).then_some(Parsed {
        root,
        notable: parser.st.found,
    })
}

/// What the whole parse shares. Containers gather their children on stacks
/// and move them into a vector of the exact size at their end, instead of
/// growing a vector of their own. Each value is pushed on `items` where it
/// is parsed, not returned: a node returned by value was copied twice more
/// on its way there, each copy loading whole what was just stored in parts
/// (4% of a 4 MiB document's cap natively; none measurable in wasm).
struct State<'a, 'p> {
    items: Vec<Node<'a>>,
    /// The keys of the objects open, each before its value on `items`.
    keys: Vec<(Cow<'a, str>, Span)>,
    markers: Vec<(u32, u64)>,
    notable: Vec<(u32, u8)>,
    /// Scratch for an entry's `key: value` line.
    line: String,
    host: Host<'p>,
    /// Some array has notable items.
    found: bool,
}

/// Bytes of a string looked at one by one before a search takes over.
const SHORT_STRING: usize = 32;

/// The parser: where it is in the text, and how deep.
struct Parser<'a, 'p> {
    text: &'a str,
    b: &'a [u8],
    at: usize,
    /// Arrays and objects open around `at`.
    depth: usize,
    st: State<'a, 'p>,
}

impl<'a> Parser<'a, '_> {
    /// The value at `at` (whitespace first), pushed on `items`; `at`
    /// moves past it. Returns its failure score, and whether it is a
    /// string with a failure word.
    fn value(&mut self) -> Option<(u8, bool)> {
        let start = skip_space(self.b, self.at);
        self.at = start;
        let (kind, score) = match *self.b.get(start)? {
            b'[' => self.nested(Self::array)?,
            b'{' => self.nested(Self::object)?,
            b'"' => {
                let s = self.string()?;
                let score = score::string(&s, self.st.host);
                (Kind::String(s), score)
            }
            b't' => (self.literal("true", Kind::Bool(true))?, (0, false)),
            b'f' => (self.literal("false", Kind::Bool(false))?, (0, false)),
            b'n' => (self.literal("null", Kind::Null)?, (0, false)),
            _ => (Kind::Number(self.number()?), (0, false)),
        };
        let at = span(start, self.at);
        self.st.items.push(Node { at, kind });
        Some(score)
    }

    /// An array or object, within serde_json's nesting limit.
    fn nested(
        &mut self,
        container: fn(&mut Self) -> Option<(Kind<'a>, u8)>,
    ) -> Option<(Kind<'a>, (u8, bool))> {
        if self.depth == MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let (kind, best) = container(self)?;
        self.depth -= 1;
        Some((kind, (best, false)))
    }

    /// `word` at `at`, which is `kind`.
    fn literal(&mut self, word: &str, kind: Kind<'a>) -> Option<Kind<'a>> {
        self.b[self.at..].starts_with(word.as_bytes()).then(|| {
            self.at += word.len();
            kind
        })
    }

    /// The number at `at`, as written: `-`, an integer without leading
    /// zeros, then maybe a fraction and an exponent, each with digits.
    fn number(&mut self) -> Option<&'a str> {
        let (b, start) = (self.b, self.at);
        let digits = |i: usize| i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut i = start + usize::from(b[start] == b'-');
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(i),
            _ => return None,
        }
        if b.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        let exponent = matches!(b.get(i), Some(b'e' | b'E'));
        if exponent {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return None;
            }
            i = end;
        }
        self.at = i;
        let written = &self.text[start..i];
        // Only an exponent or hundreds of digits reach past f64's range;
        // serde_json decides those, as it would in the document (as a
        // `Value`, which the component parses elsewhere already).
        if (exponent || written.len() > 300)
            && serde_json::from_str::<serde_json::Value>(written).is_err()
        {
            return None;
        }
        Some(written)
    }

    /// The string whose opening quote is at `at`: borrowed from the text
    /// unless it holds an escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let from = self.at + 1;
        let stop = self.up_to_escape(from)?;
        if self.b[stop] == b'"' {
            self.at = stop + 1;
            return Some(Cow::Borrowed(&self.text[from..stop]));
        }
        let mut out = String::with_capacity(stop - from + 16);
        out.push_str(&self.text[from..stop]);
        let mut i = stop;
        // `b[i]` is a backslash.
        loop {
            let (c, used) = strict_escape(&self.text[i + 1..])?;
            out.push(c);
            let from = i + 1 + used;
            i = self.up_to_escape(from)?;
            out.push_str(&self.text[from..i]);
            if self.b[i] == b'"' {
                self.at = i + 1;
                return Some(Cow::Owned(out));
            }
        }
    }

    /// The first quote or backslash at or after `from`, in the string
    /// there; `None` when the text ends first or a control character,
    /// which must be escaped, comes before.
    fn up_to_escape(&self, from: usize) -> Option<usize> {
        let b = self.b;
        // Most strings and keys are short: a byte at a time first, which
        // costs less than setting up a search.
        let short = (from + SHORT_STRING).min(b.len());
        for (i, &c) in b[from..short].iter().enumerate() {
            match c {
                b'"' | b'\\' => return Some(from + i),
                0..0x20 => return None,
                _ => {}
            }
        }
        let stop = short + memchr2(b'"', b'\\', &b[short..])?;
        (!b[short..stop].iter().any(|&c| c < 0x20)).then_some(stop)
    }

    /// The array whose `[` is at `at`, and its best item's score; notes its
    /// markers, notable items, groups and shape.
    fn array(&mut self) -> Option<(Kind<'a>, u8)> {
        let st = &self.st;
        let (base, markers, notable) = (st.items.len(), st.markers.len(), st.notable.len());
        let mut best = 0;
        let mut at = skip_space(self.b, self.at + 1);
        if self.b.get(at) == Some(&b']') {
            self.at = at + 1;
        } else {
            loop {
                self.at = at;
                let (score, _) = self.value()?;
                let st = &mut self.st;
                // The item just parsed is the last on `items`.
                let index = st.items.len() - 1 - base;
                let count = match st.items.last().map(|item| &item.kind) {
                    Some(Kind::String(s)) => marker::count(s, marker::ITEMS),
                    _ => None,
                };
                if let Ok(i) = u32::try_from(index) {
                    match count {
                        Some(n) => st.markers.push((i, n)),
                        None if score > 0 => st.notable.push((i, score)),
                        None => {}
                    }
                }
                best = best.max(score);
                at = skip_space(self.b, self.at);
                match self.b.get(at)? {
                    b',' => at += 1,
                    b']' => {
                        self.at = at + 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let st = &mut self.st;
        let array_markers = &st.markers[markers..];
        let groups = match u32::try_from(st.items.len() - base) {
            Ok(_) => groups::find_groups(&st.items[base..], array_markers),
            Err(_) => None,
        };
        let shape = shape::find_shape(&st.items[base..]);
        // An item whose state few others share is notable, after failures.
        if let Some(g) = &groups {
            for i in groups::rare_items(g) {
                let own = &st.notable[notable..];
                if own.binary_search_by_key(&i, |&(at, _)| at).is_err() {
                    let at = notable + own.partition_point(|&(at, _)| at < i);
                    st.notable.insert(at, (i, groups::RARE_SCORE));
                }
            }
        }
        let info = (st.markers.len() > markers
            || st.notable.len() > notable
            || groups.is_some()
            || shape.is_some())
        .then(|| {
            let best_first = &mut st.notable[notable..];
            // Indices are unique: the order is total, and the best
            // MAX_NOTABLE come first.
            crate::order::sort_by_key(best_first, |&(i, score)| (Reverse(score), i));
            let kept = best_first.len().min(MAX_NOTABLE);
            st.found |= kept > 0;
            let info = ArrayInfo {
                markers: st.markers.drain(markers..).collect(),
                notable: st.notable[notable..notable + kept].into(),
                groups,
                shape,
            };
            st.notable.truncate(notable);
            Box::new(info)
        });
        Some((Kind::Array(st.items.drain(base..).collect(), info), best))
    }

    /// The object whose `{` is at `at`, and its best entry's score.
    fn object(&mut self) -> Option<(Kind<'a>, u8)> {
        let (base, keys) = (self.st.items.len(), self.st.keys.len());
        let mut best = 0;
        let mut at = skip_space(self.b, self.at + 1);
        if self.b.get(at) == Some(&b'}') {
            self.at = at + 1;
        } else {
            loop {
                if self.b.get(at) != Some(&b'"') {
                    return None;
                }
                self.at = at;
                let key = self.string()?;
                let key_at = span(at, self.at);
                let colon = skip_space(self.b, self.at);
                if self.b.get(colon) != Some(&b':') {
                    return None;
                }
                self.at = colon + 1;
                let value_score = self.value()?;
                let st = &mut self.st;
                let value = &st.items.last()?.kind;
                let score = score::entry(&key, value, value_score, st.host, &mut st.line);
                best = best.max(score);
                st.keys.push((key, key_at));
                at = skip_space(self.b, self.at);
                match self.b.get(at)? {
                    b',' => at = skip_space(self.b, at + 1),
                    b'}' => {
                        self.at = at + 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let st = &mut self.st;
        let entries = st
            .keys
            .drain(keys..)
            .zip(st.items.drain(base..))
            .map(|((key, key_at), value)| Entry { key, key_at, value })
            .collect();
        Some((Kind::Object(entries), best))
    }
}

/// The first byte at or after `i` that is not JSON whitespace.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

fn span(start: usize, end: usize) -> Span {
    // The caller refuses texts longer than `u32::MAX` bytes.
    Span {
        start: start as u32,
        end: end as u32,
    }
}
