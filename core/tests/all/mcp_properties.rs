//! Properties of `cap-mcp` on arbitrary `CallToolResult`s: the output is a
//! valid result, every block that is not text passes through byte for byte
//! and in order, the texts (and a kept `structuredContent`) fit the budget,
//! a result that fits is the input itself, and the spills hold exactly the
//! joined text and the structured content as received.

use crate::common;

use common::{MemStore, any_budget, rich_text};
use proptest::prelude::*;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolcap_core::text::count_lines;
use toolcap_core::{Call, CapError, Capper, McpOptions, RefScheme, cap_mcp};

fn capper() -> Capper {
    Capper::new(RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap())
}

/// One content block; `true` when its text shares the budget.
fn any_block() -> impl Strategy<Value = (Value, bool)> {
    let big = || rich_text(120);
    prop_oneof![
        4 => big().prop_map(|t| (json!({"type": "text", "text": t}), true)),
        1 => big().prop_map(|t| (json!({"type": "text", "text": t, "annotations": {"audience": ["user"]}, "_meta": {"k": 1}}), true)),
        1 => Just((json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}), false)),
        1 => Just((json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav", "annotations": {"priority": 0.5}}), false)),
        2 => big().prop_map(|t| (json!({"type": "resource", "resource": {"uri": "file:///r.txt", "mimeType": "text/plain", "text": t}}), true)),
        1 => Just((json!({"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAECAw=="}}), false)),
        1 => Just((json!({"type": "resource_link", "uri": "file:///x", "name": "x", "size": 3}), false)),
        1 => Just((json!({"type": "x-future", "payload": [1, {"deep": null}]}), false)),
        1 => Just((json!({"type": "text", "text": 42}), false)),
    ]
}

/// A result: its JSON (compact or pretty), which blocks are textual, its
/// structured content's JSON as written, and `isError`.
fn any_result() -> impl Strategy<Value = (String, Vec<bool>, Option<String>, bool)> {
    (
        prop::collection::vec(any_block(), 0..6),
        prop::option::of(0usize..3000),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(blocks, structured, is_error, pretty, meta)| {
            let textual = blocks.iter().map(|(_, t)| *t).collect();
            let mut result =
                json!({"content": blocks.into_iter().map(|(b, _)| b).collect::<Vec<_>>()});
            if let Some(n) = structured {
                result["structuredContent"] = json!({"rows": "r".repeat(n), "n": n});
            }
            if is_error {
                result["isError"] = json!(true);
            }
            if meta {
                result["_meta"] = json!({"server/id": "s-1"});
            }
            let text = if pretty {
                serde_json::to_string_pretty(&result).unwrap()
            } else {
                result.to_string()
            };
            // As written in the document: what must be kept or saved.
            let structured = structured.map(|_| {
                let raw: std::collections::HashMap<String, Box<RawValue>> =
                    serde_json::from_str(&text).unwrap();
                raw["structuredContent"].get().to_owned()
            });
            (text, textual, structured, is_error)
        })
}

fn text_of(block: &Value) -> Option<&str> {
    match block["type"].as_str() {
        Some("text") => block["text"].as_str(),
        Some("resource") => block["resource"]["text"].as_str(),
        _ => None,
    }
}

