//! The call's search in the preview: windows around hits in long lines,
//! ranked above every other notable line, and the limits refused.

use super::*;
use crate::budget::Keep;
use crate::call::Call;
use crate::capper::{Capped, Capper, SpillStore};
use crate::error::CapError;
use crate::refs::RefScheme;
use crate::settings::PreviewSettings;

#[derive(Default)]
struct Memory(Vec<(String, Vec<u8>)>);

impl SpillStore for Memory {
    fn save(&mut self, _: &str, name: &str, content: &[u8]) -> Result<(), CapError> {
        self.0.push((name.to_owned(), content.to_vec()));
        Ok(())
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

fn searching(search: &str) -> Call {
    Call {
        search: Some(search.to_owned()),
        ..Call::new("grep-1")
    }
}

/// Filler without any search term or failure word: `abc..` repeated.
fn filler(n: usize) -> String {
    "abcdefghijklmnopqrstuvwxyz0123456789;"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

/// The bytes the preview shows of `text`, counted from its numbers.
fn shown(text: &str, c: &Capped) -> u64 {
    text.len() as u64 - c.omitted_bytes
}

#[test]
fn a_hit_in_the_middle_of_a_single_huge_line_is_shown_in_a_window() {
    let text = filler(600_000) + "apiBase=\"https://api.example.com\"" + &filler(600_000);
    let capper = capper();
    let plain = capper
        .cap_call(
            &text,
            &budget(16 * 1024),
            &Call::new("grep-1"),
            &mut Memory::default(),
        )
        .unwrap();
    assert!(!plain.text.contains("apiBase"), "without search: not found");
    let c = capper
        .cap_call(
            &text,
            &budget(16 * 1024),
            &searching("apiBase"),
            &mut Memory::default(),
        )
        .unwrap();
    let line = c
        .text
        .lines()
        .find(|l| l.contains("apiBase"))
        .expect("the hit is shown");
    assert!(line.starts_with("[line 1] [... "), "{line}");
    assert!(line.ends_with(" bytes cut]"), "{line}");
    // The window: context on both sides, a few hundred bytes.
    assert!(line.len() < 600, "{}", line.len());
    let at = line.find("apiBase").unwrap();
    assert!(at > 60 && line.len() - at > 60, "{line}");
    // The lead marker counts the bytes of the line before the window.
    let lead: usize = line["[line 1] [... ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let window = &line[line.find("cut] ").unwrap() + 5..line.rfind(" [... ").unwrap()];
    assert_eq!(&text[lead..lead + window.len()], window);
    assert!(c.text.len() <= 16 * 1024);
    assert_eq!(c.notable_lines, 1);
    // Both ends still show, and the accounting counts the window.
    assert!(c.text.starts_with("abcdefghij"));
    let body = &c.text[..c.text.rfind("[toolcap] ").unwrap()];
    let visible: u64 = body
        .lines()
        .filter(|l| !l.starts_with("[... lines") && !l.starts_with("[... end"))
        .map(|l| match l.strip_prefix("[line 1] ") {
            Some(w) => window.len().min(w.len()) as u64,
            None => l.len() as u64,
        })
        .sum();
    assert_eq!(shown(&text, &c), visible);
}

/// A grep over a minified bundle: one 1 MB line per file.
fn grep_output(hits: &[(&str, usize)]) -> String {
    let mut out = String::new();
    for (i, &(needle, at)) in hits.iter().enumerate() {
        out.push_str(&format!("dist/chunk-{i}.js:1:"));
        out.push_str(&filler(at));
        out.push_str(needle);
        out.push_str(&filler(1_000_000 - at));
        out.push('\n');
    }
    out
}

#[test]
fn every_alternative_gets_its_first_hit_before_any_gets_a_second() {
    let text = grep_output(&[
        ("sentryDsn", 700_000),
        ("apiBase", 400_000),
        ("apiBase", 500_000),
        ("sentryDsn", 300_000),
    ]);
    let c = capper()
        .cap_call(
            &text,
            &budget(8 * 1024),
            &searching("apiBase\nsentryDsn\n"),
            &mut Memory::default(),
        )
        .unwrap();
    let windows: Vec<&str> = c.text.lines().filter(|l| l.starts_with("[line ")).collect();
    assert!(
        windows
            .iter()
            .any(|l| l.starts_with("[line 2] ") && l.contains("apiBase"))
    );
    assert!(
        windows
            .iter()
            .any(|l| l.starts_with("[line 1] ") && l.contains("sentryDsn"))
    );
    assert!(c.text.len() <= 8 * 1024);
}

#[test]
fn a_hit_outranks_the_failures_and_host_patterns() {
    let mut text = String::new();
    // Failures that all differ, each with the host's pattern: enough to
    // fill the notable lines' room many times over.
    let word = |i: usize| format!("{:x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for i in 0..400 {
        let (a, b) = (word(i), word(i + 1000));
        text.push_str(&format!("error: {a} {b} failed PATTERN\n"));
    }
    text.push_str(&format!("{}needle{}\n", filler(50_000), filler(50_000)));
    for i in 0..400 {
        let (a, b) = (word(i + 2000), word(i + 3000));
        text.push_str(&format!("error: {a} {b} failed PATTERN\n"));
    }
    let capper = Capper::with_settings(
        RefScheme::new("/spill", "t", vec![5; 16]).unwrap(),
        PreviewSettings {
            notable_patterns: vec!["PATTERN".into()],
            ..PreviewSettings::default()
        },
    )
    .unwrap();
    let c = capper
        .cap_call(
            &text,
            &budget(8 * 1024),
            &searching("needle"),
            &mut Memory::default(),
        )
        .unwrap();
    let line = c
        .text
        .lines()
        .find(|l| l.contains("needle"))
        .expect("shown");
    assert!(line.starts_with("[line 401] [... "), "{line}");
}

#[test]
fn a_short_line_with_a_hit_is_shown_whole_and_no_search_changes_nothing() {
    let mut text = String::new();
    let word = |i: usize| format!("{:x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for i in 0..2000 {
        text.push_str(&format!("{} plain output\n", word(i)));
    }
    let mid = text.len() / 2;
    let mid = mid + text[mid..].find('\n').unwrap() + 1;
    text.insert_str(mid, "the needle is here\n");
    let capper = capper();
    let c = capper
        .cap_call(
            &text,
            &budget(2048),
            &searching("needle"),
            &mut Memory::default(),
        )
        .unwrap();
    assert!(c.text.contains("the needle is here\n"), "{}", c.text);
    // A search that finds nothing, or none, gives the preview of no search.
    let none = capper
        .cap_call(
            &text,
            &budget(2048),
            &Call::new("grep-1"),
            &mut Memory::default(),
        )
        .unwrap();
    let absent = capper
        .cap_call(
            &text,
            &budget(2048),
            &searching("zzz-not-there"),
            &mut Memory::default(),
        )
        .unwrap();
    assert_eq!(none.text, absent.text);
    assert!(!none.text.contains("needle"));
}

#[test]
fn a_search_over_the_limits_is_refused_before_anything_is_saved() {
    use crate::batch::{Pending, cap_batch};
    use crate::mcp::{McpOptions, cap_mcp};
    use crate::parts::{Part, cap_parts};
    use crate::plan::RequestLimits;
    let too_many = (0..17).map(|i| format!("t{i}\n")).collect::<String>();
    let too_long = "x".repeat(257);
    let capper = capper();
    let text = "word ".repeat(10_000);
    for (search, limit) in [(too_many, "at most 16"), (too_long, "at most 256 bytes")] {
        let call = searching(&search);
        let b = budget(2048);
        let mut store = Memory::default();
        let refused = |r: Result<(), CapError>| match r {
            Err(CapError::InvalidArgument(m)) => assert!(m.contains(limit), "{m}"),
            other => panic!("{other:?}"),
        };
        refused(capper.cap_call(&text, &b, &call, &mut store).map(drop));
        refused(
            capper
                .cap_bytes(text.as_bytes(), &b, &call, &mut store)
                .map(drop),
        );
        refused(
            cap_parts(
                &capper,
                vec![Part::Text(text.clone())],
                &b,
                &call,
                &mut store,
            )
            .map(drop),
        );
        let result = serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string();
        refused(
            cap_mcp(
                &capper,
                result,
                &b,
                &call,
                McpOptions::default(),
                &mut store,
            )
            .map(drop),
        );
        let turn = [
            (Call::new("ok"), Pending::Text(text.clone())),
            (call.clone(), Pending::Text(text.clone())),
        ];
        refused(
            cap_batch(
                &capper,
                &turn,
                &RequestLimits {
                    max_tokens: None,
                    max_body_bytes: None,
                    floor_bytes: 0,
                    ceiling: budget(2048),
                },
                &mut store,
            )
            .map(drop),
        );
        refused(crate::CapStream::new(&capper, b, call.clone()).map(drop));
        assert!(store.0.is_empty(), "nothing saved");
    }
}

#[test]
fn a_json_array_keeps_the_item_that_holds_a_hit() {
    let items: Vec<serde_json::Value> = (0..3000)
        .map(|i| {
            let name = if i == 1700 {
                "svc-needle-prod".to_owned()
            } else {
                format!("svc-{i}")
            };
            serde_json::json!({"id": i, "name": name, "region": "eu-west-1", "replicas": 3})
        })
        .collect();
    let text = serde_json::to_string_pretty(&serde_json::json!({"items": items})).unwrap();
    let capper = capper();
    let plain = capper
        .cap_call(
            &text,
            &budget(4096),
            &Call::new("q"),
            &mut Memory::default(),
        )
        .unwrap();
    assert!(plain.text.starts_with(JSON_HEADER));
    assert!(!plain.text.contains("svc-needle-prod"));
    let c = capper
        .cap_call(
            &text,
            &budget(4096),
            &searching("needle"),
            &mut Memory::default(),
        )
        .unwrap();
    assert!(c.text.starts_with(JSON_HEADER), "{}", c.text);
    assert!(c.text.contains("\"svc-needle-prod\""), "{}", c.text);
}

/// `budget` with lines shortened to `max_line` bytes, as hosts default.
fn shortening(max_bytes: u32, max_line: u32) -> Budget {
    Budget {
        max_line_bytes: Some(max_line),
        ..budget(max_bytes)
    }
}

#[test]
fn a_hit_in_the_cut_part_of_a_head_or_tail_line_gets_a_window_in_place() {
    // Three bundles, each a line the head or the tail shows shortened:
    // no line is omitted whole, so the hits are in no middle.
    let text = grep_output(&[("sentryDsn", 300_000), ("apiBase", 600_000)]);
    let plain = capper()
        .cap_call(
            &text,
            &shortening(16 * 1024, 2000),
            &Call::new("grep-1"),
            &mut Memory::default(),
        )
        .unwrap();
    assert!(!plain.text.contains("apiBase") && !plain.text.contains("sentryDsn"));
    let c = capper()
        .cap_call(
            &text,
            &shortening(16 * 1024, 2000),
            &searching("apiBase\nsentryDsn"),
            &mut Memory::default(),
        )
        .unwrap();
    assert!(c.text.len() <= 16 * 1024);
    let line_of = |preview: &str, i: usize| {
        let start = format!("dist/chunk-{i}.js:1:");
        let found = preview.lines().find(|l| l.starts_with(&start));
        found.expect("the line's start is shown").to_owned()
    };
    // The head's line shows it in place, the last line (its end left to
    // the tail) in a window of the middle.
    assert!(c.text.contains("apiBase"));
    let line = line_of(&c.text, 0);
    assert!(line.contains("sentryDsn"), "{line}");
    // No longer than the line was without the search.
    assert!(line.len() <= line_of(&plain.text, 0).len());
    // start [... M bytes cut] window [... K bytes cut], M and K exact.
    let (_, window_at, window, k) = crate::test_support::window_in_place(&line).unwrap();
    assert_eq!(&text[window_at..window_at + window.len()], window);
    assert_eq!(window_at + window.len() + k, text.find('\n').unwrap());
}

#[test]
fn a_grep_over_many_lines_shows_the_first_hit_of_each_line_first() {
    // A dozen bundles all mention the term; the two real keys are in the
    // seventh and eighth, after decoys in every line before.
    let mut text = String::new();
    for i in 0..12 {
        text.push_str(&format!("chunk-{i}.js:1:"));
        text.push_str(&filler(20_000));
        if i == 6 || i == 7 {
            text.push_str(&format!("key=\"pk_live_{i}XbRt0LmVwZ3yC6dP1nK4\";"));
        } else {
            text.push_str("t.slice(0,8)===\"pk_live_\";");
        }
        text.push_str(&filler(20_000));
        text.push('\n');
    }
    let c = capper()
        .cap_call(
            &text,
            &shortening(16 * 1024, 2000),
            &searching("pk_live_"),
            &mut Memory::default(),
        )
        .unwrap();
    for i in [6, 7] {
        assert!(
            c.text.contains(&format!("pk_live_{i}XbRt0LmVwZ3yC6dP1nK4")),
            "{}",
            c.text
        );
    }
}
