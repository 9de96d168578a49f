//! The tool end to end over files in memory: exact outputs of each mode,
//! every mistake a sentence, paging by cursor reassembles the file, and every
//! output within its bound.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::refs::SAVED_PREFIX;

fn session() -> MemSpill {
    MemSpill::new(RefScheme::new("/spill", "t", vec![7; 32]).unwrap())
}

/// A session holding `content`, and the display path of its file.
fn with_file(content: &[u8]) -> (MemSpill, String) {
    let mut files = session();
    let r = files.spill("call-1", content);
    (files, r.path)
}

fn call(files: &mut MemSpill, arguments: Value) -> ReadToolOutput {
    run(&arguments.to_string(), files)
}

fn ok(files: &mut MemSpill, arguments: Value) -> String {
    let out = call(files, arguments);
    assert!(!out.is_error, "{}", out.text);
    out.text
}

fn error(files: &mut MemSpill, arguments: &str) -> String {
    let out = run(arguments, files);
    assert!(out.is_error, "{arguments}: {}", out.text);
    out.text
}

/// What a page gives back: the file bytes it shows (numbering stripped) and
/// the arguments of the next call, if any.
fn parse_page(text: &str) -> (Vec<u8>, Option<Value>) {
    let mut lines: Vec<&str> = text.split('\n').collect();
    lines.remove(0);
    let mut content: Vec<&str> = Vec::new();
    let mut last_has_break = true;
    let mut next = None;
    for line in lines {
        let digits = line.trim_start_matches(' ');
        let number_len = digits.bytes().take_while(u8::is_ascii_digit).count();
        if number_len > 0 && digits.as_bytes().get(number_len) == Some(&b'\t') {
            content.push(&digits[number_len + 1..]);
        } else if line.starts_with("[line ") && line.contains("is cut here") {
            last_has_break = false;
        } else if let Some(cursor) = line.strip_prefix("More: call again with ") {
            next = Some(serde_json::from_str(cursor).expect("cursor is JSON"));
        } else if line.starts_with("End of file (no line break") {
            last_has_break = false;
        } else if line.starts_with("[redaction: ") {
            // The note of a redacted page, after its header.
        } else {
            assert!(line.starts_with("End of file."), "unexpected line {line:?}");
        }
    }
    let mut bytes = Vec::new();
    for (i, line) in content.iter().enumerate() {
        bytes.extend_from_slice(line.as_bytes());
        if i + 1 < content.len() || last_has_break {
            bytes.push(b'\n');
        }
    }
    if content.is_empty() {
        bytes.clear();
    }
    (bytes, next)
}

/// Follow cursors from `first` to the end; every page within its bound.
fn read_all(files: &mut MemSpill, first: Value) -> Vec<u8> {
    let bound = max_text_bytes(
        files.scheme(),
        first["max_bytes"]
            .as_u64()
            .map_or(DEFAULT_MAX_BYTES, |b| b as u32),
    );
    let mut whole = Vec::new();
    let mut arguments = Some(first);
    let mut calls = 0;
    while let Some(a) = arguments {
        calls += 1;
        assert!(calls < 100_000, "no progress");
        let text = ok(files, a);
        assert!(text.len() <= bound, "{} > {bound}", text.len());
        let (bytes, next) = parse_page(&text);
        whole.extend_from_slice(&bytes);
        arguments = next;
    }
    whole
}

const LOG: &str = "compiling a\ncompiling b\nerror: boom\nwarning: x\nerror: again\n";

#[test]
fn line_mode_numbers_lines_and_states_the_end() {
    let (mut files, path) = with_file(LOG.as_bytes());
    let text = ok(&mut files, json!({"path": path}));
    assert_eq!(
        text,
        format!(
            "{path} — lines 1-5 of 5 (60 bytes)\n1\tcompiling a\n2\tcompiling b\n3\terror: \
             boom\n4\twarning: x\n5\terror: again\nEnd of file."
        )
    );
    let text = ok(&mut files, json!({"path": path, "line": 2, "lines": 2}));
    assert_eq!(
        text,
        format!(
            "{path} — lines 2-3 of 5 (60 bytes)\n2\tcompiling b\n3\terror: boom\nMore: call again \
             with {{\"path\": \"{path}\", \"line\": 4, \"lines\": 2}}"
        )
    );
}

