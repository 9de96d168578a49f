//! Exact loss accounting from the ranges a preview shows verbatim. Both
//! choosers ([`super::whole`], [`super::one_pass`]) hand it their spans in
//! output order, so `omitted-bytes`, `omitted-lines` and `gap-line` are
//! counted one way.

use crate::notice::Loss;

/// Bytes `a..e` of the text shown verbatim: the lines of its first and
/// last byte, and the line of byte `e`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub(crate) a: u64,
    pub(crate) e: u64,
    pub(crate) first: u64,
    pub(crate) last: u64,
    pub(crate) after: u64,
}

/// The loss of a text of `bytes` bytes and `lines` lines whose preview
/// shows `spans` (in output order): the bytes not shown, the lines none of
/// whose bytes is shown, and the line of the first byte not shown.
pub(crate) fn loss(spans: &[Span], bytes: u64, lines: u64) -> Loss {
    let shown: u64 = spans.iter().map(|s| s.e - s.a).sum();
    let mut touched = 0;
    let mut last_counted = 0;
    for s in spans {
        let first = s.first.max(last_counted + 1);
        if s.last >= first {
            touched += s.last - first + 1;
            last_counted = s.last;
        }
    }
    // The first byte not shown: the end of the spans that start the text
    // and follow one another.
    let (mut gap, mut gap_line) = (0, 1);
    for s in spans {
        if s.a > gap {
            break;
        }
        if s.e > gap {
            (gap, gap_line) = (s.e, s.after);
        }
    }
    Loss {
        original_bytes: bytes,
        original_lines: lines,
        omitted_bytes: bytes - shown,
        omitted_lines: lines - touched,
        gap_line,
    }
}
