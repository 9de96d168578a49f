//! The call's search in a text read once: windows around the first hits of
//! each alternative, found across the pieces' seams, with the bytes around
//! them kept as they go by, so that the one-pass preview shows them as the
//! whole-text preview does ([`crate::preview::search`]): the first hit of each line
//! before a second hit of any, at most [`HITS_PER_TERM`] per alternative
//! and [`HITS_PER_LINE`] in one line.
//!
//! Memory: the last window's bytes of the text, and at most two windows per
//! alternative and hit slot, whatever the text's size.

use memchr::memchr;
use memchr::memmem::Finder;

use crate::preview::one_pass::{Notable, WINDOW_SCORE};
use crate::preview::search::{HITS_PER_LINE, HITS_PER_TERM};

/// A window being kept, or kept.
#[derive(Debug, Clone)]
struct Window {
    term: usize,
    /// Where the hit starts, and its line (number and start).
    at: u64,
    line: u64,
    line_start: u64,
    /// Where the window's bytes start, and the bytes kept so far.
    from: u64,
    bytes: Vec<u8>,
    /// Where the window is to end (it stops at its line's end before).
    to: u64,
    /// The end of the line, after its LF, once read.
    line_end: Option<u64>,
    /// The first hit of its alternative in its line.
    first_in_line: bool,
}

/// Where a scan of a buffer is: a byte, its line's number and start.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    at: usize,
    line: u64,
    line_start: u64,
}

/// Each alternative's hits so far.
#[derive(Debug, Clone, Default)]
struct PerTerm {
    firsts: usize,
    repeats: usize,
    /// The line of the last hit taken, and how many were taken in it.
    last_line: u64,
    in_line: usize,
}

/// Finds the call's search terms in a text read in pieces.
#[derive(Debug)]
pub(crate) struct HitScan {
    finders: Vec<Finder<'static>>,
    width: usize,
    /// The text's last bytes (at most `width`), from `back_at`, and the
    /// number and start of the line that holds `back_at`.
    back: Vec<u8>,
    back_at: u64,
    back_line: u64,
    back_line_start: u64,
    terms: Vec<PerTerm>,
    windows: Vec<Window>,
}

impl HitScan {
    /// A scan for `terms`, each window `width` bytes at most (a hit longer
    /// than that gets a window of its own length).
    pub(crate) fn new(terms: &[&str], width: usize) -> HitScan {
        HitScan {
            finders: terms
                .iter()
                .map(|t| Finder::new(t.as_bytes()).into_owned())
                .collect(),
            width,
            back: Vec::new(),
            back_at: 0,
            back_line: 1,
            back_line_start: 0,
            terms: vec![PerTerm::default(); terms.len()],
            windows: Vec::new(),
        }
    }

    /// Read the next piece, which starts at byte `base` of the text.
    pub(crate) fn push(&mut self, piece: &[u8], base: u64) {
        if piece.is_empty() {
            return;
        }
        self.extend_windows(piece, base);
        // Search the last bytes before the piece with it: a hit across the
        // seam is found, and one that ends before the piece was found before.
        let mut joined = std::mem::take(&mut self.back);
        let joined_at = self.back_at;
        joined.extend_from_slice(piece);
        for term in 0..self.finders.len() {
            let len = self.finders[term].needle().len().max(1);
            let mut p = 0;
            // Hits come in order: the line is counted on from the last.
            let mut cur = Cursor {
                at: 0,
                line: self.back_line,
                line_start: self.back_line_start,
            };
            while self.terms[term].firsts < HITS_PER_TERM
                && let Some(i) = self.finders[term].find(&joined[p..])
            {
                let at = p + i;
                p = at + len;
                if joined_at + (at + len) as u64 > base {
                    cur = advance(cur, &joined, joined_at, at);
                    self.offer(term, &joined, joined_at, at, len as u64, cur);
                }
            }
        }
        self.keep_back(joined, joined_at);
    }

