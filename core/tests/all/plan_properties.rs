//! The planner's guarantees, over random turns: the capped results together
//! stay within every limit given, results that fit the share keep
//! everything, the cut ones share one level (max-min fair), the floor is
//! honoured or the plan fails, and the same input gives the same plan.

use crate::common;

use common::{MemStore, cases, rich_text};
use proptest::prelude::*;
use toolcap_core::batch::{BatchResult, Pending, cap_batch, plan_turn, size_of};
use toolcap_core::parts::{Media, Part};
use toolcap_core::plan::{RequestLimits, json_string_len};
use toolcap_core::{Budget, Call, CapError, Capper, Keep, RefScheme};

fn capper() -> Capper {
    Capper::new(RefScheme::new("/spill", "plan", vec![9; 32]).expect("valid scheme"))
}

/// A pending result: mostly text of very different sizes, sometimes parts
/// with an image.
fn pending() -> impl Strategy<Value = Pending> {
    prop_oneof![
        4 => (rich_text(40), 0usize..400).prop_map(|(text, copies)| Pending::Text(text.repeat(copies.max(1)))),
        1 => (rich_text(30), 0usize..200).prop_map(|(text, copies)| Pending::Parts(vec![
            Part::Text(text.repeat(copies.max(1))),
            Part::Image(Media { data: "iVBORw0KGgo=".repeat(8), mime_type: "image/png".into() }),
        ])),
    ]
}

fn limits() -> impl Strategy<Value = RequestLimits> {
    (
        prop::option::of(500u64..60_000),
        prop::option::of(2_000u64..400_000),
        prop_oneof![Just(0u32), 700u32..4000],
        prop_oneof![Just(0u32), 2_000u32..40_000],
    )
        .prop_map(
            |(max_tokens, max_body_bytes, floor_bytes, ceiling)| RequestLimits {
                max_tokens,
                max_body_bytes,
                floor_bytes,
                ceiling: Budget {
                    max_bytes: ceiling,
                    max_lines: None,
                    max_line_bytes: Some(2000),
                    keep: Keep::HeadAndTail,
                    head_percent: 40,
                    max_tokens: None,
                },
            },
        )
}

/// Tokens and body bytes of one capped result, as the next request carries it.
fn carried(capper: &Capper, result: &BatchResult) -> (u64, u64) {
    match result {
        BatchResult::Text(c) => (c.tokens, json_string_len(&c.text)),
        BatchResult::Parts(p) => {
            let (_, fixed_body) = toolcap_core::parts::fixed_cost(capper.estimator(), &p.parts);
            let text: u64 = p
                .parts
                .iter()
                .map(|part| match part {
                    Part::Text(t) => json_string_len(t),
                    _ => 0,
                })
                .sum();
            (p.report.tokens, text + fixed_body)
        }
    }
}

