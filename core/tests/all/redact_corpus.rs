//! Secret redaction against the shared corpus in `tests/redaction/`:
//! `secrets.txt` (fake secrets of every kind in realistic lines, each listed
//! with its kind and exact text in `expected.json`) and `lookalikes.txt`
//! (text that must come back untouched), plus properties: the streaming form
//! equals the whole-text form, the line count never changes, and redacting
//! twice changes nothing more.
//!
//! `cargo test -p toolcap-core redact`

use crate::common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::select;
use serde::Deserialize;
use toolcap_core::redact::{UNIT, kind};
use toolcap_core::{Redactions, Redactor};

const SECRETS: &str = include_str!("../../../tests/redaction/secrets.txt");
const LOOKALIKES: &str = include_str!("../../../tests/redaction/lookalikes.txt");
/// Real configuration formats that name passwords, tokens and secrets
/// without holding one (nsswitch.conf, pam.d, sshd_config, my.cnf,
/// docker-compose, Kubernetes, Helm, Spring, Django, Terraform...).
const CONFIG_LOOKALIKES: &str = include_str!("../../../tests/redaction/config-lookalikes.txt");
const EXPECTED: &str = include_str!("../../../tests/redaction/expected.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    #[serde(rename = "_comment")]
    _comment: String,
    literals: Vec<String>,
    counts: BTreeMap<String, u64>,
    lines: Vec<SecretLine>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SecretLine {
    /// 1-based line of `secrets.txt`.
    line: usize,
    /// `[kind, secret]`, in the order they occur on the line.
    secrets: Vec<(String, String)>,
}

fn expected() -> Expected {
    serde_json::from_str(EXPECTED).expect("expected.json parses")
}

fn redactor() -> Redactor {
    Redactor::new(&expected().literals).expect("valid literals")
}

/// `line` with each secret, in order, replaced by its placeholder: the
/// oracle, written from the corpus's own list, not from the redactor.
fn oracle(line: &str, secrets: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut rest = line;
    for (kind, secret) in secrets {
        let at = rest
            .find(secret.as_str())
            .unwrap_or_else(|| panic!("{secret:?} not in {line:?}"));
        out.push_str(&rest[..at]);
        out.push_str(&format!("[redacted: {kind}]"));
        rest = &rest[at + secret.len()..];
    }
    out.push_str(rest);
    out
}

/// `text` fed line by line to the streaming form.
fn streamed(r: &Redactor, text: &str) -> (String, Redactions) {
    let mut stream = r.stream();
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        stream.push_line(line, &mut out);
    }
    (out, stream.counts().clone())
}

#[test]
fn redact_every_secret_of_the_corpus_and_nothing_else() {
    let want = expected();
    let (out, counts) = redactor().redact(SECRETS);
    let by_line: BTreeMap<usize, &SecretLine> = want.lines.iter().map(|l| (l.line, l)).collect();
    let got: Vec<&str> = out.split('\n').collect();
    let input: Vec<&str> = SECRETS.split('\n').collect();
    assert_eq!(got.len(), input.len(), "line count changed");
    for (i, (line, got)) in input.iter().zip(&got).enumerate() {
        let expected = match by_line.get(&(i + 1)) {
            Some(l) => oracle(line, &l.secrets),
            None => line.to_string(),
        };
        assert_eq!(*got, expected, "secrets.txt line {}", i + 1);
    }
    let counts: BTreeMap<String, u64> = counts.iter().map(|(k, n)| (k.to_owned(), n)).collect();
    assert_eq!(counts, want.counts, "counts per kind");
}

#[test]
fn redact_corpus_covers_every_kind() {
    let want = expected();
    for k in kind::ALL {
        assert!(
            want.counts.get(*k).is_some_and(|n| *n >= 2),
            "kind {k} has fewer than two secrets in the corpus"
        );
    }
}

#[test]
fn redact_leaves_lookalikes_byte_identical() {
    let r = redactor();
    let (out, counts) = r.redact(LOOKALIKES);
    if let Cow::Owned(out) = &out {
        let diff: Vec<_> = LOOKALIKES
            .lines()
            .zip(out.lines())
            .filter(|(a, b)| a != b)
            .collect();
        panic!("lookalikes changed: {diff:#?}");
    }
    assert!(counts.is_empty(), "{counts:?}");
    // Line by line, too.
    for line in LOOKALIKES.lines() {
        assert!(matches!(r.redact(line).0, Cow::Borrowed(_)), "{line:?}");
    }
}

