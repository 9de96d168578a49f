//! The parsed document: serde_json's parser and its checks, building a tree
//! whose strings are borrowed from the text unless they hold an escape and
//! whose objects are lists of entries. Parsing and dropping a 4 MiB document
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

use super::marker;
use super::score::{self, Host};

/// Notable items an array keeps note of at most, the best: a long array of
/// failures stays bounded, and a preview never shows that many.
pub(super) const MAX_NOTABLE: usize = 256;

/// One JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    /// Items, and what else is known of them when there is something: most
    /// arrays have neither markers nor notable items.
    Array(Vec<Node<'a>>, Option<Box<ArrayInfo>>),
    /// Entries in document order; a repeated key is kept as often as it
    /// appears.
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

/// An array's markers and notable items, found while parsing so that trial
/// renderings do not scan long arrays. Indexes past `u32::MAX` are not
/// noted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct ArrayInfo {
    /// Every marker element, `(index, count)`, in order.
    pub markers: Box<[(u32, u64)]>,
    /// Items other than markers with a failure score above 0, `(index,
    /// score)`, best first (score descending, then index ascending), at
    /// most [`MAX_NOTABLE`].
    pub notable: Box<[(u32, u8)]>,
}

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
    let root = Seed { st: &mut state }.deserialize(&mut de)?.node;
    de.end()?;
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
    entries: Vec<(Cow<'de, str>, Node<'de>)>,
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

impl<'a> From<Node<'a>> for Scored<'a> {
    fn from(node: Node<'a>) -> Self {
        Scored {
            node,
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
            node: Node::String(s),
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
        Ok(Node::Null.into())
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Scored<'de>, E> {
        Ok(Node::Bool(b).into())
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Scored<'de>, E> {
        Ok(Node::Number(n.into()).into())
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Scored<'de>, E> {
        Ok(Node::Number(n.into()).into())
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Scored<'de>, E> {
        Number::from_f64(n)
            .map(|n| Node::Number(n).into())
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
            let count = match &item.node {
                Node::String(s) => marker::count(s, marker::ITEMS),
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
        let info = (st.markers.len() > markers || st.notable.len() > notable).then(|| {
            let best_first = &mut st.notable[notable..];
            let by_rank = |&(i, score): &(u32, u8)| (Reverse(score), i);
            if best_first.len() > MAX_NOTABLE {
                best_first.select_nth_unstable_by_key(MAX_NOTABLE, by_rank);
            }
            let kept = best_first.len().min(MAX_NOTABLE);
            best_first[..kept].sort_unstable_by_key(by_rank);
            st.found |= kept > 0;
            let info = ArrayInfo {
                markers: st.markers.drain(markers..).collect(),
                notable: st.notable[notable..notable + kept].into(),
            };
            st.notable.truncate(notable);
            Box::new(info)
        });
        Ok(Scored {
            node: Node::Array(st.items.drain(base..).collect(), info),
            score: (best, false),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scored<'de>, A::Error> {
        let st = self.st;
        let base = st.entries.len();
        let mut best = 0;
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value_seed(Seed { st: &mut *st })?;
            let score = score::entry(&key, &value.node, value.score, st.host, &mut st.line);
            best = best.max(score);
            st.entries.push((key, value.node));
        }
        Ok(Scored {
            node: Node::Object(st.entries.drain(base..).collect()),
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
