//! Reading back spilled files: byte pages, line pages and literal grep.
//!
//! The algorithms work on any [`RandomRead`] source: the WebAssembly guest
//! wraps a wasi:filesystem descriptor, tests and callers that hold the bytes
//! use [`MemFile`]. Files are scanned in bounded chunks, so memory follows what
//! is returned, not the size of the file.
//!
//! Lines end at LF (a CRLF pair ends with its LF; a lone CR is no break) and
//! are numbered from 1. Offsets are raw bytes of the file. Returned text is
//! UTF-8 and never splits a character; a tampered file's invalid bytes come
//! out as U+FFFD, each invalid sequence as one, as in
//! [`String::from_utf8_lossy`].
//!
//! One job per file: `source` (the [`RandomRead`] trait and in-memory
//! sources), `scan` (bounded reads, chunked scans, counting and seeking line
//! breaks), `page` (byte pages and the [`Page`] record), `lines` (line pages),
//! `grep` (the search), `excerpt` (the text around a match) and `utf8`
//! (character boundaries in raw bytes).

mod excerpt;
mod grep;
mod lines;
mod page;
mod redacted;
mod scan;
mod secret_map;
mod source;
mod utf8;
mod window;

#[cfg(test)]
mod testing;

use crate::error::CapError;

pub use grep::{GrepMatch, GrepResult};
pub use page::Page;
pub use redacted::{MAX_SECRETS, RedactedFile};
pub use secret_map::{Bias, SecretMap};
pub use source::{MemFile, RandomRead};

/// Smallest accepted `max_bytes` of a page: a character of any length fits, so
/// every page before the end of the file makes progress.
pub const MIN_PAGE_BYTES: u32 = 4;

/// Bytes read per step when scanning for line breaks or grep matches.
const CHUNK: usize = 1 << 20;

/// Read at most `max_bytes` (at least [`MIN_PAGE_BYTES`]) of the file from
/// byte `offset`. An offset inside a character moves back to its start, which
/// the page reports; the page ends on a character boundary and `next_offset`
/// continues it. `offset` equal to the size gives an empty page; beyond it is
/// `InvalidArgument`.
///
/// From a [`RedactedFile`], the text is redacted and the offsets and size are
/// those of the saved file: an offset inside a secret moves back to its
/// start, and a page ends before a placeholder rather than inside it when it
/// can (otherwise the next page starts after the secret).
pub fn read_page(src: &mut impl RandomRead, offset: u64, max_bytes: u32) -> Result<Page, CapError> {
    let view = match src.redactions() {
        None => return page::read_page_in(src, offset, max_bytes, CHUNK),
        Some(map) if offset > map.saved_size() => {
            return Err(invalid(format!(
                "offset {offset} is past the end of the file ({} bytes)",
                map.saved_size()
            )));
        }
        Some(map) => map.to_view(offset),
    };
    let page = page::read_page_in(src, view, max_bytes, CHUNK)?;
    let page = match whole_placeholders(src, &page) {
        Some(max) => page::read_page_in(src, view, max, CHUNK)?,
        None => page,
    };
    Ok(saved_page(src, page))
}

/// Read `count` lines (at least 1) from 1-based `first_line`, with their line
/// breaks, at most `max_bytes` bytes (at least [`MIN_PAGE_BYTES`]): a page
/// that reaches the byte limit ends inside a line and `next_offset` continues
/// it. A `first_line` past the end gives an empty page at the end of file.
/// From a [`RedactedFile`], as [`read_page`] says.
pub fn read_lines(
    src: &mut impl RandomRead,
    first_line: u64,
    count: u32,
    max_bytes: u32,
) -> Result<Page, CapError> {
    let page = lines::read_lines_in(src, first_line, count, max_bytes, CHUNK)?;
    if src.redactions().is_none() {
        return Ok(page);
    }
    let page = match whole_placeholders(src, &page) {
        Some(max) => lines::read_lines_in(src, first_line, count, max, CHUNK)?,
        None => page,
    };
    Ok(saved_page(src, page))
}

