//! Properties of JSON previews against an independent oracle ([`check`]),
//! and realistic documents ([`fixtures`]).

mod fixtures;

use proptest::prelude::*;
use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;

use super::*;

/// What the markers of a preview say.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    items: u64,
    keys: u64,
    strings: u64,
    /// Arrays cut with more items kept at the tail than at the head.
    tail_heavy: u64,
}

fn count_of(s: &str, prefix: &str, suffix: &str) -> Option<u64> {
    let n = s.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().unwrap())
}

fn is_grapheme_boundary(s: &str, at: usize) -> bool {
    at == 0 || at == s.len() || s.grapheme_indices(true).any(|(i, _)| i == at)
}

/// Checks that `prev` is a preview of `orig` (which holds no markers) under
/// the rules of the module doc, with exact counts, and adds up its markers.
fn check(orig: &Node<'_>, prev: &Node<'_>, seen: &mut Seen) {
    match (orig, prev) {
        (Node::String(o), Node::String(p)) => {
            if o != p {
                let at = p
                    .rfind("…[toolcap: ")
                    .expect("a shortened string has a marker");
                let n = count_of(&p[at..], "…[toolcap: ", " bytes omitted]").expect("marker");
                let head = &p[..at];
                assert!(o.starts_with(head), "{p:?} is not a head of {o:?}");
                assert!(
                    is_grapheme_boundary(o, head.len()),
                    "{p:?} splits a grapheme"
                );
                assert_eq!(n, (o.len() - head.len()) as u64, "{p:?} of {o:?}");
                assert!(p.len() < o.len(), "a cut string is shorter");
                seen.strings += 1;
            }
        }
        (Node::Array(o, _), Node::Array(p, _)) => {
            let marker = p.iter().enumerate().find_map(|(i, v)| match v {
                Node::String(s) => count_of(s, "[toolcap: ", " items omitted]").map(|n| (i, n)),
                _ => None,
            });
            match marker {
                None => {
                    assert_eq!(o.len(), p.len(), "an array without marker is whole");
                    for (o, p) in o.iter().zip(p) {
                        check(o, p, seen);
                    }
                }
                Some((at, n)) => {
                    let tail = p.len() - at - 1;
                    assert!(n > 0, "a marker omits something");
                    assert_eq!(
                        at as u64 + n + tail as u64,
                        o.len() as u64,
                        "exact item count"
                    );
                    for (o, p) in o[..at].iter().zip(&p[..at]) {
                        check(o, p, seen);
                    }
                    for (o, p) in o[o.len() - tail..].iter().zip(&p[at + 1..]) {
                        check(o, p, seen);
                    }
                    seen.items += n;
                    seen.tail_heavy += u64::from(tail > at);
                }
            }
        }
        (Node::Object(o), Node::Object(p)) => {
            let marker = match p.last() {
                Some((k, Node::Null)) => count_of(k, "[toolcap: ", " keys omitted]"),
                _ => None,
            };
            let kept = p.len() - usize::from(marker.is_some());
            assert_eq!(
                o.len(),
                kept + marker.unwrap_or(0) as usize,
                "exact key count"
            );
            for ((ok, ov), (pk, pv)) in o.iter().zip(&p[..kept]) {
                assert_eq!(ok, pk, "keys kept in order");
                check(ov, pv, seen);
            }
            seen.keys += marker.unwrap_or(0);
        }
        (o, p) => assert_eq!(o, p, "scalars are kept whole"),
    }
}

/// [`check`] of a preview, with its counts.
fn check_preview(orig: &Document<'_>, p: &JsonPreview, max: usize) -> Seen {
    assert!(p.text.len() <= max, "{} bytes over {max}", p.text.len());
    serde_json::from_str::<Value>(&p.text).expect("serde_json parses the preview");
    let parsed = parse_document(&p.text).expect("a preview is a document");
    assert_eq!(
        matches!(orig.root, Node::Array(..)),
        matches!(parsed.root, Node::Array(..)),
        "the top-level kind is kept"
    );
    let mut seen = Seen::default();
    check(&orig.root, &parsed.root, &mut seen);
    assert_eq!(
        (seen.items, seen.keys, seen.strings),
        (p.omitted_items, p.omitted_keys, p.shortened_strings),
        "counts reported as the markers say"
    );
    seen
}