#[test]
fn last_line_without_a_break_is_stated() {
    let (mut files, path) = with_file(b"a\nb");
    let text = ok(&mut files, json!({"path": path, "line": 2}));
    assert_eq!(
        text,
        format!(
            "{path} — lines 2-2 of 2 (3 bytes)\n2\tb\nEnd of file (no line break after line 2)."
        )
    );
}

#[test]
fn widths_follow_the_widest_number_shown() {
    let content: String = (1..=12).map(|n| format!("l{n}\n")).collect();
    let (mut files, path) = with_file(content.as_bytes());
    let text = ok(&mut files, json!({"path": path, "line": 9, "lines": 2}));
    assert!(text.contains("\n 9\tl9\n10\tl10\n"), "{text}");
    assert!(text.starts_with(&format!("{path} — lines 9-10 of 12 (")));
}

#[test]
fn byte_mode_pages_by_offset_and_marks_the_cut_line() {
    let content = format!("{}\n{}\n", "a".repeat(300), "b".repeat(300));
    let (mut files, path) = with_file(content.as_bytes());
    let text = ok(
        &mut files,
        json!({"path": path, "offset": 295, "max_bytes": 256}),
    );
    // "1\taaaaa\n" takes 8 bytes; "2\t", the b's and a line break the rest.
    let b = "b".repeat(256 - 8 - 3);
    assert_eq!(
        text,
        format!(
            "{path} — bytes 295-545 of 602 (from inside line 1)\n1\taaaaa\n2\t{b}\n[line 2 is cut here by max_bytes; \
             it continues at byte 546]\nMore: call again with {{\"path\": \"{path}\", \"offset\": \
             546, \"max_bytes\": 256}}"
        )
    );
    let text = ok(&mut files, json!({"path": path, "offset": 301}));
    assert!(
        text.starts_with(&format!("{path} — bytes 301-601 of 602\n2\tbbb")),
        "{text}"
    );
    let text = ok(
        &mut files,
        json!({"path": path, "offset": 546, "max_bytes": 256}),
    );
    assert!(
        text.ends_with(&format!("\n2\t{}\nEnd of file.", "b".repeat(55))),
        "{text}"
    );
}

#[test]
fn line_mode_ends_on_a_line_break_when_bytes_run_out() {
    let content = "x".repeat(100) + "\n";
    let (mut files, path) = with_file(content.repeat(10).as_bytes());
    let text = ok(&mut files, json!({"path": path, "max_bytes": 256}));
    // Two numbered lines of 103 bytes fit in 256; the third would not.
    assert!(text.starts_with(&format!("{path} — lines 1-2 of 10 (1010 bytes)\n")));
    assert!(text.ends_with(&format!(
        "More: call again with {{\"path\": \"{path}\", \"line\": 3, \"max_bytes\": 256}}"
    )));
}

#[test]
fn a_line_longer_than_max_bytes_is_cut_and_continued_by_offset() {
    let content = format!("short\n{}\nend\n", "ж".repeat(5000));
    let (mut files, path) = with_file(content.as_bytes());
    let text = ok(&mut files, json!({"path": path, "line": 2}));
    assert!(text.contains("[line 2 is cut here by max_bytes"), "{text}");
    assert!(text.contains("\"offset\": "), "{text}");
    // Line mode stops after line 1 rather than cut line 2 when line 1 fits.
    let text = ok(&mut files, json!({"path": path}));
    assert!(text.ends_with("\"line\": 2}"), "{text}");
    let whole = read_all(&mut files, json!({"path": path, "max_bytes": 300}));
    assert_eq!(whole, content.as_bytes());
}

#[test]
fn grep_lists_matches_and_counts_them_all() {
    let (mut files, path) = with_file(LOG.as_bytes());
    let text = ok(&mut files, json!({"path": path, "grep": "error"}));
    assert_eq!(
        text,
        format!(
            "{path} — 2 matches of \"error\" (showing 1-2)\nline 3: error: boom\nline 5: error: \
             again\nAll 2 matches shown; the search covered the whole file."
        )
    );
    let text = ok(
        &mut files,
        json!({"path": path, "grep": "error", "max_matches": 1}),
    );
    assert!(text.contains("(showing 1-1)\nline 3: error: boom\nMore: 1 more; call again with "));
    assert!(text.ends_with(&format!(
        "{{\"path\": \"{path}\", \"grep\": \"error\", \"max_matches\": 2}}"
    )));
    let text = ok(&mut files, json!({"path": path, "grep": "Error"}));
    assert!(text.contains("no match of \"Error\"") && text.contains("case-sensitive"));
}

