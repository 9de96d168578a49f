//! Reading back a spilled file (`read_page`, `read_lines`, `grep`) with any
//! arguments over any bytes: never a panic, pages within `max_bytes`, errors
//! only for arguments the docs call invalid, and results equal to naive
//! oracles over the whole file.

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::CapError;
use toolcap_core::readback::{GrepResult, MemFile, Page, grep, read_lines, read_page};

use crate::pieces::{Piece, bytes_of};

/// Smallest `max_bytes` the read-back functions accept.
const MIN_PAGE_BYTES: u32 = toolcap_core::readback::MIN_PAGE_BYTES;

/// Context a grep excerpt keeps on each side of a match, in bytes.
const EXCERPT_CONTEXT: u64 = 200;

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    op: Op<'a>,
    /// The file, piece by piece: it may hold invalid UTF-8, as a tampered
    /// spill file can.
    file: Vec<Piece<'a>>,
}

/// One read-back call and its arguments.
#[derive(Arbitrary, Debug)]
enum Op<'a> {
    Page {
        offset: Offset,
        max_bytes: Count,
    },
    Lines {
        first_line: LineNumber,
        count: Count,
        max_bytes: Count,
    },
    Grep {
        pattern: Pattern<'a>,
        max_matches: Count,
    },
}

/// A byte offset: mostly within the file or just past it.
#[derive(Arbitrary, Debug)]
enum Offset {
    /// Wraps around size + 2, so the end and one past it come up too.
    Within(u16),
    Any(u64),
}

/// A line number: mostly small.
#[derive(Arbitrary, Debug)]
enum LineNumber {
    Small(u8),
    Any(u64),
}

/// A count or size: mostly small, where the edges are.
#[derive(Arbitrary, Debug)]
enum Count {
    Small(u8),
    Any(u32),
}

impl Count {
    fn get(&self) -> u32 {
        match *self {
            Count::Small(n) => u32::from(n),
            Count::Any(n) => n,
        }
    }
}

/// A grep pattern: any text, or a slice of the file so that it matches.
#[derive(Arbitrary, Debug)]
enum Pattern<'a> {
    Given(&'a str),
    FromFile(u16, u8),
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReadbackPath {
    /// An argument was refused.
    Refused,
    /// A byte page.
    Page,
    /// A line page.
    Lines,
    /// A grep with no match.
    GrepNone,
    /// A grep with matches.
    GrepFound,
}

/// Parse `data` as a file and one read-back call, run it over a [`MemFile`]
/// and check the result. Panics when an invariant breaks; `None` when `data`
/// does not shape into an input.
pub fn check_readback(data: &[u8]) -> Option<ReadbackPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let file = bytes_of(&input.file);
    let size = file.len() as u64;
    let mut src = MemFile(file.clone());
    let path = match input.op {
        Op::Page { offset, max_bytes } => {
            let offset = match offset {
                Offset::Within(n) => u64::from(n) % (size + 2),
                Offset::Any(n) => n,
            };
            let max_bytes = max_bytes.get();
            let valid = max_bytes >= MIN_PAGE_BYTES && offset <= size;
            let Some(page) = expect_valid(read_page(&mut src, offset, max_bytes), valid) else {
                return Some(ReadbackPath::Refused);
            };
            check_page(&file, &page, offset, max_bytes);
            ReadbackPath::Page
        }
        Op::Lines {
            first_line,
            count,
            max_bytes,
        } => {
            let first_line = match first_line {
                LineNumber::Small(n) => u64::from(n),
                LineNumber::Any(n) => n,
            };
            let (count, max_bytes) = (count.get(), max_bytes.get());
            let valid = first_line >= 1 && count >= 1 && max_bytes >= MIN_PAGE_BYTES;
            let Some(page) =
                expect_valid(read_lines(&mut src, first_line, count, max_bytes), valid)
            else {
                return Some(ReadbackPath::Refused);
            };
            check_lines(&file, &page, first_line, count, max_bytes);
            ReadbackPath::Lines
        }
        Op::Grep {
            pattern,
            max_matches,
        } => {
            let pattern = match pattern {
                Pattern::Given(p) => p.to_owned(),
                Pattern::FromFile(at, len) => {
                    let at = usize::from(at) % (file.len() + 1);
                    let end = (at + usize::from(len)).min(file.len());
                    String::from_utf8_lossy(&file[at..end]).into_owned()
                }
            };
            let max_matches = max_matches.get();
            let valid = !pattern.is_empty() && max_matches >= 1;
            let Some(result) = expect_valid(grep(&mut src, &pattern, max_matches), valid) else {
                return Some(ReadbackPath::Refused);
            };
            check_grep(&file, &result, &pattern, max_matches);
            if result.total_matches == 0 {
                ReadbackPath::GrepNone
            } else {
                ReadbackPath::GrepFound
            }
        }
    };
    Some(path)
}

