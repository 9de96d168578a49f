//! The one-pass preview: head, notable lines and tail chosen from what the
//! one-pass engine kept, in the format of the whole-text
//! preview, with exact accounting from the offsets and line numbers of the
//! ranges shown.

pub(crate) mod kept;

use memchr::{memchr, memrchr};

pub(crate) use kept::{Block, Notable, Retained, WINDOW_SCORE};

use crate::budget::{Budget, Keep};
use crate::notice::{self, GAP_LINES, Loss, NoticeForm, Saved};
use crate::preview::Preview;
use crate::preview::account::{self, Span};
use crate::preview::cut::Allowance;
use crate::preview::notable;
use crate::preview::render::{
    self, Item, Layout, Omitted, line_cut_len, line_cut_marker, line_prefix, max_marker_len,
};
use crate::preview::search;
use crate::room::{self, NoticeParts};

/// Shortest part of a notable line worth showing when it must be cut.
const MIN_SHOWN: usize = 24;

/// One piece of a side of the preview.
#[derive(Debug, Clone, Copy)]
enum Piece {
    /// Bytes `a..e` of the kept head.
    Head(usize, usize),
    /// Bytes `a..e` of the text, from the kept tail.
    Ring(u64, u64),
    /// The marker of a line shortened by this many bytes.
    Cut(u64),
    /// A LF that ends a line shown in part.
    Newline,
    /// The window around a search hit that notable line `i` keeps, shown in
    /// a line the side shows shortened.
    Window(usize),
    /// The marker of the bytes between two parts of a line shown apart.
    MidCut(u64),
}

/// One end of the preview.
#[derive(Debug, Clone, Default)]
struct Side {
    pieces: Vec<Piece>,
    spans: Vec<Span>,
    bytes: usize,
    lines: usize,
}

impl Side {
    fn push(&mut self, piece: Piece, bytes: usize) {
        self.pieces.push(piece);
        self.bytes += bytes;
    }
}

/// Head and tail, and the middle between them.
#[derive(Debug, Clone)]
struct Chosen {
    head: Side,
    head_end: u64,
    /// Line of byte `head_end`.
    head_line: u64,
    tail: Side,
    tail_start: u64,
    /// Line of byte `tail_start - 1`.
    tail_line: u64,
}

/// A notable line as shown: its bytes kept.
#[derive(Debug, Clone)]
struct ShownLine<'a> {
    n: &'a Notable,
    similar: u64,
    keep: usize,
}

impl ShownLine<'_> {
    /// Bytes its [`ShownLine::items`] render to; a lead marker is as long
    /// as a cut marker.
    fn rendered_len(&self) -> usize {
        line_prefix(self.n.line, self.similar).len()
            + line_cut_len(self.n.lead as usize)
            + self.keep
            + line_cut_len(self.cut() as usize)
            + 1
    }

    /// `[line N] `, the marker of the bytes before a window, the bytes
    /// kept, the marker of the bytes cut after them, and a LF.
    fn items(&self) -> [Item<u64>; 5] {
        let (a, e) = self.shows();
        [
            Item::LineNo {
                line: self.n.line,
                similar: self.similar,
            },
            Item::LeadCut(self.n.lead),
            Item::Range(a, e),
            Item::LineCut(self.cut()),
            Item::Newline,
        ]
    }

    /// Bytes of its line after those it shows.
    fn cut(&self) -> u64 {
        self.n.content - self.n.lead - self.keep as u64
    }

    /// Bytes `a..e` of the text it shows.
    fn shows(&self) -> (u64, u64) {
        let a = self.n.start + self.n.lead;
        (a, a + self.keep as u64)
    }

    fn span(&self) -> Span {
        let n = self.n;
        if n.lead > 0 {
            let (a, e) = self.shows();
            return span(a, e, n.line, n.line);
        }
        if self.keep as u64 == n.content {
            let lf = u64::from(n.end > n.start + n.content);
            Span {
                a: n.start,
                e: n.end,
                first: n.line,
                last: n.line,
                after: n.line + lf,
            }
        } else {
            Span {
                a: n.start,
                e: n.start + self.keep as u64,
                first: n.line,
                last: n.line,
                after: n.line,
            }
        }
    }
}

