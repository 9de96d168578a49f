use serde_json::{Value, json};

use super::*;
use crate::budget::Keep;
use crate::refs::RefScheme;
use crate::settings::{PreviewSettings, RedactionSettings};

/// Spills kept in memory, by file name.
#[derive(Default)]
struct Memory(Vec<(String, Vec<u8>)>);

impl SpillStore for Memory {
    fn save(&mut self, _: &str, name: &str, content: &[u8]) -> Result<(), CapError> {
        self.0.push((name.to_owned(), content.to_vec()));
        Ok(())
    }
}

struct Full;

impl SpillStore for Full {
    fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
        Err(CapError::Io("no space left on device".into()))
    }
}

fn capper() -> Capper {
    Capper::new(RefScheme::new("/spill", "t", vec![5; 16]).unwrap())
}

fn budget(max_bytes: u32) -> Budget {
    Budget {
        max_bytes,
        max_lines: None,
        max_line_bytes: None,
        keep: Keep::HeadAndTail,
        head_percent: 50,
        max_tokens: None,
    }
}

fn lines(tag: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{tag} line {i}\n")).collect()
}

fn run(input: &str, max_bytes: u32, store: &mut dyn SpillStore) -> CappedMcp {
    cap_mcp(
        &capper(),
        input.to_owned(),
        &budget(max_bytes),
        &Call::new("c1"),
        McpOptions::default(),
        store,
    )
    .unwrap()
}

fn content(out: &CappedMcp) -> Vec<Value> {
    let v: Value = serde_json::from_str(&out.result).unwrap();
    v["content"].as_array().cloned().unwrap_or_default()
}

fn texts_bytes(out: &CappedMcp) -> usize {
    content(out)
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().len())
        .sum()
}

const IMAGE: &str = r#"{"type":"image","data":"iVBORw0K\/Gg==","mimeType":"image/png","annotations":{"priority":1.0}}"#;

#[test]
fn a_result_that_fits_is_the_input_itself() {
    let input = "{ \"isError\" : false,\n  \"content\": [ {\"text\": \"hi\\u0021\", \"type\":\"text\"} ,\
                 {\"type\":\"x-new\",\"n\":1e3} ],\"zzz\":[1.50], \"structuredContent\" : {\"b\":1, \"a\":2} }";
    let mut store = Memory::default();
    let out = run(input, 1000, &mut store);
    assert_eq!(out.result, input);
    assert!(!out.report.truncated && !out.structured_dropped);
    assert_eq!(out.report.original_bytes, 3);
    assert!(store.0.is_empty());
}

#[test]
fn a_cut_result_puts_its_notice_first_and_keeps_other_blocks_in_place() {
    let (a, b) = (lines("alpha", 300), lines("beta", 300));
    let link = r#"{"type":"resource_link", "uri":"file:///x","name":"x"}"#;
    let input = format!(
        r#"{{"content":[{{"type":"text","text":{}}},{IMAGE},{},{link}],"_meta":{{"server/trace":"abc"}}}}"#,
        serde_json::to_string(&a).unwrap(),
        json!({"type": "resource", "resource": {"uri": "file:///b", "text": b}}),
    );
    let mut store = Memory::default();
    let out = run(&input, 2000, &mut store);
    assert!(out.report.truncated);
    let blocks = content(&out);
    let types: Vec<_> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "text", "image", "resource_link"]);
    let notice = blocks[0]["text"].as_str().unwrap();
    assert!(notice.starts_with("[toolcap] "), "{notice}");
    let preview = blocks[1]["text"].as_str().unwrap();
    assert!(preview.starts_with("alpha line 1\n") && !preview.contains("[toolcap]"));
    assert!(texts_bytes(&out) <= 2000);
    // Pass-through blocks are their raw JSON, byte for byte.
    assert!(out.result.contains(IMAGE));
    assert!(out.result.contains(link));
    // The spill is the joined text; _meta keeps the server's key.
    assert_eq!(store.0[0].1, format!("{a}\n{b}").into_bytes());
    let v: Value = serde_json::from_str(&out.result).unwrap();
    assert_eq!(v["_meta"]["server/trace"], "abc");
    let record = &v["_meta"][meta::META_KEY];
    assert_eq!(record["truncated"], true);
    assert_eq!(record["originalBytes"], (a.len() + 1 + b.len()) as u64);
    assert_eq!(
        record["spill"]["path"],
        out.report.spill.as_ref().unwrap().path
    );
    let c = capper();
    assert_eq!(
        c.scheme().find_refs(notice),
        vec![out.report.spill.clone().unwrap()]
    );
}

