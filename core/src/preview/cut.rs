//! Choosing the preview: which bytes of the original stay, at the head, the
//! tail or both, cutting on line boundaries when it does not waste the budget
//! and always on character boundaries.
//!
//! A [`Shape`] with every refinement off cuts exactly as 0.1 did. With them
//! on: cuts inside a line fall on extended grapheme cluster boundaries (a
//! CRLF, one cluster, stays whole), the side chosen last fills its room with
//! a part of the line that does not fit, runs of similar lines fold into a
//! marker ([`crate::preview::fold`]), and [`fill`] gives the budget left over back to
//! the lines that were cut.

mod runs;

use memchr::{memchr, memrchr};

use runs::Measure;
pub use runs::Runs;

use crate::preview::fold;
use crate::preview::render::{Item, line_cut_len, max_marker_len};
use crate::text::{GRAPHEME_REACH, ceil_boundary, ceil_grapheme, floor_boundary, floor_grapheme};

/// Bytes and lines a side of the preview may use.
#[derive(Debug, Clone, Copy)]
pub struct Allowance {
    /// Bytes of rendered text.
    pub bytes: usize,
    /// Lines of rendered text.
    pub lines: usize,
}

impl Allowance {
    /// `percent` (at most 100) of it, rounded down; no limit on lines
    /// stays none.
    pub fn percent(self, percent: usize) -> Allowance {
        Allowance {
            bytes: percent_of(self.bytes, percent),
            lines: if self.lines == usize::MAX {
                usize::MAX
            } else {
                percent_of(self.lines, percent)
            },
        }
    }

    /// What it leaves once `bytes` and `lines` of it are used; no limit on
    /// lines stays none.
    pub fn less(self, bytes: usize, lines: usize) -> Allowance {
        Allowance {
            bytes: self.bytes - bytes,
            lines: if self.lines == usize::MAX {
                usize::MAX
            } else {
                self.lines - lines
            },
        }
    }
}

/// How a side cuts: the per-line limit and the refinements that are on.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'r> {
    /// Longest line shown whole (`max-line-bytes`).
    pub max_line: Option<usize>,
    /// Cuts inside a line fall on grapheme cluster boundaries, and a CRLF is
    /// shown or cut whole.
    pub graphemes: bool,
    /// This side is chosen last: a line that does not fit is cut to fill the
    /// room, whatever the side already holds.
    pub fill_room: bool,
    /// Fold runs of similar lines, comparing at most this many bytes.
    pub fold_reach: Option<usize>,
    /// A run folded by the head stops before the text's last line, which is
    /// left to the tail (the latest state of a progress bar, say).
    pub spare_last_line: bool,
    /// A head whose fold ran up to the tail folds less, leaving the tail the
    /// lines it has room for (the preview tries both and keeps the one that
    /// shows more of the text).
    pub refold: bool,
    /// Where the long runs measured in this text are kept for the next
    /// head or tail chosen over it.
    pub runs: Option<&'r Runs>,
}

impl Shape<'_> {
    /// The 0.1 cut: no refinement.
    pub fn plain(max_line: Option<usize>) -> Shape<'static> {
        Shape {
            max_line,
            graphemes: false,
            fill_room: false,
            fold_reach: None,
            spare_last_line: false,
            refold: false,
            runs: None,
        }
    }

    pub(crate) fn floor(&self, text: &str, i: usize) -> usize {
        if self.graphemes {
            floor_grapheme(text, i)
        } else {
            floor_boundary(text, i)
        }
    }

    pub(crate) fn ceil(&self, text: &str, i: usize) -> usize {
        if self.graphemes {
            ceil_grapheme(text, i)
        } else {
            ceil_boundary(text, i)
        }
    }

    /// `k` bytes of a line of `content` bytes at `start` shortened by
    /// `max-line-bytes`, or, when that is none and clusters are kept whole,
    /// its first cluster if it fits `room` with the marker: a cluster longer
    /// than `max-line-bytes` is not cut.
    fn at_least_a_cluster(
        &self,
        text: &str,
        start: usize,
        k: usize,
        content: usize,
        room: usize,
    ) -> usize {
        if k > 0 || !self.graphemes {
            return k;
        }
        let one = ceil_grapheme(text, start + 1) - start;
        let marker = if one < content {
            max_marker_len(content)
        } else {
            0
        };
        if one <= content && one + marker <= room {
            one
        } else {
            0
        }
    }

    /// Where the body of the line `start..content_end` ends: before the CR
    /// of a CRLF when cuts keep clusters whole (CR LF is one), else at its
    /// LF or the end of the text.
    fn body_end(&self, b: &[u8], start: usize, content_end: usize, has_lf: bool) -> usize {
        if self.graphemes && has_lf && content_end > start && b[content_end - 1] == b'\r' {
            content_end - 1
        } else {
            content_end
        }
    }
}

/// One end of a preview.
#[derive(Debug, Clone, Default)]
pub struct Side {
    /// Items in output order.
    pub items: Vec<Item>,
    /// Rendered bytes.
    pub bytes: usize,
    /// Rendered lines.
    pub lines: usize,
    /// Lines of the input folded into markers.
    pub folded: u64,
}

