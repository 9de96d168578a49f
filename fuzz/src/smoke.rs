//! The random-input driver of the smoke tests: a deterministic generator and a
//! loop that records which paths the inputs reached.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use toolcap_core::test_support::SplitMix;

/// Feed `cases` random inputs of at most `max_len` bytes to `check`, then
/// assert that every path in `expected` was reached. A failing input is
/// printed before the panic goes on, so it can be kept as a regression case.
pub fn run<P: Eq + Hash + Debug>(
    seed: u64,
    cases: usize,
    max_len: usize,
    check: impl Fn(&[u8]) -> Option<P>,
    expected: &[P],
) {
    let mut rng = SplitMix::new(seed);
    let mut reached = HashMap::new();
    for case in 0..cases {
        let data = rng.bytes(max_len);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&data)));
        match outcome {
            Ok(Some(path)) => *reached.entry(path).or_insert(0_usize) += 1,
            Ok(None) => {}
            Err(panic) => {
                eprintln!("smoke case {case} (seed {seed:#x}) failed on input {data:?}");
                std::panic::resume_unwind(panic);
            }
        }
    }
    // Shown with `--nocapture`: how the random inputs spread over the paths.
    eprintln!("{cases} cases (seed {seed:#x}) reached {reached:?}");
    for path in expected {
        assert!(
            reached.contains_key(path),
            "no random input reached {path:?}; reached only {reached:?}"
        );
    }
}