#[test]
fn a_failed_call_is_stated_first_and_is_error_kept() {
    let input = json!({"content": [{"type": "text", "text": lines("err", 400)}], "isError": true})
        .to_string();
    let out = run(&input, 1500, &mut Memory::default());
    let blocks = content(&out);
    let notice = blocks[0]["text"].as_str().unwrap();
    assert!(
        notice.starts_with("[toolcap] The tool failed (it reported an error)."),
        "{notice}"
    );
    let v: Value = serde_json::from_str(&out.result).unwrap();
    assert_eq!(v["isError"], true);
}

#[test]
fn small_structured_content_is_kept_and_shares_the_budget() {
    let structured = r#"{"rows" : [1, 2,  3]}"#;
    let input = format!(
        r#"{{"content":[{{"type":"text","text":{}}}],"structuredContent":{structured}}}"#,
        serde_json::to_string(&lines("row", 200)).unwrap()
    );
    let out = run(&input, 1500, &mut Memory::default());
    assert!(out.report.truncated && !out.structured_dropped);
    assert!(
        out.result
            .contains(&format!(r#""structuredContent":{structured}"#))
    );
    assert!(texts_bytes(&out) + structured.len() <= 1500);
}

#[test]
fn big_structured_content_is_dropped_whole_and_saved_as_received() {
    let structured = format!(
        r#"{{ "items": {} }}"#,
        serde_json::to_string(&lines("item", 100)).unwrap()
    );
    let input = format!(
        r#"{{"content":[{{"type":"text","text":"short"}}],"structuredContent":{structured}}}"#
    );
    let mut store = Memory::default();
    let out = run(&input, 1000, &mut store);
    assert!(!out.report.truncated && out.structured_dropped);
    let spill = out.structured_spill.clone().unwrap();
    assert!(spill.path.contains("/c1-structured-"), "{}", spill.path);
    assert_eq!(
        store.0,
        vec![(
            spill.relative_path[2..].to_owned(),
            structured.clone().into_bytes()
        )]
    );
    let v: Value = serde_json::from_str(&out.result).unwrap();
    assert!(v.get("structuredContent").is_none());
    let blocks = content(&out);
    assert_eq!(blocks.len(), 2);
    let note = blocks[0]["text"].as_str().unwrap();
    assert!(note.contains(&format!(
        "structuredContent ({} bytes of JSON)",
        structured.len()
    )));
    assert!(note.contains(&spill.path));
    assert_eq!(blocks[1], json!({"type": "text", "text": "short"}));
    assert_eq!(
        v["_meta"][meta::META_KEY]["structuredContent"]["dropped"],
        true
    );
    assert!(texts_bytes(&out) <= 1000);
}

#[test]
fn everything_that_fits_stays_even_with_structured_content_over_half() {
    let input = format!(
        r#"{{"content":[{{"type":"text","text":"hi"}}],"structuredContent":{{"k":"{}"}}}}"#,
        "x".repeat(600)
    );
    let out = run(&input, 700, &mut Memory::default());
    assert_eq!(out.result, input);
}

#[test]
fn cut_texts_and_a_dropped_structured_content_share_one_notice_block() {
    let structured = format!(
        r#"{{"items":{}}}"#,
        serde_json::to_string(&lines("item", 80)).unwrap()
    );
    let input = format!(
        r#"{{"content":[{{"type":"text","text":{}}}],"structuredContent":{structured}}}"#,
        serde_json::to_string(&lines("text", 300)).unwrap()
    );
    let mut store = Memory::default();
    let c = capper();
    let out = cap_mcp(
        &c,
        input,
        &budget(2000),
        &Call::new("c1"),
        McpOptions {
            resource_link: true,
        },
        &mut store,
    )
    .unwrap();
    assert!(out.report.truncated && out.structured_dropped);
    let blocks = content(&out);
    let types: Vec<_> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "resource_link", "resource_link", "text"]);
    let notice = blocks[0]["text"].as_str().unwrap();
    let refs = c.scheme().find_refs(notice);
    assert_eq!(refs.len(), 2, "{notice}");
    assert_eq!(blocks[1]["mimeType"], "text/plain");
    assert_eq!(blocks[2]["mimeType"], "application/json");
    assert_eq!(
        blocks[2]["uri"],
        format!("file://{}", out.structured_spill.as_ref().unwrap().path)
    );
    assert!(texts_bytes(&out) <= 2000);
}