/// A run of lines similar to one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Run {
    /// Lines in the run, the one shown excluded.
    lines: u64,
    /// Bytes of those lines.
    bytes: usize,
    /// Where the run ends (head) or starts (tail).
    edge: usize,
    /// The run went on past the fold reach.
    by_reach: bool,
}

impl Run {
    /// No lines, at `edge`.
    fn empty(edge: usize) -> Run {
        Run {
            lines: 0,
            bytes: 0,
            edge,
            by_reach: false,
        }
    }

    /// Whether folding the run saves bytes and lines.
    fn worth_it(&self) -> bool {
        self.lines >= fold::FOLD_MIN && self.bytes > fold::marker_len(self.lines)
    }
}

/// The run a side measured last: where it was measured from (the start of
/// its first line after the head's line, or the end of its first line
/// before the tail's) and what it was. [`fold::similar`] compares lines
/// with their digit runs collapsed, so lines alike are one class: the run
/// of the next line, itself the run's first, is the run without that line,
/// measured on from where it stopped if the fold reach stopped it. This
/// keeps a side of a log whose lines are all alike linear in its lines,
/// not quadratic (a 4 MiB log of lines alike took 489 ms before the reach
/// was resumed, every line measuring 1 MiB again).
#[derive(Debug, Clone, Copy)]
struct LastRun {
    at: usize,
    run: Run,
}

impl LastRun {
    /// The run of the line `line_start..line_end`, when it is the first line
    /// of this run, as far as this run went (if the reach stopped it, the
    /// run without the line may go further: the caller measures on).
    fn without_first(
        last: Option<LastRun>,
        line_start: usize,
        line_end: usize,
        forward: bool,
    ) -> Option<Run> {
        let last = last?;
        let first = if forward { line_start } else { line_end };
        if last.at != first || last.run.lines == 0 {
            return None;
        }
        Some(Run {
            lines: last.run.lines - 1,
            bytes: last.run.bytes - (line_end - line_start),
            edge: last.run.edge,
            by_reach: false,
        })
    }
}

/// The run after the line `line` (its start, content end and end): `last`
/// without that line when it opens it, measured on from its edge.
fn next_run_after(
    last: Option<LastRun>,
    b: &[u8],
    (start, content_end, end_of_line): (usize, usize, usize),
    (end, reach, spare_last): (usize, usize, bool),
    runs: Option<&Runs>,
) -> Run {
    // A run that stopped before a line unlike it stops there again after
    // one comparison; one the reach stopped goes on.
    let run =
        LastRun::without_first(last, start, end_of_line, true).unwrap_or(Run::empty(end_of_line));
    let measure = Measure {
        forward: true,
        line: (start, content_end),
        from: run,
        reach,
        spare_last,
    };
    let run_it = || extend_after(b, &b[start..content_end], run, end, reach, spare_last);
    match runs {
        Some(runs) => runs.run(measure, end, run_it),
        None => run_it().0,
    }
}

/// The run before the line `line` (its start, content end and end): `last`
/// without that line when it opens it, measured on from its edge.
fn next_run_before(
    last: Option<LastRun>,
    b: &[u8],
    (start, content_end, end_of_line): (usize, usize, usize),
    (floor, reach): (usize, usize),
    runs: Option<&Runs>,
) -> Run {
    let run = LastRun::without_first(last, start, end_of_line, false).unwrap_or(Run::empty(start));
    let measure = Measure {
        forward: false,
        line: (start, content_end),
        from: run,
        reach,
        spare_last: false,
    };
    let run_it = || extend_before(b, &b[start..content_end], run, floor, reach);
    match runs {
        Some(runs) => runs.run(measure, floor, run_it),
        None => run_it().0,
    }
}

/// `run`, lines similar to `line` that end at its edge, with the similar
/// lines after it, to at most `reach` bytes; with `spare_last`, not the
/// line that ends at `end`. With it, where the line that stopped it ends,
/// LF included, when one did (unlike `line`, or past the reach): the same
/// run up to any `end` after that.
fn extend_after(
    b: &[u8],
    line: &[u8],
    mut run: Run,
    end: usize,
    reach: usize,
    spare_last: bool,
) -> (Run, Option<usize>) {
    run.by_reach = false;
    let mut p = run.edge;
    while p < end {
        let nl = memchr(b'\n', &b[p..end]).map(|i| p + i);
        let (content_end, line_end) = nl.map_or((end, end), |i| (i, i + 1));
        if spare_last && line_end == end {
            break;
        }
        let stopped = nl.map(|_| line_end);
        if !fold::similar(line, &b[p..content_end]) {
            return (run, stopped);
        }
        if run.bytes + (line_end - p) > reach {
            run.by_reach = true;
            return (run, stopped);
        }
        run.lines += 1;
        run.bytes += line_end - p;
        p = line_end;
        run.edge = p;
    }
    (run, None)
}