/// The preview of the text `r` was kept from, under `budget`.
pub(crate) fn build(
    r: &Retained<'_>,
    budget: &Budget,
    outcome: Saved<'_>,
    parts: &NoticeParts<'_>,
) -> Preview {
    let (bytes, lines) = (r.total, r.lines);
    let max_bytes = budget.max_bytes as usize;
    let full_room = room::call_room(bytes, lines, outcome, parts, NoticeForm::Full);
    let form = parts.form(budget, full_room.0 + full_room.1);
    let (notice_room, gap_room) = room::call_room(bytes, lines, outcome, parts, form);
    let allow = Allowance {
        bytes: max_bytes.saturating_sub(notice_room + gap_room),
        lines: budget.max_lines.map_or(usize::MAX, |m| {
            (m as usize).saturating_sub((form.lines() + GAP_LINES) as usize)
        }),
    };
    let leaning = room::lean_to_tail(budget, parts);
    let max_line = budget.max_line_bytes.map(u64::from);
    let with_notables = if parts.features.notable {
        with_notable_lines(r, &leaning, allow, max_line, gap_room)
    } else {
        None
    };
    let (mut chosen, shown, notable_bytes) = with_notables.unwrap_or_else(|| {
        let chosen = choose(r, &leaning, allow, max_line, r.total, (0, true));
        (chosen, Vec::new(), 0)
    });
    join_split_line(&mut chosen);
    if parts.features.fill && chosen.head_end < chosen.tail_start {
        let used = chosen.head.bytes + chosen.tail.bytes + notable_bytes;
        fill_gap(r, &mut chosen, allow.bytes.saturating_sub(used));
    }
    // Hits in the parts of head and tail lines that `max-line-bytes` cut
    // are in no middle: those lines show their windows in place.
    open_cut_lines(r, &mut chosen.head);
    open_cut_lines(r, &mut chosen.tail);
    let loss = account(r, &chosen, &shown);
    let (head, tail) = (items(r, &chosen.head), items(r, &chosen.tail));
    let notable: Vec<Item<u64>> = shown.iter().flat_map(ShownLine::items).collect();
    let middle = (chosen.head_end < chosen.tail_start).then(|| Omitted {
        from: chosen.head_end,
        to: chosen.tail_start,
        first_line: chosen.head_line,
        last_line: chosen.tail_line,
        notable: &notable,
        notable_lines: shown.len(),
    });
    let layout = Layout {
        head: &head,
        middle,
        tail: &tail,
    };
    let notice_text =
        notice::render_notice_lossy(&loss, outcome, parts.call, parts.style, form, parts.lossy);
    let capacity = max_bytes.min(r.head.len() + r.ring.len() + notice_room);
    let out = render::render(r, &layout, &notice_text, capacity);
    debug_assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
    Preview {
        text: out,
        loss,
        notable: shown.len() as u64,
        folded: 0,
        tokens: 0,
    }
}

/// Head and tail with [`notable::SHARE_PERCENT`] of `allow` set aside, the
/// notable lines of the middle they leave within that share, and head and
/// tail chosen again with what the lines leave, up to the lines; with the
/// bytes the lines and their markers take. `None` when no notable line
/// fits.
fn with_notable_lines<'a>(
    r: &Retained<'a>,
    budget: &Budget,
    allow: Allowance,
    max_line: Option<u64>,
    gap_room: usize,
) -> Option<(Chosen, Vec<ShownLine<'a>>, usize)> {
    let overhead = notable::marker_overhead(r.total, r.lines, gap_room);
    let share = allow.percent(notable::SHARE_PERCENT);
    let room_bytes = share.bytes.checked_sub(overhead)?;
    let room_lines = share.lines.checked_sub(1).filter(|&l| l > 0)?;
    let provisional = choose(
        r,
        budget,
        allow.less(share.bytes, share.lines),
        max_line,
        r.total,
        (0, true),
    );
    if provisional.head_end >= provisional.tail_start {
        return None;
    }
    let shown = select(
        r.notables,
        r.blocks,
        (provisional.head_end, provisional.tail_start),
        room_bytes,
        room_lines,
        max_line,
    );
    // A window bounds head and tail by what it shows, a line by its ends.
    let first = shown.first()?;
    let first = if first.n.lead > 0 {
        first.shows().0
    } else {
        first.n.start
    };
    let last = shown.last()?;
    let (last, at_line_start) = if last.n.lead > 0 {
        (last.shows().1, false)
    } else {
        (last.n.end, true)
    };
    let cost: usize = shown.iter().map(ShownLine::rendered_len).sum();
    let rest = allow.less(cost + overhead, shown.len() + 1);
    let chosen = choose(r, budget, rest, max_line, first, (last, at_line_start));
    Some((chosen, shown, cost + overhead))
}

