//! Properties through the real component, against naive oracles: `cap` keeps
//! every limit with the notice, returns fitting input unchanged, accounts for
//! the input and spills it byte for byte; pages read back rebuild the file;
//! `grep` counts like `str::matches`.
//!
//! `cargo test --release -p toolcap-tests --test all properties::`
//! (`PROPTEST_CASES=5000` for a longer run).

use std::fs;

use crate::common::{DISPLAY_ROOT, KEY, count_lines, open};
use proptest::prelude::*;
use tool_output_cap::{Budget, Session, types::Keep};
use toolcap_core::notice::NOT_SAVED;

/// Text from scripts, line breaks and control bytes, short and long lines;
/// `long` adds lines of several KB (and makes page-by-page reads slow).
fn text_of(max_pieces: usize, long: bool) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_owned()),
        Just("word ".to_owned()),
        Just("ж".to_owned()),
        Just("中文".to_owned()),
        Just("😀".to_owned()),
        Just("👩‍💻".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("\0".to_owned()),
        "[a-z]{0,40}",
        "[a-zё]{100,400}",
        if long {
            "[a-z]{1000,3000}"
        } else {
            "[a-z]{0,3}"
        },
    ];
    prop::collection::vec(piece, 0..max_pieces).prop_map(|v| v.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    text_of(120, true)
}

fn any_budget() -> impl Strategy<Value = Budget> {
    (
        prop_oneof![Just(0u32), 900u32..6000],
        prop::option::of(4u32..80),
        prop::option::of(1u32..300),
        prop_oneof![Just(Keep::Head), Just(Keep::Tail), Just(Keep::HeadAndTail)],
        0u8..=100,
    )
        .prop_map(
            |(max_bytes, max_lines, max_line_bytes, keep, head_percent)| Budget {
                max_bytes,
                max_lines,
                max_line_bytes,
                keep,
                head_percent,
                max_tokens: None,
            },
        )
}

/// No failure files next to the sources: a failure prints its minimal case.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(config(cases()))]

    #[test]
    fn cap_keeps_every_limit_and_the_full_output(
        text in any_text(),
        budget in any_budget(),
        preopen in prop_oneof![Just("read-write"), Just("read-only"), Just("none")],
    ) {
        let dir = tempfile::tempdir().unwrap();
        // Failure notices quote a reason: they must fit the budget too.
        let mut session = crate::common::open_with(tool_output_cap::SessionConfig {
            spill_dir: (preopen != "none").then(|| dir.path().to_owned()),
            read_only: preopen == "read-only",
            ..crate::common::config(dir.path(), "thread-1")
        });
        let capped = session.cap(&text, &budget, "call").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let lines = count_lines(&text);
        prop_assert_eq!(capped.report.original_bytes as usize, text.len());
        prop_assert_eq!(u64::from(capped.report.original_lines), lines);
        let fits = budget.max_bytes == 0
            || (text.len() <= budget.max_bytes as usize
                && budget.max_lines.is_none_or(|m| lines <= u64::from(m)));
        prop_assert_eq!(capped.report.truncated, !fits);
        if fits {
            prop_assert!(capped.text == text);
            prop_assert!(capped.report.spill.is_none() && capped.report.omitted_bytes == 0);
            return Ok(());
        }
        prop_assert!(capped.text.len() <= budget.max_bytes as usize,
            "{} bytes over {}", capped.text.len(), budget.max_bytes);
        if let Some(max_lines) = budget.max_lines {
            prop_assert!(count_lines(&capped.text) <= u64::from(max_lines));
        }
        prop_assert!(capped.report.omitted_bytes as usize <= text.len());
        prop_assert!(u64::from(capped.report.omitted_lines) <= lines);
        if preopen != "read-write" {
            prop_assert!(capped.report.spill.is_none() && capped.report.spill_error.is_some());
            prop_assert!(capped.text.contains(NOT_SAVED));
            return Ok(());
        }
        let spill = capped.report.spill.expect("a writable spill dir");
        let on_disk = fs::read(session.host_path(&spill.path).expect("host_path").unwrap()).unwrap();
        prop_assert!(on_disk == text.as_bytes());
        let refs = session.find_refs(&capped.text).unwrap();
        prop_assert_eq!(refs.last().map(|r| r.path.clone()), Some(spill.path));
    }
}

