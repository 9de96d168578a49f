//! Repetition folding: a run of lines that are identical, or differ only in
//! numbers (progress bars, `Downloading 41%`, `line 7 of the log`), is shown
//! once in the preview's head or tail, next to one marker line:
//!
//! ```text
//! Downloading 1%
//! [... 118 more lines like the one above]
//! ```
//!
//! in the head (the first line of the run is shown, the rest follow it in
//! the file), and in the tail
//!
//! ```text
//! [... 118 more lines like the one below]
//! Downloading 100%
//! ```
//!
//! (the last line of the run is shown, the rest precede it). The count is of
//! lines of the input, exact; they count as omitted in the accounting and in
//! `folded-lines`. The spill keeps everything. A run is folded only when it
//! has at least [`FOLD_MIN`] lines besides the one shown and they are longer
//! than the marker, so folding never costs budget.

use crate::text::digits;

/// Fewest lines a marker stands for.
pub const FOLD_MIN: u64 = 2;

/// Bytes of input a side may fold, at least: a run of repeated lines is
/// compared byte by byte, so the work of folding is bounded by this (or by
/// [`REACH_PER_BUDGET_BYTE`] times the side's budget, if larger). A run that
/// reaches it ends the side there; the rest of the run is in the omitted
/// middle, where the gap marker counts it.
pub const MIN_REACH: usize = 1024 * 1024;

/// Bytes of input a side may fold per byte of its budget.
pub const REACH_PER_BUDGET_BYTE: usize = 16;

/// The fold reach of a side whose budget is `bytes`.
pub fn reach(bytes: usize) -> usize {
    MIN_REACH.max(bytes.saturating_mul(REACH_PER_BUDGET_BYTE))
}

/// The marker for `lines` folded lines; `below` when they precede the line
/// shown (in the tail).
pub fn marker(lines: u64, below: bool) -> String {
    format!(
        "[... {lines} more lines like the one {}]",
        if below { "below" } else { "above" }
    )
}

/// Longest marker for up to `lines` folded lines, LF included.
pub fn max_marker_len(lines: u64) -> usize {
    "[...  more lines like the one above]".len() + digits(lines) + 1
}

/// True when `a` and `b` are equal once every run of ASCII digits counts as
/// equal to every other (`Downloading 4%` and `Downloading 100%`).
///
/// Folding compares up to [`MIN_REACH`] bytes a side this way, so equal
/// stretches are skipped in blocks ([`common_prefix`]) rather than byte by
/// byte; the digit runs are still compared as wholes.
pub fn similar(a: &[u8], b: &[u8]) -> bool {
    if a == b {
        return true;
    }
    let (mut i, mut j) = (0, 0);
    loop {
        // Equal bytes move both sides on together. A common stretch that
        // ends in digits may have stopped inside a run of digits: go back
        // to its start, where the two runs are compared as wholes. (Each
        // step starts after a whole run or at 0, so this stays in the step.)
        let mut k = common_prefix(&a[i..], &b[j..]);
        while k > 0 && a[i + k - 1].is_ascii_digit() {
            k -= 1;
        }
        i += k;
        j += k;
        match (a.get(i), b.get(j)) {
            (None, None) => return true,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                while a.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                while b.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
            }
            _ => return false,
        }
    }
}

/// Length of the longest common prefix of `a` and `b`, compared a word at
/// a time: the first differing bit of two words names the differing byte,
/// so lines that differ every few bytes (numbers) cost no byte loop.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const WORD: usize = 8;
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + WORD <= n {
        let x = u64::from_le_bytes(a[k..k + WORD].try_into().expect("a word"));
        let y = u64::from_le_bytes(b[k..k + WORD].try_into().expect("a word"));
        let differ = x ^ y;
        if differ != 0 {
            return k + (differ.trailing_zeros() / 8) as usize;
        }
        k += WORD;
    }
    while k < n && a[k] == b[k] {
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte definition: digit runs, wherever both sides have
    /// one, are skipped whole.
    fn similar_bytewise(a: &[u8], b: &[u8]) -> bool {
        let (mut i, mut j) = (0, 0);
        loop {
            match (a.get(i), b.get(j)) {
                (None, None) => return true,
                (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                    while a.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    while b.get(j).is_some_and(u8::is_ascii_digit) {
                        j += 1;
                    }
                }
                (Some(x), Some(y)) if x == y => {
                    i += 1;
                    j += 1;
                }
                _ => return false,
            }
        }
    }

    fn line() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop::collection::vec(
            prop_oneof![
                Just(b'1'),
                Just(b'9'),
                Just(b'0'),
                Just(b'a'),
                Just(b' '),
                Just(b'%')
            ],
            0..60,
        )
    }

    proptest::proptest! {
        /// Skipping equal bytes in blocks decides exactly as the bytewise
        /// comparison, on lines alike and not.
        #[test]
        fn similar_is_the_bytewise_comparison(
            a in line(),
            b in line(),
            edits in proptest::collection::vec((0usize..64, proptest::prelude::any::<bool>()), 0..4),
        ) {
            proptest::prop_assert_eq!(similar(&a, &b), similar_bytewise(&a, &b));
            // `a` with a few digits changed, inserted or removed: mostly alike.
            let mut c = a.clone();
            for (at, insert) in edits {
                let at = at.min(c.len());
                if insert {
                    c.insert(at, b'7');
                } else if at < c.len() {
                    c.remove(at);
                }
            }
            proptest::prop_assert_eq!(similar(&a, &c), similar_bytewise(&a, &c));
        }
    }

    #[test]
    fn lines_that_differ_only_in_numbers_are_similar() {
        assert!(similar(b"Downloading 4%", b"Downloading 100%"));
        assert!(similar(b"line 7 of 9", b"line 12345 of 0"));
        assert!(similar(b"same", b"same"));
        assert!(similar(b"", b""));
        assert!(!similar(b"Downloading 4%", b"Downloading 4% done"));
        assert!(!similar(b"a1", b"b1"));
        assert!(!similar(b"v1.2", b"v1-2"));
        assert!(!similar(b"12", b"12x"));
    }

    #[test]
    fn markers_fit_their_bound() {
        for n in [2, 9, 10, 118, u64::MAX] {
            assert!(marker(n, false).len() < max_marker_len(n));
            assert_eq!(marker(n, true).len(), marker(n, false).len());
        }
        assert_eq!(
            marker(118, false),
            "[... 118 more lines like the one above]"
        );
    }
}