/// The notable lines inside `middle` that fit the room, best first (lines
/// alike counted in the best of them), returned in file order. The search
/// hits' windows come first; then, as in `cap`, the best failure with a
/// block shows it, best lines first, in up to [`notable::BLOCK_PERCENT`]
/// of the room.
fn select<'a>(
    notables: &'a [Notable],
    blocks: &'a [Block],
    middle: (u64, u64),
    mut bytes: usize,
    mut lines: usize,
    max_line: Option<u64>,
) -> Vec<ShownLine<'a>> {
    // A window needs only its own bytes in the middle: its line may be
    // one the head or the tail shows in part.
    let in_middle = |n: &Notable| match n.lead {
        0 => n.start >= middle.0 && n.end <= middle.1,
        lead => n.start + lead >= middle.0 && n.start + lead + n.prefix.len() as u64 <= middle.1,
    };
    let mut ranked: Vec<&Notable> = notables.iter().filter(|n| in_middle(n)).collect();
    crate::order::sort_by_key(&mut ranked, |n| n.rank());
    let mut families: Vec<ShownLine<'a>> = Vec::new();
    let mut by_key = std::collections::HashMap::new();
    for n in ranked {
        match by_key.get(&n.key) {
            Some(&i) => {
                let f: &mut ShownLine<'_> = &mut families[i];
                f.similar += 1 + n.similar;
            }
            None => {
                by_key.insert(n.key, families.len());
                families.push(ShownLine {
                    n,
                    similar: n.similar,
                    keep: 0,
                });
            }
        }
    }
    let block = blocks
        .iter()
        .filter(|b| !b.context && in_middle(&b.failure))
        .min_by_key(|b| b.failure.rank());
    let context_of = |start: u64| {
        blocks
            .iter()
            .find(|b| b.context && b.failure.start == start)
    };
    let windows = families
        .iter()
        .take_while(|f| f.n.score == WINDOW_SCORE)
        .count();
    let rest = families.split_off(windows);
    let mut shown = Vec::new();
    // Lines shown from their start: a block's line may be a notable line.
    let mut starts = std::collections::HashSet::new();
    let mut take = |mut s: ShownLine<'a>, bytes: &mut usize, lines: &mut usize, floor: usize| {
        let whole_line = s.n.lead == 0 && s.n.score != WINDOW_SCORE;
        if *lines == 0
            || (whole_line && starts.contains(&s.n.start))
            || !fit(&mut s, *bytes - floor, max_line)
        {
            return false;
        }
        *bytes -= s.rendered_len();
        *lines -= 1;
        if whole_line {
            starts.insert(s.n.start);
        }
        shown.push(s);
        true
    };
    for s in families {
        take(s, &mut bytes, &mut lines, 0);
    }
    let mut rest = rest;
    if let Some(block) = block {
        let failure = match rest.iter().position(|f| f.n.start == block.failure.start) {
            Some(i) => rest.remove(i),
            None => ShownLine {
                n: &block.failure,
                similar: 0,
                keep: 0,
            },
        };
        let rest_percent = 100 - notable::BLOCK_PERCENT;
        let floor = Allowance { bytes, lines }.percent(rest_percent);
        let (floor_bytes, floor_lines) = (floor.bytes, floor.lines);
        if take(failure, &mut bytes, &mut lines, 0) {
            for n in block.lines.iter().filter(|n| in_middle(n)) {
                let s = ShownLine {
                    n,
                    similar: 0,
                    keep: 0,
                };
                if lines <= floor_lines || bytes <= floor_bytes {
                    break;
                }
                if !take(s, &mut bytes, &mut lines, floor_bytes) {
                    break;
                }
            }
        }
    }
    // The other failures, each with its context lines when it has them.
    for s in rest {
        let start = s.n.start;
        if take(s, &mut bytes, &mut lines, 0)
            && let Some(context) = context_of(start)
        {
            for n in context.lines.iter().filter(|n| in_middle(n)) {
                let s = ShownLine {
                    n,
                    similar: 0,
                    keep: 0,
                };
                take(s, &mut bytes, &mut lines, 0);
            }
        }
    }
    crate::order::sort_by_key(&mut shown, |s| (s.n.start, s.n.lead));
    shown
}