    /// A hit of `term` at `joined[at..at + len]`: kept when its
    /// alternative still needs it.
    fn offer(
        &mut self,
        term: usize,
        joined: &[u8],
        joined_at: u64,
        at: usize,
        len: u64,
        cur: Cursor,
    ) {
        let (line, line_start) = (cur.line, cur.line_start);
        let t = &mut self.terms[term];
        let first_in_line = t.firsts + t.repeats == 0 || line != t.last_line;
        if first_in_line {
            if t.firsts == HITS_PER_TERM {
                return;
            }
            t.firsts += 1;
            (t.last_line, t.in_line) = (line, 1);
        } else {
            if t.repeats == HITS_PER_TERM || t.in_line == HITS_PER_LINE {
                return;
            }
            t.repeats += 1;
            t.in_line += 1;
        }
        let hit_at = joined_at + at as u64;
        let width = (self.width as u64).max(len);
        let before = (width - len) / 2;
        // The window starts within the line, within the bytes kept, on a
        // char boundary.
        let mut from = hit_at.saturating_sub(before).max(line_start).max(joined_at);
        while from < hit_at && joined[(from - joined_at) as usize] & 0xC0 == 0x80 {
            from += 1;
        }
        let to = from + width;
        let mut w = Window {
            term,
            at: hit_at,
            line,
            line_start,
            from,
            bytes: Vec::new(),
            to,
            line_end: None,
            first_in_line,
        };
        take(&mut w, joined, joined_at);
        self.windows.push(w);
    }

    /// Windows still open take the piece's first bytes, and a window whose
    /// line has not ended yet learns where it does.
    fn extend_windows(&mut self, piece: &[u8], base: u64) {
        for w in self.windows.iter_mut().filter(|w| w.line_end.is_none()) {
            take(w, piece, base);
        }
    }

    /// Keep the last bytes of `joined` (which starts at `at`): a window's
    /// context before its hit, and all of a hit but its last byte.
    fn keep_back(&mut self, mut joined: Vec<u8>, at: u64) {
        let longest = self.finders.iter().map(|f| f.needle().len()).max();
        let keep = self.width.max(longest.unwrap_or(0)).max(1);
        let drop = joined.len().saturating_sub(keep);
        let dropped = &joined[..drop];
        let lfs = memchr::memchr_iter(b'\n', dropped).count() as u64;
        if let Some(i) = memchr::memrchr(b'\n', dropped) {
            self.back_line += lfs;
            self.back_line_start = at + i as u64 + 1;
        }
        joined.drain(..drop);
        self.back = joined;
        self.back_at = at + drop as u64;
    }

    /// Heap bytes held, about.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.back.capacity()
            + self
                .windows
                .iter()
                .map(|w| w.bytes.capacity() + std::mem::size_of::<Window>())
                .sum::<usize>()
    }

    /// The windows, as notable lines of the text of `total` bytes: the
    /// first hit of each line first, then, while an alternative has fewer
    /// than [`HITS_PER_TERM`], its further hits.
    pub(crate) fn into_notables(self, total: u64) -> Vec<Notable> {
        let mut taken = vec![0usize; self.terms.len()];
        let mut out = Vec::new();
        let (firsts, repeats): (Vec<Window>, Vec<Window>) =
            self.windows.into_iter().partition(|w| w.first_in_line);
        for w in firsts.into_iter().chain(repeats) {
            if taken[w.term] == HITS_PER_TERM {
                continue;
            }
            taken[w.term] += 1;
            let end = w.line_end.unwrap_or(total);
            let lf = u64::from(w.line_end.is_some());
            let bytes = cut_to_chars(w.bytes);
            let Ok(prefix) = String::from_utf8(bytes) else {
                continue;
            };
            if w.from + (prefix.len() as u64) < w.at {
                continue; // the window lost its hit to a cut char
            }
            out.push(Notable {
                start: w.line_start,
                end,
                line: w.line,
                score: WINDOW_SCORE,
                // Never merged with another line.
                key: u64::MAX - out.len() as u64,
                similar: 0,
                content: end - lf - w.line_start,
                prefix,
                lead: w.from - w.line_start,
            });
        }
        out
    }
}

/// `w` takes the bytes of `buf` (which starts at `base`, at or before the
/// window's next byte) it still needs, up to its end or its line's, and
/// learns where its line ends if `buf` holds it.
fn take(w: &mut Window, buf: &[u8], base: u64) {
    let next = w.from + w.bytes.len() as u64;
    // A window with all its bytes may still look for its line's end.
    let start = (next.saturating_sub(base) as usize).min(buf.len());
    let avail = &buf[start..];
    let want = (w.to - next) as usize;
    let lf = memchr(b'\n', avail);
    let upto = lf.unwrap_or(avail.len()).min(want);
    w.bytes.extend_from_slice(&avail[..upto]);
    if let Some(i) = lf {
        w.line_end = Some(base + (start + i) as u64 + 1);
    }
}