#[test]
fn grep_beyond_max_bytes_points_at_the_next_match_by_line() {
    let content: String = (1..=100)
        .map(|n| format!("{n} error {}\n", "x".repeat(60)))
        .collect();
    let (mut files, path) = with_file(content.as_bytes());
    let text = ok(
        &mut files,
        json!({"path": path, "grep": "error", "max_bytes": 256}),
    );
    assert!(
        text.contains("100 matches of \"error\" (showing 1-3)"),
        "{text}"
    );
    assert!(text.contains("More: 97 more than fit here."), "{text}");
    assert!(text.ends_with("\"line\": 4, \"max_bytes\": 256}"), "{text}");
    // A single excerpt longer than max_bytes is cut and marked.
    let long = format!("{}needle{}\n", "a".repeat(190), "b".repeat(190));
    let (mut files, path) = with_file(long.as_bytes());
    let text = ok(
        &mut files,
        json!({"path": path, "grep": "needle", "max_bytes": 256}),
    );
    assert!(text.contains("(showing 1-1)\nline 1: aaa"), "{text}");
    assert!(text.contains("…\nAll 1 match shown"), "{text}");
}

#[test]
fn empty_file_and_reads_past_the_end() {
    let (mut files, path) = with_file(b"");
    for arguments in [
        json!({"path": path}),
        json!({"path": path, "offset": 0}),
        json!({"path": path, "offset": 10}),
    ] {
        let text = ok(&mut files, arguments);
        assert_eq!(text, format!("{path} — empty file (0 bytes)\nEnd of file."));
    }
    let (mut files, path) = with_file(LOG.as_bytes());
    let text = error(&mut files, &json!({"path": path, "line": 9}).to_string());
    assert!(
        text.contains("Line 9 is past the end") && text.contains("it has 5 lines (60 bytes)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{{\"path\": \"{path}\", \"line\": 1}}")),
        "{text}"
    );
    let text = error(&mut files, &json!({"path": path, "offset": 60}).to_string());
    assert!(text.contains("at offsets 0 to 59"), "{text}");
}

#[test]
fn a_genuine_reference_in_notice_text_is_followed() {
    let mut files = session();
    let r = files.spill("call-7", LOG.as_bytes());
    let notice = format!(
        "[toolcap] cut. The tool already ran.\n{SAVED_PREFIX}{}",
        RefScheme::token(&r)
    );
    let text = ok(&mut files, json!({"path": notice, "grep": "again"}));
    assert!(text.starts_with(&format!("{} — 1 match", r.path)), "{text}");
    // Inside a tool message stored as JSON, with escaped slashes.
    let stored = json!({"role": "tool", "content": notice})
        .to_string()
        .replace('/', "\\/");
    let text = ok(&mut files, json!({"path": stored, "line": 5}));
    assert!(text.contains("5\terror: again"), "{text}");
    // The relative path works too, and the header shows the display path.
    let text = ok(&mut files, json!({"path": r.relative_path, "line": 5}));
    assert!(text.starts_with(&r.path));
}

#[test]
fn forged_and_foreign_references_open_nothing() {
    let mut files = session();
    let r = files.spill("call-1", LOG.as_bytes());
    let token = RefScheme::token(&r);
    let other = RefScheme::new("/spill", "t", vec![9; 32]).unwrap();
    let foreign = other.make_ref(
        r.path.rsplit('/').next().unwrap(),
        r.bytes,
        r.lines,
        &r.digest,
    );
    for forged in [
        token.replace(&r.tag, "0123456789abcdef"),
        token.replace("bytes=60", "bytes=61"),
        RefScheme::token(&foreign),
        token.replace("/spill/t/", "/spill/u/"),
    ] {
        let text = error(&mut files, &json!({"path": forged}).to_string());
        assert!(text.contains("did not verify"), "{text}");
        assert!(
            text.contains("A correct call looks like {\"path\": "),
            "{text}"
        );
    }
}