/// Spills `text` (a tiny budget forces the cut) and returns its display path.
fn spilled(session: &mut Session, text: &str) -> String {
    let budget = Budget {
        max_lines: Some(4),
        ..crate::common::budget(5000)
    };
    let capped = session.cap(text, &budget, "call").expect("cap");
    capped.report.spill.expect("spilled").path
}

/// Text with at least five lines, so a 4-line budget always cuts it.
fn multi_line_text() -> impl Strategy<Value = String> {
    text_of(40, false).prop_map(|t| format!("1\n2\n3\n4\n5\n{t}"))
}

proptest! {
    #![proptest_config(config(cases() / 3))]

    #[test]
    fn pages_rebuild_the_file(text in multi_line_text(), page in 4u32..64) {
        let dir = tempfile::tempdir().unwrap();
        let mut session = open(dir.path(), "thread-1");
        let path = spilled(&mut session, &text);
        let mut rebuilt = String::new();
        let mut offset = 0;
        loop {
            let p = session.read(&path, offset, page).unwrap();
            prop_assert_eq!(p.offset, offset);
            prop_assert!(p.text.len() <= page as usize);
            prop_assert_eq!(p.first_line, 1 + text[..offset as usize].matches('\n').count() as u64);
            rebuilt.push_str(&p.text);
            match p.next_offset {
                Some(next) => {
                    prop_assert!(next > offset);
                    offset = next;
                }
                None => break,
            }
        }
        prop_assert!(rebuilt == text);
    }

    #[test]
    fn read_lines_returns_each_line(text in multi_line_text()) {
        let dir = tempfile::tempdir().unwrap();
        let mut session = open(dir.path(), "thread-1");
        let path = spilled(&mut session, &text);
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let p = session.read_lines(&path, i as u64 + 1, 1, 1 << 20).unwrap();
            prop_assert_eq!(p.text.as_str(), line, "line {}", i + 1);
            prop_assert_eq!(p.first_line, i as u64 + 1);
        }
    }

    #[test]
    fn grep_counts_like_str_matches(
        text in multi_line_text(),
        start in any::<prop::sample::Index>(),
        len in 1usize..6,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut session = open(dir.path(), "thread-1");
        let path = spilled(&mut session, &text);
        // A pattern taken from the text, so it matches at least once.
        let from = text.floor_char_boundary(start.index(text.len()));
        let to = text.ceil_char_boundary((from + len).min(text.len()));
        let pattern = &text[from..to];
        prop_assume!(!pattern.is_empty());
        let found = session.grep(&path, pattern, 5).unwrap();
        let naive: Vec<usize> = text.match_indices(pattern).map(|(i, _)| i).collect();
        prop_assert_eq!(found.total_matches, naive.len() as u64);
        for (m, &at) in found.matches.iter().zip(&naive) {
            prop_assert_eq!(m.offset, at as u64);
            prop_assert_eq!(m.line, 1 + text[..at].matches('\n').count() as u64);
            prop_assert!(m.excerpt.contains(pattern.trim_end_matches(['\n', '\r'])));
        }
        prop_assert_eq!(found.matches.len(), naive.len().min(5));
    }
}

/// Lines alike but for their numbers (a log's timestamps, ids, progress),
/// now and then one with a word changed: what the preview folds. Long
/// enough that the component compares them sixteen bytes at a time; `µ`
/// (0xC2 0xB5) has a byte whose low bits are a digit's.
fn alike_lines() -> impl Strategy<Value = String> {
    let template = prop::collection::vec("[a-zA-Z :/=%.µé-]{0,24}", 2..7);
    (template, 20usize..300, any::<u64>()).prop_map(|(parts, lines, seed)| {
        let mut rng = toolcap_core::test_support::SplitMix::new(seed);
        let mut text = String::new();
        for _ in 0..lines {
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    // A number of 1 to 9 digits, sometimes the same width.
                    let width = if rng.chance(0.5) { 4 } else { rng.range(1, 10) };
                    for _ in 0..width {
                        text.push(char::from(b'0' + rng.below(10) as u8));
                    }
                }
                if rng.chance(0.02) && !part.is_empty() {
                    text.push_str(&part.replacen(|c: char| c.is_ascii_alphabetic(), "Q", 1));
                } else {
                    text.push_str(part);
                }
            }
            text.push('\n');
        }
        text
    })
}