/// `run`, lines similar to `line` that start at its edge, with the similar
/// whole lines before it (down to `start`), to at most `reach` bytes. With
/// it, where the line that stopped it starts when one did (unlike `line`,
/// or past the reach) and it starts after a LF: the same run down to any
/// `start` up to that.
fn extend_before(
    b: &[u8],
    line: &[u8],
    mut run: Run,
    start: usize,
    reach: usize,
) -> (Run, Option<usize>) {
    run.by_reach = false;
    let mut p = run.edge;
    // Each line before `p` ends with a LF at `p - 1`.
    while p > start {
        let content_end = p - 1;
        let after_lf = memrchr(b'\n', &b[start..content_end]).map(|i| start + i + 1);
        let line_start = after_lf.unwrap_or(start);
        if line_start == start && start > 0 && b[start - 1] != b'\n' {
            break; // shown in part by the head
        }
        if !fold::similar(line, &b[line_start..content_end]) {
            return (run, after_lf);
        }
        if run.bytes + (p - line_start) > reach {
            run.by_reach = true;
            return (run, after_lf);
        }
        run.lines += 1;
        run.bytes += p - line_start;
        p = line_start;
        run.edge = p;
    }
    (run, None)
}

/// Take whole lines from the start of `text[..end]` while they fit. A line
/// over `max_line` bytes is shortened with a marker; a line that does not fit
/// is cut only if the head would otherwise stay under half full (or, with
/// `fill_room`, always).
pub fn head(text: &str, end: usize, allow: Allowance, shape: Shape) -> (Side, usize) {
    let b = text.as_bytes();
    let mut side = Side::default();
    let mut pos = 0;
    let mut reach = shape.fold_reach.unwrap_or(0);
    let mut last_run: Option<LastRun> = None;
    while pos < end && side.lines < allow.lines {
        let room = allow.bytes - side.bytes;
        let nl = memchr(b'\n', &b[pos..end]).map(|i| pos + i);
        let content_end = nl.unwrap_or(end);
        let line_end = nl.map_or(end, |i| i + 1);
        let body = shape.body_end(b, pos, content_end, nl.is_some());
        let content = body - pos;
        let too_long = shape.max_line.is_some_and(|m| content > m);
        let line_start = pos;
        if !too_long && line_end - pos <= room {
            side.push(Item::Range(pos, line_end), line_end - pos);
            side.lines += 1;
            pos = line_end;
        } else if let (true, Some(m)) = (too_long, shape.max_line) {
            let term = if nl.is_some() { line_end - body } else { 1 };
            let keep = m.min(room.saturating_sub(max_marker_len(content) + term));
            let k = shape.at_least_a_cluster(
                text,
                pos,
                shape.floor(text, pos + keep) - pos,
                content,
                room.saturating_sub(term),
            );
            if k == 0 {
                break;
            }
            if nl.is_none() || (shape.graphemes && line_end == b.len()) {
                // The text's last line: its end is left to the tail, which
                // can show it (a single-line bundle or grep hit then shows
                // both of its ends, with or without a final LF).
                side.push(Item::Range(pos, pos + k), k);
                side.push(Item::Newline, 1);
                side.lines += 1;
                pos += k;
                break;
            }
            side.push(Item::Range(pos, pos + k), k);
            let marker = Item::LineCut(content - k);
            side.push(marker, line_cut_len(content - k));
            side.push(Item::Range(body, line_end), line_end - body);
            side.lines += 1;
            pos = line_end;
        } else {
            if side.bytes * 2 < allow.bytes || shape.fill_room {
                let k = shape.floor(text, pos + room.saturating_sub(1)) - pos;
                if k > 0 {
                    side.push(Item::Range(pos, pos + k), k);
                    side.push(Item::Newline, 1);
                    side.lines += 1;
                    pos += k;
                }
            }
            break;
        }
        // The line is shown (whole or shortened) and ends with a LF: fold
        // the similar lines after it.
        if shape.fold_reach.is_some() && nl.is_some() && side.lines < allow.lines {
            let spare = shape.spare_last_line && end == b.len();
            let line = (line_start, content_end, pos);
            let run = next_run_after(last_run, b, line, (end, reach, spare), shape.runs);
            last_run = Some(LastRun { at: pos, run });
            let marker = fold::marker_len(run.lines);
            // Folding is worth it only when what follows the run can use the
            // room it frees; otherwise the run's own lines fill the side.
            let room_after = allow.bytes - side.bytes;
            let frees_room = !run.by_reach && end - run.edge >= room_after;
            if run.worth_it() && frees_room && marker <= room_after {
                side.push(
                    Item::Fold {
                        lines: run.lines,
                        below: false,
                    },
                    marker,
                );
                side.lines += 1;
                side.folded += run.lines;
                reach -= run.bytes;
                pos = run.edge;
                last_run = None;
                if run.by_reach {
                    break;
                }
            }
        }
    }
    (side, pos)
}