proptest! {
    #![proptest_config(common::cases(200))]

    #[test]
    fn capped_results_are_valid_fit_and_pass_blocks_through(
        (input, textual, structured, is_error) in any_result(),
        budget in any_budget(700, 8),
        link in any::<bool>(),
    ) {
        let capper = capper();
        let mut store = MemStore::default();
        let options = McpOptions { resource_link: link };
        let out = match cap_mcp(&capper, input.clone(), &budget, &Call::new("c"), options, &mut store) {
            Ok(out) => out,
            Err(CapError::InvalidBudget(m)) if m.contains("structuredContent") => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e:?}"))),
        };
        let input_value: Value = serde_json::from_str(&input).unwrap();
        let output: Value = serde_json::from_str(&out.result).expect("valid JSON");
        let in_blocks = input_value["content"].as_array().unwrap();
        let out_blocks = output["content"].as_array().expect("a content list");
        prop_assert!(out_blocks.iter().all(Value::is_object));
        prop_assert_eq!(output.get("isError").cloned(), input_value.get("isError").cloned());
        prop_assert_eq!(out.report.truncated || out.structured_dropped, out.result != input);
        if !out.report.truncated && !out.structured_dropped {
            return Ok(());
        }
        let record = &output["_meta"]["tool-output-cap/cap"];
        prop_assert_eq!(&record["truncated"], &json!(out.report.truncated));
        if input_value.get("_meta").is_some() {
            // The server's `_meta` stays in `_meta`, unless the extras took
            // more than half the budget: then it went with the texts, shown
            // or saved.
            let kept = output["_meta"]["server/id"] == json!("s-1");
            let saved = out.report.spill.as_ref().is_some_and(|r| {
                String::from_utf8_lossy(&store.files[&r.relative_path]).contains("server/id")
            });
            prop_assert!(kept || out.result.contains("server/id") || saved, "{}", out.result);
        }
        // The notice comes first and states a failure first.
        let notice = out_blocks[0]["text"].as_str().unwrap();
        let failure = "[toolcap] The tool failed (it reported an error).";
        prop_assert!(notice.starts_with("[toolcap] "));
        prop_assert_eq!(notice.starts_with(failure), is_error);
        // Blocks that are not text pass through as received, in order.
        let kept: Vec<&Value> = in_blocks.iter().zip(&textual).filter(|(_, t)| !**t).map(|(b, _)| b).collect();
        let links = usize::from(link) * (usize::from(out.report.spill.is_some()) + usize::from(out.structured_spill.is_some()));
        let passed: Vec<&Value> = out_blocks[1 + links..]
            .iter()
            .filter(|b| !(b["type"] == "text" && b["text"].is_string()))
            .collect();
        // ... and as their very bytes, whitespace included.
        #[derive(serde::Deserialize)]
        struct Content {
            content: Vec<Box<RawValue>>,
        }
        let raw: Content = serde_json::from_str(&input).unwrap();
        // Blocks beside the texts that would take the texts' room were cut
        // as text: then the spill holds them, byte for byte.
        let saved = out.report.spill.as_ref().map(|r| String::from_utf8_lossy(&store.files[&r.relative_path]).into_owned());
        let extras_as_text = raw.content.iter().zip(&textual).any(|(b, t)| !*t && !out.result.contains(b.get()));
        for (block, textual) in raw.content.iter().zip(&textual) {
            prop_assert!(
                *textual
                    || out.result.contains(block.get())
                    || saved.as_ref().is_some_and(|s| s.contains(block.get()))
            );
        }
        if out.report.truncated && !extras_as_text {
            prop_assert_eq!(passed, kept);
        } else if out.report.truncated {
            prop_assert!(passed.iter().all(|b| kept.contains(b)));
        } else {
            prop_assert_eq!(&out_blocks[1 + links..], &in_blocks[..]);
        }
        // The texts, and a kept structured content, fit.
        let texts: Vec<&str> = out_blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
        let text_bytes: usize = texts.iter().map(|t| t.len()).sum();
        let kept_structured = if out.structured_dropped { 0 } else { structured.as_ref().map_or(0, String::len) };
        // Blocks other than texts and media are shown as their JSON.
        let other_bytes: usize = raw.content.iter().zip(&textual)
            .filter(|(b, t)| !**t && out.result.contains(b.get()))
            .map(|(b, _)| serde_json::from_str::<Value>(b.get()).unwrap())
            .filter(|b| !matches!(b["type"].as_str(), Some("image" | "audio" | "resource")))
            .map(|b| b.to_string().len())
            .sum();
        if !budget.is_disabled() {
            prop_assert!(
                text_bytes + kept_structured + other_bytes <= budget.max_bytes as usize,
                "{} + {} + {}", text_bytes, kept_structured, other_bytes
            );
            if let Some(max) = budget.max_lines {
                let lines: u64 = texts.iter().map(|t| count_lines(t.as_bytes())).sum();
                prop_assert!(lines <= u64::from(max));
            }
        }
        if structured.is_some() {
            prop_assert_eq!(output.get("structuredContent").is_none(), out.structured_dropped);
        }
        // The spills hold what they stand for, byte for byte.
        if let Some(r) = &out.report.spill {
            let joined: Vec<&str> = in_blocks.iter().filter_map(text_of).collect();
            if extras_as_text {
                let saved = saved.as_deref().unwrap_or("");
                prop_assert!(joined.iter().all(|t| saved.contains(t)));
            } else {
                prop_assert_eq!(&store.files[&r.relative_path], &joined.join("\n").into_bytes());
            }
        }
        if let Some(r) = &out.structured_spill {
            prop_assert_eq!(&store.files[&r.relative_path], &structured.clone().unwrap().into_bytes());
        }
    }
}

