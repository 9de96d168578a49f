//! Telling lines alike: the word sketch that groups a family, and the key
//! that folds repeats of one line (digits, ids and base64 as one placeholder).

use super::classify::{CLASSIFY_BYTES, is_word_byte};

/// Lines this alike (in percent of their words, [`Sketch::similar`]) count
/// as one family: they are ranked behind the other lines of their
/// confidence.
pub(super) const SIMILAR_PERCENT: usize = 60;

/// Words of a line a [`Sketch`] keeps, at most.
pub(super) const SKETCH_WORDS: usize = 32;

/// The words of a line, to tell lines alike: the sorted hashes of its
/// distinct words (a word holding a digit counts as one same word, so
/// numbers, ages and ids do not matter), the smallest [`SKETCH_WORDS`] only
/// (a bottom-k sketch).
#[derive(Debug, Clone, Default)]
pub(super) struct Sketch(Vec<u32>);

/// The hash every word holding a digit has in a [`Sketch`].
pub(super) const NUMBER_WORD: u32 = 0x9e37_79b9;

impl Sketch {
    pub(super) fn of(line: &[u8]) -> Sketch {
        let mut sketch = Sketch::default();
        sketch.set(line);
        sketch
    }

    /// Make this the sketch of `line`, reusing its memory.
    pub(super) fn set(&mut self, line: &[u8]) {
        /// Bytes of words: ASCII letters, digits and `_`, and every byte
        /// of a non-ASCII character.
        static WORD: [bool; 256] = {
            let mut table = [false; 256];
            let mut c = 0;
            while c < 256 {
                table[c] = is_word_byte(c as u8) || c >= 0x80;
                c += 1;
            }
            table
        };
        let line = &line[..line.len().min(CLASSIFY_BYTES)];
        let word = |c: u8| WORD[usize::from(c)];
        let hashes = &mut self.0;
        hashes.clear();
        let mut i = 0;
        while i < line.len() {
            if !word(line[i]) {
                i += 1;
                continue;
            }
            // FNV-1a.
            let (mut h, mut digit) = (0x811c_9dc5_u32, false);
            while i < line.len() && word(line[i]) {
                digit |= line[i].is_ascii_digit();
                h = (h ^ u32::from(line[i])).wrapping_mul(0x0100_0193);
                i += 1;
            }
            hashes.push(if digit { NUMBER_WORD } else { h });
        }
        hashes.sort_unstable();
        hashes.dedup();
        hashes.truncate(SKETCH_WORDS);
    }

    /// True when the Jaccard similarity of the two lines' word sets is at
    /// least [`SIMILAR_PERCENT`]: exact for lines of up to [`SKETCH_WORDS`]
    /// distinct words, estimated from the smallest hashes of their union
    /// beyond.
    ///
    /// Most pairs compared are unlike (each candidate line is compared with
    /// the families and the lines shown before it), and the merge stops as
    /// soon as the share can no longer be reached: each of `m` hashes both
    /// still share adds one to both counts, so the share is at most
    /// `(both + m) / (union + m)`, which grows with `m`, and `m` is at most
    /// what either side has left and what the union has room for. (4 MiB of
    /// Django's Python, natively: 10.7 -> 10.1 ms.)
    pub(super) fn similar(&self, other: &Sketch) -> bool {
        self.merged(other, true)
    }

    /// [`Sketch::similar`], stopping early or not (what the tests compare).
    #[inline(always)]
    fn merged(&self, other: &Sketch, stop_early: bool) -> bool {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j, mut union, mut both) = (0, 0, 0, 0);
        while union < SKETCH_WORDS && (i < a.len() || j < b.len()) {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    both += 1;
                    i += 1;
                    j += 1;
                }
                unlike => {
                    match unlike {
                        (Some(x), Some(y)) if x > y => j += 1,
                        (Some(_), _) => i += 1,
                        (None, _) => j += 1,
                    }
                    let left = (a.len() - i).min(b.len() - j).min(SKETCH_WORDS - union - 1);
                    if stop_early && (both + left) * 100 < (union + 1 + left) * SIMILAR_PERCENT {
                        return false;
                    }
                }
            }
            union += 1;
        }
        union > 0 && both * 100 >= union * SIMILAR_PERCENT
    }

    /// The keys a family is found by: its two smallest hashes. Lines alike
    /// share their smallest hash with a chance of their similarity, so
    /// these find most of a line's family, cheaply.
    pub(super) fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().take(2).copied()
    }
}

