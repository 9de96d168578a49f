//! `PreviewFeatures::NONE` is the 0.1 preview, byte for byte: the texts and
//! accounting in `pinned_0_1/` were written by the 0.1 code (before notable
//! lines, folding, JSON previews, fill and grapheme-safe cuts existed), and
//! every case here must still produce them. `BLESS=1` rewrites them; do that
//! only for a deliberate change of the notice's words, never of the preview.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use common::MemStore;
use toolcap_core::cap::{PreviewFeatures, PreviewSettings};
use toolcap_core::{Budget, Call, CapError, Capped, Capper, Keep, RefScheme};

fn capper() -> Capper {
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap();
    let settings = PreviewSettings {
        features: PreviewFeatures::NONE,
        ..PreviewSettings::default()
    };
    Capper::with_settings(scheme, settings).unwrap()
}

fn budget(
    max_bytes: u32,
    max_lines: Option<u32>,
    max_line_bytes: Option<u32>,
    keep: Keep,
    head_percent: u8,
) -> Budget {
    Budget {
        max_bytes,
        max_lines,
        max_line_bytes,
        keep,
        head_percent,
        max_tokens: None,
    }
}

fn lines(template: &str, count: usize) -> String {
    (1..=count)
        .map(|n| template.replace("{n}", &n.to_string()) + "\n")
        .collect()
}

struct Case {
    name: &'static str,
    text: String,
    budget: Budget,
    call: Call,
    fail: bool,
}

fn cases() -> Vec<Case> {
    let log = lines("2024-05-01T12:00:{n} INFO step {n} ok", 300);
    let mut build = String::new();
    for i in 1..=3000 {
        if i == 1500 {
            build.push_str("error[E0308]: mismatched types\n  --> src/lib.rs:42:5\n");
        } else {
            build.push_str(&format!("   Compiling crate-{i} v0.1.0\n"));
        }
    }
    let progress: String = (0..2000)
        .map(|i| format!("Downloading {}%\n", i % 100))
        .collect();
    let json = format!(
        "{{\n  \"items\": [\n{}  ]\n}}\n",
        (0..400)
            .map(|i| format!("    {{\"id\": {i}, \"name\": \"item-{i}\"}},\n"))
            .collect::<String>()
    );
    let bundle = "function(a){return a+1};".repeat(200_000 / 24);
    let long_lines: String = (0..200)
        .map(|i| format!("{i}:{}\n", "x".repeat(50 + (i * 37) % 400)))
        .collect();
    let emoji = "👩‍👩‍👧‍👦🇺🇦é́ж中".repeat(700);
    let cjk_lines: String = (0..300)
        .map(|i| format!("{i} {}\n", "中文字符".repeat(i % 40)))
        .collect();
    let failed = Call {
        tool: Some("cargo".into()),
        exit_code: Some(101),
        ..Call::new("test-run")
    };
    let plain = || Call::new("c1");
    let none = None;
    vec![
        Case {
            name: "keep-head",
            text: log.clone(),
            budget: budget(1200, none, none, Keep::Head, 0),
            call: plain(),
            fail: false,
        },
        Case {
            name: "keep-tail",
            text: log.clone(),
            budget: budget(1500, Some(20), none, Keep::Tail, 0),
            call: plain(),
            fail: false,
        },
        Case {
            name: "head-and-tail-30",
            text: log.clone(),
            budget: budget(2500, Some(40), Some(120), Keep::HeadAndTail, 30),
            call: plain(),
            fail: false,
        },
        Case {
            name: "build-log-default-budget",
            text: build.clone(),
            budget: Budget::default(),
            call: plain(),
            fail: false,
        },
        Case {
            name: "build-log-failed-call",
            text: build,
            budget: budget(4096, Some(60), Some(200), Keep::HeadAndTail, 40),
            call: failed,
            fail: false,
        },
        Case {
            name: "progress-bars",
            text: progress,
            budget: budget(3000, none, none, Keep::HeadAndTail, 50),
            call: plain(),
            fail: false,
        },
        Case {
            name: "json-document",
            text: json,
            budget: budget(2000, none, Some(400), Keep::HeadAndTail, 40),
            call: plain(),
            fail: false,
        },
        Case {
            name: "single-line-bundle",
            text: bundle,
            budget: budget(16 * 1024, Some(200), Some(2000), Keep::HeadAndTail, 50),
            call: plain(),
            fail: false,
        },
        Case {
            name: "long-lines",
            text: long_lines.clone(),
            budget: budget(4000, Some(50), Some(100), Keep::HeadAndTail, 40),
            call: plain(),
            fail: false,
        },
        Case {
            name: "long-lines-uncut",
            text: long_lines,
            budget: budget(3000, none, none, Keep::HeadAndTail, 60),
            call: plain(),
            fail: false,
        },
        Case {
            name: "emoji-one-line",
            text: emoji,
            budget: budget(1500, none, Some(33), Keep::HeadAndTail, 50),
            call: plain(),
            fail: false,
        },
        Case {
            name: "cjk-lines",
            text: cjk_lines,
            budget: budget(2200, Some(30), Some(47), Keep::Tail, 0),
            call: plain(),
            fail: false,
        },
        Case {
            name: "crlf-failed-spill",
            text: "a\r\nb\0c\rd\r\n".repeat(500),
            budget: budget(1400, none, none, Keep::HeadAndTail, 40),
            call: plain(),
            fail: true,
        },
        Case {
            name: "no-trailing-newline",
            text: lines("line {n} of the log", 100) + "last line without a break",
            budget: budget(1300, Some(10), none, Keep::HeadAndTail, 40),
            call: plain(),
            fail: false,
        },
    ]
}

