//! The parsed document: serde_json's parser and its checks, building a tree
//! whose strings are borrowed from the text unless they hold an escape and
//! whose objects are lists of entries; then one pass over the text notes
//! where each value and key is ([`Span`]), so that a preview writes the
//! document's own bytes. Parsing and dropping a 4 MiB document
//! this way costs a fraction of a `serde_json::Value`, which allocates every
//! key and string and hashes every object.
//!
//! While parsing, every value is scored ([`score`]) and each array notes its
//! markers and its notable items, so that trial renderings scan no array.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::groups;
use super::marker;
use super::score::{self, Host};
use super::shape;
use super::tree::{ArrayInfo, Entry, Kind, MAX_NOTABLE, Node, Span};

/// A parsed document's root, and whether some array has notable items.
pub(super) struct Parsed<'a> {
    pub root: Node<'a>,
    pub notable: bool,
}

/// Parses `text`, which must be one JSON value and nothing else (JSON
/// whitespace around it allowed), scoring strings and keys against `host`
/// patterns too.
pub(super) fn parse<'a>(text: &'a str, host: Host<'_>) -> serde_json::Result<Parsed<'a>> {
    let mut state = State {
        items: Vec::new(),
        entries: Vec::new(),
        markers: Vec::new(),
        notable: Vec::new(),
        line: String::new(),
        host,
        found: false,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let mut root = Seed { st: &mut state }.deserialize(&mut de)?.node;
    de.end()?;
    locate(text.as_bytes(), 0, &mut root);
    Ok(Parsed {
        root,
        notable: state.found,
    })
}

/// What the whole parse shares. Containers gather their children on stacks
/// and move them into a vector of the exact size at their end, instead of
/// growing a vector of their own.
struct State<'de, 'p> {
    items: Vec<Node<'de>>,
    entries: Vec<Entry<'de>>,
    markers: Vec<(u32, u64)>,
    notable: Vec<(u32, u8)>,
    /// Scratch for an entry's `key: value` line.
    line: String,
    host: Host<'p>,
    /// Some array has notable items.
    found: bool,
}

/// A value, its failure score, and whether it is a string with a failure
/// word.
struct Scored<'a> {
    node: Node<'a>,
    score: (u8, bool),
}

impl<'a> From<Kind<'a>> for Scored<'a> {
    fn from(kind: Kind<'a>) -> Self {
        Scored {
            node: kind.into(),
            score: (0, false),
        }
    }
}

/// Builds one value.
struct Seed<'s, 'de, 'p> {
    st: &'s mut State<'de, 'p>,
}

