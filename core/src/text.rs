//! Byte-level text helpers: line counting, UTF-8 boundaries and extended
//! grapheme cluster boundaries.
//!
//! A line ends at LF. CRLF ends with LF, so it is one break; a lone CR is not
//! a break. A last line without LF still counts.

use std::cell::{Cell, RefCell};

use unicode_segmentation::{GraphemeCursor, GraphemeIncomplete};

/// Number of lines in `s`: LFs, plus one if the text does not end with LF.
pub fn count_lines(s: &[u8]) -> u64 {
    lines_from_lfs(s, count_lfs(s))
}

/// Number of LFs in `s` (memchr's vectorised count).
pub fn count_lfs(s: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', s).count() as u64
}

/// Lines of `s` when it holds `lfs` LFs.
fn lines_from_lfs(s: &[u8], lfs: u64) -> u64 {
    match s.last() {
        None => 0,
        Some(b'\n') => lfs,
        Some(_) => lfs + 1,
    }
}

/// 1-based number of the line that holds byte `offset` of `s`.
pub fn line_of(s: &[u8], offset: usize) -> u64 {
    1 + count_lfs(&s[..offset.min(s.len())])
}

/// A text whose LFs are counted, so that the line of an offset costs a count
/// from the nearest offset whose line is known: an end, or one asked
/// before. A preview's offsets lie near the start or the end, its
/// accounting asks for most of them more than once (a head folded over 1 MiB
/// of lines ends 1 MiB in), and a second pass over a 64 MiB text would cost
/// as much as the first.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a [u8],
    lfs: u64,
    /// Offsets asked, in order, with their lines, each at least
    /// [`MEMO_GAP`] bytes from the others (the ends excepted): a cut of a
    /// few MiB keeps a few thousand at most, whatever it asks.
    known: RefCell<Vec<(usize, u64)>>,
    /// The offset asked last, with its line: lines asked in order (a side's
    /// shown lines) are counted from the one before, not from the nearest
    /// remembered offset up to [`MEMO_GAP`] away.
    last: Cell<(usize, u64)>,
}

/// Bytes from the nearest known offset under which an offset asked is
/// counted but not remembered: counting that far costs about what looking
/// it up would, and a preview under a budget of MiBs asks for every line
/// it shows, which remembered one by one in a sorted vector cost a move of
/// the whole vector each (a 1 MiB log under a 2 MiB budget and a token
/// limit: 42 ms, two thirds of them moving it).
const MEMO_GAP: usize = 4096;

impl<'a> LineIndex<'a> {
    /// Index `text`, which holds `lfs` LFs (see [`count_lfs`]).
    pub fn with_lfs(text: &'a [u8], lfs: u64) -> Self {
        debug_assert_eq!(lfs, count_lfs(text));
        LineIndex {
            text,
            lfs,
            known: RefCell::new(vec![(0, 1), (text.len(), 1 + lfs)]),
            last: Cell::new((0, 1)),
        }
    }

    /// Number of lines, as [`count_lines`] counts them.
    pub fn lines(&self) -> u64 {
        lines_from_lfs(self.text, self.lfs)
    }

    /// 1-based number of the line that holds byte `offset`, as [`line_of`].
    pub fn line_of(&self, offset: usize) -> u64 {
        let offset = offset.min(self.text.len());
        let mut known = self.known.borrow_mut();
        // The known offsets either side of `offset` (the ends always are).
        let i = known.partition_point(|&(at, _)| at < offset);
        let (after, after_line) = known[i];
        if after == offset {
            return after_line;
        }
        let (before, before_line) = known[i - 1];
        let nearer = if offset - before <= after - offset {
            (before, before_line)
        } else {
            (after, after_line)
        };
        let last = self.last.get();
        let (from, from_line) = if last.0.abs_diff(offset) < nearer.0.abs_diff(offset) {
            last
        } else {
            nearer
        };
        let line = if from <= offset {
            from_line + count_lfs(&self.text[from..offset])
        } else {
            from_line - count_lfs(&self.text[offset..from])
        };
        if (offset - before).min(after - offset) >= MEMO_GAP {
            known.insert(i, (offset, line));
        }
        self.last.set((offset, line));
        line
    }

    /// Offsets remembered, the ends included.
    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.known.borrow().len()
    }
}

/// The LFs of a text counted as it is read in consecutive blocks, with the
/// line at the end of each: the [`LineIndex`] it makes counts at most one
/// block's LFs for any offset, however far from the ends the offset lies.
#[derive(Debug, Clone)]
pub struct BlockLines {
    read: usize,
    lfs: u64,
    /// `(offset, line)` at 0 and at the end of each block.
    ends: Vec<(usize, u64)>,
}

impl Default for BlockLines {
    fn default() -> Self {
        BlockLines {
            read: 0,
            lfs: 0,
            ends: vec![(0, 1)],
        }
    }
}