#[test]
fn a_resource_with_a_blob_keeps_it_when_its_text_is_cut() {
    let input = json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a", "text": lines("a", 300), "blob": "AAEC"}},
    ]})
    .to_string();
    let out = run(&input, 1500, &mut Memory::default());
    let blocks = content(&out);
    assert_eq!(blocks.len(), 3);
    assert_eq!(
        blocks[2],
        json!({"type": "resource", "resource": {"uri": "file:///a", "blob": "AAEC"}})
    );
}

#[test]
fn a_failed_spill_is_stated_and_the_result_still_comes_back() {
    let input = json!({"content": [{"type": "text", "text": lines("x", 300)}]}).to_string();
    let out = run(&input, 2000, &mut Full);
    assert!(out.report.spill.is_none() && out.report.spill_error.is_some());
    let notice = content(&out)[0]["text"].as_str().unwrap().to_owned();
    assert!(notice.contains("could NOT be saved"), "{notice}");
    let v: Value = serde_json::from_str(&out.result).unwrap();
    assert!(v["_meta"][meta::META_KEY]["spillError"].is_string());
}

#[test]
fn secrets_are_redacted_in_a_result_that_fits() {
    let settings = PreviewSettings {
        redaction: Some(RedactionSettings {
            literals: vec!["hunter2-secret".into()],
            spill: false,
        }),
        ..PreviewSettings::default()
    };
    let c = Capper::with_settings(
        RefScheme::new("/spill", "t", vec![5; 16]).unwrap(),
        settings,
    )
    .unwrap();
    let input = r#"{"content":[{"type":"text","text":"pw hunter2-secret","annotations":{"a":1}}]}"#;
    let out = cap_mcp(
        &c,
        input.into(),
        &budget(1000),
        &Call::new("c"),
        McpOptions::default(),
        &mut Memory::default(),
    )
    .unwrap();
    assert!(!out.result.contains("hunter2"));
    assert!(out.result.contains(r#""annotations":{"a":1}"#));
    assert_eq!(out.report.redactions, vec![("literal".to_owned(), 1)]);
}

#[test]
fn bad_input_is_an_invalid_argument_that_says_where() {
    let cases = [
        ("{\"content\": [", "not valid JSON"),
        ("[1]", "got an array"),
        ("{\"content\": {}}", "content must be a list"),
        (
            "{\"content\": [{}, {}, {}, \"x\"]}",
            "content[3] is a string, not an object",
        ),
        (
            "{\"content\": [], \"_meta\": 1}",
            "_meta must be an object, got a number",
        ),
    ];
    for (input, says) in cases {
        match cap_mcp(
            &capper(),
            input.into(),
            &budget(1000),
            &Call::new("c"),
            McpOptions::default(),
            &mut Memory::default(),
        ) {
            Err(CapError::InvalidArgument(m)) => assert!(m.contains(says), "{input}: {m}"),
            other => panic!("{input}: {other:?}"),
        }
    }
}

#[test]
fn malformed_known_blocks_pass_through_as_other() {
    let text = lines("t", 300);
    let odd = r#"{"type":"text","text":42}"#;
    let input = format!(
        r#"{{"content":[{odd},{{"type":"text","text":{}}}]}}"#,
        serde_json::to_string(&text).unwrap()
    );
    let mut store = Memory::default();
    let out = run(&input, 1500, &mut store);
    assert!(out.result.contains(odd));
    assert_eq!(store.0[0].1, text.into_bytes());
}

#[test]
fn a_budget_too_small_for_both_notices_says_so() {
    let c = capper();
    let least = c.room().bytes as u32;
    let structured = format!(
        r#"{{"items":{}}}"#,
        serde_json::to_string(&lines("item", 80)).unwrap()
    );
    let input = format!(
        r#"{{"content":[{{"type":"text","text":{}}}],"structuredContent":{structured}}}"#,
        serde_json::to_string(&lines("text", 300)).unwrap()
    );
    let err = cap_mcp(
        &c,
        input,
        &budget(least + 10),
        &Call::new("c"),
        McpOptions::default(),
        &mut Memory::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, CapError::InvalidBudget(m) if m.contains("structuredContent")),
        "{err:?}"
    );
}

fn redacting(spill: bool) -> Capper {
    let settings = PreviewSettings {
        redaction: Some(RedactionSettings {
            literals: vec!["db.internal.example".into()],
            spill,
        }),
        ..PreviewSettings::default()
    };
    Capper::with_settings(
        RefScheme::new("/spill", "t", vec![5; 16]).unwrap(),
        settings,
    )
    .unwrap()
}

const GH: &str = "ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

/// A result with a secret in every field the model can be shown.
fn secret_everywhere(text: &str) -> Value {
    json!({
        "content": [
            {"type": "text", "text": text,
             "annotations": {"audience": ["assistant"], "note": format!("seen {GH}")}},
            {"type": "resource_link", "uri": format!("https://u:{GH}@db.internal.example/x"),
             "name": format!("token={GH}"), "description": "Authorization: Bearer opaqueFAKEtoken0opaqueFAKEtoken0"},
            {"type": "custom-kind", "payload": {"k": format!("{GH}")}, "list": ["db.internal.example"]},
            {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "mimeType": "image/png"}
        ],
        "structuredContent": {
            "env": {"GITHUB_TOKEN": GH, "aws_secret_access_key": AWS_SECRET},
            "password": "hunter2 with spaces",
            "nested": [{"header": "Authorization: Bearer opaqueFAKEtoken0opaqueFAKEtoken0"}],
            "escaped": "line1\nline2 password=s3cr3t-pw\n",
            "count": 3,
            "ok": true
        },
        "_meta": {"server/trace": {"host": "db.internal.example", "token": GH}, "plain": "kept"},
        "isError": false
    })
}

fn assert_nothing_secret(out: &str) {
    for s in [
        GH,
        "FAKE0fake1",
        AWS_SECRET,
        "opaqueFAKEtoken0",
        "db.internal.example",
        "hunter2",
        "s3cr3t-pw",
    ] {
        assert!(!out.contains(s), "{s} in {out}");
    }
}

#[test]
fn redaction_covers_every_string_the_model_is_shown() {
    for max_bytes in [100_000, 1500] {
        let text = format!("deploy log\nGITHUB_TOKEN={GH}\n{}", lines("build", 80));
        let input = secret_everywhere(&text).to_string();
        let mut store = Memory::default();
        let out = cap_mcp(
            &redacting(false),
            input.clone(),
            &budget(max_bytes),
            &Call::new("c1"),
            McpOptions::default(),
            &mut store,
        )
        .unwrap();
        assert_nothing_secret(&out.result);
        let v: Value = serde_json::from_str(&out.result).expect("valid JSON");
        // Structure and the values that are not secret stay.
        let s = &v["structuredContent"];
        assert_eq!(s["count"], 3);
        assert_eq!(s["ok"], true);
        assert_eq!(s["env"]["GITHUB_TOKEN"], "[redacted: github-token]");
        assert_eq!(
            s["env"]["aws_secret_access_key"],
            "[redacted: aws-secret-key]"
        );
        assert_eq!(s["password"], "[redacted: password]");
        assert_eq!(s["escaped"], "line1\nline2 password=[redacted: password]\n");
        assert_eq!(v["_meta"]["plain"], "kept");
        assert_eq!(
            v["_meta"]["server/trace"]["token"],
            "[redacted: github-token]"
        );
        assert_eq!(v["isError"], false);
        let blocks = content(&out);
        let image = blocks.iter().find(|b| b["type"] == "image").unwrap();
        assert!(image["data"].as_str().unwrap().starts_with("iVBOR"));
        let link = blocks
            .iter()
            .find(|b| b["type"] == "resource_link")
            .unwrap();
        assert_eq!(link["name"], "token=[redacted: github-token]");
        assert!(
            out.report
                .redactions
                .iter()
                .any(|(k, _)| k == "github-token")
        );
        // The text spill keeps the output as it was (spill: false).
        if out.report.truncated {
            assert!(
                store
                    .0
                    .iter()
                    .any(|(_, b)| String::from_utf8_lossy(b).contains(GH))
            );
        }
    }
}

#[test]
fn redaction_of_a_result_without_secrets_changes_nothing() {
    let input = r#"{ "content": [ {"type":"text","text":"all good","annotations":{"priority":0.5}},
        {"type":"resource_link","uri":"file:///tmp/a.txt","name":"a.txt"} ],
        "structuredContent": {"password_policy": "at least 12 characters", "n": 1}, "_meta": {"x": "y"} }"#;
    let out = cap_mcp(
        &redacting(false),
        input.into(),
        &budget(10_000),
        &Call::new("c1"),
        McpOptions::default(),
        &mut Memory::default(),
    )
    .unwrap();
    assert_eq!(out.result, input);
    assert!(out.report.redactions.is_empty());
}

