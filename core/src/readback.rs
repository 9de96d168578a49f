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

use memchr::{memchr, memchr_iter, memmem, memrchr};

use crate::error::CapError;

/// Smallest accepted `max_bytes` of a page: a character of any length fits, so
/// every page before the end of the file makes progress.
pub const MIN_PAGE_BYTES: u32 = 4;

/// Bytes read per step when scanning for line breaks or grep matches.
const CHUNK: usize = 1 << 20;

/// Context kept on each side of a grep match in its excerpt, in bytes.
const EXCERPT_CONTEXT: u64 = 200;

/// Longest UTF-8 sequence minus one: how many bytes beyond a position tell
/// whether it splits a character.
const UTF8_SLACK: u64 = 3;

/// Bytes of U+FFFD, which stands for each invalid sequence in returned text.
const REPLACEMENT_LEN: usize = char::REPLACEMENT_CHARACTER.len_utf8();

/// Random access to one spilled file.
pub trait RandomRead {
    /// File size in bytes.
    fn size(&mut self) -> Result<u64, CapError>;
    /// Read up to `len` bytes at `offset`; fewer only at end of file.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError>;
}

impl RandomRead for &[u8] {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.len() as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        Ok(slice_at(self, offset, len).to_vec())
    }
}

/// A file held in memory, for tests and for callers that already have the
/// bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemFile(pub Vec<u8>);

impl RandomRead for MemFile {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.0.len() as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        Ok(slice_at(&self.0, offset, len).to_vec())
    }
}

/// The part of `bytes` that `len` bytes at `offset` cover; empty past the end.
fn slice_at(bytes: &[u8], offset: u64, len: usize) -> &[u8] {
    let start = usize::try_from(offset).map_or(bytes.len(), |o| o.min(bytes.len()));
    let end = start.saturating_add(len).min(bytes.len());
    &bytes[start..end]
}

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

/// One occurrence of a grep pattern (WIT `grep-match`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepMatch {
    /// 1-based line number where the occurrence starts.
    pub line: u64,
    /// Byte offset of the occurrence in the file.
    pub offset: u64,
    /// The line around the occurrence, without its line break: whole if short,
    /// otherwise about 200 bytes on each side of the occurrence.
    pub excerpt: String,
    /// Byte offset in the file where `excerpt` starts.
    pub excerpt_offset: u64,
}

/// Result of [`grep`] (WIT `grep-result`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepResult {
    /// The first occurrences, in file order, at most `max_matches`.
    pub matches: Vec<GrepMatch>,
    /// All occurrences in the file.
    pub total_matches: u64,
}

/// Read at most `max_bytes` (at least [`MIN_PAGE_BYTES`]) of the file from
/// byte `offset`. An offset inside a character moves back to its start, which
/// the page reports; the page ends on a character boundary and `next_offset`
/// continues it. `offset` equal to the size gives an empty page; beyond it is
/// `InvalidArgument`.
pub fn read_page(src: &mut impl RandomRead, offset: u64, max_bytes: u32) -> Result<Page, CapError> {
    read_page_in(src, offset, max_bytes, CHUNK)
}

/// Read `count` lines (at least 1) from 1-based `first_line`, with their line
/// breaks, at most `max_bytes` bytes (at least [`MIN_PAGE_BYTES`]): a page
/// that reaches the byte limit ends inside a line and `next_offset` continues
/// it. A `first_line` past the end gives an empty page at the end of file.
pub fn read_lines(
    src: &mut impl RandomRead,
    first_line: u64,
    count: u32,
    max_bytes: u32,
) -> Result<Page, CapError> {
    read_lines_in(src, first_line, count, max_bytes, CHUNK)
}

/// Find every non-overlapping occurrence of the literal `pattern` (not a
/// regex, not empty). `total_matches` counts them all; the first `max_matches`
/// (at least 1) come with their line, offset and an excerpt. One pass over
/// the file, in chunks.
pub fn grep(
    src: &mut impl RandomRead,
    pattern: &str,
    max_matches: u32,
) -> Result<GrepResult, CapError> {
    grep_in(src, pattern, max_matches, CHUNK)
}