proptest! {
    #![proptest_config(cases(48))]

    #[test]
    fn a_capped_turn_stays_within_every_limit(
        turn in prop::collection::vec(pending(), 1..6),
        limits in limits(),
    ) {
        let capper = capper();
        let calls: Vec<(Call, Pending)> = turn
            .iter()
            .enumerate()
            .map(|(i, p)| (Call::new(format!("c{i}")), p.clone()))
            .collect();
        let mut store = MemStore::default();
        match cap_batch(&capper, &calls, &limits, &mut store) {
            Ok(out) => {
                prop_assert_eq!(out.len(), turn.len());
                let (mut tokens, mut body) = (0, 0);
                for r in &out {
                    let (t, b) = carried(&capper, r);
                    tokens += t;
                    body += b;
                }
                prop_assert!(limits.max_tokens.is_none_or(|l| tokens <= l), "{} tokens over {:?}", tokens, limits.max_tokens);
                prop_assert!(limits.max_body_bytes.is_none_or(|l| body <= l), "{} body bytes over {:?}", body, limits.max_body_bytes);
            }
            // Refusing is allowed only with a reason a host can act on.
            Err(CapError::InvalidBudget(why)) => prop_assert!(!why.is_empty()),
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn a_plan_is_max_min_fair_and_deterministic(
        turn in prop::collection::vec(pending(), 1..6),
        limits in limits(),
    ) {
        let capper = capper();
        let Ok(budgets) = plan_turn(&capper, &turn, &limits) else {
            return Ok(());
        };
        prop_assert_eq!(&plan_turn(&capper, &turn, &limits).unwrap(), &budgets);
        prop_assert_eq!(budgets.len(), turn.len());
        let sizes: Vec<_> = turn.iter().map(|p| size_of(&capper, p)).collect();
        let ceiling = if limits.ceiling.max_bytes == 0 { u64::MAX } else { u64::from(limits.ceiling.max_bytes) };
        // The cut results share one level; a result at or under it keeps
        // everything (its budget is at least its size): none is wasted on
        // a result smaller than its share.
        let cut: Vec<u64> = budgets
            .iter()
            .zip(&sizes)
            .filter(|(b, s)| b.max_bytes > 0 && u64::from(b.max_bytes) < s.bytes.min(ceiling))
            .map(|(b, _)| u64::from(b.max_bytes))
            .collect();
        if let Some(&level) = cut.first() {
            // The ceilings here set no max-tokens, so nothing lowers one of them.
            prop_assert!(cut.iter().all(|&other| other == level), "levels {:?}", cut);
            for (b, s) in budgets.iter().zip(&sizes) {
                if s.bytes <= level {
                    prop_assert!(b.max_bytes == 0 || u64::from(b.max_bytes) >= s.bytes.min(ceiling));
                }
            }
            prop_assert!(level >= u64::from(limits.floor_bytes), "level {} under the floor {}", level, limits.floor_bytes);
            prop_assert!(level >= capper.room().bytes as u64);
        }
        for b in &budgets {
            prop_assert!(b.validate(capper.room()).is_ok(), "{:?}", b);
        }
    }
}

#[test]
fn three_parallel_results_that_fit_alone_fit_together() {
    // Each fits the per-result ceiling of 16 KiB; together they are over
    // what the request has left, and a small one keeps everything.
    let capper = capper();
    // Lines that differ in words, not numbers, so that nothing folds.
    let word = |i: usize| -> String {
        (0..4)
            .map(|k| char::from(b'a' + ((i / 26usize.pow(k)) % 26) as u8))
            .collect()
    };
    let big = |tag: &str| {
        Pending::Text(
            (0..600)
                .map(|i| format!("{tag} {} of a parallel result\n", word(i)))
                .collect(),
        )
    };
    let turn = vec![
        (Call::new("a"), big("a")),
        (Call::new("b"), big("b")),
        (Call::new("c"), Pending::Text("small\n".into())),
    ];
    let limits = RequestLimits {
        max_tokens: Some(6_000),
        max_body_bytes: Some(24 * 1024),
        floor_bytes: 1024,
        ceiling: Budget {
            max_lines: None,
            ..Budget {
                max_bytes: 16 * 1024,
                ..Budget::default()
            }
        },
    };
    let mut store = MemStore::default();
    let out = cap_batch(&capper, &turn, &limits, &mut store).expect("it fits");
    let texts: Vec<&str> = out
        .iter()
        .map(|r| match r {
            BatchResult::Text(c) => c.text.as_str(),
            BatchResult::Parts(_) => unreachable!("text results"),
        })
        .collect();
    assert_eq!(texts[2], "small\n");
    let body: u64 = texts.iter().map(|t| json_string_len(t)).sum();
    assert!(body <= 24 * 1024, "{body}");
    assert_eq!(store.files.len(), 2, "the two large results are spilled");
    // Without the plan, each capped alone to the ceiling: over the body limit.
    let alone: u64 = turn
        .iter()
        .map(|(call, p)| match p {
            Pending::Text(t) => json_string_len(
                &capper
                    .cap_call(t, &limits.ceiling, call, &mut MemStore::default())
                    .unwrap()
                    .text,
            ),
            Pending::Parts(_) => 0,
        })
        .sum();
    assert!(alone > 24 * 1024, "{alone}");
}

#[test]
fn limits_below_the_floor_or_the_notice_are_refused_with_a_reason() {
    let capper = capper();
    let big = Pending::Text("x line\n".repeat(20_000));
    let limits = |max_body_bytes, floor_bytes| RequestLimits {
        max_tokens: None,
        max_body_bytes: Some(max_body_bytes),
        floor_bytes,
        ceiling: Budget::default(),
    };
    let turn = vec![big.clone(), big.clone(), big];
    let err = plan_turn(&capper, &turn, &limits(6_000, 4_000)).unwrap_err();
    assert!(err.message().contains("below the floor of 4000"), "{err}");
    let err = plan_turn(&capper, &turn, &limits(1_000, 0)).unwrap_err();
    assert!(err.message().contains("needs for its notice"), "{err}");
    // Media alone over the limit cannot be fixed by cutting text.
    let image = Pending::Parts(vec![Part::Image(Media {
        data: "A".repeat(10_000),
        mime_type: "image/png".into(),
    })]);
    let err = plan_turn(&capper, &[image], &limits(5_000, 0)).unwrap_err();
    assert!(err.message().contains("media parts alone"), "{err}");
    // No per-result ceiling (`max-bytes` 0) is not checked by itself, but
    // the budgets it shapes are.
    let unchecked = RequestLimits {
        ceiling: Budget {
            max_bytes: 0,
            head_percent: 101,
            ..Budget::default()
        },
        ..limits(60_000, 0)
    };
    let err = plan_turn(&capper, &turn, &unchecked).unwrap_err();
    assert!(err.message().contains("head-percent 101"), "{err}");
}