/// The value of a call the oracle calls `valid`; for an invalid one, check
/// that the error is `InvalidArgument` and return `None`.
fn expect_valid<T: std::fmt::Debug>(result: Result<T, CapError>, valid: bool) -> Option<T> {
    match result {
        Ok(value) => {
            assert!(valid, "invalid arguments accepted: {value:?}");
            Some(value)
        }
        // An in-memory file never fails to read, so only arguments can fail.
        Err(CapError::InvalidArgument(why)) => {
            assert!(!valid, "valid arguments refused: {why}");
            None
        }
        Err(other) => panic!("error other than invalid-argument: {other}"),
    }
}

/// Invariants every page has: its text is the file's bytes from `offset` to
/// where the next page starts, within `max_bytes`, and it makes progress.
fn check_page_common(file: &[u8], page: &Page, max_bytes: u32) -> usize {
    let size = file.len();
    assert_eq!(page.total_bytes, size as u64);
    let start = usize::try_from(page.offset).expect("offset within the file");
    let end = page.next_offset.map_or(size, |n| n as usize);
    assert!(start <= end && end <= size, "page {start}..{end} of {size}");
    assert!(
        end > start || start == size,
        "an empty page before the end: {page:?}"
    );
    assert_eq!(page.next_offset.is_none(), end == size);
    assert!(
        page.text.len() <= max_bytes as usize,
        "{} bytes of text over max-bytes {max_bytes}",
        page.text.len()
    );
    let raw = &file[start..end];
    assert_eq!(
        page.text,
        String::from_utf8_lossy(raw),
        "page {start}..{end}"
    );
    assert_eq!(page.first_line, 1 + count_lf(&file[..start]));
    let expected_next_line =
        (end < size && raw.last() == Some(&b'\n')).then(|| page.first_line + count_lf(raw));
    assert_eq!(page.next_line, expected_next_line);
    end
}

/// A byte page from `offset`: it starts at the character holding `offset`
/// and, in a valid UTF-8 file, holds as many whole characters as fit.
fn check_page(file: &[u8], page: &Page, offset: u64, max_bytes: u32) {
    let end = check_page_common(file, page, max_bytes);
    let start = page.offset as usize;
    let offset = offset as usize;
    assert!(
        start <= offset && offset - start <= 3,
        "page at {start} for {offset}"
    );
    if start < offset {
        let holds_offset = (2..=4).any(|len| {
            start + len > offset
                && file
                    .get(start..start + len)
                    .is_some_and(|c| std::str::from_utf8(c).is_ok())
        });
        assert!(
            holds_offset,
            "moved back from {offset} to {start}, not a character"
        );
    }
    if let Ok(s) = std::str::from_utf8(file) {
        assert_eq!(start, s.floor_char_boundary(offset));
        let limit = (start + max_bytes as usize).min(s.len());
        assert_eq!(end, s.floor_char_boundary(limit), "page from {start}");
    }
}

