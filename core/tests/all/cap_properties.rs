//! Properties of `cap` against naive oracles (STYLE.md point 8): budgets hold
//! with the notice included, fitting input is untouched, head is a prefix and
//! tail a suffix, accounting is exact, the spill is the input byte for byte,
//! and the notice's reference is found again.

use crate::common;
use toolcap_core::notice::not_saved;

use common::MemStore;
use proptest::prelude::*;
use toolcap_core::text::count_lines;
use toolcap_core::{Budget, CapError, Capper, Keep, PreviewFeatures, PreviewSettings, RefScheme};

fn capper() -> Capper {
    Capper::new(RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap())
}

/// A capper with only some refinements of the preview on.
fn capper_with(features: PreviewFeatures) -> Capper {
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap();
    let settings = PreviewSettings {
        features,
        ..PreviewSettings::default()
    };
    Capper::with_settings(scheme, settings).unwrap()
}

/// Head and tail only, as plain prefix and suffix of the input: no notable
/// lines, folds or JSON between them.
const PLAIN_ENDS: [PreviewFeatures; 2] = [
    PreviewFeatures::NONE,
    PreviewFeatures {
        notable: false,
        fold: false,
        json: false,
        ..PreviewFeatures::ALL
    },
];

const GAP_START: &str = "[... ";

/// Text from a mix of scripts, line breaks and control bytes.
fn any_text(max: usize) -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("a".to_owned()),
        Just("word ".to_owned()),
        Just("ж".to_owned()),
        Just("中文".to_owned()),
        Just("😀".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("\0".to_owned()),
        "[a-z]{0,40}".prop_map(|s| s),
        "[a-z]{100,400}".prop_map(|s| s),
    ];
    prop::collection::vec(pieces, 0..max).prop_map(|v| v.concat())
}

fn room() -> (u32, u32) {
    let r = capper().room();
    (r.bytes as u32, r.lines as u32)
}