/// The key under which near-identical lines count as one: the line with
/// every run of ASCII digits, and every id, replaced by one placeholder,
/// and every run of spaces and tabs (a table's padding) by one space. An id
/// is a hex id (a run of hex digits and letters holding a digit, at least 6
/// long, or after `0x`), a random-looking token (a run of letters and
/// digits, at least 5 long, with 2 digits or more and letters and digits
/// alternating at least twice: Kubernetes' `x68n5h5nhn`, `49775tdjl5`), or
/// a base64-like run (at least 20 of `A-Z a-z 0-9 + /`, with upper and
/// lower case letters, 2 digits or more, and the kind of byte changing at
/// least every third byte: a token or digest; a path's words change far
/// less often). Words stay words: `src/lib.rs`, `MAX_RETRIES`, `arm64` and
/// `250ms` keep their letters, and an error code (up to 5 capital letters
/// then digits: `E0308`, `TS2322`, `SC2086`) is kept whole, since which
/// error it is matters.
pub fn dedupe_key(line: &[u8]) -> u64 {
    let mut h = KeyHasher(0);
    let mut i = 0;
    // Runs that start before this are known not to be base64.
    let mut not_base64 = 0;
    while i < line.len() {
        let c = line[i];
        if c == b' ' || c == b'\t' {
            while i < line.len() && matches!(line[i], b' ' | b'\t') {
                i += 1;
            }
            h.byte(b' ');
            continue;
        }
        if !c.is_ascii_alphanumeric() {
            h.byte(c);
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = 0;
        while i < line.len() && line[i].is_ascii_alphanumeric() {
            digits += usize::from(line[i].is_ascii_digit());
            i += 1;
        }
        let word = &line[start..i];
        // A base64 run is one word, or words joined by `+` and `/`.
        let joined = matches!(line.get(i), Some(b'+' | b'/'));
        if start >= not_base64 && (joined || (digits >= 2 && word.len() >= 20)) {
            let more = line[i..].iter().take_while(|&&c| is_base64_byte(c));
            let run = word.len() + if joined { more.count() } else { 0 };
            if is_base64_like(&line[start..start + run]) {
                h.byte(0);
                i = start + run;
                while line.get(i) == Some(&b'=') {
                    i += 1;
                }
                continue;
            }
            not_base64 = start + run;
        }
        if digits == 0 || is_error_code(word) {
            word.iter().for_each(|&c| h.byte(c));
            continue;
        }
        let hex_prefixed = word.len() > 2
            && (word.starts_with(b"0x") || word.starts_with(b"0X"))
            && word[2..].iter().all(u8::is_ascii_hexdigit);
        let hex_id = word.len() >= 6 && word.iter().all(u8::is_ascii_hexdigit);
        if hex_prefixed || hex_id || is_random_id(word, digits) {
            h.byte(0);
            continue;
        }
        let mut j = 0;
        while j < word.len() {
            if word[j].is_ascii_digit() {
                while j < word.len() && word[j].is_ascii_digit() {
                    j += 1;
                }
                h.byte(0);
            } else {
                h.byte(word[j]);
                j += 1;
            }
        }
    }
    h.finish()
}

/// The hash of [`dedupe_key`]: FxHash's step per byte, then murmur3's
/// finalizer, so that every bit of the key depends on every byte (a
/// count-min sketch takes its rows from slices of it).
pub(super) struct KeyHasher(u64);

impl KeyHasher {
    fn byte(&mut self, c: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// `E0308`, `TS2322`, `CS0246`: 1 to 5 capital letters, then 2 digits or
/// more, and nothing else.
pub(super) fn is_error_code(word: &[u8]) -> bool {
    let letters = word.iter().take_while(|c| c.is_ascii_uppercase()).count();
    let digits = word.len() - letters;
    (1..=5).contains(&letters) && digits >= 2 && word[letters..].iter().all(u8::is_ascii_digit)
}

/// A run of letters and digits that looks random: at least 5 long, 2
/// digits or more, and 3 runs of letters or digits or more (so neither a
/// name with a number, `arm64`, nor a number with a unit, `250ms`).
pub(super) fn is_random_id(word: &[u8], digits: usize) -> bool {
    if word.len() < 5 || digits < 2 || digits == word.len() {
        return false;
    }
    let changes = word
        .windows(2)
        .filter(|p| p[0].is_ascii_digit() != p[1].is_ascii_digit())
        .count();
    changes >= 2
}

pub(super) fn is_base64_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
}

/// A run of base64 bytes that looks like encoded data: see [`dedupe_key`].
pub(super) fn is_base64_like(run: &[u8]) -> bool {
    if run.len() < 20 {
        return false;
    }
    let class = |c: u8| match c {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let mut seen = [0usize; 4];
    for &c in run {
        seen[class(c)] += 1;
    }
    let changes = run
        .windows(2)
        .filter(|p| class(p[0]) != class(p[1]) && class(p[0]) != 3 && class(p[1]) != 3)
        .count();
    seen[0] > 0 && seen[1] > 0 && seen[2] >= 2 && changes * 3 >= run.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedupe_ignores_numbers_and_ids() {
        let a = dedupe_key(b"request 41 to 0x7ffe12 failed after 3ms (id a3f9c2d1)");
        let b = dedupe_key(b"request 42 to 0x1 failed after 12ms (id 0b9e77aa)");
        assert_eq!(a, b);
        assert_ne!(a, dedupe_key(b"request 41 to 0x7ffe12 succeeded"));
        assert_ne!(dedupe_key(b"deadbeef"), dedupe_key(b"decafbad1")); // no digit: a word
    }

    #[test]
    fn dedupe_treats_random_ids_as_one_and_keeps_words() {
        let key = |s: &str| dedupe_key(s.as_bytes());
        // Kubernetes' generated names, a table's padding.
        assert_eq!(
            key(
                "staging   5h    Warning   Unhealthy   pod/search-x68n5h5nhn-2r4vp    Readiness probe failed"
            ),
            key(
                "staging   12h   Warning   Unhealthy   pod/search-ph6cp52mr6-q7k9t Readiness probe failed"
            ),
        );
        assert_eq!(
            key("rs/web-7d9f8c6b5 scaled"),
            key("rs/web-49775tdjl5 scaled")
        );
        // Tokens and digests.
        assert_eq!(
            key("401 for token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 from 10.0.0.1"),
            key("401 for token eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ== from 10.0.0.7"),
        );
        assert_eq!(
            key("\"integrity\": \"sha512-Dmx3a2ZXb1J+vNkx0bUh5c2VRT0pHa2hX/RkFkWlp6dz09==\""),
            key("\"integrity\": \"sha512-q8Ze3Kb0w7Yt+Pn2Vc9Lm4Hs1Jd6Fg5Rx/3Tk0Qa8Ue7Wi==\""),
        );
        assert_eq!(key("timeout after 250ms"), key("timeout after 30ms"));
        // Words, paths and error codes stay.
        for (a, b) in [
            (
                "error[E0308]: mismatched types",
                "error[E0277]: mismatched types",
            ),
            ("error TS2322: x", "error TS2345: x"),
            ("Compiling src/lib.rs", "Compiling src/cli.rs"),
            ("MAX_RETRIES exceeded", "MAX_REQUESTS exceeded"),
            ("build for arm64 failed", "build for amd64 failed"),
            (
                "open /Users/John/Projects/app2/src/main.rs failed",
                "open /Users/Jane/Projects/app2/src/main.rs failed",
            ),
            ("pod/search-abc failed", "pod/search-abd failed"),
        ] {
            assert_ne!(key(a), key(b), "{a} / {b}");
        }
        assert_eq!(
            key("open /Users/John/Projects/app2/src/main.rs failed"),
            key("open /Users/John/Projects/app3/src/main.rs failed"),
        );
    }

    /// A word of its own for each `n` (no digits: a digit makes every word
    /// one).
    fn word(n: u16) -> String {
        let letters = "abcdefghij".chars().cycle().skip(usize::from(n % 10));
        letters.take(1 + usize::from(n / 10)).collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// Stopping early answers as the whole merge, on pairs of lines
        /// that share a varying part of their words (so that pairs fall on
        /// both sides of the share), short ones and ones past
        /// [`SKETCH_WORDS`] words.
        #[test]
        fn an_early_stop_answers_as_the_whole_merge(
            shared in proptest::collection::vec(0u16..400, 0..50),
            kept_a in proptest::collection::vec(proptest::bool::weighted(0.8), 50),
            kept_b in proptest::collection::vec(proptest::bool::weighted(0.8), 50),
            own_a in proptest::collection::vec(400u16..800, 0..12),
            own_b in proptest::collection::vec(400u16..800, 0..12),
        ) {
            let line = |kept: &[bool], own: &[u16]| {
                let words: Vec<String> = shared
                    .iter()
                    .zip(kept)
                    .filter(|(_, k)| **k)
                    .map(|(w, _)| *w)
                    .chain(own.iter().copied())
                    .map(word)
                    .collect();
                Sketch::of(words.join(" ").as_bytes())
            };
            let (a, b) = (line(&kept_a, &own_a), line(&kept_b, &own_b));
            proptest::prop_assert_eq!(a.similar(&b), a.merged(&b, false));
            proptest::prop_assert_eq!(b.similar(&a), b.merged(&a, false));
        }
    }

    #[test]
    fn sketches_tell_lines_alike() {
        let alike = |a: &str, b: &str| Sketch::of(a.as_bytes()).similar(&Sketch::of(b.as_bytes()));
        let unhealthy = "staging   5h   Warning   Unhealthy   pod/search-x68n5h5nhn-2rnvp   \
                         Readiness probe failed: HTTP probe failed with statuscode: 503";
        assert!(alike(
            unhealthy,
            "prod   40m   Warning   Unhealthy   pod/web-hwww6j6ktm-q5cps   \
             Readiness probe failed: HTTP probe failed with statuscode: 503"
        ));
        assert!(!alike(
            unhealthy,
            "default   7m   Warning   OOMKilling   node/ip-10-0-5-33.ec2.internal   \
             Memory cgroup out of memory: Killed process 81234 (java)"
        ));
        assert!(!alike(
            "--- FAIL: TestParse (0.00s)",
            "--- FAIL: TestRender (0.01s)"
        ));
        assert!(alike(
            "error: cannot find value `x` in this scope",
            "error: cannot find value `total` in this scope"
        ));
        assert!(!alike("", ""));
        // Beyond SKETCH_WORDS words, estimated from the smallest hashes.
        let long: String = (0..200)
            .map(|i| format!("w{} ", char::from(b'a' + (i % 26) as u8)).repeat(1 + i / 26))
            .collect();
        assert!(alike(&long, &long));
    }
}