#[test]
fn redact_leaves_config_lookalikes_byte_identical() {
    assert!(CONFIG_LOOKALIKES.lines().count() >= 300);
    let r = redactor();
    let changed: Vec<(&str, String)> = CONFIG_LOOKALIKES
        .lines()
        .filter_map(|line| match r.redact(line).0 {
            Cow::Owned(out) => Some((line, out)),
            Cow::Borrowed(_) => None,
        })
        .collect();
    assert!(
        changed.is_empty(),
        "config lookalikes changed: {changed:#?}"
    );
    let (out, counts) = r.redact(CONFIG_LOOKALIKES);
    assert!(
        matches!(out, Cow::Borrowed(_)) && counts.is_empty(),
        "{counts:?}"
    );
}

#[test]
fn cap_with_redaction_returns_config_lookalikes_byte_identical() {
    use toolcap_core::cap::RedactionSettings;
    use toolcap_core::{Budget, Capper, Keep, PreviewSettings, RefScheme};
    for spill in [false, true] {
        let settings = PreviewSettings {
            redaction: Some(RedactionSettings {
                literals: expected().literals,
                spill,
            }),
            ..PreviewSettings::default()
        };
        let capper = Capper::with_settings(
            RefScheme::new("/spill", "t", vec![1; 32]).unwrap(),
            settings,
        )
        .unwrap();
        let budget = Budget {
            max_bytes: 1 << 20,
            max_lines: None,
            max_line_bytes: None,
            keep: Keep::HeadAndTail,
            head_percent: 50,
            max_tokens: None,
        };
        let mut nowhere = common::MemStore::default();
        let capped = capper
            .cap(CONFIG_LOOKALIKES, &budget, "config", &mut nowhere)
            .unwrap();
        assert!(capped.redactions.is_empty(), "{:?}", capped.redactions);
        assert_eq!(capped.text, CONFIG_LOOKALIKES);
        // The secrets corpus, capped by the same session, keeps no secret.
        let capped = capper
            .cap(SECRETS, &budget, "secrets", &mut nowhere)
            .unwrap();
        for line in &expected().lines {
            for (_, secret) in &line.secrets {
                assert!(!capped.text.contains(secret.as_str()), "{secret}");
            }
        }
        let total: u64 = capped.redactions.iter().map(|(_, n)| n).sum();
        assert_eq!(total, expected().counts.values().sum::<u64>());
    }
}

#[test]
fn redact_stream_agrees_on_the_corpus() {
    let r = redactor();
    for text in [SECRETS, LOOKALIKES] {
        let (whole, counts) = r.redact(text);
        assert_eq!(streamed(&r, text), (whole.into_owned(), counts));
    }
}

#[test]
fn redact_twice_changes_nothing_more_on_the_corpus() {
    let r = redactor();
    let (once, _) = r.redact(SECRETS);
    let (twice, counts) = r.redact(&once);
    assert!(
        matches!(twice, Cow::Borrowed(_)) && counts.is_empty(),
        "{counts:?}"
    );
}

/// Lines of both corpus files, with their LF.
fn corpus_lines() -> Vec<String> {
    SECRETS
        .split_inclusive('\n')
        .chain(LOOKALIKES.split_inclusive('\n'))
        .map(str::to_owned)
        .collect()
}

/// Pieces of text: corpus lines, random Unicode, key-value noise, and now
/// and then a line longer than a unit (a corpus line repeated).
fn piece() -> impl Strategy<Value = String> {
    let lines = corpus_lines();
    prop_oneof![
        6 => select(lines.clone()),
        2 => "\\PC{0,40}",
        2 => "[ a-zA-Z0-9=:\"'_/+.$*<>{}-]{0,60}",
        1 => (select(lines), 700usize..2000).prop_map(|(l, n)| l.trim_end().repeat(n)),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec((piece(), select(vec!["\n", "\r\n", "", " "])), 0..24).prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(p, s)| [p, s.to_owned()])
            .collect()
    })
}

proptest! {
    #![proptest_config(common::cases(48))]

    #[test]
    fn redact_equals_stream_keeps_lines_and_is_idempotent(text in text()) {
        let r = redactor();
        let (whole, counts) = r.redact(&text);
        let (stream, stream_counts) = streamed(&r, &text);
        prop_assert_eq!(&stream, &whole);
        prop_assert_eq!(&stream_counts, &counts);
        prop_assert_eq!(whole.matches('\n').count(), text.matches('\n').count());
        prop_assert_eq!(counts.total() == 0, matches!(whole, Cow::Borrowed(_)));
        // Redaction shortens or lengthens a long line and so moves its unit
        // cuts; idempotence holds where no line is cut.
        let short = |s: &str| s.split('\n').all(|l| l.len() < UNIT);
        if short(&text) && short(&whole) {
            let (again, again_counts) = r.redact(&whole);
            prop_assert!(matches!(again, Cow::Borrowed(_)), "{:?}", again_counts);
        }
    }
}