/// `cur` moved on to `joined[at]`.
fn advance(cur: Cursor, joined: &[u8], joined_at: u64, at: usize) -> Cursor {
    let between = &joined[cur.at..at];
    match memchr::memrchr(b'\n', between) {
        Some(i) => Cursor {
            at,
            line: cur.line + memchr::memchr_iter(b'\n', between).count() as u64,
            line_start: joined_at + (cur.at + i) as u64 + 1,
        },
        None => Cursor { at, ..cur },
    }
}

/// `b` without a char cut at its end.
fn cut_to_chars(mut b: Vec<u8>) -> Vec<u8> {
    let valid = match std::str::from_utf8(&b) {
        Ok(_) => b.len(),
        Err(e) => e.valid_up_to(),
    };
    b.truncate(valid);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The windows of `text` read in pieces split at `cuts` (char
    /// boundaries), as (line, lead, window, line end).
    fn windows(
        text: &str,
        terms: &[&str],
        width: usize,
        cuts: &[usize],
    ) -> Vec<(u64, u64, String, u64)> {
        let mut scan = HitScan::new(terms, width);
        let mut at = 0;
        for &cut in cuts.iter().chain([&text.len()]) {
            scan.push(&text.as_bytes()[at..cut], at as u64);
            at = cut;
        }
        let mut out: Vec<_> = scan
            .into_notables(text.len() as u64)
            .into_iter()
            .map(|n| (n.line, n.lead, n.prefix, n.end))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_hit_split_across_pieces_is_found_and_windowed_the_same() {
        let text = format!(
            "{}\n{}NEEDLE{}\nshort NEEDLE line\n{}NEEDLE",
            "a".repeat(300),
            "b".repeat(500),
            "c".repeat(500),
            "é".repeat(100)
        );
        let whole = windows(&text, &["NEEDLE"], 60, &[]);
        let got: Vec<(u64, u64, &str)> = whole.iter().map(|w| (w.0, w.1, w.2.as_str())).collect();
        let line2 = format!("{}NEEDLE{}", "b".repeat(27), "c".repeat(27));
        // The window cannot slide back from an end it has not seen yet:
        // at the text's end it has its bytes before only (on a char boundary).
        let line4 = format!("{}NEEDLE", "é".repeat(13));
        assert_eq!(
            got,
            [
                (2, 473, line2.as_str()),
                (3, 0, "short NEEDLE line"),
                (4, 174, line4.as_str()),
            ]
        );
        // Line ends: after each LF, and the text's end.
        let ends: Vec<u64> = whole.iter().map(|w| w.3).collect();
        let lf2 = text.find("\nshort").unwrap() as u64 + 1;
        assert_eq!(ends, [lf2, lf2 + 18, text.len() as u64]);
        // Every split into two or three pieces on char boundaries.
        let bounds: Vec<usize> = (1..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &i in &bounds {
            assert_eq!(windows(&text, &["NEEDLE"], 60, &[i]), whole, "split at {i}");
        }
        for &i in bounds.iter().step_by(7) {
            for &j in bounds.iter().filter(|&&j| j > i).step_by(11) {
                assert_eq!(
                    windows(&text, &["NEEDLE"], 60, &[i, j]),
                    whole,
                    "split at {i}, {j}"
                );
            }
        }
    }

    #[test]
    fn first_hits_of_lines_come_before_more_hits_in_one_line() {
        // Line 1 holds the term many times; lines 2.. once each.
        let mut text = "x NEEDLE ".repeat(50);
        text.push('\n');
        for i in 0..12 {
            text.push_str(&format!("line {i} NEEDLE\n"));
        }
        let got = windows(&text, &["NEEDLE"], 40, &[]);
        let lines: Vec<u64> = got.iter().map(|w| w.0).collect();
        // The first hit of the first 8 lines, no second hit of line 1.
        assert_eq!(lines, [1, 2, 3, 4, 5, 6, 7, 8]);
        // One line: up to HITS_PER_LINE hits of it.
        let got = windows(&"x NEEDLE ".repeat(50), &["NEEDLE"], 20, &[]);
        assert_eq!(got.len(), HITS_PER_LINE);
    }
}