#[test]
fn every_mistake_is_a_sentence_with_a_correct_call() {
    let (mut files, path) = with_file(LOG.as_bytes());
    let name = path.rsplit('/').next().unwrap().to_owned();
    let example = "{\"path\": \"/spill/t/call-1-0123456789abcdef.txt\", \"line\": 1}";
    let own = format!("{{\"path\": \"{path}\", \"line\": 1}}");
    let cases: Vec<(String, &str, &str)> = vec![
        ("not json".into(), "not valid JSON", example),
        ("".into(), "not valid JSON", example),
        ("[]".into(), "must be a JSON object", example),
        ("null".into(), "must be a JSON object", example),
        (
            json!({"path": path, "start_line": 3}).to_string(),
            "did you mean \"line\"",
            &own,
        ),
        (
            json!({"path": path, "line": "3"}).to_string(),
            "without quotes",
            &own,
        ),
        (
            json!({"path": path, "lines": 0}).to_string(),
            "from 1 to 2000",
            &own,
        ),
        (
            json!({"path": path, "offset": 1, "grep": "e"}).to_string(),
            "cannot be combined",
            &own,
        ),
        (
            json!({"path": path, "grep": ""}).to_string(),
            "\"grep\" is empty",
            &own,
        ),
        (
            json!({"path": path, "max_bytes": 70000}).to_string(),
            "from 256 to 65536",
            &own,
        ),
        (
            json!({"line": 1}).to_string(),
            "\"path\" is missing",
            example,
        ),
        (
            json!({"path": format!("/spill/u/{name}")}).to_string(),
            "another session",
            example,
        ),
        (
            json!({"path": format!("/spill/t/../t/{name}")}).to_string(),
            "\"..\"",
            example,
        ),
        (
            json!({"path": "/etc/passwd"}).to_string(),
            "not in this conversation's folder",
            example,
        ),
    ];
    for (arguments, why, correct) in cases {
        let text = error(&mut files, &arguments);
        assert!(text.contains(why), "{arguments}: {text}");
        assert!(
            text.ends_with(&format!("A correct call looks like {correct}.")),
            "{text}"
        );
        assert!(text.len() <= max_text_bytes(files.scheme(), 0));
    }
}

#[test]
fn a_missing_or_expired_file_says_so() {
    let mut files = session();
    let r = files.spill("call-1", b"gone");
    files.files.clear();
    let text = error(&mut files, &json!({"path": r.path}).to_string());
    assert!(
        text.starts_with(&format!("No spilled output {} exists", r.path)),
        "{text}"
    );
    assert!(text.contains("none ever did"), "{text}");
}

#[test]
fn the_spec_describes_a_small_valid_schema() {
    let spec = spec("read_output");
    assert_eq!(spec.name, "read_output");
    let schema: Value = serde_json::from_str(&spec.input_schema).unwrap();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["path"]));
    let properties = schema["properties"].as_object().unwrap();
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "grep",
            "line",
            "lines",
            "max_bytes",
            "max_matches",
            "offset",
            "path"
        ]
    );
    assert_eq!(schema["properties"]["lines"]["maximum"], MAX_LINES);
    assert_eq!(schema["properties"]["max_bytes"]["minimum"], MIN_MAX_BYTES);
    assert_eq!(schema["properties"]["max_bytes"]["maximum"], MAX_MAX_BYTES);
    assert_eq!(schema["properties"]["max_matches"]["maximum"], MAX_MATCHES);
    assert!(
        spec.input_schema.len() < 1500,
        "{}",
        spec.input_schema.len()
    );
    assert!(!spec.input_schema.contains('\n'));
    for words in [
        "cut",
        "path",
        "by lines",
        "offset",
        "grep",
        "not a regex",
        "exact arguments of the next call",
        "do not run it again",
    ] {
        assert!(spec.description.contains(words), "{words}");
    }
}

