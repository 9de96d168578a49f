//! Reading a source by ranges: one bounded read, a scan in chunks, and the
//! line-break counts and seeks built on it.

use memchr::memchr_iter;

use super::source::RandomRead;
use super::{invalid, to_index};
use crate::error::CapError;

/// Read the file range `from..to` as one buffer, trimmed if the source
/// returns more than asked. Shorter only at end of file.
pub(super) fn read_range(
    src: &mut impl RandomRead,
    from: u64,
    to: u64,
) -> Result<Vec<u8>, CapError> {
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
pub(super) fn count_lf(
    src: &mut impl RandomRead,
    from: u64,
    to: u64,
    chunk: usize,
) -> Result<u64, CapError> {
    let mut total = 0;
    scan(src, from, to, chunk, |_, bytes| {
        total += memchr_iter(b'\n', bytes).count() as u64;
        None::<()>
    })?;
    Ok(total)
}

/// Outcome of [`seek_lfs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LfSeek {
    /// Offset just past the wanted LF (the start of the next line).
    Found(u64),
    /// The range held fewer LFs: this many.
    Short(u64),
}

/// Find the offset just past the `n`-th LF in the file range `from..to`
/// (`from` itself when `n` is 0).
pub(super) fn seek_lfs(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_seeks_agree_with_naive_at_every_chunk_size() {
        let text: &[u8] = b"a\nbb\n\nccc\r\nd";
        for chunk in 1..=text.len() + 1 {
            for from in 0..=text.len() {
                for to in from..=text.len() {
                    let src = &mut &text[..];
                    let (lo, hi) = (from as u64, to as u64);
                    // Offsets just past each LF of the range.
                    let ends: Vec<u64> = (from..to)
                        .filter(|&i| text[i] == b'\n')
                        .map(|i| i as u64 + 1)
                        .collect();
                    let lfs = ends.len() as u64;
                    assert_eq!(count_lf(src, lo, hi, chunk).unwrap(), lfs);
                    assert_eq!(seek_lfs(src, lo, hi, 0, chunk).unwrap(), LfSeek::Found(lo));
                    for (n, &end) in (1..).zip(&ends) {
                        let got = seek_lfs(src, lo, hi, n, chunk).unwrap();
                        assert_eq!(got, LfSeek::Found(end), "{from}..{to} n {n} chunk {chunk}");
                    }
                    let past = seek_lfs(src, lo, hi, lfs + 1, chunk).unwrap();
                    assert_eq!(past, LfSeek::Short(lfs));
                }
            }
        }
    }

    #[test]
    fn read_range_is_empty_when_reversed_and_trims_a_generous_source() {
        struct Generous;
        impl RandomRead for Generous {
            fn size(&mut self) -> Result<u64, CapError> {
                Ok(100)
            }
            fn read_at(&mut self, _: u64, len: usize) -> Result<Vec<u8>, CapError> {
                Ok(vec![b'x'; len + 5])
            }
        }
        assert!(read_range(&mut Generous, 5, 5).unwrap().is_empty());
        assert!(read_range(&mut Generous, 9, 5).unwrap().is_empty());
        assert_eq!(read_range(&mut Generous, 5, 9).unwrap().len(), 4);
    }
}