/// A capper for `stream-mcp`'s properties: one-pass previews from a few
/// KiB, so both regimes of its texts are within reach; redacting or not.
fn streaming_capper(redact: Option<bool>) -> Capper {
    use toolcap_core::{PreviewSettings, cap::RedactionSettings};
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap();
    let settings = PreviewSettings {
        redaction: redact.map(|spill| RedactionSettings {
            literals: vec!["hunter2-corp-literal".into()],
            spill,
        }),
        ..PreviewSettings::default()
    };
    let mut capper = Capper::with_settings(scheme, settings).unwrap();
    capper.set_large_input(4096);
    capper
}

/// A text long enough to be streamed: lines of rich text, failures,
/// secrets, and characters JSON escapes (quotes, backslashes, controls).
fn streamed_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => rich_text(40),
        1 => Just("error: the \"quoted\" path C:\\dir\\file failed\n".to_owned()),
        1 => Just("\u{1}\u{1f}\t\u{7f}\u{2028}\n".to_owned()),
        1 => Just("GITHUB_TOKEN=ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f\n".to_owned()),
        1 => Just("password=hunter2-corp-literal\n".to_owned()),
    ];
    (prop::collection::vec(piece, 1..60), 4usize..60)
        .prop_map(|(pieces, times)| pieces.concat().repeat(times))
}

/// `whole` (a result) and its skeleton, the raw body of the text at
/// `content[at]` (a text block or an embedded resource) in the skeleton's
/// place.
fn with_streamed_text(
    input: &str,
    text: &str,
    at: prop::sample::Index,
    resource: bool,
    pretty: bool,
) -> (String, String, u32, String) {
    let mut result: Value = serde_json::from_str(input).unwrap();
    let content = result["content"].as_array_mut().unwrap();
    let at = at.index(content.len() + 1);
    let block = |t: &str| match resource {
        true => json!({"type": "resource", "resource": {"uri": "file:///log", "text": t}}),
        false => json!({"type": "text", "text": t}),
    };
    content.insert(at, block(""));
    let write = |v: &Value| match pretty {
        true => serde_json::to_string_pretty(v).unwrap(),
        false => v.to_string(),
    };
    let skeleton = write(&result);
    result["content"][at] = block(text);
    let raw = serde_json::to_string(text).unwrap();
    (
        write(&result),
        skeleton,
        at as u32,
        raw[1..raw.len() - 1].to_owned(),
    )
}

proptest! {
    #![proptest_config(common::cases(120))]

    /// `stream-mcp` in any pieces gives exactly what `cap-mcp` gives for
    /// the whole result, saves the same bytes, or fails as it does.
    #[test]
    fn a_streamed_result_is_capped_as_the_whole(
        (input, _, _, _) in any_result(),
        text in streamed_text(),
        at in any::<prop::sample::Index>(),
        (resource, pretty, link) in any::<(bool, bool, bool)>(),
        redact in prop::option::of(any::<bool>()),
        budget in any_budget(700, 8).prop_filter("a budget that cuts", |b| b.max_bytes > 0),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        use toolcap_core::McpStream;
        use toolcap_core::stream::MemoryWriter;
        let capper = streaming_capper(redact);
        let (whole, skeleton, block, raw) = with_streamed_text(&input, &text, at, resource, pretty);
        let options = McpOptions { resource_link: link };
        let call = Call::new("c");
        let mut store = MemStore::default();
        let expected = cap_mcp(&capper, whole, &budget, &call, options, &mut store);
        let (mut stream_store, mut sink) = (MemStore::default(), MemoryWriter::default());
        let streamed = McpStream::new(
            &capper, skeleton, block, raw.len() as u64, &budget, &call, options,
            &mut stream_store, &mut sink,
        );
        let mut stream = match streamed {
            Ok(stream) => stream,
            Err(CapError::InvalidArgument(m)) if m.contains("sure to be cut") => {
                prop_assert!(raw.len() as u64 / 6 <= u64::from(budget.max_bytes));
                return Ok(());
            }
            Err(e) => {
                prop_assert_eq!(std::mem::discriminant(&e), std::mem::discriminant(&expected.unwrap_err()));
                return Ok(());
            }
        };
        let mut at: Vec<usize> = cuts.iter().map(|c| {
            let mut c = c.index(raw.len() + 1);
            while !raw.is_char_boundary(c) { c -= 1; }
            c
        }).collect();
        at.sort_unstable();
        let mut from = 0;
        for cut in at.into_iter().chain([raw.len()]) {
            stream.write(&capper, &raw[from..cut], &mut sink).unwrap();
            from = cut;
        }
        match (stream.finish(&capper, &mut sink, &mut stream_store), expected) {
            (Ok(got), Ok(expected)) => {
                prop_assert_eq!(&got, &expected);
                // The same bytes saved: the joined texts, and a dropped
                // structured content.
                let mut saved: Vec<&Vec<u8>> = store.files.values().collect();
                let mut streamed: Vec<&Vec<u8>> = stream_store.files.values()
                    .chain(sink.committed.iter().map(|(_, bytes)| bytes)).collect();
                saved.sort();
                streamed.sort();
                prop_assert_eq!(saved, streamed);
            }
            (Err(CapError::InvalidArgument(m)), Ok(expected)) if m.contains("once redacted") => {
                prop_assert!(redact.is_some() && !expected.report.truncated);
            }
            (got, expected) => prop_assert_eq!(got.map(|_| ()), expected.map(|_| ())),
        }
    }
}

