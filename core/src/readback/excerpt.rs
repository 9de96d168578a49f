//! The excerpt of a grep match: its line, cut to about [`EXCERPT_CONTEXT`]
//! bytes on each side, between characters and without the line break.

use memchr::{memchr, memrchr};

use super::scan::read_range;
use super::source::RandomRead;
use super::to_index;
use super::utf8::{UTF8_SLACK, char_ceil, char_floor};
use super::window::Window;
use crate::error::CapError;

/// Context kept on each side of a grep match in its excerpt, in bytes.
pub(super) const EXCERPT_CONTEXT: u64 = 200;

/// The excerpt of the match of `plen` bytes at file offset `at`, and where it
/// starts. Uses the window's bytes when it holds them, else one small read.
pub(super) fn excerpt(
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
    use crate::readback::testing::grep_text;

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
}
