//! The one-pass parser against serde_json: the same texts accepted, the same
//! values built, and every span the text of its value.

use proptest::prelude::*;
use serde_json::Value;

use super::super::tree::{Kind, Node};
use super::super::{Document, parse_document};
use super::{any_document, serde_render};

/// Bits of JSON and near-JSON that a text is edited with: escapes valid and
/// not (lone and paired surrogates), numbers serde_json refuses or takes
/// (`01`, `1.`, `1e400`, `-0`), control characters, brackets, separators
/// and literals cut short.
const EDITS: &[&str] = &[
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udc00",
    "\\ud800\\u0041",
    "\\uD83D\\uDE00",
    "\\u12",
    "\\u+123",
    "\\x",
    "\\/",
    "\\",
    "\"",
    "\u{1}",
    "\u{1f}",
    "\t",
    "1e400",
    "-1e-400",
    "1E+2",
    "-0",
    "01",
    "1.",
    ".5",
    "1e",
    "-",
    "18446744073709551616",
    "-9223372036854775809",
    ",",
    ":",
    "[",
    "]",
    "{",
    "}",
    " ",
    "tru",
    "null",
    "falsey",
    "\"k\":1",
    "[]",
    "{}",
];

/// `text` with each edit at its place: a position given as a share of the
/// text, moved back to a character boundary, where an edit's bits are
/// inserted or, for `None`, one character is removed.
fn edited(text: &str, edits: &[(f64, Option<usize>)]) -> String {
    let mut out = text.to_owned();
    for &(share, edit) in edits {
        let at = out.floor_char_boundary((out.len() as f64 * share) as usize);
        match edit {
            Some(k) => out.insert_str(at, EDITS[k]),
            None if at < out.len() => {
                out.remove(at);
            }
            None => {}
        }
    }
    out
}

/// The value `node` stands for, as serde_json builds it (a repeated key's
/// last value wins).
fn value_of(node: &Node<'_>) -> Value {
    match &node.kind {
        Kind::Null => Value::Null,
        Kind::Bool(b) => Value::Bool(*b),
        Kind::Number(n) => serde_json::from_str(n).expect("a number as serde_json reads it"),
        Kind::String(s) => Value::String(s.to_string()),
        Kind::Array(items, _) => Value::Array(items.iter().map(value_of).collect()),
        Kind::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|e| (e.key.to_string(), value_of(&e.value)))
                .collect(),
        ),
    }
}

/// Every node's span is the text of its value, and every key's span the
/// text of its key.
fn check_spans(text: &str, node: &Node<'_>) {
    let written: Value = serde_json::from_str(&text[node.at.range()]).expect("a span parses");
    assert_eq!(written, value_of(node), "span {:?}", node.at);
    match &node.kind {
        Kind::Array(items, _) => items.iter().for_each(|n| check_spans(text, n)),
        Kind::Object(entries) => {
            for e in entries {
                let key: String = serde_json::from_str(&text[e.key_at.range()]).unwrap();
                assert_eq!(key, e.key);
                check_spans(text, &e.value);
            }
        }
        _ => {}
    }
}

/// What serde_json says of `text`: its value when it is one object or array
/// (whitespace around it allowed).
fn serde_document(text: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(text).ok()?;
    (v.is_array() || v.is_object()).then_some(v)
}

fn agree(text: &str) {
    let ours: Option<Document<'_>> = parse_document(text);
    match (ours, serde_document(text)) {
        (Some(doc), Some(v)) => {
            assert_eq!(value_of(&doc.root), v, "{text:?}");
            check_spans(doc.text, &doc.root);
        }
        (None, None) => {}
        (ours, theirs) => panic!(
            "{text:?}: ours {}, serde_json {}",
            if ours.is_some() { "parses" } else { "refuses" },
            if theirs.is_some() {
                "parses"
            } else {
                "refuses"
            },
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn texts_parse_as_serde_json_parses_them(
        v in any_document(),
        pretty in any::<bool>(),
        edits in prop::collection::vec(
            (0.0..1.0f64, prop::option::weighted(0.8, 0..EDITS.len())),
            0..4,
        ),
    ) {
        agree(&edited(&serde_render(&v, pretty), &edits));
    }
}

#[test]
fn each_edit_alone_parses_as_serde_json_parses_it() {
    for edit in EDITS {
        for text in [
            format!("[{edit}]"),
            format!("[\"{edit}\"]"),
            format!("{{\"{edit}\":1}}"),
            format!("{{\"k\":{edit}}}"),
            format!("[1{edit}]"),
            format!("[{edit}1]"),
            format!(" {edit}[]"),
            format!("[]{edit} "),
        ] {
            agree(&text);
        }
    }
}
