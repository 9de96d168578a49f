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
