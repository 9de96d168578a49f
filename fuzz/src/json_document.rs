//! `json::parse_document` on any text: it accepts exactly what serde_json
//! parses as one object or array, and a document it accepts renders whole as
//! its own text, so every span it noted is where its value is.

use std::fmt;

use arbitrary::{Arbitrary, Unstructured};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toolcap_core::preview::json::{parse_document, preview};

/// Tokens of JSON and near-JSON: escapes valid and not (paired and lone
/// surrogates), numbers serde_json takes and refuses, control characters,
/// literals cut short, keys, separators and brackets.
const TOKENS: [&str; 40] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "\n",
    "\"",
    "\"k\"",
    "\"v\"",
    "\\",
    "\\n",
    "\\\"",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udc00",
    "\\u12",
    "\\x",
    "\u{1}",
    "0",
    "-0",
    "01",
    "1.5",
    "1.",
    ".5",
    "1e400",
    "-1e-400",
    "1E+2",
    "18446744073709551616",
    "-",
    "true",
    "tru",
    "null",
    "false",
    "é",
    "😀",
    "[toolcap: 3 items omitted]",
    "\t",
];

/// The input the fuzzer shapes: a document, spaced or not, then edited.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    root: Json<'a>,
    spaced: bool,
    edits: Vec<(u16, Edit<'a>)>,
}

/// A value of the document before its edits.
#[derive(Arbitrary, Debug)]
enum Json<'a> {
    /// An index into [`TOKENS`], written where a value goes.
    Scalar(u8),
    /// A string of raw text (escaped as JSON) and tokens (as written).
    String(&'a str, Vec<u8>),
    Array(Vec<Json<'a>>),
    Object(Vec<(&'a str, Json<'a>)>),
}

/// An edit at a position (as a share of the text).
#[derive(Arbitrary, Debug)]
enum Edit<'a> {
    /// An index into [`TOKENS`].
    Token(u8),
    Raw(&'a str),
    Delete,
}

fn token(i: u8) -> &'static str {
    TOKENS[usize::from(i) % TOKENS.len()]
}

/// Writes `v` as JSON, a space after each separator when `spaced`; the
/// root is always an array or object.
fn write(v: &Json<'_>, spaced: bool, out: &mut String) {
    let sep = if spaced { ", " } else { "," };
    match v {
        Json::Scalar(i) => out.push_str(token(*i)),
        Json::String(raw, tokens) => {
            let quoted = serde_json::to_string(raw).expect("a string");
            out.push_str(&quoted[..quoted.len() - 1]);
            tokens.iter().for_each(|&i| out.push_str(token(i)));
            out.push('"');
        }
        Json::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                out.push_str(if k > 0 { sep } else { "" });
                write(item, spaced, out);
            }
            out.push(']');
        }
        Json::Object(entries) => {
            out.push('{');
            for (k, (key, value)) in entries.iter().enumerate() {
                out.push_str(if k > 0 { sep } else { "" });
                out.push_str(&serde_json::to_string(key).expect("a key"));
                out.push_str(if spaced { ": " } else { ":" });
                write(value, spaced, out);
            }
            out.push('}');
        }
    }
}