impl BlockLines {
    /// Count the text's next `block`.
    pub fn add(&mut self, block: &[u8]) {
        if block.is_empty() {
            return;
        }
        self.read += block.len();
        self.lfs += count_lfs(block);
        self.ends.push((self.read, 1 + self.lfs));
    }

    /// The index of `text`, which must be the blocks read, in order.
    pub fn index(self, text: &[u8]) -> LineIndex<'_> {
        assert_eq!(self.read, text.len(), "the blocks read are the text");
        debug_assert_eq!(self.lfs, count_lfs(text));
        LineIndex {
            text,
            lfs: self.lfs,
            known: RefCell::new(self.ends),
            last: Cell::new((0, 1)),
        }
    }
}

/// Largest char boundary of `s` at or below `i` (`s.len()` past the end):
/// [`str::floor_char_boundary`] as a free function.
pub fn floor_boundary(s: &str, i: usize) -> usize {
    s.floor_char_boundary(i)
}

/// Smallest char boundary of `s` at or above `i` (`s.len()` past the end):
/// [`str::ceil_char_boundary`] as a free function.
pub fn ceil_boundary(s: &str, i: usize) -> usize {
    s.ceil_char_boundary(i)
}

/// How far a grapheme boundary is looked for around a cut, in bytes. A
/// cluster longer than this (no script needs one: they are runs of combining
/// marks, or thousands of regional indicators whose pairing depends on their
/// count) is cut on a char boundary instead, so a cut costs at most this
/// much work however the text is made.
pub const GRAPHEME_REACH: usize = 1024;

/// Largest extended grapheme cluster boundary of `s` at or below `i` (see
/// [`GRAPHEME_REACH`] for the one exception; `s.len()` past the end).
pub fn floor_grapheme(s: &str, i: usize) -> usize {
    let i = s.floor_char_boundary(i);
    if i == 0 || i == s.len() {
        return i;
    }
    let lo = s.floor_char_boundary(i.saturating_sub(GRAPHEME_REACH));
    let hi = s.ceil_char_boundary(i + 1);
    let chunk = &s[lo..hi];
    let mut cursor = GraphemeCursor::new(i, s.len(), true);
    match cursor.is_boundary(chunk, lo) {
        Ok(true) => i,
        Ok(false) => match cursor.prev_boundary(chunk, lo) {
            Ok(Some(b)) => b,
            Ok(None) => 0,
            Err(_) => i,
        },
        Err(_) => i,
    }
}

/// Smallest extended grapheme cluster boundary of `s` at or above `i` (see
/// [`GRAPHEME_REACH`] for the one exception; `s.len()` past the end).
pub fn ceil_grapheme(s: &str, i: usize) -> usize {
    let i = s.ceil_char_boundary(i);
    if i == 0 || i == s.len() {
        return i;
    }
    let lo = s.floor_char_boundary(i.saturating_sub(GRAPHEME_REACH));
    let hi = s.ceil_char_boundary(i + GRAPHEME_REACH);
    let chunk = &s[lo..hi];
    let mut cursor = GraphemeCursor::new(i, s.len(), true);
    match cursor.is_boundary(chunk, lo) {
        Ok(true) => i,
        Ok(false) => match cursor.next_boundary(chunk, lo) {
            Ok(Some(b)) => b,
            Ok(None) => s.len(),
            Err(GraphemeIncomplete::NextChunk) if hi == s.len() => s.len(),
            Err(_) => i,
        },
        Err(_) => i,
    }
}

/// `s` cut to at most `max` bytes on a char boundary.
pub fn truncate_str(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
}

/// The longest prefix of `b` that is whole chars (`b` is a prefix of a
/// text, or bytes of one from a char boundary on).
pub fn valid_prefix(b: &[u8]) -> &str {
    match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).expect("checked prefix"),
    }
}