fn room(bytes: usize, pretty: bool) -> Room {
    Room {
        bytes,
        lines: usize::MAX,
        pretty,
    }
}

fn serde_render(v: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    }
    .unwrap()
}

/// The smallest preview of `v`: its top level with only a marker.
fn skeleton(v: &Value, pretty: bool) -> String {
    let v = match v {
        Value::Array(a) if !a.is_empty() => {
            json!([format!("[toolcap: {} items omitted]", a.len())])
        }
        Value::Object(o) if !o.is_empty() => {
            let mut m = serde_json::Map::new();
            m.insert(format!("[toolcap: {} keys omitted]", o.len()), Value::Null);
            Value::Object(m)
        }
        other => other.clone(),
    };
    serde_render(&v, pretty)
}

fn any_string() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        "[a-z ]{0,12}",
        Just("ж".to_owned()),
        Just("中文".to_owned()),
        Just("😀".to_owned()),
        Just("👨‍👩‍👧".to_owned()),
        Just("🇵🇹".to_owned()),
        Just("e\u{301}".to_owned()),
        Just("\r\n".to_owned()),
        Just("\"\\\t\u{1}\u{7f}/".to_owned()),
        Just("…[".to_owned()),
        "[a-z]{100,600}",
    ];
    prop::collection::vec(pieces, 0..6).prop_map(|v| v.concat())
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 300, 40, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,10}|中文|😀", inner), 0..10)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn any_document() -> impl Strategy<Value = Value> {
    any_value().prop_filter("an object or array", |v| v.is_array() || v.is_object())
}

proptest! {
    #[test]
    fn whole_rendering_is_serde_jsons(v in any_document(), pretty in any::<bool>()) {
        let text = serde_render(&v, pretty);
        let doc = parse_document(&text).unwrap();
        let whole = render(&doc.root, Limits::ALL, room(usize::MAX, pretty)).unwrap();
        prop_assert_eq!(&whole.text, &text);
        prop_assert_eq!(preview(&doc, text.len(), pretty).unwrap().text, text);
    }

    #[test]
    fn previews_parse_fit_and_count_exactly(
        v in any_document(),
        max in prop_oneof![0usize..200, 0usize..4000],
        max_lines in prop::option::of(0usize..80),
        pretty in any::<bool>(),
    ) {
        let text = serde_render(&v, pretty);
        let doc = parse_document(&text).unwrap();
        let lines = max_lines.unwrap_or(usize::MAX);
        let p = match max_lines {
            None => preview(&doc, max, pretty),
            Some(lines) => preview_lines(&doc, max, lines, pretty),
        };
        match p {
            None => {
                let skeleton = skeleton(&v, pretty);
                prop_assert!(skeleton.len() > max || skeleton.lines().count() > lines);
            }
            Some(p) => {
                let seen = check_preview(&doc, &p, max);
                prop_assert!(p.text.split('\n').count() <= lines, "{} lines", p.text.lines().count());
                let room = Room { bytes: max, lines, pretty };
                prop_assert_eq!(seen.tail_heavy, 0, "k >= m");
                if text.len() <= max && text.split('\n').count() <= lines {
                    prop_assert_eq!(&p.text, &text, "a document that fits is whole");
                }
                // Keys are dropped only when not one item of each array fits
                // with every key.
                if p.omitted_keys > 0 {
                    let one = Limits { items: 1, ..Limits::BARE };
                    prop_assert!(render(&doc.root, one, room).is_none(), "keys dropped");
                }
            }
        }
    }

    #[test]
    fn previews_are_idempotent_and_counts_accumulate(
        v in any_document(),
        max in 0usize..3000,
        other in 0usize..3000,
        pretty in any::<bool>(),
    ) {
        let text = serde_render(&v, pretty);
        let doc = parse_document(&text).unwrap();
        let Some(first) = preview(&doc, max, pretty) else { return Ok(()) };
        let again = parse_document(&first.text).expect("a preview is a document");
        // Same or larger budget: unchanged, counts included.
        let same = preview(&again, max + other, pretty);
        prop_assert_eq!(same.as_ref(), Some(&first));
        // Smaller budget: a valid preview of the original, with exact counts.
        let smaller = max.saturating_sub(other);
        if let Some(second) = preview(&again, smaller, pretty) {
            check_preview(&doc, &second, smaller);
            // A third cut at the second's size changes nothing.
            let third = preview(&parse_document(&second.text).unwrap(), smaller, pretty);
            prop_assert_eq!(third.as_ref(), Some(&second));
        }
    }
}