/// Set how much of `s` is shown within `bytes`; false when too little of
/// it would be.
fn fit(s: &mut ShownLine<'_>, bytes: usize, max_line: Option<u64>) -> bool {
    let content = s.n.content;
    let prefix = line_prefix(s.n.line, s.similar).len();
    let kept = s.n.prefix.len() as u64;
    let limit = max_line.unwrap_or(u64::MAX);
    if s.n.lead > 0 {
        // A window is shown whole or not at all: cut, it could lose its hit.
        s.keep = s.n.prefix.len();
        return s.rendered_len() <= bytes;
    }
    if content <= limit && content <= kept && prefix + (content as usize) < bytes {
        s.keep = content as usize;
        return true;
    }
    let marker = max_marker_len(content as usize);
    let fit = (limit.min(kept) as usize).min(bytes.saturating_sub(prefix + marker + 1));
    let keep = s.n.prefix.floor_char_boundary(fit);
    if keep == 0 || keep < MIN_SHOWN.min(content as usize) {
        return false;
    }
    s.keep = keep;
    true
}

/// Split `allow` between head and tail as `budget` asks; the head ends by
/// `head_limit` (a line start), the tail starts at `tail_floor` or after.
fn choose(
    r: &Retained<'_>,
    budget: &Budget,
    allow: Allowance,
    max_line: Option<u64>,
    head_limit: u64,
    (tail_floor, tail_floor_at_line_start): (u64, bool),
) -> Chosen {
    let keep = room::effective_keep(budget);
    let head_allow = allow.percent(room::head_share(budget));
    let (head, head_end, head_line, at_line_start) =
        head(r, head_limit, head_allow, max_line, keep == Keep::Head);
    if keep == Keep::Head {
        return Chosen {
            head,
            head_end,
            head_line,
            tail: Side::default(),
            tail_start: r.total,
            tail_line: r.lines,
        };
    }
    let tail_allow = Allowance {
        bytes: allow.bytes - head.bytes,
        lines: allow.lines.saturating_sub(head.lines),
    };
    let (floor, floor_at_line_start) = if tail_floor > head_end {
        (tail_floor, tail_floor_at_line_start)
    } else {
        (head_end, at_line_start)
    };
    let (tail, tail_start, tail_line) = tail(r, floor, floor_at_line_start, tail_allow, max_line);
    Chosen {
        head,
        head_end,
        head_line,
        tail,
        tail_start,
        tail_line,
    }
}

/// Whole lines from the start of the kept head while they fit (up to
/// `limit`); a line over `max_line` shows its start and a marker, but the
/// text's last line shows its start only and leaves its end to the tail;
/// the line that does not fit is shown in part if the head is under half
/// full or `last`. Returns the side, where it ends, the line of that byte, and
/// whether it ends at a line start.
fn head(
    r: &Retained<'_>,
    limit: u64,
    allow: Allowance,
    max_line: Option<u64>,
    last: bool,
) -> (Side, u64, u64, bool) {
    let h = r.head;
    let hb = h.as_bytes();
    let lim = limit.min(hb.len() as u64) as usize;
    let mut side = Side::default();
    let (mut pos, mut line) = (0u64, 1u64);
    while pos < lim as u64 && side.lines < allow.lines {
        let p = pos as usize;
        let room = allow.bytes - side.bytes;
        let (content_end, line_end, has_lf) = match memchr(b'\n', &hb[p..lim]) {
            Some(i) => ((p + i) as u64, (p + i + 1) as u64, true),
            None => match r.lf_after_head {
                Some(lf) if lim == hb.len() => (lf, lf + 1, true),
                _ => (r.total, r.total, false),
            },
        };
        let content = content_end - pos;
        let too_long = max_line.is_some_and(|m| content > m);
        let whole = line_end - pos;
        let after = line + u64::from(has_lf);
        if !too_long && whole <= room as u64 && line_end <= lim as u64 {
            side.push(Piece::Head(p, line_end as usize), whole as usize);
            side.spans.push(span(pos, line_end, line, after));
            side.lines += 1;
            (pos, line) = (line_end, after);
        } else if let (true, Some(m)) = (too_long, max_line) {
            let keep = (m as usize).min(room.saturating_sub(max_marker_len(content as usize) + 1));
            let k = h.floor_char_boundary(p + keep.min(lim - p)) - p;
            if k == 0 {
                break;
            }
            side.push(Piece::Head(p, p + k), k);
            side.spans.push(span(pos, pos + k as u64, line, line));
            side.lines += 1;
            if !has_lf || line_end == r.total {
                // The text's last line, with a final LF or without: its
                // end is left to the tail, so a single-line bundle shows
                // both of its ends, as in `cap`'s preview.
                side.push(Piece::Newline, 1);
                pos += k as u64;
                return (side, pos, line, false);
            }
            let cut = content - k as u64;
            side.push(Piece::Cut(cut), line_cut_marker(cut as usize).len());
            if line_end <= lim as u64 {
                side.push(Piece::Head(content_end as usize, line_end as usize), 1);
                side.spans.push(span(content_end, line_end, line, after));
            } else {
                side.push(Piece::Newline, 1);
            }
            (pos, line) = (line_end, after);
        } else {
            if side.bytes * 2 < allow.bytes || last {
                let k = h.floor_char_boundary(p + room.saturating_sub(1).min(lim - p)) - p;
                if k > 0 {
                    side.push(Piece::Head(p, p + k), k);
                    side.push(Piece::Newline, 1);
                    side.spans.push(span(pos, pos + k as u64, line, line));
                    side.lines += 1;
                    return (side, pos + k as u64, line, false);
                }
            }
            break;
        }
    }
    (side, pos, line, true)
}

