//! Shared by the read-back tests: shortcuts, naive oracles (plain operations
//! on the whole text), instrumented sources and proptest strategies.

use proptest::prelude::*;
use proptest::sample::select;

use super::grep::grep_in;
use super::page::read_page_in;
use super::{GrepResult, MemFile, Page, RandomRead, read_lines, read_page, to_index};
use crate::error::CapError;

/// Characters of 1, 2, 3 and 4 bytes, CRLF, LF, an empty line, a lone CR.
pub const MIXED: &str = "aé中😀ж\r\nb😀\n\n中x\rq";

pub fn mem(bytes: impl AsRef<[u8]>) -> MemFile {
    MemFile(bytes.as_ref().to_vec())
}

pub fn page(bytes: impl AsRef<[u8]>, offset: u64, max: u32) -> Page {
    read_page(&mut mem(bytes), offset, max).unwrap()
}

pub fn lines(text: &str, first: u64, count: u32, max: u32) -> Page {
    read_lines(&mut mem(text), first, count, max).unwrap()
}

pub fn grep_text(bytes: impl AsRef<[u8]>, pattern: &str, max: u32, chunk: usize) -> GrepResult {
    grep_in(&mut mem(bytes), pattern, max, chunk).unwrap()
}

pub fn is_invalid_argument<T: std::fmt::Debug>(result: Result<T, CapError>) -> bool {
    matches!(result, Err(CapError::InvalidArgument(_)))
}

/// Follow `next_offset` from 0 to the end; offsets must strictly grow.
pub fn page_through(bytes: &[u8], max: u32, chunk: usize) -> Vec<Page> {
    let mut src = mem(bytes);
    let mut pages = Vec::new();
    let mut offset = 0;
    loop {
        let page = read_page_in(&mut src, offset, max, chunk).unwrap();
        pages.push(page.clone());
        match page.next_offset {
            Some(next) => {
                assert!(next > offset, "no progress at {offset}");
                offset = next;
            }
            None => return pages,
        }
    }
}

// Naive oracles: plain operations on the whole text.

/// 1 + the LFs before `offset`.
pub fn naive_line(bytes: &[u8], offset: usize) -> u64 {
    1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u64
}

/// Start and end of the page at `offset` of valid text.
pub fn naive_page(text: &str, offset: usize, max: usize) -> (usize, usize) {
    let start = text.floor_char_boundary(offset);
    (start, text.floor_char_boundary(start + max))
}

/// The `count` lines from `first`, with their LFs, and where they start.
pub fn naive_lines(bytes: &[u8], first: usize, count: usize) -> (usize, &[u8]) {
    let all: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    let start: usize = all.iter().take(first - 1).map(|l| l.len()).sum();
    let len: usize = all
        .iter()
        .skip(first - 1)
        .take(count)
        .map(|l| l.len())
        .sum();
    (start, &bytes[start..start + len])
}

/// Non-overlapping occurrences, leftmost first.
pub fn naive_matches(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if &hay[i..i + needle.len()] == needle {
            found.push(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    found
}

/// Excerpt bounds of the match `at..end` of valid text, by the definition.
pub fn naive_excerpt(text: &str, at: usize, end: usize) -> (usize, usize) {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let left = if at - line_start <= 200 {
        line_start
    } else {
        text.ceil_char_boundary(at - 200)
    };
    let right = match text[end..].find('\n') {
        _ if end > at && text.as_bytes()[end - 1] == b'\n' => end,
        Some(i) if i <= 200 => {
            let lf = end + i;
            if lf > end && text.as_bytes()[lf - 1] == b'\r' {
                lf - 1
            } else {
                lf
            }
        }
        _ => text.floor_char_boundary(end + 200),
    };
    (left, right)
}

/// A file of `size` bytes repeating `unit`, made on demand: big files
/// without big memory.
pub struct Repeat {
    pub unit: &'static [u8],
    pub size: u64,
}

impl RandomRead for Repeat {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.size)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        let want = to_index(self.size.saturating_sub(offset)).min(len);
        let mut out = Vec::with_capacity(want);
        let mut pos = offset;
        while out.len() < want {
            let i = to_index(pos % self.unit.len() as u64);
            let take = (self.unit.len() - i).min(want - out.len());
            out.extend_from_slice(&self.unit[i..i + take]);
            pos += take as u64;
        }
        Ok(out)
    }
}

/// Records how much a source is asked to read.
pub struct Spy<R> {
    inner: R,
    pub calls: usize,
    pub largest: usize,
    pub total: u64,
}

impl<R> Spy<R> {
    pub fn new(inner: R) -> Self {
        Spy {
            inner,
            calls: 0,
            largest: 0,
            total: 0,
        }
    }
}

impl<R: RandomRead> RandomRead for Spy<R> {
    fn size(&mut self) -> Result<u64, CapError> {
        self.inner.size()
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        self.calls += 1;
        self.largest = self.largest.max(len);
        let bytes = self.inner.read_at(offset, len)?;
        self.total += bytes.len() as u64;
        Ok(bytes)
    }
}

/// A source whose size promises more bytes than it has.
pub struct Liar(pub &'static [u8]);

impl RandomRead for Liar {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.0.len() as u64 + 10)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        self.0.read_at(offset, len)
    }
}

/// Pieces of test text: every character width, CR, CRLF and LF.
pub fn piece() -> impl Strategy<Value = &'static str> {
    select(vec![
        "a", "b", "ab", "\n", "\r", "\r\n", "é", "ж", "中", "😀", "a\n",
    ])
}

/// Short texts made of [`piece`]s.
pub fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..60).prop_map(|v| v.concat())
}

/// Texts whose lines may be long enough for excerpts to be cut.
pub fn long_text() -> impl Strategy<Value = String> {
    let long = select(vec![
        "x".repeat(90),
        "ж".repeat(45),
        "中".repeat(31),
        "😀".repeat(23),
    ]);
    let part = prop_oneof![3 => piece().prop_map(str::to_owned), 1 => long];
    prop::collection::vec(part, 0..40).prop_map(|v| v.concat())
}

/// Bytes of a possibly tampered file: UTF-8 fragments and stray bytes.
pub fn raw_bytes() -> impl Strategy<Value = Vec<u8>> {
    let interesting = select(vec![
        b'a', b'\n', b'\r', 0x80, 0xBF, 0xC2, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xF0, 0x9F,
        0x98, 0xC0, 0xFF,
    ]);
    prop::collection::vec(prop_oneof![3 => interesting, 1 => any::<u8>()], 0..60)
}

/// Patterns that occur often in [`text`], some with line breaks.
pub fn pattern() -> impl Strategy<Value = &'static str> {
    select(vec![
        "a", "ab", "ba", "\n", "\r\n", "é", "中", "😀a", "a\nb", "xx", "жж", "aa",
    ])
}