/// Take whole lines from the end of `text[start..]` while they fit, the mirror
/// of [`head`]. A line shortened by `max_line` shows its start, as in the head;
/// a line cut for the budget shows its end.
pub fn tail(text: &str, start: usize, allow: Allowance, shape: Shape) -> (Side, usize) {
    let b = text.as_bytes();
    let mut rev: Vec<Item> = Vec::new();
    let mut side = Side::default();
    let mut pos = text.len();
    let mut reach = shape.fold_reach.unwrap_or(0);
    let mut last_run: Option<LastRun> = None;
    while pos > start && side.lines < allow.lines {
        let room = allow.bytes - side.bytes;
        let line_end = pos;
        let has_lf = b[pos - 1] == b'\n';
        let content_end = if has_lf { pos - 1 } else { pos };
        let line_start = memrchr(b'\n', &b[start..content_end]).map_or(start, |i| start + i + 1);
        let body = shape.body_end(b, line_start, content_end, has_lf);
        let content = body - line_start;
        // A line whose start the head already showed is continued, not restarted.
        let continued = line_start == start && start > 0 && b[start - 1] != b'\n';
        let too_long = shape.max_line.is_some_and(|m| content > m);
        let whole = line_end - line_start;
        if !too_long && whole <= room {
            push_rev(
                &mut rev,
                &mut side,
                &[Item::Range(line_start, line_end)],
                whole,
            );
            pos = line_start;
        } else if let (true, false, Some(m)) = (too_long, continued, shape.max_line) {
            let term = if body < line_end { line_end - body } else { 1 };
            let keep = m.min(room.saturating_sub(max_marker_len(content) + term));
            let k = shape.floor(text, line_start + keep) - line_start;
            let k =
                shape.at_least_a_cluster(text, line_start, k, content, room.saturating_sub(term));
            if k == 0 {
                break;
            }
            let marker_len = line_cut_len(content - k);
            let end_item = if body < line_end {
                Item::Range(body, line_end)
            } else {
                Item::Newline
            };
            let items = [
                Item::Range(line_start, line_start + k),
                Item::LineCut(content - k),
                end_item,
            ];
            push_rev(&mut rev, &mut side, &items, k + marker_len + term);
            pos = line_start;
        } else {
            if side.bytes * 2 < allow.bytes || continued || shape.fill_room {
                let keep = room.min(shape.max_line.map_or(usize::MAX, |m| m + (line_end - body)));
                let s = shape.ceil(text, line_end - keep.min(whole));
                // A part with none of the line's text (its line break
                // alone) would show as an empty line that is not one.
                if s < body {
                    push_rev(
                        &mut rev,
                        &mut side,
                        &[Item::Range(s, line_end)],
                        line_end - s,
                    );
                    pos = s;
                }
            }
            break;
        }
        // The line is shown whole or shortened: fold the similar whole lines
        // before it.
        if shape.fold_reach.is_some() && !continued && side.lines < allow.lines {
            let line = (line_start, content_end, line_end);
            let run = next_run_before(last_run, b, line, (start, reach), shape.runs);
            last_run = Some(LastRun { at: pos, run });
            let marker = fold::marker_len(run.lines);
            let room_after = allow.bytes - side.bytes;
            let frees_room = !run.by_reach && run.edge - start >= room_after;
            if run.worth_it() && frees_room && marker <= room_after {
                let fold = Item::Fold {
                    lines: run.lines,
                    below: true,
                };
                push_rev(&mut rev, &mut side, &[fold], marker);
                side.folded += run.lines;
                reach -= run.bytes;
                pos = run.edge;
                last_run = None;
                if run.by_reach {
                    break;
                }
            }
        }
    }
    rev.reverse();
    side.items = rev;
    (side, pos)
}

fn push_rev(rev: &mut Vec<Item>, side: &mut Side, items: &[Item], bytes: usize) {
    rev.extend(items.iter().rev());
    side.bytes += bytes;
    side.lines += 1;
}

impl Side {
    fn push(&mut self, item: Item, bytes: usize) {
        self.items.push(item);
        self.bytes += bytes;
    }

    /// Bytes of the original shown by this side.
    pub fn shown(&self) -> usize {
        self.items
            .iter()
            .map(|i| if let Item::Range(a, b) = i { b - a } else { 0 })
            .sum()
    }

    /// The original ranges shown, in order (empty ones left out).
    pub fn ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.items.iter().filter_map(|i| match *i {
            Item::Range(a, b) if a < b => Some((a, b)),
            _ => None,
        })
    }

    /// Where this side's shown text starts in the original (a tail's start).
    pub fn start(&self) -> Option<usize> {
        self.ranges().next().map(|(a, _)| a)
    }
}

/// What [`fill`] may grow: the omitted middle, and who may start a new line
/// in it.
#[derive(Debug, Clone, Copy)]
pub struct Middle {
    /// Where the middle starts (after the head and the lines it folded).
    pub head_end: usize,
    /// Where it ends (before the tail and the lines it folded).
    pub tail_start: usize,
    /// The head may grow up to here (the first notable line, or the tail).
    pub head_max: usize,
    /// The tail may grow down to here (after the last notable line, or the
    /// head).
    pub tail_min: usize,
    /// The side chosen last may start showing one more line in part.
    pub new_line: Option<Last>,
}

/// The side a preview chooses last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Last {
    /// Keep head only.
    Head,
    /// Keep tail, or head and tail.
    Tail,
}