/// Find every non-overlapping occurrence of the literal `pattern` (not a
/// regex, not empty). `total_matches` counts them all; the first `max_matches`
/// (at least 1) come with their line, offset and an excerpt. One pass over
/// the file, in chunks. From a [`RedactedFile`], the search is in the
/// redacted text (a secret is not found by its text, so grep cannot confirm
/// a guess), excerpts are redacted, and offsets are those of the saved file.
pub fn grep(
    src: &mut impl RandomRead,
    pattern: &str,
    max_matches: u32,
) -> Result<GrepResult, CapError> {
    let mut found = grep::grep_in(src, pattern, max_matches, CHUNK)?;
    if let Some(map) = src.redactions() {
        for m in &mut found.matches {
            m.offset = map.to_saved(m.offset, Bias::Start);
            m.excerpt_offset = map.to_saved(m.excerpt_offset, Bias::Start);
        }
    }
    Ok(found)
}

/// Size of the file as saved (for a [`RedactedFile`], not of its view).
pub fn saved_size(src: &mut impl RandomRead) -> Result<u64, CapError> {
    match src.redactions() {
        Some(map) => Ok(map.saved_size()),
        None => src.size(),
    }
}

/// Whether byte `at` of the saved file is a line break.
pub fn is_line_break(src: &mut impl RandomRead, at: u64) -> Result<bool, CapError> {
    let view = src.redactions().map_or(at, |m| m.to_view(at));
    Ok(src.read_at(view, 1)? == b"\n")
}

/// For a page of a redacted view that ends inside a placeholder: the
/// `max_bytes` of a read that ends just before it, when that is a page.
fn whole_placeholders(src: &impl RandomRead, page: &Page) -> Option<u32> {
    let map = src.redactions()?;
    let start = map.placeholder_start_before(page.next_offset?)?;
    let max = u32::try_from(start.checked_sub(page.offset)?).ok()?;
    (max >= MIN_PAGE_BYTES).then_some(max)
}

/// `page` of a redacted view, with the offsets and size of the saved file.
fn saved_page(src: &impl RandomRead, mut page: Page) -> Page {
    if let Some(map) = src.redactions() {
        page.offset = map.to_saved(page.offset, Bias::Start);
        page.next_offset = page.next_offset.map(|at| map.to_saved(at, Bias::End));
        page.total_bytes = map.saved_size();
    }
    page
}

/// An `InvalidArgument` error with `message`.
fn invalid(message: String) -> CapError {
    CapError::InvalidArgument(message)
}

