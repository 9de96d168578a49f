use proptest::prelude::*;

use super::*;
use crate::test_support::pieces;
use crate::tokens::MediaCosts;

fn estimator() -> TokenEstimator {
    TokenEstimator::new(MediaCosts::default())
}

/// Small enough that short texts cross the exact size and double the stride
/// many times.
const TINY: Sampling = Sampling {
    exact_up_to: 40,
    sample: 8,
    min_samples: 3,
};

/// One line of a kind of tool output, varied by `n`.
fn line(kind: u8, n: u64) -> String {
    match kind % 10 {
        0 => format!(
            "2026-11-22T11:{:02}:{:02}.{:03}Z INFO worker-{} GET /api/v1/items/{} status=200 in {} ms",
            n % 60,
            (n / 7) % 60,
            n % 1000,
            n % 8,
            n * 7919 % 1_000_000,
            n % 500
        ),
        1 => "The quick brown fox jumps over the lazy dog while the build keeps going."
            [..(20 + n as usize % 50)]
            .to_owned(),
        2 => "Журнал сервера: запрос обработан успешно, ответ отправлен клиенту"
            .repeat(1 + n as usize % 2),
        3 => "服务器日志：请求已成功处理，响应已发送给客户端。テストは成功しました"
            .repeat(1 + n as usize % 3),
        4 => "🚀✅🔥👩\u{200D}💻🎉 deploy ok 👍🏽🇺🇦".repeat(1 + n as usize % 2),
        5 => format!(
            "{{\"id\": {n}, \"name\": \"item-{n:x}\", \"tags\": [\"a\", \"b\"], \"score\": {}.{}}}",
            n % 100,
            n % 7
        ),
        6 => format!(
            "{:016x}{:016x}{:016x}",
            n.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            n ^ 0xdead_beef,
            n * 31
        ),
        7 => {
            format!("    let value_{n} = self.items.iter().map(|x| x.len() * {n}).sum::<usize>();")
        }
        8 => format!("{}", n.wrapping_mul(2_654_435_761) % 1_000_000_007).repeat(3),
        _ => format!("    \t  {}", "-".repeat(n as usize % 40)),
    }
}

/// A text of about `size` bytes: runs of 1 to `run` lines of one kind, the
/// kind of each run drawn from `kinds` by `seed`.
fn mixture(seed: u64, kinds: &[u8], run: u64, size: usize) -> String {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::with_capacity(size + 512);
    let mut n = 0;
    while out.len() < size {
        let kind = kinds[(next() % kinds.len() as u64) as usize];
        for _ in 0..=next() % run {
            out.push_str(&line(kind, n));
            out.push('\n');
            n += 1;
        }
    }
    out
}

fn text_strategy(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a".to_owned()),
            Just(" word".to_owned()),
            Just("\n".to_owned()),
            Just("é".to_owned()),
            Just("日本".to_owned()),
            Just("👩\u{200D}💻".to_owned()),
            Just("1234".to_owned()),
            Just("{\"k\":".to_owned()),
        ],
        0..max,
    )
    .prop_map(|v| v.concat())
}

/// `text` in pieces of the given sizes (cycled), each moved to a char
/// boundary.
fn streamed(text: &str, sizes: &[usize], sampling: Sampling) -> u64 {
    let e = estimator();
    let mut s = SampledTokens::new(sampling);
    for piece in pieces(text, sizes) {
        s.push(&e, piece);
    }
    s.finish(&e)
}

#[test]
fn small_texts_are_counted_whole() {
    let e = estimator();
    for text in [
        "",
        "a",
        "hello world\n",
        &"x".repeat(Sampling::FIT.exact_up_to),
    ] {
        assert_eq!(sampled_estimate(&e, text, Sampling::FIT), e.estimate(text));
        assert_eq!(streamed(text, &[5], Sampling::FIT), e.estimate(text));
    }
    let log = mixture(7, &[0, 3, 5], 4, 60 << 10);
    assert_eq!(
        sampled_estimate(&e, &log, Sampling::REPORT),
        e.estimate(&log)
    );
}

#[test]
fn a_large_text_counts_between_min_and_twice_min_samples() {
    for len in [41, 100, 1000, 10_000, 1 << 20] {
        let stride = TINY.stride(len);
        let count = len.div_ceil(stride);
        assert!(count <= 2 * TINY.min_samples, "{len}: {count}");
        assert!(
            count > TINY.min_samples || stride == 2 * TINY.sample,
            "{len}: {count}"
        );
    }
}

#[test]
fn a_uniform_text_is_estimated_close_to_whole() {
    let e = estimator();
    let log = mixture(3, &[0], 1, 4 << 20);
    let whole = e.estimate(&log);
    let sampled = sampled_estimate(&e, &log, Sampling::REPORT);
    assert!(
        whole.abs_diff(sampled) * 100 <= whole * 2,
        "{whole} {sampled}"
    );
}

proptest! {
    /// Fed in pieces split anywhere between chars, the counter gives
    /// exactly the estimate of the whole text.
    #[test]
    fn pieces_give_the_whole_texts_estimate(
        text in text_strategy(400),
        sizes in prop::collection::vec(1usize..300, 1..6),
        which in 0..4usize,
    ) {
        let sampling = [TINY, Sampling::FIT, Sampling { exact_up_to: 0, ..TINY }, Sampling::WHOLE][which];
        let e = estimator();
        prop_assert_eq!(streamed(&text, &sizes, sampling), sampled_estimate(&e, &text, sampling));
    }

    #[test]
    fn large_pieces_give_the_whole_texts_estimate(
        seed in any::<u64>(),
        size in (64usize << 10)..(400 << 10),
        sizes in prop::collection::vec(1usize..(200 << 10), 1..4),
    ) {
        let text = mixture(seed, &[0, 2, 3, 4, 5, 6], 8, size);
        let e = estimator();
        prop_assert_eq!(
            streamed(&text, &sizes, Sampling::REPORT),
            sampled_estimate(&e, &text, Sampling::REPORT)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48), ..ProptestConfig::default() })]

    /// On mixtures of kinds of lines, in runs, the report's estimate stays
    /// within its stated bound of the whole estimate.
    #[test]
    fn the_report_sample_is_within_its_bound(
        seed in any::<u64>(),
        kinds in prop::collection::vec(0u8..10, 1..5),
        run in 1u64..40,
        size in (65usize << 10)..(3 << 20),
    ) {
        let text = mixture(seed, &kinds, run, size);
        let e = estimator();
        let whole = e.estimate(&text);
        let sampled = sampled_estimate(&e, &text, Sampling::REPORT);
        prop_assert!(
            whole.abs_diff(sampled) * 100 <= whole * REPORT_BOUND_PERCENT,
            "whole {} sampled {}", whole, sampled
        );
    }

    /// Likewise for the estimate of a result that fits.
    #[test]
    fn the_fit_sample_is_within_its_bound(
        seed in any::<u64>(),
        kinds in prop::collection::vec(0u8..10, 1..5),
        run in 1u64..10,
        size in (9usize << 10)..(512 << 10),
    ) {
        let text = mixture(seed, &kinds, run, size);
        let e = estimator();
        let whole = e.estimate(&text);
        let sampled = sampled_estimate(&e, &text, Sampling::FIT);
        prop_assert!(
            whole.abs_diff(sampled) * 100 <= whole * FIT_BOUND_PERCENT,
            "whole {} sampled {}", whole, sampled
        );
    }
}
