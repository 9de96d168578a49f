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

/// Bytes of the marker for `lines` folded lines (above or below alike), LF
/// included: what a run is weighed against, counted without writing it.
pub fn marker_len(lines: u64) -> usize {
    "[...  more lines like the one above]\n".len() + digits(lines)
}

/// Longest marker for up to `lines` folded lines, LF included: no count up
/// to `lines` has more digits.
pub fn max_marker_len(lines: u64) -> usize {
    marker_len(lines)
}

/// True when `a` and `b` are equal once every run of ASCII digits counts as
/// equal to every other (`Downloading 4%` and `Downloading 100%`).
///
/// Folding compares up to [`MIN_REACH`] bytes a side this way, so stretches
/// that are equal or differ only in digits of numbers in step are skipped
/// in blocks ([`alike_prefix`]) rather than byte by byte; runs of digits of
/// unequal lengths are compared as wholes. (No whole-line `a == b` first:
/// lines of a run mostly differ in a digit early on, and paid for both.)
pub fn similar(a: &[u8], b: &[u8]) -> bool {
    let (mut i, mut j) = (0, 0);
    loop {
        // Bytes equal, or digits on both sides, move both sides on
        // together, so the two are digits at the same places up to `k`.
        // A stretch that ends in digits stopped inside a run of digits
        // whose ends differ: go back to its start, where the two runs are
        // compared as wholes. (Each step starts after a whole run or at 0,
        // so this stays in the step.)
        let mut k = alike_prefix(&a[i..], &b[j..]);
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

const WORD: usize = 8;
const LOW7: u64 = u64::from_ne_bytes([0x7f; WORD]);
const HIGH: u64 = u64::from_ne_bytes([0x80; WORD]);

/// Length of the longest prefix of `a` and `b` whose bytes are pairwise
/// equal or both ASCII digits, compared a block at a time: sixteen bytes in
/// wasm with SIMD, a word elsewhere. Lines that differ in a timestamp's or
/// a counter's digits every few bytes cost no byte loop and no restart.
fn alike_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    if let Some(k) = lanes::alike_prefix(&a[..n], &b[..n]) {
        return k;
    }
    let mut k = 0;
    while k + WORD <= n {
        let x = u64::from_le_bytes(a[k..k + WORD].try_into().expect("a word"));
        let y = u64::from_le_bytes(b[k..k + WORD].try_into().expect("a word"));
        let unlike = nonzero_bytes(x ^ y) & !(digit_bytes(x) & digit_bytes(y));
        if unlike != 0 {
            // Little-endian: the lowest set bit is in the first such byte.
            return k + (unlike.trailing_zeros() / 8) as usize;
        }
        k += WORD;
    }
    while k < n && (a[k] == b[k] || a[k].is_ascii_digit() && b[k].is_ascii_digit()) {
        k += 1;
    }
    k
}

/// In the component, wasm SIMD: sixteen bytes a step, each side loaded as
/// one vector (bytemuck: a safe unaligned read). A 4 MiB cap of log lines
/// folds about 2 MiB; loading one vector instead of two words and ending on
/// an overlapping block took it from 5.9-6.1 to 5.8-5.9 ms in the component
/// (no spill; `properties::folds_alike_lines_as_the_native_core` holds the
/// component to the core's words).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use core::arch::wasm32::{
        i8x16_eq, u8x16_bitmask, u8x16_lt, u8x16_splat, u8x16_sub, v128, v128_and, v128_or,
    };

    const LANES: usize = 16;

    /// The alike prefix of `a` and `b` (of equal length) in blocks of
    /// sixteen, when they hold one. The last block overlaps the one before
    /// it rather than leaving a tail to compare byte by byte; the bits of
    /// its bytes already compared are dropped. (Natively the same overlap
    /// made the words slower: a 4 MiB cap of log lines 2.9 -> 3.1 ms.)
    pub(super) fn alike_prefix(a: &[u8], b: &[u8]) -> Option<usize> {
        let last = a.len().checked_sub(LANES)?;
        let mut k = 0;
        loop {
            let at = k.min(last);
            let block = at..at + LANES;
            let unlike = unlike(&a[block.clone()], &b[block]) >> (k - at);
            if unlike != 0 {
                return Some(k + unlike.trailing_zeros() as usize);
            }
            if at == last {
                return Some(a.len());
            }
            k += LANES;
        }
    }

    /// One bit for each byte of `a` and `b` (sixteen each) that differ and
    /// are not both digits, the first byte's lowest.
    fn unlike(a: &[u8], b: &[u8]) -> u32 {
        let x: v128 = bytemuck::pod_read_unaligned(a);
        let y: v128 = bytemuck::pod_read_unaligned(b);
        let (zero, ten) = (u8x16_splat(b'0'), u8x16_splat(10));
        let digit = |v: v128| u8x16_lt(u8x16_sub(v, zero), ten);
        let alike = v128_or(i8x16_eq(x, y), v128_and(digit(x), digit(y)));
        !u32::from(u8x16_bitmask(alike)) & 0xffff
    }
}

/// Elsewhere the words do it all: x86's SSE2 intrinsics are safe to call
/// only from a `#[target_feature]` function, which safe code cannot enter,
/// and this crate has no `unsafe`.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    pub(super) fn alike_prefix(_a: &[u8], _b: &[u8]) -> Option<usize> {
        None
    }
}

/// The high bit of each byte of `x` that is not zero. No byte carries into
/// the next: each sum is at most 0x7f + 0x7f.
fn nonzero_bytes(x: u64) -> u64 {
    (((x & LOW7) + LOW7) | x) & HIGH
}

/// The high bit of each byte of `x` that is an ASCII digit (0x30 to 0x39):
/// its low seven bits plus 0x50 reach 0x80, plus 0x46 do not, and its own
/// high bit is clear. No byte carries into the next (at most 0x7f + 0x50).
fn digit_bytes(x: u64) -> u64 {
    let low = x & LOW7;
    let at_least_0 = low + u64::from_ne_bytes([0x50; WORD]);
    let past_9 = low + u64::from_ne_bytes([0x46; WORD]);
    at_least_0 & !past_9 & !x & HIGH
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
                Just(b'%'),
                // Either side of the digits, and a byte whose low bits are
                // a digit's.
                Just(b'/'),
                Just(b':'),
                Just(0xb5)
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
    fn each_byte_of_a_word_is_classed_alone() {
        for v in 0..=255u8 {
            for at in 0..WORD {
                for fill in [0x00, 0x39, 0x7f, 0x80, 0xff] {
                    let mut bytes = [fill; WORD];
                    bytes[at] = v;
                    let x = u64::from_le_bytes(bytes);
                    let bit = |m: u64| m >> (8 * at + 7) & 1 == 1;
                    assert_eq!(bit(digit_bytes(x)), v.is_ascii_digit(), "{v:#x} at {at}");
                    assert_eq!(bit(nonzero_bytes(x)), v != 0, "{v:#x} at {at}");
                }
            }
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
            assert_eq!(marker_len(n), marker(n, false).len() + 1);
        }
        assert_eq!(
            marker(118, false),
            "[... 118 more lines like the one above]"
        );
    }
}