/// A distance within an in-memory buffer as an index. Saturates on a 32-bit
/// target instead of wrapping; callers keep such values bounded by lengths.
fn to_index(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    //! The public entry points across concerns: argument checks, empty and
    //! tampered files, lying sources and big files.

    use super::testing::{
        Liar, Repeat, Spy, grep_text, is_invalid_argument, lines, mem, page, page_through,
    };
    use super::*;

    #[test]
    fn empty_file_gives_empty_pages_and_no_matches() {
        let expected = Page {
            text: String::new(),
            offset: 0,
            first_line: 1,
            next_offset: None,
            next_line: None,
            total_bytes: 0,
        };
        assert_eq!(page("", 0, 4), expected);
        assert_eq!(lines("", 1, 1, 4), expected);
        assert_eq!(lines("", 7, 3, 4), expected);
        let found = grep_text("", "a", 5, 4);
        assert_eq!(
            found,
            GrepResult {
                matches: Vec::new(),
                total_matches: 0
            }
        );
    }

    #[test]
    fn too_small_or_zero_arguments_are_invalid() {
        assert!(is_invalid_argument(read_page(&mut mem("abc"), 0, 3)));
        assert!(read_page(&mut mem("abc"), 0, MIN_PAGE_BYTES).is_ok());
        assert!(is_invalid_argument(read_lines(&mut mem("abc"), 1, 1, 3)));
        assert!(is_invalid_argument(read_lines(&mut mem("abc"), 0, 1, 10)));
        assert!(is_invalid_argument(read_lines(&mut mem("abc"), 1, 0, 10)));
        assert!(read_lines(&mut mem("abc"), 1, 1, MIN_PAGE_BYTES).is_ok());
        assert!(is_invalid_argument(grep(&mut mem("abc"), "", 1)));
        assert!(is_invalid_argument(grep(&mut mem("abc"), "a", 0)));
    }

    #[test]
    fn crlf_is_one_break_and_lone_cr_is_none() {
        let text = "a\r\nb\rc\nd";
        assert_eq!(lines(text, 2, 1, 100).text, "b\rc\n");
        assert_eq!(lines(text, 3, 1, 100).text, "d");
        let found = grep_text(text, "c", 5, 3);
        assert_eq!(
            (found.matches[0].line, found.matches[0].excerpt.as_str()),
            (2, "b\rc")
        );
        let found = grep_text(text, "a", 5, 3);
        assert_eq!(
            found.matches[0].excerpt, "a",
            "the CR of CRLF is part of the break"
        );
    }

    #[test]
    fn invalid_bytes_never_panic_and_stay_within_max() {
        let bytes: &[u8] = b"\xff\xe2\x82\n\xf0\x9f\x98a\xc3\xa9\x80\xed\xa0\x80\n";
        for offset in 0..=bytes.len() {
            for max in 4..=bytes.len() as u32 + 1 {
                let got = page(bytes, offset as u64, max);
                assert!(got.text.len() <= max as usize, "{offset} {max}: {got:?}");
            }
        }
        let whole: String = page_through(bytes, 4, 2)
            .iter()
            .map(|p| p.text.as_str())
            .collect();
        assert_eq!(whole, String::from_utf8_lossy(bytes));
        let found = grep_text(bytes, "a", 3, 2);
        assert_eq!((found.total_matches, found.matches[0].line), (1, 2));
    }

    #[test]
    fn a_source_with_missing_bytes_errs_instead_of_looping() {
        let mut liar = Liar(b"abc\ndef");
        let first = read_page(&mut liar, 0, 100).unwrap();
        assert_eq!(
            (first.text.as_str(), first.next_offset),
            ("abc\ndef", Some(7))
        );
        assert!(matches!(read_page(&mut liar, 7, 100), Err(CapError::Io(_))));
        let second = read_lines(&mut liar, 2, 5, 100).unwrap();
        assert_eq!((second.text.as_str(), second.next_offset), ("def", Some(7)));
        assert_eq!(grep(&mut liar, "e", 5).unwrap().total_matches, 1);
    }

    #[test]
    fn big_file_is_streamed_in_bounded_reads() {
        const UNIT: &[u8] = b"2024-01-01 INFO request served, status=200 ERROR-free\n";
        let size: u64 = 64 << 20;
        let mut spy = Spy::new(Repeat { unit: UNIT, size });
        let found = grep(&mut spy, "ERROR", 3).unwrap();
        let unit = UNIT.len() as u64;
        let at = UNIT.windows(5).position(|w| w == b"ERROR").unwrap() as u64;
        let expected = size / unit + u64::from(size % unit >= at + 5);
        assert_eq!(found.total_matches, expected);
        assert_eq!(found.matches[2].line, 3);
        assert!(spy.largest <= CHUNK, "largest read {}", spy.largest);
        assert!(spy.total <= size + 4096, "read {} bytes", spy.total);

        let last_line = size / unit + 1;
        spy.largest = 0;
        let got = read_lines(&mut spy, last_line, 1, 1000).unwrap();
        assert_eq!(
            (got.first_line, got.offset, got.next_offset),
            (last_line, size / unit * unit, None)
        );
        assert!(spy.largest <= CHUNK, "largest read {}", spy.largest);
    }
}
