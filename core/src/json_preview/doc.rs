//! The parsed document: serde_json's parser and its checks, building a tree
//! whose strings are borrowed from the text unless they hold an escape and
//! whose objects are lists of entries. Parsing and dropping a 4 MiB document
//! this way costs a fraction of a `serde_json::Value`, which allocates every
//! key and string and hashes every object.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::marker;

/// One JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    /// Items, and where the first array marker among them is (found while
    /// parsing, so that trial renderings do not scan long arrays).
    Array(Vec<Node<'a>>, MarkerAt),
    /// Entries in document order; a repeated key is kept as often as it
    /// appears.
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

/// The index of an array's first marker element, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MarkerAt(u32);

impl MarkerAt {
    const NONE: MarkerAt = MarkerAt(u32::MAX);

    pub(super) fn get(self) -> Option<usize> {
        (self != MarkerAt::NONE).then_some(self.0 as usize)
    }
}

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut items = Vec::new();
        let mut entries = Vec::new();
        d.deserialize_any(Seed {
            items: &mut items,
            entries: &mut entries,
        })
    }
}

/// Builds one value. Containers gather their children on stacks shared by
/// the whole parse and move them into a vector of the exact size at their
/// end, instead of growing a vector of their own.
struct Seed<'s, 'de> {
    items: &'s mut Vec<Node<'de>>,
    entries: &'s mut Vec<(Cow<'de, str>, Node<'de>)>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, 'de> {
    type Value = Node<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_, 'de> {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: Error>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E: Error>(self, b: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E: Error>(self, n: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_u64<E: Error>(self, n: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_f64<E: Error>(self, n: f64) -> Result<Node<'de>, E> {
        Number::from_f64(n)
            .map(Node::Number)
            .ok_or_else(|| E::custom("a number out of range"))
    }

    fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Borrowed(s)))
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: Error>(self, s: String) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let base = self.items.len();
        let mut at = MarkerAt::NONE;
        loop {
            let seed = Seed {
                items: &mut *self.items,
                entries: &mut *self.entries,
            };
            let Some(item) = seq.next_element_seed(seed)? else {
                break;
            };
            if at == MarkerAt::NONE
                && let Node::String(s) = &item
                && marker::count(s, marker::ITEMS).is_some()
                && let Ok(i) = u32::try_from(self.items.len() - base)
            {
                at = MarkerAt(i);
            }
            self.items.push(item);
        }
        Ok(Node::Array(self.items.drain(base..).collect(), at))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let base = self.entries.len();
        while let Some(Key(key)) = map.next_key()? {
            let seed = Seed {
                items: &mut *self.items,
                entries: &mut *self.entries,
            };
            let value = map.next_value_seed(seed)?;
            self.entries.push((key, value));
        }
        Ok(Node::Object(self.entries.drain(base..).collect()))
    }
}

/// An object key, borrowed unless it holds an escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
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
