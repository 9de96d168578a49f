//! Choosing and rendering the notable lines: search hits first, the first
//! failure's block whole, then by confidence with variety, within the room
//! of the budget.

use memchr::{memchr, memrchr};

use crate::preview::render::{
    Item, close_marker, line_cut_marker, line_prefix_len, max_marker_len, open_marker,
};
use crate::preview::search::{self, Hit};
use crate::text::{count_lfs, digits, floor_grapheme};

use super::blocks;
use super::classify::WARNING_SCORE;
use super::scan::Candidate;
use super::similar::Sketch;

/// Shortest part of a notable line worth showing when it must be cut.
pub(super) const MIN_SHOWN: usize = 24;

/// Shown lines a candidate is compared with in [`select`], at most, so that
/// the work per candidate stays bounded.
pub(super) const MAX_COMPARE: usize = 128;

/// One line shown in the notable part of a preview: from its start, or a
/// window around a search hit inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// Start of the line.
    pub start: usize,
    /// End of the line, after its LF (or the end of the text).
    pub end: usize,
    /// Lines like it not shown.
    pub similar: u64,
    /// 1-based line number, once counted.
    pub line: u64,
    /// Bytes of its text shown (its length without the LF when whole).
    pub keep: usize,
    /// Where the bytes shown start: `start`, or for a window the first
    /// byte of the window.
    pub from: usize,
    /// A window around a search hit: the bytes of the line before `from`
    /// and after `from + keep` are cut, each side with its marker.
    pub window: bool,
}

impl Shown {
    /// A line shown from its start, `keep` bytes of it.
    pub fn line(start: usize, end: usize, similar: u64, keep: usize) -> Shown {
        Shown {
            start,
            end,
            similar,
            line: 0,
            keep,
            from: start,
            window: false,
        }
    }

    /// The bytes of the input it shows verbatim.
    pub fn range(&self, text: &str) -> (usize, usize) {
        let content_end = self.start + content_len(text, self);
        if self.from + self.keep == content_end {
            (self.from, self.end)
        } else {
            (self.from, self.from + self.keep)
        }
    }

    /// Bytes of the input this line stands in for, which head and tail must
    /// not grow into: the whole line, or a window's own bytes (a window may
    /// lie in a line the head or tail shows in part).
    pub fn reach(&self, text: &str) -> (usize, usize) {
        if self.window {
            self.range(text)
        } else {
            (self.start, self.end)
        }
    }
}

/// The notable lines a preview shows, in file order.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The lines.
    pub lines: Vec<Shown>,
}

/// Bytes the two markers take beyond a plain gap marker's room, at most, for
/// a text of `bytes` bytes and `lines` lines.
pub fn marker_overhead(bytes: u64, lines: u64, plain_room: usize) -> usize {
    let open = open_marker(0, 0, 0, 0, 0).len() - 5
        + 2 * digits(bytes)
        + 2 * digits(lines.max(1))
        + digits(lines)
        + 1;
    let close = close_marker(0, 0).len() - 2 + 2 * digits(lines.max(1)) + 1;
    (open + close).saturating_sub(plain_room)
}

impl Selection {
    /// Bytes and lines of the rendered lines, with every line number at
    /// most `line_digits` digits.
    pub fn cost(&self, text: &str, line_digits: usize) -> (usize, usize) {
        let bytes = self
            .lines
            .iter()
            .map(|s| rendered_len(text, s, line_digits))
            .sum();
        (bytes, self.lines.len())
    }

    /// Bytes of the line numbers of the numbered lines.
    pub fn digits_len(&self) -> usize {
        self.lines.iter().map(|s| digits(s.line)).sum()
    }

    /// Number each line: `before` and `after` are offsets of the text with
    /// their line numbers, around every line of the selection; each line is
    /// counted from the nearer one.
    pub fn number(&mut self, text: &[u8], before: (usize, u64), after: (usize, u64)) {
        let mid = before.0 + (after.0 - before.0) / 2;
        let (mut pos, mut line) = before;
        // A window may start in a line the head shows in part: its own
        // first byte is where it is counted from (the same line).
        for s in self.lines.iter_mut().filter(|s| s.from < mid) {
            line += count_lfs(&text[pos..s.from]);
            pos = s.from;
            s.line = line;
        }
        let (mut pos, mut line) = after;
        for s in self.lines.iter_mut().rev().filter(|s| s.from >= mid) {
            line -= count_lfs(&text[s.from..pos]);
            pos = s.from;
            s.line = line;
        }
    }