proptest! {
    #![proptest_config(config(cases()))]

    /// The component folds alike lines as the native core does: the guest
    /// compares lines with wasm SIMD, the core natively a word at a time.
    #[test]
    fn folds_alike_lines_as_the_native_core(
        text in alike_lines(),
        max_bytes in 700u32..4000,
        keep in prop_oneof![Just(Keep::Head), Just(Keep::Tail), Just(Keep::HeadAndTail)],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut session = open(dir.path(), "thread-1");
        let budget = Budget { keep, ..crate::common::budget(max_bytes) };
        let component = session.cap(&text, &budget, "call").unwrap();
        let scheme = toolcap_core::RefScheme::new(DISPLAY_ROOT, "thread-1", KEY.to_vec()).unwrap();
        let native = toolcap_core::Capper::new(scheme)
            .cap(&text, &native_budget(&budget), "call", &mut Discard)
            .unwrap();
        prop_assert_eq!(u64::from(component.report.folded_lines), native.folded_lines);
        prop_assert_eq!(u64::from(component.report.omitted_lines), native.omitted_lines);
        prop_assert_eq!(component.text, native.text);
    }
}

/// `budget` as the core takes it.
fn native_budget(budget: &Budget) -> toolcap_core::Budget {
    toolcap_core::Budget {
        max_bytes: budget.max_bytes,
        max_lines: budget.max_lines,
        max_line_bytes: budget.max_line_bytes,
        keep: match budget.keep {
            Keep::Head => toolcap_core::budget::Keep::Head,
            Keep::Tail => toolcap_core::budget::Keep::Tail,
            Keep::HeadAndTail => toolcap_core::budget::Keep::HeadAndTail,
        },
        head_percent: budget.head_percent,
        max_tokens: None,
    }
}

/// A spill store that keeps nothing: the native side only decides.
struct Discard;

impl toolcap_core::SpillStore for Discard {
    fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), toolcap_core::CapError> {
        Ok(())
    }
}

/// What the searches for notable lines look for, parts of it and
/// look-alikes (`rro`, `FAI`, `Kil`), the host's pattern (`QUOTA`), and
/// lines of a log around them.
const SIGNS: &[&str] = &[
    "ERROR connection reset",
    "error: could not compile",
    "rror",
    "rro",
    "FAIL tests/x.rs",
    "FAI",
    "Traceback (most recent call last):",
    "Killed process 412",
    "Kil",
    "process exit code 1",
    "Exception in thread",
    "\u{2716} renders the list",
    "E   assert 1 == 2",
    "\"GET / HTTP/1.1\" 503 0",
    "warning: unused variable",
    "Permission denied",
    "the upload failed",
    "thread 'main' panicked at",
    "ECONNREFUSED",
    "x509: certificate signed by unknown authority",
    "\u{d7} No solution found",
    "QUOTA exceeded",
    "QUOT",
    "E: ",
];

/// A log of about `lines` lines alike but for their numbers, with a line
/// holding one of [`SIGNS`] in one line of `every` (with the sign at its
/// start, middle or end).
fn log_with_signs(seed: u64, lines: usize, every: u64) -> String {
    let mut rng = toolcap_core::test_support::SplitMix::new(seed);
    let mut text = String::with_capacity(lines * 80);
    for i in 0..lines {
        let line = format!(
            "2026-11-30T12:{:02}:{:02}.{:03}Z INFO worker-{} GET /api/items/{} status=200 in {} ms",
            i / 60 % 60,
            i % 60,
            rng.below(1000),
            rng.below(8),
            rng.below(1 << 20),
            rng.below(900),
        );
        if rng.below(every) == 0 {
            let sign = SIGNS[rng.below(SIGNS.len() as u64) as usize];
            match rng.below(3) {
                0 => text.push_str(&format!("{sign} {line}")),
                1 => text.push_str(&format!("{line} {sign} {line}")),
                _ => text.push_str(&format!("{line} {sign}")),
            }
        } else {
            text.push_str(&line);
        }
        text.push('\n');
    }
    text
}

/// A session of the properties' identity with the host pattern `QUOTA`.
fn open_with_quota(dir: &std::path::Path) -> Session {
    let mut config = crate::common::config(dir, "thread-1");
    config.notable_patterns = vec!["QUOTA".to_owned()];
    crate::common::open_with(config)
}

/// The native core of the same identity and host pattern.
fn native_with_quota() -> toolcap_core::Capper {
    let scheme = toolcap_core::RefScheme::new(DISPLAY_ROOT, "thread-1", KEY.to_vec()).unwrap();
    let settings = toolcap_core::PreviewSettings {
        notable_patterns: vec!["QUOTA".to_owned()],
        ..toolcap_core::PreviewSettings::default()
    };
    toolcap_core::Capper::with_settings(scheme, settings).unwrap()
}

