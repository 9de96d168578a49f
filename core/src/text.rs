//! Byte-level text helpers: line counting and UTF-8 boundaries.
//!
//! A line ends at LF. CRLF ends with LF, so it is one break; a lone CR is not
//! a break. A last line without LF still counts.

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
/// over the nearer end only: a preview's offsets lie near the start or the
/// end, and a second pass over a 64 MiB text would cost as much as the first.
#[derive(Debug, Clone, Copy)]
pub struct LineIndex<'a> {
    text: &'a [u8],
    lfs: u64,
}

impl<'a> LineIndex<'a> {
    /// Index `text`, which holds `lfs` LFs (see [`count_lfs`]).
    pub fn with_lfs(text: &'a [u8], lfs: u64) -> Self {
        debug_assert_eq!(lfs, count_lfs(text));
        LineIndex { text, lfs }
    }

    /// Number of lines, as [`count_lines`] counts them.
    pub fn lines(&self) -> u64 {
        lines_from_lfs(self.text, self.lfs)
    }

    /// 1-based number of the line that holds byte `offset`, as [`line_of`].
    pub fn line_of(&self, offset: usize) -> u64 {
        let offset = offset.min(self.text.len());
        if offset <= self.text.len() / 2 {
            line_of(self.text, offset)
        } else {
            1 + self.lfs - count_lfs(&self.text[offset..])
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

/// `s` cut to at most `max` bytes on a char boundary.
pub fn truncate_str(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
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
    fn digit_counts() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(u64::MAX), 20);
    }
}