proptest! {
    #![proptest_config(common::cases(2000))]

    #[test]
    fn budget_holds_and_spill_is_exact(text in any_text(120), budget in common::any_budget(room().0, room().1)) {
        let capper = capper();
        let mut store = MemStore::default();
        let c = capper.cap(&text, &budget, "call-1", &mut store).unwrap();
        let fits = budget.max_bytes == 0 || (text.len() <= budget.max_bytes as usize
            && budget.max_lines.is_none_or(|m| count_lines(text.as_bytes()) <= u64::from(m)));
        if fits {
            prop_assert_eq!(&c.text, &text);
            prop_assert!(!c.truncated && store.files.is_empty() && c.spill.is_none());
            return Ok(());
        }
        prop_assert!(c.truncated);
        prop_assert!(c.text.len() <= budget.max_bytes as usize, "{} > {}", c.text.len(), budget.max_bytes);
        if let Some(m) = budget.max_lines {
            prop_assert!(count_lines(c.text.as_bytes()) <= u64::from(m));
        }
        prop_assert_eq!(c.original_bytes, text.len() as u64);
        prop_assert_eq!(c.original_lines, count_lines(text.as_bytes()));
        prop_assert!(c.omitted_bytes > 0 || c.omitted_lines == 0);
        let r = c.spill.clone().unwrap();
        let file = capper.scheme().resolve(&r.path).unwrap();
        prop_assert_eq!(&store.files[&format!("thread-9/{file}")], &text.as_bytes().to_vec());
        let refs = capper.scheme().find_refs(&c.text);
        prop_assert_eq!(refs.last(), Some(&r));
    }

    #[test]
    fn cap_owned_answers_like_cap(text in any_text(120), budget in common::any_budget(room().0, room().1)) {
        let capper = capper();
        let (mut borrowed, mut owned) = (MemStore::default(), MemStore::default());
        let by_ref = capper.cap(&text, &budget, "call-1", &mut borrowed);
        let by_value = capper.cap_owned(text.clone(), &budget, &toolcap_core::Call::new("call-1"), &mut owned);
        prop_assert_eq!(by_ref.unwrap(), by_value.unwrap());
        prop_assert_eq!(borrowed.files, owned.files);
    }

    #[test]
    fn head_is_prefix_and_tail_is_suffix(
        text in any_text(120),
        budget in common::any_budget(room().0, room().1),
        fill in any::<bool>(),
    ) {
        let capper = capper_with(PLAIN_ENDS[usize::from(fill)]);
        let least = capper.room();
        let budget = Budget {
            max_line_bytes: None,
            max_bytes: budget.max_bytes.max(least.bytes as u32),
            max_lines: budget.max_lines.map(|m| m.max(least.lines as u32)),
            ..budget
        };
        let c = capper.cap(&text, &budget, "c", &mut MemStore::default()).unwrap();
        if !c.truncated {
            return Ok(());
        }
        let body = &c.text[..c.text.rfind("[toolcap]").unwrap()];
        let (head, tail) = match body.find(GAP_START) {
            Some(i) => (&body[..i], body[i..].split_once('\n').map_or("", |(_, t)| t)),
            None => (body, ""),
        };
        // A head cut inside a line ends with one LF that is not in the input.
        let head_core = if text.starts_with(head) { head } else { head.strip_suffix('\n').unwrap_or(head) };
        prop_assert!(text.starts_with(head_core), "head {head:?} not a prefix");
        let tail_core = if text.ends_with(tail) { tail } else { tail.strip_suffix('\n').unwrap_or(tail) };
        prop_assert!(text.ends_with(tail_core), "tail {tail:?} not a suffix");
        let shown = (head_core.len() + tail_core.len()) as u64;
        prop_assert_eq!(c.omitted_bytes, text.len() as u64 - shown);
        match budget.keep {
            Keep::Head => prop_assert!(tail.is_empty()),
            Keep::Tail => prop_assert!(head.is_empty()),
            Keep::HeadAndTail => {}
        }
    }

    /// `head-and-tail` at the ends of its range is exactly `head` (100) or
    /// `tail` (0): the same text, accounting and spill, byte for byte.
    #[test]
    fn head_percent_100_is_head_and_0_is_tail(
        text in any_text(120),
        budget in common::any_budget(room().0, room().1),
        fail in any::<bool>(),
    ) {
        let capper = capper();
        let store = || MemStore { fail: fail.then(|| "disk full".to_owned()), ..MemStore::default() };
        for (percent, keep) in [(100, Keep::Head), (0, Keep::Tail)] {
            let split = Budget { keep: Keep::HeadAndTail, head_percent: percent, ..budget };
            let plain = Budget { keep, ..split };
            let (mut a, mut b) = (store(), store());
            let by_percent = capper.cap(&text, &split, "c", &mut a).unwrap();
            let by_keep = capper.cap(&text, &plain, "c", &mut b).unwrap();
            prop_assert_eq!(by_percent, by_keep, "head-percent {}", percent);
            prop_assert_eq!(a.files, b.files);
        }
    }

    #[test]
    fn failed_spill_still_fits_and_says_why(text in any_text(120), budget in common::any_budget(room().0, room().1)) {
        let capper = capper();
        let mut store = MemStore { fail: Some("disk full\nreally".into()), ..MemStore::default() };
        let c = capper.cap(&text, &budget, "c", &mut store).unwrap();
        if c.truncated {
            prop_assert!(c.text.len() <= budget.max_bytes as usize);
            if let Some(m) = budget.max_lines {
                prop_assert!(count_lines(c.text.as_bytes()) <= u64::from(m));
            }
            prop_assert!(c.spill.is_none());
            prop_assert!(c.spill_error.as_deref().unwrap().contains("disk full"));
            prop_assert!(c.text.contains(&not_saved("disk full really")));
            prop_assert!(capper.scheme().find_refs(&c.text).is_empty());
        }
    }
}

/// The 0.1 preview of a single huge line: each end up to max-line-bytes
/// (`preview_properties.rs` has the filled one).
#[test]
fn huge_single_line_gives_a_useful_preview() {
    let line: String = "function(a){return a+1};".repeat(4 * 1024 * 1024 / 24);
    let budget = Budget {
        max_bytes: 16 * 1024,
        max_lines: Some(200),
        max_line_bytes: Some(2000),
        keep: Keep::HeadAndTail,
        head_percent: 50,
        max_tokens: None,
    };
    let c = capper_with(PreviewFeatures::NONE)
        .cap(&line, &budget, "grep", &mut MemStore::default())
        .unwrap();
    assert!(c.text.len() <= 16 * 1024);
    assert!(c.text.starts_with("function(a){return a+1};function"));
    // Both ends of the line are shown, each up to max-line-bytes, with the gap between.
    let (head, rest) = c.text.split_once("\n[... ").unwrap();
    let tail = rest.split_once(" ...]\n").unwrap().1;
    let tail = tail.split_once("\n[toolcap]").unwrap().0;
    assert_eq!(head, &line[..2000]);
    assert_eq!(tail, &line[line.len() - 2000..]);
    assert_eq!(c.original_lines, 1);
    assert_eq!(c.omitted_lines, 0);
    assert_eq!(c.gap_line, Some(1));
}