#[test]
fn documents_are_whole_objects_or_arrays() {
    for text in [
        "{}",
        "[]",
        " \n\t{\"a\":[1,2]}\r\n",
        "[{\"a\":1},{\"b\":2}]",
        "{\"a\":1,\"a\":2}",
    ] {
        assert!(parse_document(text).is_some(), "{text:?}");
    }
    let deep_ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(parse_document(&deep_ok).is_some());
    for text in [
        "",
        "   ",
        "42",
        "\"a string\"",
        "null",
        "text {\"a\":1}",
        "{\"a\":1} trailing",
        "{\"a\":1}\n{\"b\":2}\n",
        "[1,2",
        "{'a':1}",
        "\u{feff}{}",
        "[\"\\ud800\"]",
        "[1e400]",
        "[NaN]",
    ] {
        assert!(parse_document(text).is_none(), "{text:?}");
    }
    for depth in [MAX_DEPTH + 1, 10_000] {
        let arrays = "[".repeat(depth) + &"]".repeat(depth);
        assert!(parse_document(&arrays).is_none());
        let objects = "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth);
        assert!(parse_document(&objects).is_none());
    }
}

/// Repeated keys are kept as the text has them, and strings with escapes
/// are escaped again as serde_json escapes them.
#[test]
fn text_is_kept_as_parsed() {
    let doc = parse_document(r#"{"a":1,"a":"\u00e9\/\n","b":[1.0e3,-0,12345678901234567890123]}"#);
    let p = preview(&doc.unwrap(), 1000, false).unwrap();
    assert_eq!(
        p.text,
        r#"{"a":1,"a":"é/\n","b":[1000.0,-0.0,1.2345678901234568e+22]}"#
    );
}

#[test]
fn markers_have_their_documented_form() {
    let text = serde_json::to_string(&json!({
        "ids": (1..=100).collect::<Vec<_>>(),
        "log": "x".repeat(500),
        "ok": true,
    }))
    .unwrap();
    let doc = parse_document(&text).unwrap();
    let p = preview(&doc, 120, false).unwrap();
    assert_eq!(
        p.text,
        r#"{"ids":[1,2,3,4,"[toolcap: 94 items omitted]",99,100],"log":"xxxxxxxxxxxxxxxx…[toolcap: 484 bytes omitted]","ok":true}"#
    );
    assert_eq!(
        (p.omitted_items, p.omitted_keys, p.shortened_strings),
        (94, 0, 1)
    );
    check_preview(&doc, &p, 120);

    let wide: serde_json::Map<String, Value> =
        (0..100).map(|i| (format!("key{i:02}"), json!(i))).collect();
    let text = serde_json::to_string(&wide).unwrap();
    let doc = parse_document(&text).unwrap();
    let p = preview(&doc, 60, false).unwrap();
    assert_eq!(
        p.text,
        r#"{"key00":0,"key01":1,"[toolcap: 98 keys omitted]":null}"#
    );
    assert_eq!(preview(&doc, 30, false), None);

    let doc = parse_document("[[1,2,3,4,5,6,7,8,9,10]]").unwrap();
    let p = preview(&doc, 51, true).unwrap();
    assert_eq!(
        p.text,
        "[\n  [\n    1,\n    \"[toolcap: 9 items omitted]\"\n  ]\n]"
    );
}

#[test]
fn counts_accumulate_over_repeated_cuts() {
    let text = serde_json::to_string(&json!({
        "a": (0..1000).collect::<Vec<_>>(),
        "s": "é".repeat(1000),
    }))
    .unwrap();
    let orig = parse_document(&text).unwrap();
    let mut text = text.clone();
    for max in [4000, 1000, 300, 100, 80] {
        let p = preview(&parse_document(&text).unwrap(), max, false).unwrap();
        check_preview(&orig, &p, max);
        text = p.text;
    }
    assert_eq!(
        text,
        r#"{"a":[0,"[toolcap: 999 items omitted]"],"s":"…[toolcap: 2000 bytes omitted]"}"#
    );
}

#[test]
fn strings_are_cut_between_graphemes() {
    for unit in ["😀", "中", "ж", "e\u{301}", "👨‍👩‍👧", "🇵🇹", "\r\n", "a"] {
        let text = serde_json::to_string(&json!([unit.repeat(3000)])).unwrap();
        let doc = parse_document(&text).unwrap();
        for max in [40, 41, 42, 43, 60, 100, 1001, 5000] {
            let p = preview(&doc, max, false).unwrap();
            check_preview(&doc, &p, max);
            let escaped = serde_json::to_string(unit).unwrap().len() - 2;
            if p.shortened_strings > 0 && max > 60 {
                assert!(
                    p.text.len() + escaped > max,
                    "{unit:?} at {max}: {}",
                    p.text
                );
            }
        }
    }
}

/// Text that only looks like a marker is not one; a marker is taken as it is.
#[test]
fn markers_are_recognised_exactly() {
    let tail = " bytes omitted]".repeat(1000);
    let text = serde_json::to_string(&json!({
        "a": format!("x{tail}"),
        "b": "…[toolcap: 7 bytes omitted]",
        "c": ["[toolcap: 5 items omitted]", 1, "[toolcap: 6 items omitted]"],
        "d": "[toolcap: 12 items omitted ]",
    }))
    .unwrap();
    let doc = parse_document(&text).unwrap();
    let p = preview(&doc, 200, false).unwrap();
    assert_eq!(
        p.text,
        r#"{"a":"x bytes omitted] bytes…[toolcap: 14979 bytes omitted]","b":"…[toolcap: 7 bytes omitted]","c":["[toolcap: 5 items omitted]",1,"[toolcap: 6 items omitted]"],"d":"[toolcap: 12 items omitted ]"}"#
    );
    assert_eq!((p.omitted_items, p.shortened_strings), (5, 2));
}

/// Trees stay small: a 4 MiB document must not cost ten times its size.
#[test]
fn nodes_are_small() {
    assert!(size_of::<Node<'_>>() <= 32);
}

/// The deepest document serde_json parses previews at every budget.
#[test]
fn deep_documents_preview() {
    let text = "[{\"k\":".repeat(MAX_DEPTH / 2) + "\"leaf\"" + &"}]".repeat(MAX_DEPTH / 2);
    let doc = parse_document(&text).unwrap();
    for max in [0, 10, 300, 400, 600, 1000, 100_000] {
        for pretty in [false, true] {
            if let Some(p) = preview(&doc, max, pretty) {
                check_preview(&doc, &p, max);
            }
        }
    }
}

/// Realistic documents keep every key, fill most of the budget and carry
/// exact counts, at the budgets an agent host uses.
#[test]
fn realistic_documents_use_the_budget() {
    for (name, v, pretty) in [
        ("github issues", fixtures::github_issues(), false),
        ("kubectl pods", fixtures::kubectl_pods(), true),
        ("mcp result", fixtures::mcp_huge_string(), false),
        ("records", fixtures::records(), false),
    ] {
        let text = serde_render(&v, pretty);
        let doc = parse_document(&text).unwrap();
        for max in [4 << 10, 16 << 10, 64 << 10] {
            let p = preview(&doc, max, pretty).unwrap();
            check_preview(&doc, &p, max);
            if max >= 16 << 10 {
                assert_eq!(p.omitted_keys, 0, "{name} at {max}: every key kept");
            }
            let used = p.text.len() as f64 / max as f64;
            assert!(used >= 0.8, "{name} at {max}: {used:.3} of the budget");
            // With the default budget's line limit, the unit of growth (one
            // more pod of ~140 lines in pretty mode) is coarser.
            let p = preview_lines(&doc, max, 400, pretty).unwrap();
            check_preview(&doc, &p, max);
            let lines = p.text.split('\n').count();
            assert!(lines <= 400);
            let used = (p.text.len() as f64 / max as f64).max(lines as f64 / 400.0);
            assert!(
                used >= 0.6,
                "{name} at {max} and 400 lines: {used:.3} of the budget"
            );
        }
    }
}