    /// The items that render the selection, once numbered, and their bytes.
    pub fn items(&self, text: &str) -> (Vec<Item>, usize) {
        let b = text.as_bytes();
        let mut items = Vec::new();
        let mut bytes = 0;
        for s in &self.lines {
            bytes += rendered_len(text, s, digits(s.line));
            items.push(Item::LineNo {
                line: s.line,
                similar: s.similar,
            });
            let has_lf = b[s.end - 1] == b'\n';
            let content_end = if has_lf { s.end - 1 } else { s.end };
            if s.from > s.start {
                items.push(Item::LeadCut(s.from - s.start));
            }
            if s.from + s.keep == content_end {
                items.push(Item::Range(s.from, s.end));
                if !has_lf {
                    items.push(Item::Newline);
                }
            } else if s.window {
                items.push(Item::Range(s.from, s.from + s.keep));
                items.push(Item::LineCut(content_end - s.from - s.keep));
                items.push(Item::Newline);
            } else if s.keep == content_end - s.start {
                items.push(Item::Range(s.start, s.end));
                if !has_lf {
                    items.push(Item::Newline);
                }
            } else {
                items.push(Item::Range(s.start, s.start + s.keep));
                items.push(Item::LineCut(content_end - s.start - s.keep));
                items.push(Item::Newline);
            }
        }
        (items, bytes)
    }
}

/// Bytes `s` renders to with a line number of `line_digits` digits.
pub(super) fn rendered_len(text: &str, s: &Shown, line_digits: usize) -> usize {
    let content = content_len(text, s);
    let before = s.from - s.start;
    let lead = if before > 0 {
        line_cut_marker(before).len()
    } else {
        0
    };
    let after = content - before - s.keep;
    let marker = if after > 0 {
        line_cut_marker(after).len()
    } else {
        0
    };
    line_prefix_len(line_digits, s.similar) + lead + s.keep + marker + 1
}

pub(super) fn content_len(text: &str, s: &Shown) -> usize {
    let has_lf = text.as_bytes()[s.end - 1] == b'\n';
    (if has_lf { s.end - 1 } else { s.end }) - s.start
}

/// The bytes of its text a notable line can show in `room` bytes of
/// rendering (prefix, text, cut marker and LF), at most `max_line`; `None`
/// if less than [`MIN_SHOWN`] would show.
pub(super) fn fit_line(
    text: &str,
    s: &Shown,
    max_line: Option<usize>,
    line_digits: usize,
    room: usize,
) -> Option<usize> {
    let content = content_len(text, s);
    let prefix = line_prefix_len(line_digits, s.similar);
    let limit = max_line.unwrap_or(usize::MAX);
    if content <= limit && prefix + content < room {
        return Some(content);
    }
    let marker = max_marker_len(content);
    let fit = limit.min(room.saturating_sub(prefix + marker + 1));
    let keep = floor_grapheme(text, s.start + fit.min(content)) - s.start;
    if keep == 0 || keep < MIN_SHOWN.min(content) {
        return None;
    }
    Some(keep)
}

/// What notable lines may use.
#[derive(Debug, Clone, Copy)]
pub struct Room {
    /// Bytes of rendering.
    pub bytes: usize,
    /// Lines.
    pub lines: usize,
    /// `max-line-bytes`.
    pub max_line: Option<usize>,
    /// Digits of the largest line number.
    pub line_digits: usize,
}

/// The best ranked candidates inside `lo..hi` that fit `room`, with the
/// lines they bring. Candidates are ranked by confidence, then file order,
/// except that one alike ([`Sketch::similar`]) to a line already chosen
/// waits until every other candidate of its confidence has been tried; the
/// lines that waited then fill what room is left, in file order.
pub fn select(text: &str, candidates: &[Candidate], lo: usize, hi: usize, room: Room) -> Selection {
    select_with_hits(text, candidates, lo, hi, room, &Hits::default())
}

