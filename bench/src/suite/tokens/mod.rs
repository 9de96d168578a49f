//! How close is the token estimate (`toolcap_core::tokens`), and how fast?
//! Accuracy: every text of the token corpus (corpus.rs: the recall corpus
//! and generated code, prose in four scripts, emoji chat, ids and data
//! formats; real.rs: gettext catalogs, compiler messages, locale files and
//! emoji and character tables in 14 languages, installed by `make
//! bench-corpus`) cut into samples and counted exactly by o200k_base and
//! cl100k_base (accuracy.rs). Speed: the estimate of 4 MiB texts, next to an
//! exact o200k_base count of the same text measured in the same rounds.

pub mod accuracy;
pub mod corpus;
pub mod real;
pub mod table;

use std::fmt::Write as _;
use std::hint::black_box;

use toolcap_core::tokens::TokenEstimator;

use self::accuracy::{Sample, Summary, TARGET_MEDIAN, TARGET_P95, TARGET_UNDER};
use crate::corpus::{Kind, MIB};
use crate::measure::{self, Plan};
use crate::table::Row;

/// Size of the texts whose estimate is timed.
pub const SPEED_SIZE: usize = 4 * MIB;

/// The estimate of 4 MiB of each corpus kind, and of mixed tool outputs,
/// against an exact o200k_base count of the same text.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let estimator = TokenEstimator::default();
    let o200k = bpe_openai::o200k_base();
    let mut texts: Vec<(&str, String)> = Kind::ALL
        .iter()
        .map(|&k| (k.name(), crate::corpus::text(k, SPEED_SIZE)))
        .collect();
    texts.push(("tool outputs, mixed", mixed(SPEED_SIZE)));
    for (name, text) in &texts {
        let mut estimate = || {
            black_box(estimator.estimate(black_box(text)));
        };
        let mut exact = || {
            black_box(o200k.count(black_box(text.as_str())));
        };
        let m = measure::medians(&mut [&mut estimate, &mut exact], plan);
        rows.push(Row::vs(
            format!("estimate tokens, core native, {name}"),
            Some(text.len()),
            m[0],
            "exact o200k count (bpe-openai)",
            m[1],
        ));
    }
}

/// `size` bytes of the token corpus: a slice of every text in turn (the
/// next slice of each on the next round), so every kind is in it.
fn mixed(size: usize) -> String {
    let texts = corpus::texts();
    let share = size / texts.len() + 1;
    let mut out = String::with_capacity(size + share);
    let mut round = 0;
    while out.len() < size {
        let before = out.len();
        for t in &texts {
            let start = t
                .text
                .floor_char_boundary((round * share).min(t.text.len()));
            let end = t
                .text
                .floor_char_boundary(((round + 1) * share).min(t.text.len()));
            out.push_str(&t.text[start..end]);
        }
        if out.len() == before {
            break;
        }
        round += 1;
    }
    let end = out.floor_char_boundary(size);
    out.truncate(end);
    out
}

/// The accuracy section of the report: the corpus, the error tables for
/// o200k_base and cl100k_base, and the targets; an error if the
/// real texts are not installed (`make bench-corpus`).
pub fn report() -> Result<String, String> {
    let mut texts = corpus::texts();
    texts.extend(real::texts()?);
    let estimator = TokenEstimator::default();
    let samples = accuracy::samples(&texts, &estimator);
    Ok(report_of(&texts, &samples))
}

fn report_of(texts: &[corpus::Text], samples: &[Sample]) -> String {
    let bytes: usize = texts.iter().map(|t| t.text.len()).sum();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Token estimates against exact counts: {} texts ({:.1} MiB), cut into {} samples \
         (windows of 2 and 16 KiB, at most 12 of each per text, and each whole text). \
         Error = estimate / exact - 1; under >10% = share of samples estimated more than \
         10% below the exact count. The rates were fitted on the fit texts only. Targets \
         (o200k): median of all samples within {:.0}%; in every row of held-out samples, \
         p95 of |error| at most {:.0}% and under by more than 10% in under {:.0}% of them.\n",
        texts.len(),
        bytes as f64 / MIB as f64,
        samples.len(),
        TARGET_MEDIAN * 100.0,
        TARGET_P95 * 100.0,
        TARGET_UNDER * 100.0,
    );
    out.push_str(&accuracy::tables(samples));
    for (cl100k, name) in [(false, "o200k_base"), (true, "cl100k_base")] {
        let all = Summary::of(samples, cl100k);
        let held = Summary::of(samples.iter().filter(|s| !s.fit), cl100k);
        let misses = accuracy::misses(samples, cl100k);
        let verdict = if misses.is_empty() {
            "every held-out row meets the targets".to_owned()
        } else {
            let names: Vec<String> = misses
                .iter()
                .map(|(n, s)| {
                    format!(
                        "{n} ({:+.1}%, p95 {:.1}%, under {:.1}%)",
                        s.median * 100.0,
                        s.p95 * 100.0,
                        s.under * 100.0
                    )
                })
                .collect();
            format!("rows missing a target: {}", names.join("; "))
        };
        let _ = writeln!(
            out,
            "\n{name}: all samples median {:+.1}%, p95 of |error| {:.1}%, under by more than \
             10% in {:.1}%; held-out samples median {:+.1}%, p95 {:.1}%, under {:.1}%; {verdict}. \
             A session calibrated on this corpus would settle at scale {:.2}.",
            all.median * 100.0,
            all.p95 * 100.0,
            all.under * 100.0,
            held.median * 100.0,
            held.p95 * 100.0,
            held.under * 100.0,
            all.ratio,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_text_has_the_size_and_every_script() {
        let text = mixed(256 * 1024);
        assert!(text.len() <= 256 * 1024 && text.len() > 255 * 1024);
        let scripts = [
            0x0400..0x0500,   // Cyrillic
            0x0600..0x0700,   // Arabic
            0x3040..0x3100,   // kana
            0x4e00..0xa000,   // CJK
            0x1f300..0x1fb00, // emoji
        ];
        for range in scripts {
            assert!(
                text.chars().any(|c| range.contains(&u32::from(c))),
                "{range:x?}"
            );
        }
    }

    /// The generated and recall texts, which need no download.
    #[test]
    fn the_built_in_corpus_meets_the_o200k_targets_in_every_kind() {
        let texts = corpus::texts();
        let samples = accuracy::samples(&texts, &TokenEstimator::default());
        assert!(Summary::of(&samples, false).meets_targets());
        let misses = accuracy::misses(&samples, false);
        assert!(misses.is_empty(), "{misses:?}");
        let report = report_of(&texts, &samples);
        assert!(report.contains("| **all** |"), "{report}");
    }

    /// The real texts in every script: the targets, on held-out
    /// files. Needs `make bench-corpus` (the network, once), so `make test`
    /// does not run it; `cargo test --release -p toolcap-bench -- --ignored`.
    #[test]
    #[ignore = "needs the real token corpus: make bench-corpus"]
    fn the_real_corpus_meets_the_o200k_targets_in_every_script() {
        let texts = real::texts().expect("make bench-corpus");
        let kinds: std::collections::BTreeSet<&str> = texts.iter().map(|t| t.kind).collect();
        assert!(kinds.len() >= 16, "{kinds:?}");
        let samples = accuracy::samples(&texts, &TokenEstimator::default());
        let misses = accuracy::misses(&samples, false);
        assert!(misses.is_empty(), "{misses:?}");
    }
}