#[test]
fn a_stream_refuses_a_skeleton_without_its_placeholder_and_pieces_that_do_not_add_up() {
    use toolcap_core::stream::MemoryWriter;
    use toolcap_core::{Budget, McpStream};
    let capper = capper();
    let budget = Budget {
        max_bytes: 2048,
        ..Budget::default()
    };
    let (mut store, mut sink) = (MemStore::default(), MemoryWriter::default());
    let call = Call::new("c");
    let options = McpOptions::default();
    let start =
        |skeleton: &str, block: u32, raw: u64, store: &mut MemStore, sink: &mut MemoryWriter| {
            McpStream::new(
                &capper,
                skeleton.into(),
                block,
                raw,
                &budget,
                &call,
                options,
                store,
                sink,
            )
        };
    let fault = |r: Result<McpStream, CapError>| r.unwrap_err().to_string();
    let ok = r#"{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":""}]}"#;
    assert!(fault(start(ok, 0, 1 << 20, &mut store, &mut sink)).contains("content[0]"));
    assert!(fault(start(ok, 5, 1 << 20, &mut store, &mut sink)).contains("content[5]"));
    let filled = r#"{"content":[{"type":"text","text":"x"}]}"#;
    assert!(fault(start(filled, 0, 1 << 20, &mut store, &mut sink)).contains("content[0]"));
    assert!(fault(start("[1]", 0, 1 << 20, &mut store, &mut sink)).contains("JSON object"));
    // A text that could decode to no more than the budget is not streamed.
    assert!(fault(start(ok, 1, 6 * 2048, &mut store, &mut sink)).contains("sure to be cut"));
    // Too many bytes, too few, and a body a JSON string cannot be.
    let mut stream = start(ok, 1, 20_000, &mut store, &mut sink).unwrap();
    let e = stream
        .write(&capper, &"a".repeat(20_001), &mut sink)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("longer than the 20000 bytes declared"),
        "{e}"
    );
    let mut stream = start(ok, 1, 20_000, &mut store, &mut sink).unwrap();
    stream
        .write(&capper, &"a\\n".repeat(6_000), &mut sink)
        .unwrap();
    let e = stream.finish(&capper, &mut sink, &mut store).unwrap_err();
    assert!(
        e.to_string()
            .contains("ended after 18000 of the 20000 bytes"),
        "{e}"
    );
    let mut stream = start(ok, 1, 20_000, &mut store, &mut sink).unwrap();
    let e = stream.write(&capper, "a\"b", &mut sink).unwrap_err();
    assert!(e.to_string().contains("quote that is not escaped"), "{e}");
    let mut stream = start(ok, 1, 20_000, &mut store, &mut sink).unwrap();
    stream
        .write(&capper, &"a".repeat(19_999), &mut sink)
        .unwrap();
    stream.write(&capper, "\\", &mut sink).unwrap();
    let e = stream.finish(&capper, &mut sink, &mut store).unwrap_err();
    assert!(e.to_string().contains("ends inside one"), "{e}");
}