/// Number of decimal digits of `n`.
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_like_the_contract_says() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"\n\n"), 2);
        assert_eq!(count_lines(b"a\r\nb\r\n"), 2);
        assert_eq!(count_lines(b"a\rb\rc"), 1);
    }

    #[test]
    fn finds_line_of_offset() {
        let s = b"ab\ncd\n\nx";
        assert_eq!(line_of(s, 0), 1);
        assert_eq!(line_of(s, 2), 1);
        assert_eq!(line_of(s, 3), 2);
        assert_eq!(line_of(s, 6), 3);
        assert_eq!(line_of(s, 7), 4);
    }

    #[test]
    fn line_index_agrees_with_line_of_from_either_end() {
        for s in [
            &b""[..],
            b"a",
            b"\n",
            b"ab\ncd\n\nx",
            b"\n\n\nlast\n",
            b"x\ny\n",
        ] {
            let index = LineIndex::with_lfs(s, count_lfs(s));
            assert_eq!(index.lines(), count_lines(s));
            for offset in 0..=s.len() + 1 {
                assert_eq!(index.line_of(offset), line_of(s, offset), "{s:?} {offset}");
            }
        }
    }

    proptest::proptest! {
        /// The lines it remembers change no answer: offsets asked in any
        /// order, again and out of range, are numbered as [`line_of`]
        /// numbers them.
        #[test]
        fn line_index_asked_in_any_order_agrees_with_line_of(
            text in "[a\n]{0,200}",
            copies in 1usize..100,
            offsets in proptest::collection::vec(0usize..20_100, 0..40),
        ) {
            // Up to 20 KB: offsets far enough apart to be remembered, and
            // near enough to one another to be counted from it.
            let text = text.repeat(copies);
            let s = text.as_bytes();
            let index = LineIndex::with_lfs(s, count_lfs(s));
            for offset in offsets {
                proptest::prop_assert_eq!(index.line_of(offset), line_of(s, offset));
            }
        }
    }

    #[test]
    fn every_line_asked_from_both_ends_is_not_every_line_remembered() {
        // The offsets a preview under a budget of MiBs asks, round after
        // round: every line of the head, then of the tail from its end.
        let line = b"2026-11-22T11:00:00.304Z INFO  worker-3 GET /api/v1/items/543505\n";
        let s = line.repeat((1 << 20) / line.len());
        let index = LineIndex::with_lfs(&s, count_lfs(&s));
        let half = s.len() / 2;
        let starts = (0..s.len()).step_by(line.len());
        for offset in starts.clone().filter(|&o| o < half) {
            assert_eq!(index.line_of(offset), line_of(&s, offset));
        }
        for offset in starts.rev().filter(|&o| o >= half) {
            assert_eq!(index.line_of(offset), line_of(&s, offset));
        }
        assert!(
            index.remembered() <= s.len() / MEMO_GAP + 2,
            "{} remembered",
            index.remembered()
        );
        // An offset far from every one known is remembered; one near it
        // is counted from it.
        let index = LineIndex::with_lfs(&s, count_lfs(&s));
        assert_eq!(index.line_of(half), line_of(&s, half));
        assert_eq!(index.remembered(), 3);
        assert_eq!(index.line_of(half + 100), line_of(&s, half + 100));
        assert_eq!(index.remembered(), 3);
    }

    proptest::proptest! {
        /// Counted in blocks split anywhere, a text's lines are numbered as
        /// [`line_of`] numbers them, at any offset.
        #[test]
        fn lines_counted_in_blocks_agree_with_line_of(
            text in "[a\n]{0,200}",
            cuts in proptest::collection::vec(0usize..200, 0..8),
            offsets in proptest::collection::vec(0usize..210, 0..40),
        ) {
            let s = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(s.len())).collect();
            cuts.sort_unstable();
            let mut blocks = BlockLines::default();
            let mut from = 0;
            for cut in cuts.into_iter().chain([s.len()]) {
                blocks.add(&s[from..cut]);
                from = cut;
            }
            let index = blocks.index(s);
            proptest::prop_assert_eq!(index.lines(), count_lines(s));
            for offset in offsets {
                proptest::prop_assert_eq!(index.line_of(offset), line_of(s, offset));
            }
        }
    }

    #[test]
    fn boundaries_never_split_a_char() {
        let s = "aж😀b";
        for i in 0..=s.len() + 2 {
            let f = floor_boundary(s, i);
            let c = ceil_boundary(s, i);
            assert!(s.is_char_boundary(f) && f <= i.min(s.len()));
            assert!(s.is_char_boundary(c) && c >= i.min(s.len()));
        }
        assert_eq!(truncate_str(s, 4), "aж");
    }

    #[test]
    fn grapheme_boundaries_keep_clusters_whole() {
        use unicode_segmentation::UnicodeSegmentation;
        let samples = [
            "a👩\u{200D}👩\u{200D}👧\u{200D}👦b",
            "🇺🇦🇯🇵🇺🇸x",
            "xe\u{301}\u{302}y",
            "क्षि and ञ्ज",
            "a\r\nb",
            "",
            "plain",
        ];
        for s in samples {
            let bounds: Vec<usize> = s
                .grapheme_indices(true)
                .map(|(i, _)| i)
                .chain([s.len()])
                .collect();
            for i in 0..=s.len() + 2 {
                let f = floor_grapheme(s, i);
                let c = ceil_grapheme(s, i);
                let want_f = *bounds.iter().rev().find(|&&b| b <= i).unwrap();
                let want_c = *bounds.iter().find(|&&b| b >= i.min(s.len())).unwrap();
                assert_eq!(f, want_f, "{s:?} floor {i}");
                assert_eq!(c, want_c, "{s:?} ceil {i}");
            }
        }
    }

    #[test]
    fn digit_counts() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(u64::MAX), 20);
    }
}