/// The search hits of a call in the omitted bytes, for [`select_with_hits`].
#[derive(Debug, Clone, Default)]
pub struct Hits<'a> {
    /// The hits, in showing order ([`crate::preview::search::first_hits`]).
    pub hits: &'a [Hit],
    /// How many alternatives were searched for.
    pub terms: usize,
    /// The omitted bytes the hits were searched in, which a window must
    /// not go beyond (the middle, cut lines of head and tail included).
    pub middle: (usize, usize),
}

/// [`select`], the search hits first: each gets its line if that fits a
/// window whole, else a window of [`search::window_bytes`] around it, in the
/// order given (every alternative's first hit before any second), a window
/// that would overlap another in the same line merged with it, a hit
/// already shown left alone.
pub fn select_with_hits(
    text: &str,
    candidates: &[Candidate],
    lo: usize,
    hi: usize,
    room: Room,
    hits: &Hits<'_>,
) -> Selection {
    let b = text.as_bytes();
    let mut ranked: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.start >= lo && c.end <= hi)
        .collect();
    crate::order::sort_by_key(&mut ranked, |c| (std::cmp::Reverse(c.score), c.start));
    let mut chosen = Chosen {
        text,
        room,
        lines: Vec::new(),
        taken: std::collections::HashSet::new(),
        left: room.bytes,
        lines_left: room.lines,
    };
    for &hit in hits.hits {
        if chosen.lines_left == 0 {
            break;
        }
        chosen.take_hit(hit, hits, lo, hi);
    }
    // The sketches of the candidates chosen first of their kind.
    let mut shown: Vec<Sketch> = Vec::new();
    // The first (or most severe) failure with a block comes whole, first.
    if let Some((c, block)) = first_block(text, &ranked, lo, hi)
        && chosen.take_with_context(c, lo, hi)
    {
        chosen.take_block(&block);
        shown.push(Sketch::of(b[c.start..c.end].trim_ascii_end()));
    }
    let mut waiting: Vec<&Candidate> = Vec::new();
    for (i, &c) in ranked.iter().enumerate() {
        let content_end = if b[c.end - 1] == b'\n' {
            c.end - 1
        } else {
            c.end
        };
        let sketch = Sketch::of(&b[c.start..content_end]);
        if shown.iter().take(MAX_COMPARE).any(|s| s.similar(&sketch)) {
            waiting.push(c);
        } else if chosen.take_with_context(c, lo, hi) {
            shown.push(sketch);
        }
        if ranked.get(i + 1).is_none_or(|n| n.score != c.score) {
            for c in waiting.drain(..) {
                chosen.take_with_context(c, lo, hi);
            }
        }
        if chosen.lines_left == 0 {
            break;
        }
    }
    crate::order::sort_by_key(&mut chosen.lines, |s| (s.start, s.from));
    Selection {
        lines: chosen.lines,
    }
}

/// Share of the notable lines' room a failure's block may take, in percent.
pub const BLOCK_PERCENT: usize = 60;

/// Failures looked at for one with a block, at most.
pub(super) const BLOCK_TRIES: usize = 8;

/// The best ranked failure (not a warning) of `ranked` that has a block,
/// and its lines.
pub(super) fn first_block<'c>(
    text: &str,
    ranked: &[&'c Candidate],
    lo: usize,
    hi: usize,
) -> Option<(&'c Candidate, Vec<(usize, usize)>)> {
    ranked
        .iter()
        .filter(|c| c.score > WARNING_SCORE)
        .take(BLOCK_TRIES)
        .find_map(|&c| {
            let block = blocks::block(text.as_bytes(), c.start, c.end, c.kind, lo, hi);
            (!block.is_empty()).then_some((c, block))
        })
}

/// The lines [`select`] has chosen so far, and the room they leave.
pub(super) struct Chosen<'a> {
    text: &'a str,
    room: Room,
    lines: Vec<Shown>,
    taken: std::collections::HashSet<usize>,
    left: usize,
    lines_left: usize,
}

