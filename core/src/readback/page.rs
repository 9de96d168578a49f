//! Pages by bytes: the [`Page`] record, and the page that starts at a byte
//! offset.

use memchr::memchr_iter;

use super::scan::{count_lf, read_range};
use super::source::RandomRead;
use super::utf8::{UTF8_SLACK, char_floor, fit_prefix};
use super::{MIN_PAGE_BYTES, invalid, to_index};
use crate::error::CapError;

/// A page of a spilled file, cut on UTF-8 character boundaries (WIT `page`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The text of the page.
    pub text: String,
    /// Byte offset in the file where `text` starts.
    pub offset: u64,
    /// 1-based line number of the line that holds `offset`.
    pub first_line: u64,
    /// Byte offset where the next page starts; `None` at the end of file.
    pub next_offset: Option<u64>,
    /// Line number that starts at `next_offset` when the page ended on a line
    /// break; `None` if it ended inside a line or at the end of file.
    pub next_line: Option<u64>,
    /// Size of the whole file in bytes.
    pub total_bytes: u64,
}

/// [`read_page`](super::read_page) with the scanning chunk size as a parameter.
pub(super) fn read_page_in(
    src: &mut impl RandomRead,
    offset: u64,
    max_bytes: u32,
    chunk: usize,
) -> Result<Page, CapError> {
    check_page_bytes(max_bytes)?;
    let size = src.size()?;
    if offset > size {
        return Err(invalid(format!(
            "offset {offset} is past the end of the file ({size} bytes)"
        )));
    }
    // One read covers the bytes before `offset` that may start its character
    // and the bytes after the limit that tell whether it splits one.
    let base = offset.saturating_sub(UTF8_SLACK);
    let to = offset
        .saturating_add(u64::from(max_bytes))
        .saturating_add(UTF8_SLACK)
        .min(size);
    let buf = read_range(src, base, to)?;
    let start_in_buf = char_floor(&buf, to_index(offset - base));
    let start = base + start_in_buf as u64;
    let first_line = 1 + count_lf(src, 0, start, chunk)?;
    let rest = buf.get(start_in_buf..).unwrap_or_default();
    page_from(
        rest,
        start,
        first_line,
        to_index(u64::from(max_bytes)),
        max_bytes,
        size,
    )
}

/// `InvalidArgument` unless `max_bytes` can hold any character.
pub(super) fn check_page_bytes(max_bytes: u32) -> Result<(), CapError> {
    if max_bytes < MIN_PAGE_BYTES {
        return Err(invalid(format!(
            "max-bytes must be at least {MIN_PAGE_BYTES}, got {max_bytes}"
        )));
    }
    Ok(())
}