#[test]
fn outputs_stay_within_the_bound_in_every_mode() {
    // A long display root and the worst pattern: control characters escape
    // to six bytes each in the cursor.
    let root = format!("/{}", "r\t\"".repeat(100));
    let mut files = MemSpill::new(RefScheme::new(&root, &"θ".repeat(80), vec![7; 32]).unwrap());
    let line_heavy = "\n".repeat(50_000);
    let wide = format!("{}\n", "€\u{1}".repeat(30_000));
    let hits = "\u{1}".repeat(200).repeat(300);
    let pattern = "\u{1}".repeat(200);
    for content in [line_heavy.as_str(), wide.as_str(), hits.as_str(), LOG] {
        let r = files.spill(&"c".repeat(200), content.as_bytes());
        for max_bytes in [MIN_MAX_BYTES, 1000, DEFAULT_MAX_BYTES, MAX_MAX_BYTES] {
            let bound = max_text_bytes(files.scheme(), max_bytes);
            for arguments in [
                json!({"path": r.path, "max_bytes": max_bytes, "lines": MAX_LINES}),
                json!({"path": r.path, "max_bytes": max_bytes, "line": 49_990}),
                json!({"path": r.path, "max_bytes": max_bytes, "offset": 7}),
                json!({"path": r.path, "max_bytes": max_bytes, "grep": pattern, "max_matches": 1}),
                json!({"path": r.path, "max_bytes": max_bytes, "grep": "\n", "max_matches": 200}),
                json!({"path": r.path, "max_bytes": max_bytes, "line": u64::MAX}),
            ] {
                let out = call(&mut files, arguments.clone());
                assert!(
                    out.text.len() <= bound,
                    "{arguments}: {} > {bound}",
                    out.text.len()
                );
            }
        }
    }
}

#[test]
fn tampered_bytes_are_read_to_the_end_within_the_bound() {
    let bytes = b"\xff\xfe\n\xe2\x82 ok\n\xf0\x9f\x98\xc3".repeat(200);
    let (mut files, path) = with_file(&bytes);
    for first in [
        json!({"path": path, "max_bytes": 256}),
        json!({"path": path, "offset": 1, "max_bytes": 256}),
    ] {
        let text = read_all(&mut files, first);
        assert!(String::from_utf8(text).is_ok());
    }
}

/// Text of 1- to 4-byte characters, line breaks and CRLF, empty lines and
/// lines long enough to be cut.
fn text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        4 => "[a-z ]{1,20}",
        2 => Just("\n".to_owned()),
        1 => Just("\r\n".to_owned()),
        1 => Just("\r".to_owned()),
        1 => "[жé€中😀]{1,10}",
        1 => Just("\t".to_owned()),
        1 => "[a-zж😀]{200,700}",
    ];
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Following the cursors from line 1 (or from byte 0) gives back every
    /// byte of the file, each page within its bound.
    #[test]
    fn cursors_reassemble_the_file(
        text in text(), max_bytes in MIN_MAX_BYTES..700, lines in 1u32..40, by_bytes: bool,
    ) {
        let (mut files, path) = with_file(text.as_bytes());
        let first = if by_bytes {
            json!({"path": path, "offset": 0, "max_bytes": max_bytes})
        } else {
            json!({"path": path, "lines": lines, "max_bytes": max_bytes})
        };
        prop_assert_eq!(read_all(&mut files, first), text.as_bytes());
    }

    /// A tampered file (any bytes) pages to its end within the bound; its
    /// pages hold its text as `from_utf8_lossy` reads it.
    #[test]
    fn any_bytes_page_to_the_end(
        bytes in prop::collection::vec(prop_oneof![
            3 => any::<u8>(),
            1 => Just(b'\n'),
            1 => prop::sample::select(vec![0xe2u8, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]),
        ], 0..1500),
        max_bytes in MIN_MAX_BYTES..400, by_bytes: bool,
    ) {
        let (mut files, path) = with_file(&bytes);
        let first = if by_bytes {
            json!({"path": path, "offset": 0, "max_bytes": max_bytes})
        } else {
            json!({"path": path, "max_bytes": max_bytes})
        };
        let whole = read_all(&mut files, first);
        prop_assert_eq!(String::from_utf8(whole).unwrap(), String::from_utf8_lossy(&bytes));
    }

    /// The header counts every match, as a naive search does.
    #[test]
    fn grep_counts_like_a_naive_search(
        text in text(), pattern in "[a-z]{1,2}|\n|ж|😀", max_matches in 1u32..30,
    ) {
        let (mut files, path) = with_file(text.as_bytes());
        let out = ok(&mut files, json!({"path": path, "grep": pattern, "max_matches": max_matches}));
        let total = text.matches(pattern.as_str()).count();
        let header = out.lines().next().unwrap();
        if total == 0 {
            let expected = format!(" — no match of {}", render::json_string(&pattern));
            prop_assert!(header.ends_with(&expected));
        } else {
            let noun = if total == 1 { "match" } else { "matches" };
            let prefix = format!("{path} — {total} {noun} of ");
            prop_assert!(header.starts_with(&prefix), "{}", header);
            let listed = out.lines().filter(|l| l.starts_with("line ")).count();
            prop_assert!(listed >= 1 && listed <= total.min(max_matches as usize));
        }
        prop_assert!(out.len() <= max_text_bytes(files.scheme(), DEFAULT_MAX_BYTES));
    }

    /// Any text as arguments: no panic, an answer within the bound.
    #[test]
    fn any_string_gets_a_bounded_answer(arguments in "\\PC{0,200}") {
        let (mut files, _) = with_file(LOG.as_bytes());
        let out = run(&arguments, &mut files);
        prop_assert!(out.is_error);
        prop_assert!(out.text.len() <= max_text_bytes(files.scheme(), MAX_MAX_BYTES));
    }

    /// Any JSON object of the known fields (and some others), with values of
    /// any type: no panic, an answer within the bound.
    #[test]
    fn any_json_value_gets_a_bounded_answer(
        fields in prop::collection::vec((field_name(), json_value()), 0..6), path_kind in 0u8..4,
    ) {
        let (mut files, path) = with_file(LOG.repeat(300).as_bytes());
        let mut object = serde_json::Map::new();
        match path_kind {
            0 => { object.insert("path".into(), json!(path)); }
            1 => { object.insert("path".into(), json!(format!("see {path}."))); }
            _ => {}
        }
        for (name, value) in fields {
            object.insert(name, value);
        }
        let arguments = Value::Object(object).to_string();
        let out = run(&arguments, &mut files);
        prop_assert!(!out.text.is_empty());
        prop_assert!(out.text.len() <= max_text_bytes(files.scheme(), MAX_MAX_BYTES), "{}", arguments);
    }
}

fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(vec!["path", "line", "lines", "offset", "max_bytes", "grep", "max_matches"])
            .prop_map(str::to_owned),
        1 => "[a-z_]{1,12}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(|n| json!(n)),
        (0u64..3000).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,30}".prop_map(Value::String),
        Just(json!("error")),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,5}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A session that redacts, holding a file with secrets, and that file.
fn with_secrets() -> (MemSpill, String, String) {
    let redactor = crate::redact::Redactor::new(&["hunter2-corp-literal".to_owned()]).unwrap();
    let mut files = session().redacting(redactor);
    let mut text: String = (1..=30).map(|i| format!("step {i} ok\n")).collect();
    text.push_str("GITHUB_TOKEN=ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f\n");
    text.push_str("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n");
    text.push_str("Authorization: Bearer opaqueFAKEtoken0opaqueFAKEtoken0opaqueFA\n");
    text.push_str("connecting to db.internal with hunter2-corp-literal\n");
    text.extend((31..=60).map(|i| format!("step {i} ok\n")));
    let r = files.spill("call-1", text.as_bytes());
    (files, r.path, text)
}

const SECRET_PIECES: &[&str] = &[
    "ghp_FAKE",
    "FAKE0fake1",
    "wJalrXUtnFEMI",
    "EXAMPLEKEY",
    "opaqueFAKEtoken",
    "hunter2",
];

fn assert_no_secret(text: &str) {
    for piece in SECRET_PIECES {
        assert!(!text.contains(piece), "{piece} shown in {text}");
    }
}

#[test]
fn redacting_session_grep_shows_redacted_lines_and_never_confirms_a_guess() {
    let (mut files, path, _) = with_secrets();
    let text = ok(&mut files, json!({"path": path, "grep": "GITHUB_TOKEN"}));
    assert!(
        text.contains("line 31: GITHUB_TOKEN=[redacted: github-token]"),
        "{text}"
    );
    assert_no_secret(&text);
    for guess in ["ghp_FAKE0", "hunter2", "wJalr", "Bearer opaque"] {
        let text = ok(&mut files, json!({"path": path, "grep": guess}));
        assert!(text.contains("no match"), "{guess}: {text}");
    }
}

#[test]
fn redacting_session_line_pages_are_redacted_and_say_so() {
    let (mut files, path, text) = with_secrets();
    let page = ok(&mut files, json!({"path": path, "line": 30, "lines": 5}));
    assert_no_secret(&page);
    assert!(
        page.contains("31\tGITHUB_TOKEN=[redacted: github-token]"),
        "{page}"
    );
    assert!(page.contains("34\tconnecting to db.internal with [redacted: literal]"));
    assert!(page.contains("[redaction: 4 secrets are shown as `[redacted: <kind>]`"));
    // Sizes are the saved file's.
    assert!(
        page.contains(&format!("of 64 ({} bytes)", text.len())),
        "{page}"
    );
    // A page without secrets has no note.
    let page = ok(&mut files, json!({"path": path, "line": 1, "lines": 5}));
    assert!(!page.contains("[redaction:"), "{page}");
}

