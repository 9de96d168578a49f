//! The random-input driver of the smoke tests: a deterministic generator and a
//! loop that records which paths the inputs reached.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

/// SplitMix64 (Steele, Lea and Flood): tiny, deterministic, good enough to
/// spread bytes; failures reproduce from the seed alone.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Between 0 and `max_len` random bytes; short inputs are as likely as
    /// long ones, as in a young fuzz corpus.
    fn bytes(&mut self, max_len: usize) -> Vec<u8> {
        let len = (self.next_u64() % (max_len as u64 + 1)) as usize;
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

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
    let mut rng = SplitMix(seed);
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