/// The page of `bytes`, which start at file offset `start` on line
/// `first_line`: at most `raw_limit` bytes of the file and `max_bytes` bytes of
/// text. `bytes` must reach 3 bytes past `raw_limit` or to the end of file.
pub(super) fn page_from(
    bytes: &[u8],
    start: u64,
    first_line: u64,
    raw_limit: usize,
    max_bytes: u32,
    size: u64,
) -> Result<Page, CapError> {
    let len = fit_prefix(bytes, raw_limit, to_index(u64::from(max_bytes)));
    if len == 0 && start < size {
        // Only a read that returned less than the size promised gets here;
        // an empty page that is not the last would make callers loop forever.
        return Err(CapError::Io(format!(
            "short read at offset {start} of a {size}-byte file"
        )));
    }
    let body = &bytes[..len];
    let end = start + len as u64;
    let more = end < size;
    let next_line = (more && body.last() == Some(&b'\n'))
        .then(|| first_line + memchr_iter(b'\n', body).count() as u64);
    Ok(Page {
        text: String::from_utf8_lossy(body).into_owned(),
        offset: start,
        first_line,
        next_offset: more.then_some(end),
        next_line,
        total_bytes: size,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::Index;

    use super::*;
    use crate::readback::read_page;
    use crate::readback::testing::{
        MIXED, is_invalid_argument, mem, naive_line, naive_page, page, page_through, raw_bytes,
        text,
    };

    #[test]
    fn offset_at_end_is_empty_and_past_end_is_invalid() {
        let at_end = page("ab\ncd", 5, 10);
        assert_eq!(
            (at_end.text.as_str(), at_end.offset, at_end.first_line),
            ("", 5, 2)
        );
        assert_eq!((at_end.next_offset, at_end.next_line), (None, None));
        assert!(is_invalid_argument(read_page(&mut mem("ab\ncd"), 6, 10)));
        assert!(is_invalid_argument(read_page(
            &mut mem("ab"),
            u64::MAX,
            u32::MAX
        )));
    }

    #[test]
    fn page_at_every_offset_and_size_keeps_characters_whole() {
        let samples = [
            "plain ascii\ntext",
            "кириллица\nстрока",
            "中文字符\n漢字",
            "😀🎉\n🚀x",
            MIXED,
        ];
        for text in samples {
            for offset in 0..=text.len() {
                for max in 4..=text.len() + 1 {
                    let got = page(text, offset as u64, max as u32);
                    let (start, end) = naive_page(text, offset, max);
                    assert_eq!(got.offset, start as u64, "{text:?} at {offset}");
                    assert_eq!(
                        got.text,
                        &text[start..end],
                        "{text:?} at {offset} max {max}"
                    );
                    assert_eq!(got.first_line, naive_line(text.as_bytes(), start));
                    assert_eq!(got.next_offset, (end < text.len()).then_some(end as u64));
                }
            }
        }
    }

    #[test]
    fn offset_inside_a_character_moves_back_to_its_start() {
        let got = page("a😀b", 3, 8);
        assert_eq!((got.offset, got.text.as_str()), (1, "😀b"));
        let got = page("жж", 1, 4);
        assert_eq!((got.offset, got.text.as_str()), (0, "жж"));
    }

    #[test]
    fn page_ending_on_a_line_break_names_the_next_line() {
        let got = page("abc\ndef\n", 0, 4);
        assert_eq!(
            (got.text.as_str(), got.next_offset, got.next_line),
            ("abc\n", Some(4), Some(2))
        );
        let inside = page("abc\ndef\n", 0, 5);
        assert_eq!((inside.next_offset, inside.next_line), (Some(5), None));
        let last = page("abc\ndef\n", 4, 4);
        assert_eq!(
            (last.first_line, last.next_offset, last.next_line),
            (2, None, None)
        );
    }

    proptest! {
        #[test]
        fn paging_reconstructs_text_within_max(text in text(), max in 4u32..20, chunk in 1usize..8) {
            let pages = page_through(text.as_bytes(), max, chunk);
            let whole: String = pages.iter().map(|p| p.text.as_str()).collect();
            prop_assert_eq!(&whole, &text);
            for p in &pages {
                let (start, end) = naive_page(&text, p.offset as usize, max as usize);
                prop_assert_eq!(&p.text, &text[start..end]);
                prop_assert!(p.text.len() <= max as usize);
                prop_assert_eq!(p.first_line, naive_line(text.as_bytes(), start));
                let on_break = end < text.len() && text.as_bytes()[end - 1] == b'\n';
                prop_assert_eq!(p.next_line, on_break.then(|| naive_line(text.as_bytes(), end)));
                prop_assert_eq!(p.total_bytes, text.len() as u64);
            }
        }

        #[test]
        fn page_at_any_offset_matches_naive(text in text(), at in any::<Index>(), max in 4u32..30) {
            let offset = at.index(text.len() + 1);
            let got = read_page_in(&mut mem(&text), offset as u64, max, 3).unwrap();
            let (start, end) = naive_page(&text, offset, max as usize);
            prop_assert_eq!(got.offset, start as u64);
            prop_assert_eq!(&got.text, &text[start..end]);
            prop_assert_eq!(got.first_line, naive_line(text.as_bytes(), start));
            prop_assert_eq!(got.next_offset, (end < text.len()).then_some(end as u64));
        }

        #[test]
        fn paging_tampered_bytes_gives_lossy_text(bytes in raw_bytes(), max in 4u32..12, chunk in 1usize..6) {
            let pages = page_through(&bytes, max, chunk);
            let whole: String = pages.iter().map(|p| p.text.as_str()).collect();
            prop_assert_eq!(whole, String::from_utf8_lossy(&bytes));
            for offset in 0..=bytes.len() as u64 {
                let got = read_page_in(&mut mem(&bytes), offset, max, chunk).unwrap();
                prop_assert!(got.text.len() <= max as usize);
                prop_assert!(got.offset <= offset && got.offset + 3 >= offset);
            }
        }
    }
}