/// A line page: it starts where line `first_line` starts and ends after at
/// most `count` line breaks and `max_bytes` bytes.
fn check_lines(file: &[u8], page: &Page, first_line: u64, count: u32, max_bytes: u32) {
    let end = check_page_common(file, page, max_bytes);
    let breaks: Vec<usize> = file
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect();
    // Line n starts after break n-1; past the last line, the page is empty at
    // the end of the file and numbered one past the last break.
    let skip = first_line - 1;
    let (start, line) = if skip == 0 {
        (0, 1)
    } else if skip <= breaks.len() as u64 {
        (breaks[skip as usize - 1] + 1, first_line)
    } else {
        (file.len(), breaks.len() as u64 + 1)
    };
    assert_eq!(
        (page.offset, page.first_line),
        (start as u64, line),
        "line {first_line}"
    );
    let limit = start.saturating_add(max_bytes as usize).min(file.len());
    let raw_end = breaks
        .iter()
        .filter(|&&b| b >= start && b < limit)
        .nth(count as usize - 1)
        .map_or(limit, |&b| b + 1);
    assert!(end <= raw_end, "page ends at {end}, past {raw_end}");
    if let Ok(s) = std::str::from_utf8(file) {
        assert_eq!(end, s.floor_char_boundary(raw_end), "lines from {start}");
    }
}

/// Grep against a naive search: the same non-overlapping matches in order,
/// each with its line and an excerpt of its line around it.
fn check_grep(file: &[u8], result: &GrepResult, pattern: &str, max_matches: u32) {
    let needle = pattern.as_bytes();
    let mut expected = Vec::new();
    let mut from = 0;
    while from + needle.len() <= file.len() {
        if file[from..].starts_with(needle) {
            expected.push(from);
            from += needle.len();
        } else {
            from += 1;
        }
    }
    assert_eq!(result.total_matches, expected.len() as u64);
    let shown = expected.len().min(max_matches as usize);
    assert_eq!(result.matches.len(), shown);
    // Line numbers counted as the matches go, so the oracle stays linear.
    let (mut line, mut counted_to) = (1, 0);
    for (m, &at) in result.matches.iter().zip(&expected) {
        assert_eq!(m.offset, at as u64);
        line += count_lf(&file[counted_to..at]);
        counted_to = at;
        assert_eq!(m.line, line);
        let lead = m
            .offset
            .checked_sub(m.excerpt_offset)
            .expect("excerpt starts before its match");
        assert!(
            lead <= EXCERPT_CONTEXT,
            "excerpt starts {lead} bytes before its match"
        );
        let excerpt_start = m.excerpt_offset as usize;
        assert!(
            !file[excerpt_start..at].contains(&b'\n'),
            "excerpt crosses a line break before its match"
        );
        assert!(
            m.excerpt.contains(pattern),
            "excerpt {:?} lacks the match",
            m.excerpt
        );
        if std::str::from_utf8(file).is_ok() {
            assert!(
                file[excerpt_start..].starts_with(m.excerpt.as_bytes()),
                "excerpt is not the file's text at {excerpt_start}"
            );
            let after = lead as usize + needle.len();
            let trailing = m.excerpt.get(after..).expect("excerpt holds its match");
            assert!(
                !trailing.contains('\n'),
                "excerpt crosses a line break after its match"
            );
            assert!(
                trailing.len() as u64 <= EXCERPT_CONTEXT,
                "excerpt runs on {} bytes",
                trailing.len()
            );
        }
    }
}

/// Number of LF bytes in `bytes`.
fn count_lf(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x9EAD,
            20_000,
            400,
            check_readback,
            &[
                ReadbackPath::Refused,
                ReadbackPath::Page,
                ReadbackPath::Lines,
                ReadbackPath::GrepNone,
                ReadbackPath::GrepFound,
            ],
        );
    }
}