fn span(a: u64, e: u64, line: u64, after: u64) -> Span {
    Span {
        a,
        e,
        first: line,
        last: line,
        after,
    }
}

/// Whole lines from the end of the text, down to `floor`, while they fit:
/// the mirror of [`head`], from the kept tail. A line over `max_line` shows
/// its start and a marker; the line that does not fit (or starts before
/// the kept tail) shows its end. Returns the side, where it starts, and the
/// line of the byte before.
fn tail(
    r: &Retained<'_>,
    floor: u64,
    floor_at_line_start: bool,
    allow: Allowance,
    max_line: Option<u64>,
) -> (Side, u64, u64) {
    let lo = floor.max(r.ring_at);
    let rb = r.ring.as_bytes();
    let mut rev: Vec<Piece> = Vec::new();
    let mut side = Side::default();
    let (mut pos, mut line) = (r.total, r.lines);
    while pos > floor && pos > lo && side.lines < allow.lines {
        let room = allow.bytes - side.bytes;
        let line_end = pos;
        let has_lf = r.ring_byte(pos - 1) == b'\n';
        let content_end = pos - u64::from(has_lf);
        let from = (lo - r.ring_at) as usize;
        let to = (content_end - r.ring_at) as usize;
        let line_start = match memrchr(b'\n', &rb[from..to]) {
            Some(i) => r.ring_at + (from + i) as u64 + 1,
            None if lo == floor => floor,
            None => r.ring_line_start.max(floor),
        };
        let continued = line_start == floor && floor > 0 && !floor_at_line_start;
        let content = content_end - line_start;
        let too_long = max_line.is_some_and(|m| content > m);
        let whole = line_end - line_start;
        let kept = line_start >= lo;
        let after = line + u64::from(has_lf);
        if kept && !too_long && whole <= room as u64 {
            rev.push(Piece::Ring(line_start, line_end));
            side.spans.push(span(line_start, line_end, line, after));
            side.bytes += whole as usize;
            side.lines += 1;
            (pos, line) = (line_start, line - 1);
        } else if let (true, true, false, Some(m)) = (kept, too_long, continued, max_line) {
            let keep = (m as usize).min(room.saturating_sub(max_marker_len(content as usize) + 1));
            let a = (line_start - r.ring_at) as usize;
            let k = (r.ring.floor_char_boundary(a + keep) - a) as u64;
            if k == 0 {
                break;
            }
            let cut = content - k;
            if has_lf {
                rev.push(Piece::Ring(content_end, line_end));
                side.spans.push(span(content_end, line_end, line, after));
            } else {
                rev.push(Piece::Newline);
            }
            rev.push(Piece::Cut(cut));
            rev.push(Piece::Ring(line_start, line_start + k));
            side.spans
                .push(span(line_start, line_start + k, line, line));
            side.bytes += k as usize + line_cut_marker(cut as usize).len() + 1;
            side.lines += 1;
            (pos, line) = (line_start, line - 1);
        } else {
            // The tail is chosen last: it fills its room.
            let term = line_end - content_end;
            let keep = (room as u64).min(max_line.map_or(u64::MAX, |m| m + term));
            let s = (line_end - keep.min(whole)).max(lo) - r.ring_at;
            let s = r.ring_at + r.ring.ceil_char_boundary(s as usize) as u64;
            if s < line_end {
                rev.push(Piece::Ring(s, line_end));
                side.spans.push(span(s, line_end, line, after));
                side.bytes += (line_end - s) as usize;
                side.lines += 1;
                pos = s;
            }
            break;
        }
    }
    rev.reverse();
    side.spans.reverse();
    side.pieces = rev;
    (side, pos, line)
}