/// One piece [`fill`] can grow.
#[derive(Debug, Clone, Copy)]
enum Piece {
    /// A line shortened by `max-line-bytes`: `items[at]` is its shown
    /// `Range`, `items[at + 1]` its `LineCut`.
    Cut { tail: bool, at: usize },
    /// The head's last line, shown in part: `head.items[at]` is its `Range`
    /// (a `Newline` follows), ending at the middle.
    HeadEnd { at: usize },
    /// The tail's first line, shown from within (or not yet at all):
    /// `tail.items[0]`, starting at the middle.
    TailStart,
}

/// The budget [`fill`] has left, and the middle as it shrinks.
#[derive(Debug)]
struct Budget {
    bytes: usize,
    lines: usize,
    middle: Middle,
}

/// Give up to `room.bytes` bytes (and `room.lines` lines) of unused budget to
/// the lines the preview cut, evenly, on grapheme boundaries: lines
/// shortened by `max-line-bytes` grow back towards their whole length, the
/// head's last line and the tail's first line grow into the omitted middle,
/// and the side chosen last ([`Middle::new_line`]) goes on into further
/// lines while lines are left. The middle never closes inside a line.
/// Returns the middle's new bounds.
pub fn fill(
    text: &str,
    head: &mut Side,
    tail: &mut Side,
    room: Allowance,
    middle: Middle,
) -> (usize, usize) {
    let b = text.as_bytes();
    let open = middle.head_end < middle.tail_start;
    let mut left = Budget {
        bytes: room.bytes,
        lines: room.lines,
        middle,
    };
    let mut pieces = Vec::new();
    for (in_tail, side) in [(false, &*head), (true, &*tail)] {
        for (at, w) in side.items.windows(2).enumerate() {
            if let [Item::Range(..), Item::LineCut(c)] = w
                && *c > 0
            {
                pieces.push(Piece::Cut { tail: in_tail, at });
            }
        }
    }
    let at_line_start = |i: usize| i == 0 || b[i - 1] == b'\n';
    if open {
        let e = middle.head_end;
        if let [.., Item::Range(_, end), Item::Newline] = head.items[..]
            && end == e
        {
            pieces.push(Piece::HeadEnd {
                at: head.items.len() - 2,
            });
        } else if middle.new_line == Some(Last::Head)
            && at_line_start(e)
            && left.lines > 0
            && left.bytes > 0
        {
            head.items.push(Item::Range(e, e));
            head.items.push(Item::Newline);
            head.bytes += 1;
            head.lines += 1;
            left.bytes -= 1;
            left.lines -= 1;
            pieces.push(Piece::HeadEnd {
                at: head.items.len() - 2,
            });
        }
        let s = middle.tail_start;
        match tail.items.first() {
            Some(Item::Range(start, _)) if *start == s => pieces.push(Piece::TailStart),
            _ if middle.new_line == Some(Last::Tail) => {
                // Nothing shown from the line before the tail (or its
                // folds) yet: an empty range to grow.
                tail.items.insert(0, Item::Range(s, s));
                for p in &mut pieces {
                    if let Piece::Cut { tail: true, at } = p {
                        *at += 1;
                    }
                }
                pieces.push(Piece::TailStart);
            }
            _ => {}
        }
    }
    let mut done = vec![false; pieces.len()];
    while left.bytes > 0 {
        let active = done.iter().filter(|d| !**d).count();
        if active == 0 {
            break;
        }
        let share = (left.bytes / active).max(1);
        let mut progressed = false;
        for i in 0..pieces.len() {
            if done[i] || left.bytes == 0 {
                continue;
            }
            let want = share.min(left.bytes);
            // A piece that cannot grow now may after others give bytes back.
            if let Some(whole) = grow(text, head, tail, &mut pieces[i], want, &mut left) {
                progressed = true;
                done[i] = whole;
            }
        }
        if !progressed {
            break;
        }
    }
    // Markers of lines now whole, and new lines that got nothing, go.
    for side in [&mut *head, &mut *tail] {
        side.items.retain(|i| *i != Item::LineCut(0));
    }
    if let Some(Item::Range(s, e)) = tail.items.first()
        && s == e
    {
        tail.items.remove(0);
    }
    if let [.., Item::Range(s, e), Item::Newline] = head.items[..]
        && s == e
    {
        head.items.truncate(head.items.len() - 2);
        head.lines -= 1;
        head.bytes -= 1;
    }
    (left.middle.head_end, left.middle.tail_start)
}