/// The text of `input`: its document with its edits.
fn text_of(input: &Input<'_>) -> String {
    let mut text = String::new();
    match &input.root {
        Json::Object(_) | Json::Array(_) => write(&input.root, input.spaced, &mut text),
        scalar => {
            text.push('[');
            write(scalar, input.spaced, &mut text);
            text.push(']');
        }
    }
    for (share, edit) in &input.edits {
        let at = text.floor_char_boundary(text.len() * usize::from(*share) / 65536);
        match edit {
            Edit::Token(i) => text.insert_str(at, token(*i)),
            Edit::Raw(s) => text.insert_str(at, s),
            Edit::Delete if at < text.len() => {
                text.remove(at);
            }
            Edit::Delete => {}
        }
    }
    text
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonPath {
    /// Not one object or array: both refuse.
    Refused,
    /// An array both parse.
    Array,
    /// An object both parse.
    Object,
}

/// Parse `data` as a text, parse the text both ways and check they agree.
/// Panics when they do not; `None` when `data` does not shape into an input.
pub fn check_json_document(data: &[u8]) -> Option<JsonPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let text = text_of(&input);
    let theirs = serde_json::from_str::<Shape>(&text)
        .ok()
        .filter(|shape| *shape != Shape::Scalar);
    let ours = parse_document(&text);
    assert_eq!(
        ours.is_some(),
        theirs.is_some(),
        "{text:?}: serde_json {theirs:?}"
    );
    let (Some(doc), Some(shape)) = (ours, theirs) else {
        return Some(JsonPath::Refused);
    };
    // A document that fits is its text, byte for byte: each value was
    // written from its span.
    let trimmed = text.trim_matches([' ', '\t', '\n', '\r']);
    let whole = preview(&doc, trimmed.len(), trimmed.contains('\n')).expect("the whole fits");
    assert_eq!(whole.text, trimmed);
    Some(if shape == Shape::Array {
        JsonPath::Array
    } else {
        JsonPath::Object
    })
}

/// What serde_json parses a text as: the oracle. Not `serde_json::Value`:
/// with serde_json's `raw_value` feature (on here, as in the core) `Value`
/// reads an object whose first key is serde_json's private token
/// `$serde_json::private::RawValue` as the JSON its string holds, so it
/// refuses `{"$serde_json::private::RawValue":"x"}`, which is JSON (this
/// target found it). `Shape` goes through serde_json's own parser as
/// `Value` does, with the same numbers, strings, escapes and nesting limit,
/// and takes every key as a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Array,
    Object,
    Scalar,
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }

    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }

    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Shape, A::Error> {
        while items.next_element::<Shape>()?.is_some() {}
        Ok(Shape::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Shape, A::Error> {
        while members.next_key::<String>()?.is_some() {
            members.next_value::<Shape>()?;
        }
        Ok(Shape::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x7503,
            20_000,
            200,
            check_json_document,
            &[JsonPath::Refused, JsonPath::Array, JsonPath::Object],
        );
    }

    /// Texts both refuse, or both take, for a reason of their own.
    #[test]
    fn edges() {
        for text in [
            "[\"\\ud800\"]",
            "[\"\\ud800\\u0041\"]",
            "[\"\\ud83d\\ude00\"]",
            "[1e400]",
            "[01]",
            "[-0]",
            "{\"a\":1,\"a\":2}",
            "[\"\u{1}\"]",
        ] {
            let theirs = serde_json::from_str::<serde_json::Value>(text).is_ok();
            assert_eq!(parse_document(text).is_some(), theirs, "{text:?}");
            let shape = serde_json::from_str::<Shape>(text).is_ok();
            assert_eq!(shape, theirs, "{text:?}");
        }
    }

    /// serde_json's private raw-value key is an ordinary key of JSON: the
    /// core takes the object, and so does the oracle, where `Value`
    /// refuses it (the fuzzer's find) or reads it as its string's JSON.
    #[test]
    fn serde_jsons_private_key_is_a_key() {
        for text in [
            r#"{"$serde_json::private::RawValue":"RRRRRRRR\fDD"}"#,
            r#"{"$serde_json::private::RawValue":"[1]"}"#,
        ] {
            assert!(parse_document(text).is_some(), "{text:?}");
            assert_eq!(
                serde_json::from_str::<Shape>(text).ok(),
                Some(Shape::Object)
            );
        }
        assert!(
            serde_json::from_str::<serde_json::Value>(r#"{"$serde_json::private::RawValue":"x"}"#)
                .is_err()
        );
        assert!(
            serde_json::from_str::<serde_json::Value>(
                r#"{"$serde_json::private::RawValue":"[1]"}"#
            )
            .unwrap()
            .is_array()
        );
    }
}