/// [`read_page`] with the scanning chunk size as a parameter.
fn read_page_in(
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

/// [`read_lines`] with the scanning chunk size as a parameter.
fn read_lines_in(
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

/// `InvalidArgument` unless `max_bytes` can hold any character.
fn check_page_bytes(max_bytes: u32) -> Result<(), CapError> {
    if max_bytes < MIN_PAGE_BYTES {
        return Err(invalid(format!(
            "max-bytes must be at least {MIN_PAGE_BYTES}, got {max_bytes}"
        )));
    }
    Ok(())
}

/// An `InvalidArgument` error with `message`.
fn invalid(message: String) -> CapError {
    CapError::InvalidArgument(message)
}

/// The page of `bytes`, which start at file offset `start` on line
/// `first_line`: at most `raw_limit` bytes of the file and `max_bytes` bytes of
/// text. `bytes` must reach 3 bytes past `raw_limit` or to the end of file.
fn page_from(
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

/// Length of the longest prefix of `buf` (which starts on a character
/// boundary) that keeps valid characters whole, spans at most `raw_limit`
/// bytes and becomes at most `text_limit` bytes of lossy text. `buf` must reach
/// 3 bytes past `raw_limit` or to the end of file, so that a character at the
/// limit is seen whole.
fn fit_prefix(buf: &[u8], raw_limit: usize, text_limit: usize) -> usize {
    let mut used = 0;
    let mut text = 0;
    for part in buf.utf8_chunks() {
        let valid = part.valid();
        let room = raw_limit
            .saturating_sub(used)
            .min(text_limit.saturating_sub(text));
        if valid.len() > room {
            return used + valid.floor_char_boundary(room);
        }
        used += valid.len();
        text += valid.len();
        let bad = part.invalid().len();
        if bad == 0 {
            continue;
        }
        // An invalid sequence costs its bytes in the file but U+FFFD in text.
        if used + bad > raw_limit || text + REPLACEMENT_LEN > text_limit {
            return used;
        }
        used += bad;
        text += REPLACEMENT_LEN;
    }
    used
}

/// Whether `byte` continues a UTF-8 sequence (`10xxxxxx`).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Length of the UTF-8 sequence that `byte` starts, `None` if it starts none.
fn utf8_len(byte: u8) -> Option<usize> {
    match byte {
        0x00..=0x7F => Some(1),
        0xC2..=0xDF => Some(2),
        0xE0..=0xEF => Some(3),
        0xF0..=0xF4 => Some(4),
        _ => None,
    }
}

/// Start of the valid character that index `i` of `buf` lies strictly
/// inside, or `i` itself. Only a sequence that is whole and valid within `buf`
/// counts; stray bytes of a tampered file stand alone.
fn char_floor(buf: &[u8], i: usize) -> usize {
    for back in 1..=3 {
        let Some(lead) = i.checked_sub(back) else {
            return i;
        };
        let Some(&byte) = buf.get(lead) else {
            return i;
        };
        if is_continuation(byte) {
            continue;
        }
        let covers = utf8_len(byte).is_some_and(|len| {
            len > back
                && buf
                    .get(lead..lead + len)
                    .is_some_and(|s| std::str::from_utf8(s).is_ok())
        });
        return if covers { lead } else { i };
    }
    i
}

/// End of the valid character that index `i` of `buf` lies strictly inside,
/// or `i` itself.
fn char_ceil(buf: &[u8], i: usize) -> usize {
    let lead = char_floor(buf, i);
    if lead == i {
        return i;
    }
    lead + buf.get(lead).and_then(|&b| utf8_len(b)).unwrap_or(0)
}

/// A distance within an in-memory buffer as an index. Saturates on a 32-bit
/// target instead of wrapping; callers keep such values bounded by lengths.
fn to_index(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Read the file range `from..to` as one buffer, trimmed if the source
/// returns more than asked. Shorter only at end of file.
fn read_range(src: &mut impl RandomRead, from: u64, to: u64) -> Result<Vec<u8>, CapError> {
    if to <= from {
        return Ok(Vec::new());
    }
    let len = usize::try_from(to - from).map_err(|_| {
        invalid(format!(
            "a range of {} bytes does not fit in memory",
            to - from
        ))
    })?;
    let mut bytes = src.read_at(from, len)?;
    bytes.truncate(len);
    Ok(bytes)
}

/// Visit the file range `from..to` in order, in reads of at most `chunk`
/// bytes, until `visit` (given each read's offset and bytes) returns `Some`.
/// Ends early at a short read.
fn scan<T>(
    src: &mut impl RandomRead,
    from: u64,
    to: u64,
    chunk: usize,
    mut visit: impl FnMut(u64, &[u8]) -> Option<T>,
) -> Result<Option<T>, CapError> {
    let step = chunk.max(1) as u64;
    let mut pos = from;
    while pos < to {
        let bytes = read_range(src, pos, pos + step.min(to - pos))?;
        if bytes.is_empty() {
            break;
        }
        if let Some(found) = visit(pos, &bytes) {
            return Ok(Some(found));
        }
        pos += bytes.len() as u64;
    }
    Ok(None)
}

/// Number of LFs in the file range `from..to`.
fn count_lf(src: &mut impl RandomRead, from: u64, to: u64, chunk: usize) -> Result<u64, CapError> {
    let mut total = 0;
    scan(src, from, to, chunk, |_, bytes| {
        total += memchr_iter(b'\n', bytes).count() as u64;
        None::<()>
    })?;
    Ok(total)
}

/// Outcome of [`seek_lfs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LfSeek {
    /// Offset just past the wanted LF (the start of the next line).
    Found(u64),
    /// The range held fewer LFs: this many.
    Short(u64),
}

/// Find the offset just past the `n`-th LF in the file range `from..to`
/// (`from` itself when `n` is 0).
fn seek_lfs(
    src: &mut impl RandomRead,
    from: u64,
    to: u64,
    n: u64,
    chunk: usize,
) -> Result<LfSeek, CapError> {
    if n == 0 {
        return Ok(LfSeek::Found(from));
    }
    let mut left = n;
    let found = scan(src, from, to, chunk, |pos, bytes| {
        // Counting first is the fast path: most chunks hold fewer LFs than
        // still wanted and are skipped whole.
        let here = memchr_iter(b'\n', bytes).count() as u64;
        if here < left {
            left -= here;
            return None;
        }
        let at = memchr_iter(b'\n', bytes).nth(to_index(left - 1))?;
        Some(pos + at as u64 + 1)
    })?;
    Ok(found.map_or(LfSeek::Short(n - left), LfSeek::Found))
}

/// [`grep`] with the read chunk size as a parameter.
fn grep_in(
    src: &mut impl RandomRead,
    pattern: &str,
    max_matches: u32,
    chunk: usize,
) -> Result<GrepResult, CapError> {
    if pattern.is_empty() {
        return Err(invalid("pattern must not be empty".to_owned()));
    }
    if max_matches == 0 {
        return Err(invalid("max-matches must be at least 1".to_owned()));
    }
    let size = src.size()?;
    let needle = pattern.as_bytes();
    let finder = memmem::Finder::new(needle);
    let plen = needle.len() as u64;
    let wanted = to_index(u64::from(max_matches));
    // Reads at least as long as the pattern keep the carried tail shorter than
    // each read, so copying stays linear in the file size.
    let step = chunk.max(1).max(needle.len()) as u64;
    let mut window = Window::default();
    let mut lines = LineCursor::default();
    // Earliest offset where a match not yet reported may start.
    let mut search_from = 0;
    let mut result = GrepResult {
        matches: Vec::new(),
        total_matches: 0,
    };
    while window.end() < size {
        let from = window.end();
        let bytes = read_range(src, from, from + step.min(size - from))?;
        if bytes.is_empty() {
            break;
        }
        window.bytes.extend_from_slice(&bytes);
        let skip = to_index(search_from - window.pos);
        for hit in finder.find_iter(&window.bytes[skip..]) {
            let at = window.pos + (skip + hit) as u64;
            result.total_matches += 1;
            search_from = at + plen;
            if result.matches.len() < wanted {
                let line = lines.line_at(&window, at);
                let (excerpt_offset, excerpt) = excerpt(src, &window, at, plen, size)?;
                result.matches.push(GrepMatch {
                    line,
                    offset: at,
                    excerpt,
                    excerpt_offset,
                });
            }
        }
        // A match may still start in the last plen-1 bytes and end in the next
        // read; keep those, and enough before them for an excerpt's left side.
        search_from = search_from.max(window.end().saturating_sub(plen - 1));
        let keep_from = search_from
            .saturating_sub(EXCERPT_CONTEXT + UTF8_SLACK)
            .max(window.pos);
        if result.matches.len() < wanted {
            lines.advance(&window, keep_from);
        }
        window.drop_before(keep_from);
    }
    Ok(result)
}

/// The bytes of the file range `pos..pos + bytes.len()` that grep holds.
#[derive(Debug, Default)]
struct Window {
    /// File offset of `bytes[0]`.
    pos: u64,
    /// The bytes held.
    bytes: Vec<u8>,
}

impl Window {
    /// File offset just past the bytes held.
    fn end(&self) -> u64 {
        self.pos + self.bytes.len() as u64
    }

    /// The file range `from..to`, if held whole.
    fn slice(&self, from: u64, to: u64) -> Option<&[u8]> {
        let lo = to_index(from.checked_sub(self.pos)?);
        let hi = to_index(to.checked_sub(self.pos)?);
        self.bytes.get(lo..hi)
    }

    /// Forget the bytes before file offset `at`.
    fn drop_before(&mut self, at: u64) {
        let n = to_index(at.saturating_sub(self.pos)).min(self.bytes.len());
        self.bytes.drain(..n);
        self.pos += n as u64;
    }
}

/// Counts LFs incrementally as grep moves forward through its window.
#[derive(Debug, Default)]
struct LineCursor {
    /// File offset up to which LFs are counted.
    counted_to: u64,
    /// LFs before `counted_to`.
    lfs: u64,
}

impl LineCursor {
    /// 1-based line number of file offset `at`, which the window holds.
    fn line_at(&mut self, window: &Window, at: u64) -> u64 {
        self.advance(window, at);
        self.lfs + 1
    }

    /// Count the LFs up to file offset `to`; the window holds the bytes from
    /// the last counted offset to `to`.
    fn advance(&mut self, window: &Window, to: u64) {
        if to <= self.counted_to {
            return;
        }
        let seen = window
            .slice(self.counted_to, to)
            .map_or(0, |b| memchr_iter(b'\n', b).count());
        debug_assert!(
            window.slice(self.counted_to, to).is_some(),
            "uncounted bytes were dropped"
        );
        self.lfs += seen as u64;
        self.counted_to = to;
    }
}

/// The excerpt of the match of `plen` bytes at file offset `at`, and where it
/// starts. Uses the window's bytes when it holds them, else one small read.
fn excerpt(
    src: &mut impl RandomRead,
    window: &Window,
    at: u64,
    plen: u64,
    size: u64,
) -> Result<(u64, String), CapError> {
    let reach = EXCERPT_CONTEXT + UTF8_SLACK;
    let lo = at.saturating_sub(reach);
    let hi = (at + plen).saturating_add(reach).min(size);
    let fetched;
    let bytes = match window.slice(lo, hi) {
        Some(held) => held,
        None => {
            fetched = read_range(src, lo, hi)?;
            &fetched
        }
    };
    let start = to_index(at - lo).min(bytes.len());
    let end = start.saturating_add(to_index(plen)).min(bytes.len());
    let (left, right) = excerpt_bounds(bytes, start, end);
    Ok((
        lo + left as u64,
        String::from_utf8_lossy(&bytes[left..right]).into_owned(),
    ))
}

/// Bounds in `bytes` of the excerpt around the match `start..end`: its line,
/// without the line break (LF or CRLF), but no more than [`EXCERPT_CONTEXT`]
/// bytes on each side, cut between characters. `bytes` must hold 3 bytes
/// beyond the context on each side, or reach the file's start or end.
fn excerpt_bounds(bytes: &[u8], start: usize, end: usize) -> (usize, usize) {
    let context = to_index(EXCERPT_CONTEXT);
    let ctx_lo = start.saturating_sub(context);
    let left = match memrchr(b'\n', &bytes[ctx_lo..start]) {
        Some(i) => ctx_lo + i + 1,
        None => char_ceil(bytes, ctx_lo).min(start),
    };
    // One byte more than the context, so that a line ending just there still
    // loses its CR like any other.
    let ctx_hi = end.saturating_add(context + 1).min(bytes.len());
    if end > start && bytes[end - 1] == b'\n' {
        // The match ends its line: the excerpt ends with it, not with the next line.
        return (left, end);
    }
    let right = match memchr(b'\n', &bytes[end..ctx_hi]) {
        Some(i) => strip_cr(bytes, end, end + i),
        None => char_floor(bytes, end.saturating_add(context).min(bytes.len())).max(end),
    };
    (left, right)
}

/// `lf`, or one less when a CR that follows the match (which ends at `end`)
/// precedes it: CRLF is one line break.
fn strip_cr(bytes: &[u8], end: usize, lf: usize) -> usize {
    if lf > end && bytes[lf - 1] == b'\r' {
        lf - 1
    } else {
        lf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::sample::{Index, select};

    /// Characters of 1, 2, 3 and 4 bytes, CRLF, LF, an empty line, a lone CR.
    const MIXED: &str = "aé中😀ж\r\nb😀\n\n中x\rq";

    fn mem(bytes: impl AsRef<[u8]>) -> MemFile {
        MemFile(bytes.as_ref().to_vec())
    }

    fn page(bytes: impl AsRef<[u8]>, offset: u64, max: u32) -> Page {
        read_page(&mut mem(bytes), offset, max).unwrap()
    }

    fn lines(text: &str, first: u64, count: u32, max: u32) -> Page {
        read_lines(&mut mem(text), first, count, max).unwrap()
    }

    fn grep_text(bytes: impl AsRef<[u8]>, pattern: &str, max: u32, chunk: usize) -> GrepResult {
        grep_in(&mut mem(bytes), pattern, max, chunk).unwrap()
    }

    fn is_invalid_argument<T: std::fmt::Debug>(result: Result<T, CapError>) -> bool {
        matches!(result, Err(CapError::InvalidArgument(_)))
    }

    /// Follow `next_offset` from 0 to the end; offsets must strictly grow.
    fn page_through(bytes: &[u8], max: u32, chunk: usize) -> Vec<Page> {
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
    fn naive_line(bytes: &[u8], offset: usize) -> u64 {
        1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u64
    }

    /// Start and end of the page at `offset` of valid text.
    fn naive_page(text: &str, offset: usize, max: usize) -> (usize, usize) {
        let start = text.floor_char_boundary(offset);
        (start, text.floor_char_boundary(start + max))
    }

    /// The `count` lines from `first`, with their LFs, and where they start.
    fn naive_lines(bytes: &[u8], first: usize, count: usize) -> (usize, &[u8]) {
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
    fn naive_matches(hay: &[u8], needle: &[u8]) -> Vec<usize> {
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
    fn naive_excerpt(text: &str, at: usize, end: usize) -> (usize, usize) {
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
    struct Repeat {
        unit: &'static [u8],
        size: u64,
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
    struct Spy<R> {
        inner: R,
        calls: usize,
        largest: usize,
        total: u64,
    }

    impl<R> Spy<R> {
        fn new(inner: R) -> Self {
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
    struct Liar(&'static [u8]);

    impl RandomRead for Liar {
        fn size(&mut self) -> Result<u64, CapError> {
            Ok(self.0.len() as u64 + 10)
        }

        fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
            self.0.read_at(offset, len)
        }
    }

    #[test]
    fn sources_read_within_bounds() {
        let mut slice: &[u8] = b"hello";
        assert_eq!(slice.size().unwrap(), 5);
        assert_eq!(slice.read_at(1, 3).unwrap(), b"ell");
        assert_eq!(slice.read_at(3, 100).unwrap(), b"lo");
        assert!(slice.read_at(9, 2).unwrap().is_empty());
        assert!(slice.read_at(u64::MAX, usize::MAX).unwrap().is_empty());
        let mut file = mem("hello");
        assert_eq!(file.read_at(4, usize::MAX).unwrap(), b"o");
    }

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

    #[test]
    fn match_straddling_a_chunk_boundary_is_found() {
        for chunk in 1..=8 {
            for pad in 0..12 {
                let text = format!("{}needle\nyyyneedle", "x".repeat(pad));
                let found = grep_text(&text, "needle", 5, chunk);
                assert_eq!(found.total_matches, 2, "chunk {chunk} pad {pad}");
                let offsets: Vec<u64> = found.matches.iter().map(|m| m.offset).collect();
                assert_eq!(offsets, [pad as u64, pad as u64 + 10]);
                assert_eq!(found.matches[1].line, 2);
                assert_eq!(found.matches[1].excerpt, "yyyneedle");
            }
        }
    }

    #[test]
    fn pattern_longer_than_a_chunk_is_found() {
        let pattern = "0123456789".repeat(5);
        let text = format!("ab{pattern}{pattern}c\n{pattern}");
        let found = grep_text(&text, &pattern, 10, 4);
        assert_eq!(found.total_matches, 3);
        assert_eq!(found.matches[2].line, 2);
        assert_eq!(found.matches[2].excerpt, pattern);
    }

    #[test]
    fn occurrences_do_not_overlap_and_beyond_max_are_only_counted() {
        let found = grep_text("aaaaa", "aa", 5, 2);
        let offsets: Vec<u64> = found.matches.iter().map(|m| m.offset).collect();
        assert_eq!((found.total_matches, offsets), (2, vec![0, 2]));
        let found = grep_text("x\nx\nx\nx\n", "x", 2, 3);
        assert_eq!((found.total_matches, found.matches.len()), (4, 2));
        assert_eq!(found.matches[1].line, 2);
    }

    #[test]
    fn long_line_excerpt_keeps_about_200_bytes_each_side() {
        let text = format!("{}NEEDLE{}", "a".repeat(1000), "b".repeat(1000));
        let m = &grep_text(&text, "NEEDLE", 1, 64).matches[0];
        assert_eq!(
            m.excerpt,
            format!("{}NEEDLE{}", "a".repeat(200), "b".repeat(200))
        );
        assert_eq!((m.offset, m.excerpt_offset), (1000, 800));
        // 1000 and 1401 fall inside 3-byte characters: the cut moves inward.
        let text = format!("{}X{}", "中".repeat(400), "中".repeat(400));
        let m = &grep_text(&text, "X", 1, 64).matches[0];
        assert_eq!(
            m.excerpt,
            format!("{}X{}", "中".repeat(66), "中".repeat(66))
        );
        assert_eq!(m.excerpt_offset, 1002);
    }

    #[test]
    fn excerpt_stops_at_line_breaks_and_drops_their_cr() {
        let found = grep_text("first\r\nfoo bar\r\nlast", "bar", 1, 5);
        let m = &found.matches[0];
        assert_eq!(
            (m.line, m.offset, m.excerpt.as_str(), m.excerpt_offset),
            (2, 11, "foo bar", 7)
        );
    }

    #[test]
    fn excerpt_drops_the_cr_of_a_line_ending_right_at_the_context_limit() {
        let text = format!("X{}\r\nnext", "a".repeat(199));
        let m = &grep_text(&text, "X", 1, 16).matches[0];
        assert_eq!(m.excerpt, format!("X{}", "a".repeat(199)));
    }

    #[test]
    fn excerpts_reuse_the_bytes_already_read() {
        // Each match sits 10 bytes into a 1024-byte read: its left context
        // lies in the previous read, its right context in its own.
        let unit = format!(
            "{}match{}\n{}",
            "a".repeat(10),
            "b".repeat(800),
            "x".repeat(208)
        );
        assert_eq!(unit.len(), 1024);
        let text = unit.repeat(8);
        let mut spy = Spy::new(mem(&text));
        let found = grep_in(&mut spy, "match", 100, 1024).unwrap();
        assert_eq!(found.total_matches, 8);
        let right = "b".repeat(200);
        assert_eq!(
            found.matches[0].excerpt,
            format!("{}match{right}", "a".repeat(10))
        );
        let left = format!("{}{}", "x".repeat(190), "a".repeat(10));
        assert_eq!(found.matches[7].excerpt, format!("{left}match{right}"));
        assert_eq!(spy.calls, 8, "one read per chunk, none for excerpts");
    }

    #[test]
    fn pattern_longer_than_a_chunk_widens_the_reads() {
        let mut spy = Spy::new(mem("a".repeat(1000)));
        let found = grep_in(&mut spy, &"b".repeat(50), 1, 4).unwrap();
        assert_eq!(found.total_matches, 0);
        assert!(
            spy.calls <= 20,
            "{} reads: the carried tail would be copied again each time",
            spy.calls
        );
    }

    #[test]
    fn pattern_with_line_break_reports_the_line_it_starts_on() {
        let found = grep_text("aa\nbb\ncc\n", "b\ncc", 3, 2);
        let m = &found.matches[0];
        assert_eq!(
            (m.line, m.offset, m.excerpt.as_str(), m.excerpt_offset),
            (2, 4, "bb\ncc", 3)
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

    /// Pieces of test text: every character width, CR, CRLF and LF.
    fn piece() -> impl Strategy<Value = &'static str> {
        select(vec![
            "a", "b", "ab", "\n", "\r", "\r\n", "é", "ж", "中", "😀", "a\n",
        ])
    }

    /// Short texts made of [`piece`]s.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..60).prop_map(|v| v.concat())
    }

    /// Texts whose lines may be long enough for excerpts to be cut.
    fn long_text() -> impl Strategy<Value = String> {
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
    fn raw_bytes() -> impl Strategy<Value = Vec<u8>> {
        let interesting = select(vec![
            b'a', b'\n', b'\r', 0x80, 0xBF, 0xC2, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xF0,
            0x9F, 0x98, 0xC0, 0xFF,
        ]);
        prop::collection::vec(prop_oneof![3 => interesting, 1 => any::<u8>()], 0..60)
    }

    /// Patterns that occur often in [`text`], some with line breaks.
    fn pattern() -> impl Strategy<Value = &'static str> {
        select(vec![
            "a", "ab", "ba", "\n", "\r\n", "é", "中", "😀a", "a\nb", "xx", "жж", "aa",
        ])
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

        #[test]
        fn grep_matches_naive_search(
            text in long_text(), pattern in pattern(), max in 1u32..6, chunk in 1usize..10,
        ) {
            let found = grep_text(&text, pattern, max, chunk);
            let naive: Vec<usize> = text.match_indices(pattern).map(|(i, _)| i).collect();
            prop_assert_eq!(found.total_matches, naive.len() as u64);
            prop_assert_eq!(found.matches.len(), naive.len().min(max as usize));
            for (m, &at) in found.matches.iter().zip(&naive) {
                prop_assert_eq!(m.offset, at as u64);
                prop_assert_eq!(m.line, naive_line(text.as_bytes(), at));
                let (left, right) = naive_excerpt(&text, at, at + pattern.len());
                prop_assert_eq!(m.excerpt_offset, left as u64);
                prop_assert_eq!(&m.excerpt, &text[left..right]);
            }
        }

        #[test]
        fn grep_counts_tampered_bytes_like_naive(
            bytes in raw_bytes(), pattern in select(vec!["a", "\n", "é", "€", "a\n", "\r"]),
            chunk in 1usize..6,
        ) {
            let found = grep_text(&bytes, pattern, 4, chunk);
            let naive = naive_matches(&bytes, pattern.as_bytes());
            prop_assert_eq!(found.total_matches, naive.len() as u64);
            for (m, &at) in found.matches.iter().zip(&naive) {
                prop_assert_eq!(m.offset, at as u64);
                prop_assert_eq!(m.line, naive_line(&bytes, at));
                prop_assert!(m.excerpt_offset <= m.offset);
                prop_assert!(m.excerpt.contains(pattern));
            }
        }
    }
}