/// `text` capped to `max_bytes` through the component and by the native
/// core, both with the host pattern `QUOTA`.
fn cap_both_with_quota(
    text: &str,
    max_bytes: u32,
) -> (tool_output_cap::Capped, toolcap_core::Capped) {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open_with_quota(dir.path());
    let budget = crate::common::budget(max_bytes);
    let component = session.cap(text, &budget, "call").unwrap();
    let native = native_with_quota()
        .cap(text, &native_budget(&budget), "call", &mut Discard)
        .unwrap();
    (component, native)
}

proptest! {
    #![proptest_config(config(cases().min(24)))]

    /// The component finds the notable lines of a long middle (over a
    /// megabyte: one pass of every search's automaton) as the native core
    /// does: the guest walks the automaton over the lines its fingerprints
    /// find, the core runs aho-corasick's own SIMD search.
    #[test]
    fn finds_notable_lines_of_a_long_middle_as_the_native_core(
        seed in any::<u64>(),
        lines in 14_000usize..20_000,
        every in prop_oneof![Just(1u64), Just(3), 20u64..400, Just(5000)],
        max_bytes in 2000u32..16_000,
    ) {
        let text = log_with_signs(seed, lines, every);
        let (component, native) = cap_both_with_quota(&text, max_bytes);
        prop_assert_eq!(component.text, native.text);
    }
}

proptest! {
    #![proptest_config(config(cases().min(4)))]

    /// The same of a text over 4 MiB written in chunks: the one-pass
    /// preview asks the automaton where occurrences start, piece by piece.
    #[test]
    fn streams_notable_lines_as_the_native_core(
        seed in any::<u64>(),
        every in prop_oneof![Just(2u64), 50u64..400, Just(20_000)],
    ) {
        let text = log_with_signs(seed, 60_000, every);
        prop_assert!(text.len() > toolcap_core::stream::LARGE_INPUT);
        let dir = tempfile::tempdir().unwrap();
        let mut session = open_with_quota(dir.path());
        let budget = crate::common::budget(8000);
        let mut stream = session.stream(&budget, "call").unwrap();
        for chunk in text.as_bytes().chunks(300_001) {
            stream.write(chunk).unwrap();
        }
        let component = stream.finish().unwrap();
        let capper = native_with_quota();
        let mut native_stream =
            toolcap_core::CapStream::new(&capper, native_budget(&budget), toolcap_core::Call::new("call")).unwrap();
        let mut sink = toolcap_core::stream::MemoryWriter::default();
        for chunk in text.as_bytes().chunks(300_001) {
            native_stream.write(&capper, chunk, &mut sink);
        }
        let native = native_stream.finish(&capper, &mut sink, &mut Discard).unwrap();
        prop_assert_eq!(component.text, native.text);
    }
}

/// A string of a JSON document: plain words, escapes (a quote, a
/// backslash, a control byte, a tab), other scripts, emoji, failure
/// words, and now and then one long enough to be cut.
fn json_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z0-9-]{1,12}",
        Just(" ".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("\u{1}".to_owned()),
        Just("\t".to_owned()),
        Just("\n".to_owned()),
        Just("жёлтый".to_owned()),
        Just("中文".to_owned()),
        Just("👩‍💻".to_owned()),
        Just("error: disk full".to_owned()),
        Just("Traceback".to_owned()),
        Just("QUOTA".to_owned()),
        "[a-z ]{200,900}",
    ];
    prop::collection::vec(piece, 0..6).prop_map(|v| v.concat())
}

/// An array of records as an API returns them: a state most share, now
/// and then a failure, an error member, nested details and tags.
fn json_records() -> impl Strategy<Value = serde_json::Value> {
    let status = prop_oneof![
        8 => Just("ok"),
        1 => Just("failed"),
        1 => Just("pending"),
    ];
    let error = prop_oneof![
        Just(serde_json::Value::Null),
        Just(serde_json::json!("")),
        Just(serde_json::json!("timeout after 30s")),
        Just(serde_json::json!({"code": 137, "reason": "OOMKilled"})),
    ];
    let record = (
        any::<u32>(),
        json_string(),
        status,
        prop::option::of(error),
        prop::collection::vec(json_string(), 0..4),
        prop::option::of((json_string(), -1e6f64..1e6)),
    )
        .prop_map(|(id, name, status, error, tags, detail)| {
            let mut record =
                serde_json::json!({"id": id, "name": name, "status": status, "tags": tags});
            if let Some(error) = error {
                record["error"] = error;
            }
            if let Some((message, took)) = detail {
                record["detail"] = serde_json::json!({"message": message, "took": took});
            }
            record
        });
    prop::collection::vec(record, 0..400).prop_map(serde_json::Value::Array)
}