fn render(c: &Capped) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "truncated={} original_bytes={} original_lines={} omitted_bytes={} omitted_lines={} \
         gap_line={:?} notable_lines={} folded_lines={} spill_error={:?}",
        c.truncated,
        c.original_bytes,
        c.original_lines,
        c.omitted_bytes,
        c.omitted_lines,
        c.gap_line,
        c.notable_lines,
        c.folded_lines,
        c.spill_error,
    )
    .unwrap();
    s.push_str("----\n");
    s.push_str(&c.text);
    s
}

#[test]
fn none_is_the_0_1_preview_byte_for_byte() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pinned_0_1");
    let bless = std::env::var_os("BLESS").is_some();
    let capper = capper();
    let mut failures = Vec::new();
    for case in cases() {
        let mut store = MemStore {
            files: HashMap::new(),
            fail: case.fail.then(|| "disk full".to_owned()),
        };
        let c = capper
            .cap_call(&case.text, &case.budget, &case.call, &mut store)
            .unwrap();
        assert!(c.truncated, "{}", case.name);
        let got = render(&c);
        let path = dir.join(format!("{}.txt", case.name));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 once)", path.display()));
        if got != want {
            failures.push(case.name);
        }
    }
    assert!(failures.is_empty(), "0.1 preview changed for {failures:?}");
}

use crate::common;
mod reference_0_1;

use proptest::prelude::*;
use toolcap_core::notice::Saved;

fn room() -> (u32, u32) {
    let r = capper().room();
    (r.bytes as u32, r.lines as u32)
}

proptest! {
    #![proptest_config(common::cases(1500))]

    /// Against the 0.1 code kept verbatim in `reference_0_1/`: any text, any
    /// budget, failed calls and failed spills alike.
    #[test]
    fn none_equals_the_0_1_code(
        text in common::rich_text(120),
        budget in common::any_budget(room().0, room().1),
        exit_code in prop::option::of(-2i32..3),
        fail in any::<bool>(),
    ) {
        let capper = capper();
        let call = Call { tool: Some("cargo".into()), exit_code, ..Call::new("c") };
        let mut store = MemStore { files: HashMap::new(), fail: fail.then(|| "disk full".to_owned()) };
        let c = capper.cap_call(&text, &budget, &call, &mut store).unwrap();
        if !c.truncated {
            prop_assert_eq!(&c.text, &text);
            return Ok(());
        }
        let reason = CapError::Io("disk full".into());
        let outcome = match &c.spill {
            Some(r) => Saved::Spilled(r),
            None => Saved::Failed(reason.message()),
        };
        let (want, loss) = reference_0_1::preview(&text, &budget, outcome, &call, &capper.settings().notice);
        prop_assert_eq!(&c.text, &want);
        prop_assert_eq!(c.omitted_bytes, loss.omitted_bytes);
        prop_assert_eq!(c.omitted_lines, loss.omitted_lines);
        prop_assert_eq!(c.gap_line, Some(loss.gap_line));
        prop_assert_eq!((c.notable_lines, c.folded_lines), (0, 0));
    }
}