impl Chosen<'_> {
    /// Take `c` if it fits, then what it brings that fits; true when `c`
    /// was taken.
    fn take_with_context(&mut self, c: &Candidate, lo: usize, hi: usize) -> bool {
        if !self.take(c.start, c.end, c.similar) {
            return false;
        }
        for &(start, end) in &c.context {
            if start >= lo && end <= hi {
                self.take(start, end, 0);
            }
        }
        true
    }

    /// Take the lines of a block, best first, while they fit in the
    /// block's share of the room and leave lines for other failures.
    fn take_block(&mut self, block: &[(usize, usize)]) {
        let rest = |n: usize| (n as u128 * (100 - BLOCK_PERCENT) as u128 / 100) as usize;
        let (floor, lines_floor) = (rest(self.room.bytes), rest(self.room.lines));
        for &(start, end) in block {
            if self.taken.contains(&start) {
                continue;
            }
            let s = Shown::line(
                start,
                end,
                0,
                content_len(self.text, &Shown::line(start, end, 0, 0)),
            );
            let cost = rendered_len(self.text, &s, self.room.line_digits);
            if self.left < floor + cost || self.lines_left <= lines_floor {
                break;
            }
            if !self.take(start, end, 0) {
                break;
            }
        }
    }

    /// Show `hit`: its whole line when that is whole lines of `lo..hi` and
    /// no longer than a window, else a window around it within the line and
    /// the middle. Nothing when it is shown already or nothing fits.
    fn take_hit(&mut self, hit: Hit, hits: &Hits<'_>, lo: usize, hi: usize) {
        let b = self.text.as_bytes();
        let end = hit.at + hit.len;
        if self
            .lines
            .iter()
            .any(|s| s.range(self.text).0 <= hit.at && end <= s.range(self.text).1)
        {
            return;
        }
        let start = memrchr(b'\n', &b[..hit.at]).map_or(0, |i| i + 1);
        let line_end = memchr(b'\n', &b[hit.at..]).map_or(b.len(), |i| hit.at + i + 1);
        let content_end = if b[line_end - 1] == b'\n' {
            line_end - 1
        } else {
            line_end
        };
        let room = self.room;
        let width = search::window_bytes(room.bytes, hits.terms, room.max_line, hit.len);
        if start >= lo && line_end <= hi && content_end - start <= width {
            if !self.taken.contains(&start) {
                self.take(start, line_end, 0);
            }
            return;
        }
        let (mlo, mhi) = hits.middle;
        let (line_lo, line_hi) = (start.max(mlo), content_end.min(mhi));
        // A hit across the middle's edge: its part in the middle, next to
        // the side that shows the rest.
        let at = hit.at.max(line_lo);
        let part = Hit {
            at,
            len: end.min(line_hi).saturating_sub(at),
            ..hit
        };
        let Some(mut win) = search::window(self.text, part, line_lo, line_hi, width) else {
            return;
        };
        // Merge with a window of the same line it overlaps or touches.
        let mut replaces = None;
        for (i, s) in self.lines.iter().enumerate() {
            let (a, e) = s.range(self.text);
            if s.start == start && s.window && a <= win.1 && win.0 <= e && replaces.is_none() {
                win = (win.0.min(a), win.1.max(e.min(content_end)));
                replaces = Some(i);
            } else if a < win.1 && win.0 < e {
                return; // overlaps a line shown from its start, or two windows
            }
        }
        let shown = Shown {
            start,
            end: line_end,
            similar: 0,
            line: 0,
            keep: win.1 - win.0,
            from: win.0,
            window: true,
        };
        let cost = rendered_len(self.text, &shown, room.line_digits);
        let freed = replaces.map_or(0, |i| {
            rendered_len(self.text, &self.lines[i], room.line_digits)
        });
        if cost > self.left + freed {
            return;
        }
        self.left = self.left + freed - cost;
        match replaces {
            Some(i) => self.lines[i] = shown,
            None => {
                self.lines_left -= 1;
                self.taken.insert(start);
                self.lines.push(shown);
            }
        }
    }

    fn take(&mut self, start: usize, end: usize, similar: u64) -> bool {
        if self.lines_left == 0 || self.taken.contains(&start) {
            return false;
        }
        let room = self.room;
        let mut s = Shown::line(start, end, similar, 0);
        let Some(keep) = fit_line(self.text, &s, room.max_line, room.line_digits, self.left) else {
            return false;
        };
        s.keep = keep;
        let cost = rendered_len(self.text, &s, room.line_digits);
        if cost > self.left {
            return false;
        }
        self.left -= cost;
        self.lines_left -= 1;
        self.taken.insert(start);
        self.lines.push(s);
        true
    }
}