proptest! {
    #![proptest_config(config(cases().min(64)))]

    /// The component previews JSON documents as the native core does:
    /// pretty or compact, with every kind of string the parser reads, and
    /// the text preview when a raw control byte makes the text no JSON.
    #[test]
    fn previews_json_documents_as_the_native_core(
        records in json_records(),
        pretty in any::<bool>(),
        spoil in any::<bool>(),
        max_bytes in 900u32..8000,
    ) {
        let mut text = if pretty {
            serde_json::to_string_pretty(&records).unwrap()
        } else {
            serde_json::to_string(&records).unwrap()
        };
        if spoil {
            // A raw control byte where a string holds an escaped one.
            text = text.replacen("\\u0001", "\u{1}", 1);
        }
        let (component, native) = cap_both_with_quota(&text, max_bytes);
        prop_assert_eq!(u64::from(component.report.omitted_lines), native.omitted_lines);
        prop_assert_eq!(component.text, native.text);
    }
}

/// Text that a JSON string writes with every kind of escape: quotes,
/// backslashes, line breaks, tabs and control bytes (serde_json's own), and
/// plain runs of every length, so that escapes land at every place of the
/// sixteen-byte blocks the guest's searches (wasm SIMD) read.
fn escaped_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{0,40}",
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("\n".to_owned()),
        Just("\t".to_owned()),
        Just("\u{1}".to_owned()),
        Just("\u{1f}".to_owned()),
        Just("\u{7f}".to_owned()),
        Just("/".to_owned()),
        Just("é".to_owned()),
        Just("中文".to_owned()),
        Just("😀".to_owned()),
        Just("error: step failed\n".to_owned()),
    ];
    prop::collection::vec(piece, 1..200)
        .prop_map(|v| v.concat())
        .prop_filter("a text to repeat", |text| !text.is_empty())
}

proptest! {
    #![proptest_config(config(cases().min(12)))]

    /// A result over 1 MiB whose one text is sure to be cut goes to the
    /// component in pieces (`stream-mcp`), whose body the guest decodes as
    /// it arrives: the capped result is the native core's for the whole
    /// result (which decodes the string otherwise), and the spill holds the
    /// text byte for byte. The escapes a JSON writer may choose
    /// (`\/`, `\u00e9`, a surrogate pair) are written too. Half the texts
    /// hold no quote: a decoder that missed a backslash would then give a
    /// wrong text, not fail (and be answered by the host's fallback to the
    /// whole result, as a quote it then met would be).
    #[test]
    fn decodes_huge_mcp_texts_as_the_native_core(
        unit in escaped_text(),
        quotes in any::<bool>(),
        max_bytes in 2000u32..16_000,
    ) {
        let unit = if quotes { unit } else { unit.replace('"', "'") };
        let text = unit.repeat(1_200_000 / unit.len() + 1);
        let block = serde_json::json!({"type": "text", "text": text});
        let result = serde_json::json!({"content": [block], "isError": false})
            .to_string()
            .replace('/', "\\/")
            .replace('é', "\\u00e9")
            .replace('😀', "\\ud83d\\ude00");
        prop_assert!(result.len() > 1 << 20);
        let dir = tempfile::tempdir().unwrap();
        let mut session = crate::common::open(dir.path(), "thread-1");
        let budget = crate::common::budget(max_bytes);
        let options = tool_output_cap::types::McpOptions {
            resource_link: false,
        };
        let component = session.cap_mcp(&result, &budget, "call", &options).unwrap();
        let scheme =
            toolcap_core::RefScheme::new(DISPLAY_ROOT, "thread-1", KEY.to_vec()).unwrap();
        let capper = toolcap_core::Capper::new(scheme);
        let native = toolcap_core::cap_mcp(
            &capper,
            result.clone(),
            &native_budget(&budget),
            &toolcap_core::Call::new("call"),
            toolcap_core::McpOptions::default(),
            &mut Discard,
        )
        .unwrap();
        prop_assert_eq!(&component.result, &native.result);
        let spill = component.report.spill.expect("the text is saved");
        let path = session.host_path(&spill.path).unwrap().unwrap();
        prop_assert!(fs::read(path).unwrap() == text.as_bytes());
    }
}
