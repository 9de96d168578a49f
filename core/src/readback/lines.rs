//! Pages by lines: `count` lines from a 1-based line number, within a byte
//! limit.

use super::page::{Page, check_page_bytes, page_from};
use super::scan::{LfSeek, read_range, seek_lfs};
use super::source::RandomRead;
use super::utf8::UTF8_SLACK;
use super::{invalid, to_index};
use crate::error::CapError;

/// [`read_lines`](super::read_lines) with the scanning chunk size as a parameter.
pub(super) fn read_lines_in(
    src: &mut impl RandomRead,
    first_line: u64,
    count: u32,
    max_bytes: u32,
    chunk: usize,
) -> Result<Page, CapError> {
    if first_line == 0 {
        return Err(invalid("first-line is 1-based; 0 is no line".to_owned()));
    }
    if count == 0 {
        return Err(invalid("count must be at least 1".to_owned()));
    }
    check_page_bytes(max_bytes)?;
    let size = src.size()?;
    let (start, line) = match seek_lfs(src, 0, size, first_line - 1, chunk)? {
        LfSeek::Found(at) => (at, first_line),
        LfSeek::Short(seen) => (size, seen + 1),
    };
    // Line breaks beyond the byte limit cannot matter: stop looking there.
    let limit = start.saturating_add(u64::from(max_bytes)).min(size);
    let end = match seek_lfs(src, start, limit, u64::from(count), chunk)? {
        LfSeek::Found(at) => at,
        LfSeek::Short(_) => limit,
    };
    let buf = read_range(src, start, end.saturating_add(UTF8_SLACK).min(size))?;
    page_from(&buf, start, line, to_index(end - start), max_bytes, size)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::readback::testing::{lines, mem, naive_line, naive_lines, page, raw_bytes, text};

    #[test]
    fn last_line_without_trailing_lf_is_a_line() {
        let got = lines("one\ntwo\nthree", 3, 5, 100);
        assert_eq!(
            (got.text.as_str(), got.offset, got.first_line),
            ("three", 8, 3)
        );
        assert_eq!((got.next_offset, got.next_line), (None, None));
        let both = lines("one\ntwo\nthree", 2, 1, 100);
        assert_eq!(
            (both.text.as_str(), both.next_offset, both.next_line),
            ("two\n", Some(8), Some(3))
        );
    }

    #[test]
    fn first_line_past_the_end_gives_an_empty_page_at_the_end() {
        let got = lines("a\nb\n", 3, 1, 10);
        assert_eq!(
            (
                got.text.as_str(),
                got.offset,
                got.first_line,
                got.next_offset
            ),
            ("", 4, 3, None)
        );
        let got = lines("a\nb\n", u64::MAX, u32::MAX, u32::MAX);
        assert_eq!((got.offset, got.first_line, got.next_offset), (4, 3, None));
        let got = lines("a\nb", 3, 1, 10);
        assert_eq!((got.text.as_str(), got.offset, got.first_line), ("", 3, 2));
    }

    #[test]
    fn line_page_cut_inside_a_line_is_continued_by_next_offset() {
        let text = "abcdefgh\nij\n";
        let got = lines(text, 1, 2, 5);
        assert_eq!(
            (got.text.as_str(), got.next_offset, got.next_line),
            ("abcde", Some(5), None)
        );
        assert_eq!(page(text, 5, 100).text, "fgh\nij\n");
        let got = lines("жжж\nx", 1, 1, 5);
        assert_eq!((got.text.as_str(), got.next_offset), ("жж", Some(4)));
    }

    #[test]
    fn far_lines_are_found_with_small_chunks() {
        let text: String = (1..=50).map(|n| format!("line {n}\n")).collect();
        for chunk in [1, 2, 7, 64] {
            let got = read_lines_in(&mut mem(&text), 42, 2, 100, chunk).unwrap();
            assert_eq!(got.text, "line 42\nline 43\n");
            assert_eq!((got.first_line, got.next_line), (42, Some(44)));
        }
    }

    proptest! {
        #[test]
        fn read_lines_equals_naive_split(
            text in text(), first in 1u64..16, count in 1u32..16, chunk in 1usize..8,
        ) {
            let bytes = text.as_bytes();
            let max = text.len() as u32 + 4;
            let got = read_lines_in(&mut mem(&text), first, count, max, chunk).unwrap();
            let (start, expected) = naive_lines(bytes, first as usize, count as usize);
            prop_assert_eq!(got.text.as_bytes(), expected);
            prop_assert_eq!(got.offset, start as u64);
            prop_assert_eq!(got.first_line, naive_line(bytes, start));
            let line_count = bytes.split_inclusive(|&b| b == b'\n').count() as u64;
            if first <= line_count {
                prop_assert_eq!(got.first_line, first);
            }
            let more = first - 1 + u64::from(count) < line_count;
            prop_assert_eq!(got.next_line, more.then_some(first + u64::from(count)));
        }

        #[test]
        fn read_lines_under_a_small_max_is_a_prefix(
            text in text(), first in 1u64..8, count in 1u32..8, max in 4u32..16,
        ) {
            let got = read_lines_in(&mut mem(&text), first, count, max, 2).unwrap();
            let (start, expected) = naive_lines(text.as_bytes(), first as usize, count as usize);
            let expected = std::str::from_utf8(expected).unwrap();
            prop_assert_eq!(&got.text, &expected[..expected.floor_char_boundary(max as usize)]);
            let end = start + got.text.len();
            prop_assert_eq!(got.next_offset, (end < text.len()).then_some(end as u64));
        }

        #[test]
        fn read_lines_of_tampered_bytes_is_lossy(bytes in raw_bytes(), first in 1u64..6, count in 1u32..6) {
            let max = bytes.len() as u32 * 3 + 4;
            let got = read_lines_in(&mut mem(&bytes), first, count, max, 2).unwrap();
            let (start, expected) = naive_lines(&bytes, first as usize, count as usize);
            prop_assert_eq!(got.text, String::from_utf8_lossy(expected));
            prop_assert_eq!(got.offset, start as u64);
        }
    }
}