#[test]
fn a_dropped_structured_content_is_saved_redacted_as_valid_json_when_spills_are() {
    let big: Vec<Value> = (0..200)
        .map(|i| json!({"i": i, "token": GH, "note": format!("line {i}\nAuthorization: Bearer opaqueFAKEtoken0opaqueFAKEtoken0")}))
        .collect();
    let input =
        json!({"content": [{"type": "text", "text": "ok"}], "structuredContent": {"items": big}})
            .to_string();
    for spill in [true, false] {
        let mut store = Memory::default();
        let out = cap_mcp(
            &redacting(spill),
            input.clone(),
            &budget(2000),
            &Call::new("c1"),
            McpOptions::default(),
            &mut store,
        )
        .unwrap();
        assert!(out.structured_dropped);
        assert_nothing_secret(&out.result);
        let (_, saved) = store
            .0
            .iter()
            .find(|(n, _)| n.starts_with("c1-structured"))
            .expect("structured spill");
        let saved = String::from_utf8(saved.clone()).unwrap();
        let parsed: Value = serde_json::from_str(&saved).expect("the saved file is JSON");
        if spill {
            assert_nothing_secret(&saved);
            assert_eq!(parsed["items"][7]["token"], "[redacted: github-token]");
            assert_eq!(parsed["items"].as_array().unwrap().len(), 200);
        } else {
            assert_eq!(
                parsed,
                serde_json::from_str::<Value>(&input).unwrap()["structuredContent"]
            );
        }
    }
}