impl<'de> Seed<'_, 'de, '_> {
    fn string(self, s: Cow<'de, str>) -> Scored<'de> {
        let score = score::string(&s, self.st.host);
        Scored {
            node: Kind::String(s).into(),
            score,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_, 'de, '_> {
    type Value = Scored<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scored<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_, 'de, '_> {
    type Value = Scored<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: Error>(self) -> Result<Scored<'de>, E> {
        Ok(Kind::Null.into())
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Scored<'de>, E> {
        Ok(Kind::Bool(b).into())
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Scored<'de>, E> {
        Ok(Kind::Number(n.into()).into())
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Scored<'de>, E> {
        Ok(Kind::Number(n.into()).into())
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Scored<'de>, E> {
        Number::from_f64(n)
            .map(|n| Kind::Number(n).into())
            .ok_or_else(|| E::custom("a number out of range"))
    }

    fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Scored<'de>, E> {
        Ok(self.string(Cow::Borrowed(s)))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Scored<'de>, E> {
        Ok(self.string(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Scored<'de>, E> {
        Ok(self.string(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scored<'de>, A::Error> {
        let st = self.st;
        let (base, markers, notable) = (st.items.len(), st.markers.len(), st.notable.len());
        let mut best = 0;
        while let Some(item) = seq.next_element_seed(Seed { st: &mut *st })? {
            let count = match &item.node.kind {
                Kind::String(s) => marker::count(s, marker::ITEMS),
                _ => None,
            };
            if let Ok(i) = u32::try_from(st.items.len() - base) {
                match count {
                    Some(n) => st.markers.push((i, n)),
                    None if item.score.0 > 0 => st.notable.push((i, item.score.0)),
                    None => {}
                }
            }
            best = best.max(item.score.0);
            st.items.push(item.node);
        }
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
        Ok(Scored {
            node: Kind::Array(st.items.drain(base..).collect(), info).into(),
            score: (best, false),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scored<'de>, A::Error> {
        let st = self.st;
        let base = st.entries.len();
        let mut best = 0;
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value_seed(Seed { st: &mut *st })?;
            let score = score::entry(&key, &value.node.kind, value.score, st.host, &mut st.line);
            best = best.max(score);
            st.entries.push(Entry {
                key,
                key_at: Span::default(),
                value: value.node,
            });
        }
        Ok(Scored {
            node: Kind::Object(st.entries.drain(base..).collect()).into(),
            score: (best, false),
        })
    }
}

/// An object key, borrowed unless it holds an escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s)))
    }
}

/// The first byte at or after `i` that is not JSON whitespace.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The first byte at or after `i` that is neither JSON whitespace nor `sep`.
fn skip_sep(b: &[u8], i: usize, sep: u8) -> usize {
    let i = skip_space(b, i);
    if b.get(i) == Some(&sep) {
        skip_space(b, i + 1)
    } else {
        i
    }
}

/// Where the string starting (with its quote) at `i` ends, after its
/// closing quote. `borrowed` is the length of the string when it was
/// borrowed from the text: then it holds no escape, its bytes are the text's
/// between the quotes, and nothing needs to be searched.
fn string_end(b: &[u8], i: usize, borrowed: Option<usize>) -> usize {
    if let Some(len) = borrowed {
        return i + len + 2;
    }
    let mut at = i + 1;
    while let Some(off) = memchr::memchr2(b'"', b'\\', &b[at..]) {
        at += off;
        if b[at] == b'"' {
            return at + 1;
        }
        at += 2;
    }
    b.len()
}

fn span(start: usize, end: usize) -> Span {
    // The caller refuses texts longer than `u32::MAX` bytes.
    Span {
        start: start as u32,
        end: end as u32,
    }
}

/// Notes the spans of `node`, which starts at or after `i` (whitespace
/// first) in the text `b` it was parsed from, and of everything in it;
/// returns where it ends. The text is valid JSON and holds the values in
/// the order of the tree, so this only skips whitespace and separators.
fn locate(b: &[u8], i: usize, node: &mut Node<'_>) -> usize {
    let start = skip_space(b, i);
    let end = match &mut node.kind {
        Kind::Null | Kind::Bool(true) => start + 4,
        Kind::Bool(false) => start + 5,
        Kind::Number(_) => {
            let len = b[start..]
                .iter()
                .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .unwrap_or(b.len() - start);
            start + len
        }
        Kind::String(s) => string_end(b, start, matches!(s, Cow::Borrowed(_)).then_some(s.len())),
        Kind::Array(items, _) => {
            let mut at = start + 1;
            for item in items {
                at = locate(b, skip_sep(b, at, b','), item);
            }
            skip_space(b, at) + 1
        }
        Kind::Object(entries) => {
            let mut at = start + 1;
            for e in entries {
                let key = skip_sep(b, at, b',');
                let borrowed = matches!(e.key, Cow::Borrowed(_)).then_some(e.key.len());
                let key_end = string_end(b, key, borrowed);
                e.key_at = span(key, key_end);
                at = locate(b, skip_sep(b, key_end, b':'), &mut e.value);
            }
            skip_space(b, at) + 1
        }
    };
    node.at = span(start, end);
    end
}