#[test]
fn error_in_the_middle_of_a_log_is_reachable_through_the_gap() {
    let mut log = String::new();
    for i in 1..=5000 {
        if i == 2500 {
            log.push_str("error[E0308]: mismatched types at src/lib.rs:42\n");
        } else {
            let name = ["serde", "tokio", "regex", "memchr", "anyhow"][i % 5];
            log.push_str(&format!("   Compiling {name} v0.1.{i}\n"));
        }
    }
    let budget = Budget {
        max_bytes: 8192,
        max_lines: Some(100),
        ..Budget::default()
    };
    // 0.1: the gap says where to look.
    let c = capper_with(PreviewFeatures::NONE)
        .cap(&log, &budget, "build", &mut MemStore::default())
        .unwrap();
    assert!(c.truncated && !c.text.contains("error[E0308]"));
    let gap = c.gap_line.unwrap();
    assert!(gap < 2500 && 2500 < gap + c.omitted_lines);
    assert!(c.text.contains(&format!("starting at line {gap}.")));
    // Now the error is shown where it is, with its line number.
    let c = capper()
        .cap(&log, &budget, "build", &mut MemStore::default())
        .unwrap();
    assert!(
        c.text
            .contains("\n[line 2500] error[E0308]: mismatched types at src/lib.rs:42\n")
    );
    assert_eq!(c.notable_lines, 1);
}

#[test]
fn every_cut_of_multibyte_text_is_on_a_char_boundary() {
    let capper = capper();
    let (room, _) = room();
    for script in ["ж", "中", "😀", "aж中😀"] {
        let text = script.repeat(3000);
        for extra in 0..16 {
            for keep in [Keep::Head, Keep::Tail, Keep::HeadAndTail] {
                let budget = Budget {
                    max_bytes: room + extra * 7,
                    max_lines: None,
                    max_line_bytes: Some(5 + extra),
                    keep,
                    head_percent: 50,
                    max_tokens: None,
                };
                let c = capper
                    .cap(&text, &budget, "c", &mut MemStore::default())
                    .unwrap();
                assert!(c.text.len() <= budget.max_bytes as usize);
            }
        }
    }
}

#[test]
fn crlf_nul_and_lone_cr_survive_verbatim() {
    let text = "a\r\nb\0c\rd\r\n".repeat(2000);
    let budget = Budget {
        max_bytes: 4000,
        max_lines: None,
        max_line_bytes: None,
        keep: Keep::Head,
        head_percent: 0,
        max_tokens: None,
    };
    let c = capper()
        .cap(&text, &budget, "c", &mut MemStore::default())
        .unwrap();
    assert!(c.text.starts_with("a\r\nb\0c\rd\r\na\r\n"));
    assert!(!c.text.contains("\r[") && !c.text.contains("\r\n\n"));
}

#[test]
fn budget_errors_are_clear() {
    let capper = capper();
    let (room, lines) = room();
    for budget in [
        Budget {
            max_bytes: room - 1,
            ..Budget::default()
        },
        Budget {
            max_lines: Some(lines - 1),
            ..Budget::default()
        },
        Budget {
            head_percent: 101,
            ..Budget::default()
        },
        Budget {
            max_line_bytes: Some(0),
            ..Budget::default()
        },
    ] {
        let err = capper
            .cap("x", &budget, "c", &mut MemStore::default())
            .unwrap_err();
        assert!(matches!(err, CapError::InvalidBudget(_)), "{err}");
    }
}

#[test]
fn head_percent_100_keeps_no_tail_fragment() {
    // 1000 lines of 37 bytes: the head fills its share up to a line boundary,
    // and before the fix the few bytes left over went to a tail fragment.
    let text: String = (0..1000)
        .map(|i| format!("{i:04} 01234abcdefghijklmnopqrstuvwxyz\n"))
        .collect();
    assert!(text.lines().all(|l| l.len() == 36));
    let budget = Budget {
        max_bytes: 2048,
        max_lines: None,
        max_line_bytes: None,
        keep: Keep::HeadAndTail,
        head_percent: 100,
        max_tokens: None,
    };
    let capper = capper();
    let c = capper
        .cap(&text, &budget, "c", &mut MemStore::default())
        .unwrap();
    let body = &c.text[..c.text.rfind("[toolcap]").unwrap()];
    let (head, after_gap) = body.split_once(GAP_START).unwrap();
    // The head is a prefix of the text; a last line it cut to fill its
    // room ends with a LF of the preview's own.
    let shown = if text.starts_with(head) {
        head
    } else {
        head.strip_suffix('\n').unwrap()
    };
    assert!(
        text.starts_with(shown) && head.ends_with('\n'),
        "{}",
        c.text
    );
    // Nothing follows the gap marker but the notice.
    assert_eq!(after_gap.split_once('\n').unwrap().1, "");
    assert_eq!(c.omitted_bytes, (text.len() - shown.len()) as u64);
    let head_only = Budget {
        keep: Keep::Head,
        ..budget
    };
    let h = capper
        .cap(&text, &head_only, "c", &mut MemStore::default())
        .unwrap();
    assert_eq!(c, h);
}