/// What the model is shown of `result` beside media and the structured
/// content: texts, the JSON of every other block, the server's `_meta`
/// members (not this cap's record) and members MCP does not define.
fn shown_bytes(result: &str) -> usize {
    let v: Value = serde_json::from_str(result).unwrap();
    let blocks: usize = v["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| match b["type"].as_str() {
            Some("text") if b["text"].is_string() => b["text"].as_str().unwrap().len(),
            Some("image" | "audio") if b["data"].is_string() => 0,
            _ => b.to_string().len(),
        })
        .sum();
    let meta: usize = v["_meta"].as_object().map_or(0, |m| {
        m.iter()
            .filter(|(k, _)| *k != meta::META_KEY)
            .map(|(k, v)| k.len() + v.to_string().len())
            .sum()
    });
    let others: usize = v
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| {
            !["content", "structuredContent", "_meta", "isError"].contains(&k.as_str())
        })
        .map(|(k, v)| k.len() + v.to_string().len())
        .sum();
    blocks + meta + others
}

#[test]
fn blocks_and_members_beside_the_texts_count_against_the_budget() {
    let big = "x".repeat(300_000);
    let cases = [
        // A block of a type the component does not know.
        json!({"content": [{"type": "text", "text": "short"}, {"type": "x-trace", "data": big}]}),
        // A known type with a field of the wrong kind.
        json!({"content": [{"type": "text", "text": [big]}]}),
        // A resource link with a huge name.
        json!({"content": [{"type": "resource_link", "uri": "file:///a", "name": big}]}),
        // The server's own _meta.
        json!({"content": [{"type": "text", "text": "ok"}], "_meta": {"debug/trace": big}}),
        // A member MCP does not define.
        json!({"content": [{"type": "text", "text": "ok"}], "rows": [big]}),
    ];
    for input in cases {
        let input = input.to_string();
        for max_bytes in [1_000, 4_000, 20_000] {
            let mut store = Memory::default();
            let out = run(&input, max_bytes, &mut store);
            assert!(out.report.truncated, "{max_bytes}: {}", &out.result[..200]);
            assert!(
                shown_bytes(&out.result) <= max_bytes as usize,
                "{max_bytes}: {} bytes shown",
                shown_bytes(&out.result)
            );
            // Nothing is lost: the spill holds the big value.
            let saved = String::from_utf8(store.0[0].1.clone()).unwrap();
            assert!(saved.contains(&big), "{max_bytes}");
            assert!(serde_json::from_str::<Value>(&out.result).is_ok());
        }
    }
}

