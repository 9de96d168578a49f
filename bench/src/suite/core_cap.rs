//! What does the core's cap cost natively, next to copying the input and
//! cutting it (naive) and to copying its bytes (the physical floor)? Both are
//! reference points that do less than the cap, not the same work: the naive
//! copy allocates a fresh buffer each call (its page faults are most of its
//! time at 64 MiB), memcpy writes into one allocated once.

use std::hint::black_box;
use std::time::Duration;

use toolcap_core::{Budget, Capper, PreviewFeatures};

use crate::corpus::{self, Kind, MIB, SIZES, Source};
use crate::measure::{self, Plan};
use crate::native::Discard;
use crate::setup::{self, CALL_ID};
use crate::table::Row;

/// Every kind at every size: cap without the write, naive, memcpy; then the
/// full-feature cap against the plain one, and under a token limit against
/// without.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    run_against_memcpy(plan, rows);
    run_features(plan, rows);
    run_token_limit(plan, rows);
}

/// Tokens a budget of [`run_token_limit`] allows: fewer than the 16 KiB
/// preview of each input holds, so the limit binds and the preview is
/// built again in less room.
const TOKEN_LIMIT: u32 = 4000;

/// The full-feature cap of 4 MiB under a budget with `max-tokens`, against
/// the same budget without: what a host that budgets in tokens pays. The
/// input is cut for its bytes either way; its own count only reports.
fn run_token_limit(plan: Plan, rows: &mut Vec<Row>) {
    let capper = setup::capper_with(PreviewFeatures::ALL);
    let size = 4 * MIB;
    for (name, text) in [
        ("log", corpus::text(Kind::Ascii, size)),
        ("JSON", corpus::json(size)),
    ] {
        let bytes_only = setup::cut_budget(size);
        let tokens_too = Budget {
            max_tokens: Some(TOKEN_LIMIT),
            ..bytes_only
        };
        let tokens_of = |budget| {
            let capped = capper.cap(&text, budget, CALL_ID, &mut Discard).unwrap();
            assert!(capped.truncated, "{name} must be cut");
            capped.tokens
        };
        let limit = u64::from(TOKEN_LIMIT);
        assert!(tokens_of(&tokens_too) <= limit, "{name}: within the limit");
        assert!(tokens_of(&bytes_only) > limit, "{name}: the limit binds");
        let m = caps_medians(
            plan,
            &text,
            [(&capper, &tokens_too), (&capper, &bytes_only)],
        );
        rows.push(Row::vs(
            format!("cap, core native, all preview features, {name}, max-tokens {TOKEN_LIMIT}"),
            Some(size),
            m[0],
            "the same without max-tokens",
            m[1],
        ));
    }
}

/// The full-feature cap against `PreviewFeatures::NONE` at 4 and 64 MiB,
/// the same text, budget and notice on both sides. The log of alike lines
/// is folding's worst case, the build log of warnings the failure lines';
/// the sources are real text, which no part of the preview was tuned on.
fn run_features(plan: Plan, rows: &mut Vec<Row>) {
    let full = setup::capper_with(PreviewFeatures::ALL);
    let plain = setup::capper_with(PreviewFeatures::NONE);
    for size in [4 * MIB, 64 * MIB] {
        let mut inputs = vec![
            ("log", corpus::text(Kind::Ascii, size)),
            ("log of alike lines", corpus::alike_lines(size)),
            ("minified", corpus::text(Kind::Minified, size)),
            ("JSON", corpus::json(size)),
            (
                "build log, a third warnings",
                corpus::warnings_build_log(size),
            ),
        ];
        for source in [Source::Python, Source::JavaScript] {
            let text = corpus::source(source, size).unwrap_or_else(|why| panic!("{why}"));
            inputs.push((source.name(), text));
        }
        for (name, text) in inputs {
            let budget = setup::cut_budget(size);
            for capper in [&full, &plain] {
                let capped = capper.cap(&text, &budget, CALL_ID, &mut Discard).unwrap();
                assert!(capped.truncated, "{name} {size} must be cut");
            }
            let m = caps_medians(plan, &text, [(&full, &budget), (&plain, &budget)]);
            rows.push(Row::vs(
                format!("cap, core native, all preview features, {name}"),
                Some(size),
                m[0],
                "PreviewFeatures::NONE",
                m[1],
            ));
        }
    }
}

/// Medians of `text` capped by each `(capper, budget)`, spill discarded,
/// in the interleaved rounds of one comparison.
fn caps_medians(plan: Plan, text: &str, sides: [(&Capper, &Budget); 2]) -> Vec<Duration> {
    let [(a, a_budget), (b, b_budget)] = sides;
    let mut first = || {
        black_box(a.cap(black_box(text), a_budget, CALL_ID, &mut Discard)).ok();
    };
    let mut second = || {
        black_box(b.cap(black_box(text), b_budget, CALL_ID, &mut Discard)).ok();
    };
    measure::medians(&mut [&mut first, &mut second], plan)
}

fn run_against_memcpy(plan: Plan, rows: &mut Vec<Row>) {
    let capper = setup::capper();
    for size in SIZES {
        for kind in Kind::ALL {
            let text = corpus::text(kind, size);
            let budget = setup::cut_budget(size);
            let capped = capper.cap(&text, &budget, CALL_ID, &mut Discard).unwrap();
            assert!(capped.truncated, "{kind:?} {size} must be cut");
            let max = budget.max_bytes as usize;
            let mut copy = vec![0u8; size];
            let mut cap = || {
                black_box(capper.cap(black_box(&text), &budget, CALL_ID, &mut Discard)).ok();
            };
            let mut naive = || {
                let mut s = black_box(&text).to_owned();
                s.truncate(s.floor_char_boundary(max));
                black_box(s);
            };
            let mut memcpy = || {
                copy.copy_from_slice(black_box(text.as_bytes()));
                black_box(&copy);
            };
            let m = measure::medians(&mut [&mut cap, &mut naive, &mut memcpy], plan);
            let path = format!("cap, core native, {}", kind.name());
            rows.push(Row::vs(&path, Some(size), m[0], "naive copy+cut", m[1]));
            rows.push(Row::vs(&path, Some(size), m[0], "memcpy", m[2]));
        }
    }
}