/// A line the head shows in part and the tail shows the rest of, with
/// nothing omitted between them, is one line: the LF added after the
/// head's part goes.
fn join_split_line(c: &mut Chosen) {
    if let [.., Piece::Head(_, e), Piece::Newline] = c.head.pieces[..]
        && e as u64 == c.head_end
        && c.tail_start == c.head_end
        && matches!(c.tail.pieces.first(), Some(Piece::Ring(a, _)) if *a == c.head_end)
    {
        c.head.pieces.pop();
        c.head.bytes -= 1;
        c.head.lines -= 1;
    }
}

/// The budget `left` over goes to the lines shown in part at the gap, as
/// `cap`'s fill gives it to them: the head's last line grows forward and
/// the tail's first line back, evenly, on char boundaries, each within its
/// line and the bytes kept, and the gap never closes (a single huge line
/// then shows both of its ends up to the budget). Lines cut by
/// `max-line-bytes` do not grow back, and no new line starts.
fn fill_gap(r: &Retained<'_>, c: &mut Chosen, mut left: usize) {
    let head_open = matches!(
        c.head.pieces[..],
        [.., Piece::Head(_, e), Piece::Newline] if e as u64 == c.head_end
    );
    let tail_open = matches!(c.tail.pieces.first(), Some(Piece::Ring(s, _)) if *s == c.tail_start);
    let mut done = [!head_open, !tail_open];
    while left > 0 {
        let active = done.iter().filter(|d| !**d).count();
        if active == 0 {
            break;
        }
        let share = (left / active).max(1);
        let mut progressed = false;
        for (i, done) in done.iter_mut().enumerate() {
            if *done || left == 0 {
                continue;
            }
            let want = share.min(left);
            let grown = if i == 0 {
                grow_head(r, c, want, &mut left)
            } else {
                grow_tail(r, c, want, &mut left)
            };
            // A side that cannot grow now may once the other took less.
            if let Some(whole) = grown {
                progressed = true;
                *done = whole;
            }
        }
        if !progressed {
            break;
        }
    }
}

/// Grow the head's last line, shown in part, by about `want` bytes; up to
/// its LF it is whole (its own LF replaces the one added). Whether it is
/// whole, or `None` when it cannot grow within `left`.
fn grow_head(r: &Retained<'_>, c: &mut Chosen, want: usize, left: &mut usize) -> Option<bool> {
    let n = c.head.pieces.len();
    let Piece::Head(a, e) = c.head.pieces[n - 2] else {
        return None;
    };
    let hb = r.head.as_bytes();
    let hard = (hb.len() as u64).min(c.tail_start.saturating_sub(1)) as usize;
    let limit = if e >= hard {
        e
    } else {
        memchr(b'\n', &hb[e..hard]).map_or(hard, |i| e + i)
    };
    let at_end = matches!(&hb[e..], [b'\n', ..] | [b'\r', b'\n', ..]);
    let e2 = if at_end {
        e
    } else {
        step_forward(r.head, e, want, limit)?
    };
    let terminator = match &hb[e2..] {
        [b'\n', ..] => 1,
        [b'\r', b'\n', ..] => 2,
        _ => 0,
    };
    let span = c.head.spans.last_mut().expect("the line shown in part");
    if terminator > 0 && (e2 + terminator) as u64 <= c.tail_start {
        let cost = (e2 - e) + terminator - 1;
        if cost > *left {
            return None;
        }
        let end = e2 + terminator;
        c.head.pieces[n - 2] = Piece::Head(a, end);
        c.head.pieces.pop();
        c.head.bytes += cost;
        *left -= cost;
        (span.e, span.after) = (end as u64, span.last + 1);
        c.head_end = end as u64;
        c.head_line += 1;
        return Some(true);
    }
    if e2 - e > *left {
        return None;
    }
    c.head.pieces[n - 2] = Piece::Head(a, e2);
    c.head.bytes += e2 - e;
    *left -= e2 - e;
    span.e = e2 as u64;
    c.head_end = e2 as u64;
    Some(false)
}