#[test]
fn small_blocks_beside_the_texts_keep_their_place_and_take_their_room() {
    let link = r#"{"type":"resource_link","uri":"file:///report.csv","name":"report.csv"}"#;
    let text = lines("row", 100);
    let input = format!(
        r#"{{"content":[{{"type":"text","text":{}}},{link}],"_meta":{{"server/id":"abc"}}}}"#,
        serde_json::to_string(&text).unwrap()
    );
    // The text alone fits 1 byte over its length; with the link it does not.
    let max_bytes = text.len() as u32 + 1;
    let out = run(&input, max_bytes, &mut Memory::default());
    assert!(out.report.truncated);
    assert!(out.result.contains(link), "the link stays in place");
    let v: Value = serde_json::from_str(&out.result).unwrap();
    assert_eq!(v["_meta"]["server/id"], "abc");
    assert!(shown_bytes(&out.result) <= max_bytes as usize);
    // With room for everything, the input comes back as it was.
    let roomy = text.len() as u32 + link.len() as u32 + 100;
    assert_eq!(run(&input, roomy, &mut Memory::default()).result, input);
}

// ---- a huge text lifted out of the JSON gives the same result ----

/// A result of `cap_mcp`, and the spills it saved (name, content).
type CappedAndSaved = (Result<CappedMcp, CapError>, Vec<(String, Vec<u8>)>);

/// `cap_mcp` of `input` with every text sure to be cut lifted out of the
/// JSON (`lift_min` 0), and never lifted: the results and the spills.
fn lifted_and_not(
    capper: &Capper,
    input: &str,
    budget: &Budget,
    options: McpOptions,
) -> [CappedAndSaved; 2] {
    [0, usize::MAX].map(|lift_min| {
        let mut store = Memory::default();
        let out = cap_mcp_lifting(
            capper,
            input.to_owned(),
            budget,
            &Call::new("c1"),
            options,
            &mut store,
            lift_min,
        );
        (out, store.0)
    })
}

fn assert_lifting_changes_nothing(capper: &Capper, input: &str, budget: &Budget) {
    for resource_link in [false, true] {
        let [lifted, kept] = lifted_and_not(capper, input, budget, McpOptions { resource_link });
        assert_eq!(lifted, kept, "{input}");
    }
}

/// A text with every kind of escape and raw UTF-8, `n` lines of it.
fn escaped_text(n: usize) -> String {
    (0..n)
        .map(|i| format!("line {i}: \"q\" back\\slash /slash tab\t é 中 😀 \u{1} \u{ffff} end\n"))
        .collect()
}

/// The JSON of `text` as `serde_json` writes it, and with `\/`, `\u`
/// escapes of every non-ASCII character (surrogate pairs for the astral
/// ones, upper and lower case hex).
fn written_both_ways(text: &str) -> [String; 2] {
    let plain = serde_json::to_string(text).unwrap();
    let mut escaped = String::from("\"");
    for (i, c) in text.chars().enumerate() {
        match c {
            '/' => escaped.push_str("\\/"),
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            c if c.is_ascii() && !c.is_ascii_control() => escaped.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    if i % 2 == 0 {
                        escaped.push_str(&format!("\\u{u:04x}"));
                    } else {
                        escaped.push_str(&format!("\\u{u:04X}"));
                    }
                }
            }
        }
    }
    escaped.push('"');
    [plain, escaped]
}