/// Grow `piece` by about `want` bytes of text, within `left`; whether the
/// piece is done, or `None` when it cannot grow.
fn grow(
    text: &str,
    head: &mut Side,
    tail: &mut Side,
    piece: &mut Piece,
    want: usize,
    left: &mut Budget,
) -> Option<bool> {
    let b = text.as_bytes();
    let middle = &mut left.middle;
    match *piece {
        Piece::Cut { tail: in_tail, at } => {
            let side = if in_tail { tail } else { head };
            let (Item::Range(a, e), Item::LineCut(c)) = (side.items[at], side.items[at + 1]) else {
                return None;
            };
            let limit = e + c;
            let e2 = step_forward(text, e, want, limit)?;
            let c2 = limit - e2;
            // Growing shrinks the marker, or drops it: the cost may be a gain.
            let new = e2 - e + line_cut_len(c2);
            let old = line_cut_len(c);
            if new > old + left.bytes {
                return None;
            }
            side.items[at] = Item::Range(a, e2);
            side.items[at + 1] = Item::LineCut(c2);
            side.bytes = side.bytes + new - old;
            left.bytes = left.bytes + old - new;
            Some(c2 == 0)
        }
        Piece::HeadEnd { at } => {
            let Item::Range(a, e) = head.items[at] else {
                return None;
            };
            // Up to the end of this line's body, never into the tail.
            let hard = middle.head_max.min(middle.tail_start.saturating_sub(1));
            // The line's end, as far as the bytes left could reach.
            let window = (e + left.bytes + GRAPHEME_REACH).min(hard);
            let limit = if e >= window {
                e
            } else {
                memchr(b'\n', &b[e..window]).map_or(window, |i| e + i)
            };
            let at_end = matches!(&b[e..], [b'\n', ..] | [b'\r', b'\n', ..]);
            let e2 = if at_end {
                e
            } else {
                step_forward(text, e, want, limit)?
            };
            // Grown to its end, the line is whole: its own LF (or CRLF)
            // replaces the one added.
            let terminator = match &b[e2..] {
                [b'\n', ..] => 1,
                [b'\r', b'\n', ..] => 2,
                _ => 0,
            };
            if terminator > 0 && e2 + terminator <= middle.tail_start {
                let cost = (e2 - e) + terminator - 1;
                if cost > left.bytes {
                    return None;
                }
                let line_end = e2 + terminator;
                head.items[at] = Item::Range(a, line_end);
                head.items.remove(at + 1);
                head.bytes += cost;
                left.bytes -= cost;
                middle.head_end = line_end;
                // The side chosen last goes on with the next line.
                let more = middle.new_line == Some(Last::Head)
                    && line_end < middle.head_max.min(middle.tail_start)
                    && left.lines > 0
                    && left.bytes > 0;
                if !more {
                    return Some(true);
                }
                head.items.push(Item::Range(line_end, line_end));
                head.items.push(Item::Newline);
                head.bytes += 1;
                head.lines += 1;
                left.bytes -= 1;
                left.lines -= 1;
                *piece = Piece::HeadEnd {
                    at: head.items.len() - 2,
                };
                return Some(false);
            }
            if e2 - e > left.bytes {
                return None;
            }
            head.items[at] = Item::Range(a, e2);
            head.bytes += e2 - e;
            left.bytes -= e2 - e;
            middle.head_end = e2;
            Some(false)
        }
        Piece::TailStart => {
            let Some(Item::Range(s, e)) = tail.items.first().copied() else {
                return None;
            };
            let hard = middle.tail_min.max(middle.head_end + 1);
            // Nothing shown yet, or a whole line shown first: the next bytes
            // are on a new line of the preview.
            let fresh = s == e;
            let crossing = s > 0 && b[s - 1] == b'\n';
            let new_line = fresh || crossing;
            if new_line && (left.lines == 0 || middle.new_line != Some(Last::Tail)) {
                return None;
            }
            // A new line starts with the LF that ends it.
            let search_end = if crossing { s - 1 } else { s };
            let window = search_end
                .saturating_sub(left.bytes + GRAPHEME_REACH)
                .max(hard);
            let limit = if window >= search_end {
                window.min(s)
            } else {
                memrchr(b'\n', &b[window..search_end]).map_or(window, |i| window + i + 1)
            };
            let s2 = step_back(text, s, want, limit)?;
            if s - s2 > left.bytes {
                return None;
            }
            // Across a line start the range spans two lines: rendering and
            // accounting take ranges of any length.
            tail.items[0] = Item::Range(s2, e);
            if new_line {
                tail.lines += 1;
                left.lines -= 1;
            }
            tail.bytes += s - s2;
            left.bytes -= s - s2;
            middle.tail_start = s2;
            Some(false)
        }
    }
}

/// A grapheme boundary after `e`, about `want` bytes on, at most `limit`.
fn step_forward(text: &str, e: usize, want: usize, limit: usize) -> Option<usize> {
    if e >= limit {
        return None;
    }
    let mut e2 = floor_grapheme(text, (e + want).min(limit));
    if e2 <= e {
        e2 = ceil_grapheme(text, e + 1);
    }
    (e2 > e && e2 <= limit).then_some(e2)
}

/// A grapheme boundary before `s`, about `want` bytes back, at least `limit`.
fn step_back(text: &str, s: usize, want: usize, limit: usize) -> Option<usize> {
    if s <= limit {
        return None;
    }
    let mut s2 = ceil_grapheme(text, s.saturating_sub(want).max(limit));
    if s2 >= s {
        s2 = floor_grapheme(text, s - 1);
    }
    (s2 < s && s2 >= limit).then_some(s2)
}