/// Grow the tail's first line, shown from within, back by about `want`
/// bytes, down to its start. Whether it is whole, or `None` when it cannot
/// grow within `left`.
fn grow_tail(r: &Retained<'_>, c: &mut Chosen, want: usize, left: &mut usize) -> Option<bool> {
    let Some(&Piece::Ring(s, e)) = c.tail.pieces.first() else {
        return None;
    };
    let rb = r.ring.as_bytes();
    let at = (s - r.ring_at) as usize;
    let hard = (r.ring_at.max(c.head_end + 1) - r.ring_at) as usize;
    if at <= hard {
        return None;
    }
    let limit = memrchr(b'\n', &rb[hard..at]).map_or(hard, |i| hard + i + 1);
    let s2 = step_back(r.ring, at, want, limit)?;
    if at - s2 > *left {
        return None;
    }
    c.tail.pieces[0] = Piece::Ring(r.ring_at + s2 as u64, e);
    c.tail.bytes += at - s2;
    *left -= at - s2;
    c.tail.spans[0].a = r.ring_at + s2 as u64;
    c.tail_start = r.ring_at + s2 as u64;
    let whole = if s2 > 0 {
        rb[s2 - 1] == b'\n'
    } else {
        r.ring_line_start == r.ring_at
    };
    if whole {
        // Byte `tail_start - 1` is now the LF of the line before.
        c.tail_line -= 1;
    }
    Some(whole)
}

/// A char boundary of `s` after `e`, about `want` bytes on, at most `limit`.
fn step_forward(s: &str, e: usize, want: usize, limit: usize) -> Option<usize> {
    if e >= limit {
        return None;
    }
    let mut e2 = s.floor_char_boundary((e + want).min(limit));
    if e2 <= e {
        e2 = s.ceil_char_boundary(e + 1);
    }
    (e2 > e && e2 <= limit).then_some(e2)
}

/// A char boundary of `s` before `at`, about `want` bytes back, at least
/// `limit`.
fn step_back(s: &str, at: usize, want: usize, limit: usize) -> Option<usize> {
    if at <= limit {
        return None;
    }
    let mut s2 = s.ceil_char_boundary(at.saturating_sub(want).max(limit));
    if s2 >= at {
        s2 = s.floor_char_boundary(at - 1);
    }
    (s2 < at && s2 >= limit).then_some(s2)
}

/// The items of `side`, over the text's offsets.
fn items(r: &Retained<'_>, side: &Side) -> Vec<Item<u64>> {
    let item = |piece: &Piece| match *piece {
        Piece::Head(a, e) => Item::Range(a as u64, e as u64),
        Piece::Ring(a, e) => Item::Range(a, e),
        Piece::Cut(n) => Item::LineCut(n),
        Piece::Newline => Item::Newline,
        Piece::Window(i) => {
            let n = &r.notables[i];
            let a = n.start + n.lead;
            Item::Range(a, a + n.prefix.len() as u64)
        }
        Piece::MidCut(n) => Item::MidCut(n),
    };
    side.pieces.iter().map(item).collect()
}

/// The windows around search hits in the cut parts of the lines `side`
/// shows shortened, shown in place as `cap` shows them
/// ([`crate::preview::search::open_cut_lines`]): `start [... M bytes cut] window
/// [... K bytes cut]`, no longer than the line was, its start giving up
/// the room down to [`search::MIN_PREFIX`] (or half of what it showed).
fn open_cut_lines(r: &Retained<'_>, side: &mut Side) {
    let windows: Vec<usize> = (0..r.notables.len())
        .filter(|&i| r.notables[i].lead > 0)
        .collect();
    if windows.is_empty() {
        return;
    }
    let mut i = 0;
    while i + 1 < side.pieces.len() {
        let (a, e) = match side.pieces[i] {
            Piece::Head(a, e) => (a as u64, e as u64),
            Piece::Ring(a, e) => (a, e),
            _ => {
                i += 1;
                continue;
            }
        };
        let Piece::Cut(c) = side.pieces[i + 1] else {
            i += 1;
            continue;
        };
        // The accounting's span of the shown start is replaced with the
        // parts shown: a line without one is left as it is.
        let Some(j) = side.spans.iter().position(|s| s.a == a && s.e == e) else {
            i += 1;
            continue;
        };
        match opened(r, (a, e, e + c), &windows, side.pieces[i]) {
            Some((pieces, old, new, parts)) => {
                let n = pieces.len();
                side.pieces.splice(i..i + 2, pieces);
                side.bytes = side.bytes + new - old;
                let line = side.spans[j].first;
                let spans = parts.iter().map(|&(pa, pe)| span(pa, pe, line, line));
                side.spans.splice(j..=j, spans);
                i += n;
            }
            None => i += 1,
        }
    }
}