#[test]
fn a_lifted_text_gives_the_result_and_spill_of_one_decoded_apart() {
    let text = escaped_text(300);
    let mut large = capper();
    // The one-pass preview of a large text, reached with a small one.
    large.set_large_input(4000);
    let redacts = [redacting(false), redacting(true)];
    let cappers = [&capper(), &large, &redacts[0], &redacts[1]];
    for raw in written_both_ways(&text) {
        let results = [
            format!(r#"{{"content":[{{"type":"text","text":{raw}}}]}}"#),
            // Annotations, a repeated text (the last one counts), other
            // blocks, structured content, `_meta`, extras, `isError`.
            format!(
                r#"{{"isError":true,"content":[{IMAGE},{{"text":"first","type":"text","text":{raw},"annotations":{{"priority":0.5}}}},{{"type":"text","text":"small one"}}],"structuredContent":{{"n":1}},"_meta":{{"m":"v"}},"extra":[1]}}"#
            ),
            // An embedded resource's text, with and without a blob.
            format!(
                r#"{{"content":[{{"type":"resource","resource":{{"uri":"file:///a","mimeType":"text/plain","text":{raw}}}}}]}}"#
            ),
            format!(
                r#"{{"content":[{{"type":"text","text":"before"}},{{"type":"resource","resource":{{"uri":"file:///b","text":{raw},"blob":"AAEC"}}}}]}}"#
            ),
            // Two huge texts: the larger is lifted.
            format!(
                r#"{{"content":[{{"type":"text","text":{raw}}},{{"type":"text","text":{}}}]}}"#,
                serde_json::to_string(&lines("other", 400)).unwrap()
            ),
            // Structured content too big to keep.
            format!(
                r#"{{"content":[{{"type":"text","text":{raw}}}],"structuredContent":{{"rows":{}}}}}"#,
                serde_json::to_string(&lines("row", 200)).unwrap()
            ),
        ];
        for input in &results {
            for capper in cappers {
                for max_bytes in [1500, 3000, 9000, 1 << 20, 0] {
                    let budget = budget(max_bytes);
                    assert_lifting_changes_nothing(capper, input, &budget);
                }
                let lines_and_tokens = Budget {
                    max_lines: Some(40),
                    max_tokens: Some(900),
                    ..budget(4000)
                };
                assert_lifting_changes_nothing(capper, input, &lines_and_tokens);
            }
        }
    }
}

#[test]
fn a_text_redacted_to_fit_is_written_anew_when_lifted() {
    // Over the budget as received, within it once its secrets are replaced.
    let secrets = format!("token {GH} ").repeat(40);
    let budget = budget(secrets.len() as u32 - 200);
    let input = json!({"content": [{"type": "text", "text": secrets, "annotations": {"n": 1}}]})
        .to_string();
    let capper = redacting(false);
    let [(lifted, _), (kept, _)] = lifted_and_not(&capper, &input, &budget, McpOptions::default());
    let lifted = lifted.unwrap();
    assert!(!lifted.report.truncated && !lifted.report.redactions.is_empty());
    assert_eq!(lifted, kept.unwrap());
    assert!(!lifted.result.contains(GH));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn lifting_any_text_changes_no_result(
        chars in proptest::collection::vec(proptest::char::any(), 400..2000),
        newlines in proptest::collection::vec(0usize..6000, 0..80),
        max_bytes in 1200u32..3000,
        escaped in proptest::bool::ANY,
    ) {
        let mut text: String = chars.into_iter().collect();
        for at in newlines {
            let at = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            text.insert(at, '\n');
        }
        let raw = written_both_ways(&text)[usize::from(escaped)].clone();
        let input = format!(r#"{{"content":[{{"type":"text","text":{raw}}}]}}"#);
        let [lifted, kept] = lifted_and_not(&capper(), &input, &budget(max_bytes), McpOptions::default());
        proptest::prop_assert_eq!(lifted, kept);
    }
}