/// `percent` of `n`, rounded down, without the overflow of `n * percent`:
/// line allowances can be near `usize::MAX` (a 32-bit `usize` in the
/// guest).
fn percent_of(n: usize, percent: usize) -> usize {
    n / 100 * percent + n % 100 * percent / 100
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A new scan: the lines from `from` on (up to `end`) similar to `line`; with
    /// `spare_last`, not the line that ends at `end`.
    fn run_after(
        b: &[u8],
        line: &[u8],
        from: usize,
        end: usize,
        reach: usize,
        spare_last: bool,
    ) -> Run {
        extend_after(b, line, Run::empty(from), end, reach, spare_last).0
    }

    /// A new scan: the whole lines before `to` (down to `start`) similar to `line`.
    fn run_before(b: &[u8], line: &[u8], to: usize, start: usize, reach: usize) -> Run {
        extend_before(b, line, Run::empty(to), start, reach).0
    }

    /// A tail with room for a line break alone of the line before it does
    /// not take it: that would show an empty line the text does not have
    /// (and a search window reaching that line's end showed the byte twice).
    #[test]
    fn a_tail_takes_no_line_break_without_its_line() {
        let text = "aaaa\nbbbb\n";
        let shape = Shape {
            fill_room: true,
            ..Shape::plain(None)
        };
        for (bytes, start) in [(6, 5), (7, 3)] {
            let allow = Allowance { bytes, lines: 9 };
            let (side, pos) = tail(text, 0, allow, shape);
            assert_eq!(pos, start, "{bytes} bytes");
            assert_eq!(side.bytes, text.len() - start);
        }
        // A CRLF is one cluster, the line's break (with graphemes, as every
        // preview feature on has it).
        let crlf = "aaaa\r\nbbbb\r\n";
        let shape = Shape {
            graphemes: true,
            ..shape
        };
        let allow = Allowance { bytes: 8, lines: 9 };
        assert_eq!(tail(crlf, 0, allow, shape).1, 6);
    }

    /// `(start, end)` of each line, `end` after its LF.
    fn lines_of(b: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut p = 0;
        while p < b.len() {
            let e = memchr(b'\n', &b[p..]).map_or(b.len(), |i| p + i + 1);
            out.push((p, e));
            p = e;
        }
        out
    }

    proptest! {
        /// The share of an allowance is `floor(n * percent / 100)` for any
        /// `n`, near `usize::MAX` too, where the product overflows.
        #[test]
        fn a_percent_of_any_allowance_is_exact(
            n in prop_oneof![0usize..1000, any::<usize>(), (usize::MAX - 1000)..usize::MAX],
            percent in 0usize..=100,
        ) {
            let exact = (n as u128 * percent as u128 / 100) as usize;
            prop_assert_eq!(percent_of(n, percent), exact);
            let share = Allowance { bytes: n, lines: n }.percent(percent);
            prop_assert_eq!(share.bytes, exact);
            prop_assert_eq!(share.lines, if n == usize::MAX { usize::MAX } else { exact });
        }
    }

    /// Lines in runs: each run's lines differ only in their numbers, and
    /// the runs' words differ, so a side folds each run.
    fn runs_of_alike_lines(runs: &[(usize, usize)]) -> String {
        use std::fmt::Write as _;
        let words = ["building", "fetch", "x", "test case"];
        let mut text = String::new();
        for (i, &(word, lines)) in runs.iter().enumerate() {
            for j in 0..lines {
                let _ = writeln!(text, "{} {j} of run {i}", words[word]);
            }
        }
        text
    }

    fn same_sides(a: &(Side, usize), b: &(Side, usize)) -> bool {
        let ((a, a_end), (b, b_end)) = (a, b);
        (a.items.as_slice(), a.bytes, a.lines, a.folded, a_end)
            == (b.items.as_slice(), b.bytes, b.lines, b.folded, b_end)
    }

    proptest! {
        /// Heads and tails chosen with the runs kept from the choices
        /// before them, over the same text but to other limits (a tail
        /// stops where the head ends, and that moves with the head's room),
        /// are the ones chosen by measuring every run anew.
        #[test]
        fn kept_runs_choose_the_sides_new_measures_do(
            runs in prop::collection::vec((0usize..4, 1usize..700), 1..6),
            choices in prop::collection::vec(
                ((0usize..=100, -1isize..=1), (0usize..=100, -1isize..=1), 40usize..3000),
                1..6,
            ),
            reach in prop_oneof![Just(usize::MAX), 2000usize..40_000],
            spare_last_line: bool,
        ) {
            let text = runs_of_alike_lines(&runs);
            let starts: Vec<usize> = lines_of(text.as_bytes()).iter().map(|l| l.0).collect();
            // Limits at line starts and a byte either side, where a kept
            // run's line that stopped it decides.
            let near_a_line = |(percent, by): (usize, isize)| {
                let at = starts[percent_of(starts.len() - 1, percent)];
                at.saturating_add_signed(by).min(text.len())
            };
            let kept = Runs::default();
            let anew = Shape {
                fold_reach: Some(reach),
                spare_last_line,
                ..Shape::plain(Some(200))
            };
            let with_kept = Shape {
                runs: Some(&kept),
                ..anew
            };
            for (end, start, room) in choices {
                let allow = Allowance { bytes: room, lines: usize::MAX };
                let end = near_a_line(end).max(1);
                prop_assert!(same_sides(
                    &head(&text, end, allow, with_kept),
                    &head(&text, end, allow, anew),
                ));
                let start = near_a_line(start);
                prop_assert!(same_sides(
                    &tail(&text, start, allow, with_kept),
                    &tail(&text, start, allow, anew),
                ));
            }
        }
    }

    proptest! {
        /// A run kept from one measure is the run a new measure finds to
        /// another limit, up to the byte: limits at the line that stopped
        /// the kept run and a byte either side, where it decides.
        #[test]
        fn a_kept_run_is_the_run_measured_to_another_limit(
            runs in prop::collection::vec((0usize..4, 150usize..700), 1..4),
            lines in prop::collection::vec(0usize..=100, 1..4),
            first_limit in 0usize..=100,
            reach in prop_oneof![Just(usize::MAX), 2000usize..20_000],
            spare_last: bool,
        ) {
            let text = runs_of_alike_lines(&runs);
            let b = text.as_bytes();
            let all = lines_of(b);
            for percent in lines {
                let kept = Runs::default();
                let (s, e) = all[percent_of(all.len() - 1, percent)];
                let (line, content) = ((s, e - 1, e), &b[s..e - 1]);
                let end = e + percent_of(b.len() - e, first_limit);
                let (_, stopped) = extend_after(b, content, Run::empty(e), end, reach, spare_last);
                let near = stopped.map_or(vec![], |at| vec![at, at - 1, at + 1]);
                for end in [end].into_iter().chain(near).map(|at| at.clamp(e, b.len())) {
                    let after = (end, reach, spare_last);
                    prop_assert_eq!(
                        next_run_after(None, b, line, after, Some(&kept)),
                        next_run_after(None, b, line, after, None),
                    );
                }
                let floor = percent_of(s, first_limit);
                let (_, stopped) = extend_before(b, content, Run::empty(s), floor, reach);
                let near = stopped.map_or(vec![], |at| vec![at, at - 1, at + 1]);
                for floor in [floor].into_iter().chain(near).map(|at| at.min(s)) {
                    prop_assert_eq!(
                        next_run_before(None, b, line, (floor, reach), Some(&kept)),
                        next_run_before(None, b, line, (floor, reach), None),
                    );
                }
            }
        }
    }

    #[test]
    fn a_side_measures_a_long_run_once() {
        // One run of lines alike longer than the reach: each side measures
        // it up to the reach, and does not fold it.
        let text = runs_of_alike_lines(&[(0, 5000)]);
        let kept = Runs::default();
        let shape = Shape {
            fold_reach: Some(fold::MIN_REACH / 64),
            runs: Some(&kept),
            ..Shape::plain(None)
        };
        let allow = Allowance {
            bytes: 2000,
            lines: usize::MAX,
        };
        let (first, _) = head(&text, text.len(), allow, shape);
        assert_eq!((first.folded, kept.kept()), (0, 1));
        let (tail_side, _) = tail(&text, 100, allow, shape);
        assert_eq!((tail_side.folded, kept.kept()), (0, 2));
        // Chosen again, with other rooms and the tail to another limit:
        // nothing new is measured at length.
        let allow = Allowance {
            bytes: 3000,
            lines: usize::MAX,
        };
        head(&text, text.len(), allow, shape);
        tail(&text, 4000, allow, shape);
        assert_eq!(kept.kept(), 2);
    }

    proptest! {
        /// The run of a line that opens the last run measured is that run
        /// without it, in both directions: what [`LastRun`] reuses is what
        /// a new scan finds.
        #[test]
        fn a_runs_first_line_has_the_rest_of_the_run(
            lines in prop::collection::vec(
                prop_oneof![Just("a1"), Just("a22"), Just("b1"), Just(""), Just("a1 x")],
                1..40,
            ),
            reach in 0usize..200,
        ) {
            let text = lines.join("\n") + "\n";
            let b = text.as_bytes();
            let all = lines_of(b);
            let content = |(s, e): (usize, usize)| &b[s..e - 1];
            let line = |(s, e): (usize, usize)| (s, e - 1, e);
            for w in all.windows(2) {
                let (this, next) = (w[0], w[1]);
                // Whether or not the reach stopped the last run.
                let run = run_after(b, content(this), this.1, b.len(), reach, false);
                let last = Some(LastRun { at: this.1, run });
                let derived = next_run_after(last, b, line(next), (b.len(), reach, false), None);
                let scanned = run_after(b, content(next), next.1, b.len(), reach, false);
                prop_assert_eq!(derived, scanned);
                let run = run_before(b, content(next), next.0, 0, reach);
                let last = Some(LastRun { at: next.0, run });
                let derived = next_run_before(last, b, line(this), (0, reach), None);
                let scanned = run_before(b, content(this), this.0, 0, reach);
                prop_assert_eq!(derived, scanned);
            }
        }
    }
}