/// The pieces of the line whose bytes `a..e` are shown (by `shown`) and
/// `e..body` cut, with the windows of `windows` that lie in its cut part
/// and fit; its rendered length before and after, and the bytes of the
/// text it now shows. `None` when no window fits.
#[allow(clippy::type_complexity)]
fn opened(
    r: &Retained<'_>,
    (a, e, body): (u64, u64, u64),
    windows: &[usize],
    shown: Piece,
) -> Option<(Vec<Piece>, usize, usize, Vec<(u64, u64)>)> {
    let bounds = |w: usize| {
        let n = &r.notables[w];
        (n.start + n.lead, n.start + n.lead + n.prefix.len() as u64)
    };
    let mut mine: Vec<usize> = windows
        .iter()
        .copied()
        .filter(|&w| r.notables[w].start == a && bounds(w).0 >= e && bounds(w).1 <= body)
        .collect();
    crate::order::sort_by_key(&mut mine, |&w| bounds(w).0);
    let old = (e - a) as usize + line_cut_len((body - e) as usize);
    let least = search::MIN_PREFIX.min((e - a) as usize / 2) as u64;
    // Rendered bytes of the line with a start of `p` bytes and `chosen`.
    let cost = |p: u64, chosen: &[usize]| {
        let mut at = a + p;
        let mut len = p as usize;
        for &w in chosen {
            let (wa, we) = bounds(w);
            len += line_cut_len((wa - at) as usize) + 1 + (we - wa) as usize;
            at = we;
        }
        len + line_cut_len((body - at) as usize)
    };
    let mut chosen: Vec<usize> = Vec::new();
    for w in mine {
        let after_last = chosen.last().is_none_or(|&l| bounds(w).0 > bounds(l).1);
        let mut with = chosen.clone();
        with.push(w);
        if after_last && cost(least, &with) <= old {
            chosen = with;
        }
    }
    let &first = chosen.first()?;
    // The start takes what the windows leave, on a char boundary.
    let spare = (old - cost(least, &chosen)) as u64;
    let want = (a + least + spare).min(e);
    let end = match shown {
        Piece::Head(..) => r.head.floor_char_boundary(want as usize) as u64,
        _ => r.ring_at + r.ring.floor_char_boundary((want - r.ring_at) as usize) as u64,
    };
    let p = end - a;
    let mut pieces = vec![match shown {
        Piece::Head(..) => Piece::Head(a as usize, end as usize),
        _ => Piece::Ring(a, end),
    }];
    let mut parts = vec![(a, end)];
    let mut at = end;
    for &w in &chosen {
        let (wa, we) = bounds(w);
        pieces.push(Piece::MidCut(wa - at));
        pieces.push(Piece::Window(w));
        parts.push((wa, we));
        at = we;
    }
    if body > at {
        pieces.push(Piece::Cut(body - at));
    }
    let new = cost(p, &chosen);
    debug_assert!(new <= old && bounds(first).0 > end, "{new} > {old}");
    Some((pieces, old, new, parts))
}

/// Exact loss accounting from the ranges shown, as the whole-text preview
/// (`cap`) counts it.
fn account(r: &Retained<'_>, chosen: &Chosen, shown: &[ShownLine<'_>]) -> Loss {
    let spans: Vec<Span> = chosen
        .head
        .spans
        .iter()
        .copied()
        .chain(shown.iter().map(ShownLine::span))
        .chain(chosen.tail.spans.iter().copied())
        .collect();
    account::loss(&spans, r.total, r.lines)
}