#[test]
fn redacting_session_byte_pages_follow_saved_offsets_and_never_leak() {
    let (mut files, path, text) = with_secrets();
    let redacted = crate::redact::Redactor::new(&["hunter2-corp-literal".to_owned()])
        .unwrap()
        .redact(&text)
        .0
        .into_owned();
    for max_bytes in [256, 300, 333, 401] {
        let whole = read_all(
            &mut files,
            json!({"path": path, "offset": 0, "max_bytes": max_bytes}),
        );
        assert_eq!(String::from_utf8(whole).unwrap(), redacted, "{max_bytes}");
    }
    // Every starting offset, into secrets too: nothing leaks, and the header
    // names saved offsets within the file.
    for offset in (0..text.len()).step_by(5) {
        let page = ok(
            &mut files,
            json!({"path": path, "offset": offset, "max_bytes": 256}),
        );
        assert_no_secret(&page);
        assert!(page.contains(&format!("of {}", text.len())), "{page}");
    }
    let at = text.find("ghp_").unwrap() + 4;
    let page = ok(&mut files, json!({"path": path, "offset": at}));
    let start = text.find("ghp_").unwrap();
    assert!(page.contains(&format!("bytes {start}-")), "{page}");
}

/// A file changed or replaced after it was saved is refused, not served as
/// the output its reference names: a different size than the reference
/// states, or content that does not match the digest in its name.
#[test]
fn a_file_that_no_longer_matches_its_reference_is_refused() {
    let content = b"line one\nline two\n".repeat(50);
    let mut files = session();
    let r = files.spill("call-1", &content);
    let reference = RefScheme::token(&r);
    // Served while intact, by path or by reference.
    ok(&mut files, json!({ "path": r.path }));
    ok(&mut files, json!({ "path": reference }));
    // Same size, other bytes: the digest no longer matches.
    let mut forged = content.clone();
    forged[3] = b'X';
    files.files.insert(r.relative_path.clone(), forged);
    let out = call(&mut files, json!({ "path": r.path }));
    assert!(out.is_error);
    assert!(
        out.text
            .contains("no longer holds the output its reference names"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("does not match the digest"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("line two"), "{}", out.text);
    // Shorter: the reference's size says so before any digest.
    files
        .files
        .insert(r.relative_path.clone(), content[..10].to_vec());
    let out = call(&mut files, json!({ "path": reference }));
    assert!(out.is_error);
    assert!(
        out.text.contains(&format!(
            "has 10 bytes where the reference says {}",
            content.len()
        )),
        "{}",
        out.text
    );
    // Put back, it is served again.
    files.files.insert(r.relative_path.clone(), content);
    ok(&mut files, json!({ "path": r.path, "grep": "two" }));
}

/// Redaction × the file check: the size and digest are the saved file's,
/// not the redacted view's, so a file with secrets is served (redacted) by
/// path and by its genuine reference, and still refused once it is changed.
#[test]
fn a_redacting_session_checks_the_saved_bytes_not_the_redacted_view() {
    let redactor = crate::redact::Redactor::new(&[]).unwrap();
    let mut files = session().redacting(redactor);
    let mut content: Vec<u8> = b"step ok\n".repeat(40);
    content.extend_from_slice(b"GITHUB_TOKEN=ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f\n");
    let r = files.spill("call-1", &content);
    let reference = RefScheme::token(&r);
    for path in [&r.path, &reference] {
        let text = ok(&mut files, json!({ "path": path, "grep": "GITHUB_TOKEN" }));
        assert!(
            text.contains("GITHUB_TOKEN=[redacted: github-token]"),
            "{text}"
        );
        assert!(!text.contains("ghp_FAKE"), "{text}");
    }
    let mut changed = content.clone();
    changed[0] = b'S';
    files.files.insert(r.relative_path.clone(), changed);
    let out = call(&mut files, json!({ "path": reference }));
    assert!(
        out.is_error && out.text.contains("does not match the digest"),
        "{}",
        out.text
    );
}
