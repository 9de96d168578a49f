//! The 0.1 preview, kept verbatim as an oracle: `PreviewFeatures::NONE`
//! must produce exactly this (tests/preview_0_1.rs). Copied from
//! core/src/cut.rs and core/src/cap.rs as they were before notable lines,
//! folding, JSON previews, fill and grapheme-safe cuts; only the notice
//! parts that 0.1 always used (full form, no lean to the tail) are inlined.
#![allow(dead_code, clippy::all)]

use memchr::{memchr, memrchr};
use toolcap_core::notice::{self, GAP_LINES, Loss, NoticeForm, Saved};
use toolcap_core::text::{LineIndex, ceil_boundary, digits, floor_boundary};
use toolcap_core::{Budget, Call, Keep, NoticeStyle};

struct NoticeParts<'a> {
    call: &'a Call,
    style: &'a NoticeStyle,
}

/// One piece of a rendered preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// Bytes `start..end` of the original, verbatim.
    Range(usize, usize),
    /// The marker of a line shortened by `max-line-bytes`; how many bytes of
    /// that line are not shown.
    LineCut(usize),
    /// A LF that is not in the original: it ends a line shown in part.
    Newline,
}

/// Bytes and lines a side of the preview may use.
#[derive(Debug, Clone, Copy)]
pub struct Allowance {
    /// Bytes of rendered text.
    pub bytes: usize,
    /// Lines of rendered text.
    pub lines: usize,
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
}

/// The text of a [`Item::LineCut`] marker.
pub fn line_cut_marker(cut: usize) -> String {
    format!(" [... {cut} bytes cut]")
}

/// Longest marker for a line of `len` bytes.
fn max_marker_len(len: usize) -> usize {
    " [...  bytes cut]".len() + digits(len as u64)
}

/// Render items of `text` into `out`.
pub fn render(text: &str, items: &[Item], out: &mut String) {
    for item in items {
        match *item {
            Item::Range(a, b) => out.push_str(&text[a..b]),
            Item::LineCut(n) => out.push_str(&line_cut_marker(n)),
            Item::Newline => out.push('\n'),
        }
    }
}

/// Take whole lines from the start of `text[..end]` while they fit. A line
/// over `max_line` bytes is shortened with a marker; a line that does not fit
/// is cut only if the head would otherwise stay under half full.
pub fn head(text: &str, end: usize, allow: Allowance, max_line: Option<usize>) -> (Side, usize) {
    let b = text.as_bytes();
    let mut side = Side::default();
    let mut pos = 0;
    while pos < end && side.lines < allow.lines {
        let room = allow.bytes - side.bytes;
        let nl = memchr(b'\n', &b[pos..end]).map(|i| pos + i);
        let content_end = nl.unwrap_or(end);
        let line_end = nl.map_or(end, |i| i + 1);
        let content = content_end - pos;
        let too_long = max_line.is_some_and(|m| content > m);
        if !too_long && line_end - pos <= room {
            side.push(Item::Range(pos, line_end), line_end - pos);
            side.lines += 1;
            pos = line_end;
            continue;
        }
        if let (true, Some(m)) = (too_long, max_line) {
            let keep = m.min(room.saturating_sub(max_marker_len(content) + 1));
            let k = floor_boundary(text, pos + keep) - pos;
            if k == 0 {
                break;
            }
            if nl.is_none() {
                // The last line: its end is left to the tail, which can show
                // it (a single-line bundle then shows both of its ends).
                side.push(Item::Range(pos, pos + k), k);
                side.push(Item::Newline, 1);
                side.lines += 1;
                pos += k;
                break;
            }
            side.push(Item::Range(pos, pos + k), k);
            let marker = Item::LineCut(content - k);
            side.push(marker, line_cut_marker(content - k).len());
            side.push(nl.map_or(Item::Newline, |i| Item::Range(i, i + 1)), 1);
            side.lines += 1;
            pos = line_end;
            continue;
        }
        if side.bytes * 2 < allow.bytes {
            let k = floor_boundary(text, pos + room.saturating_sub(1)) - pos;
            if k > 0 {
                side.push(Item::Range(pos, pos + k), k);
                side.push(Item::Newline, 1);
                side.lines += 1;
                pos += k;
            }
        }
        break;
    }
    (side, pos)
}

/// Take whole lines from the end of `text[start..]` while they fit, the mirror
/// of [`head`]. A line shortened by `max_line` shows its start, as in the head;
/// a line cut for the budget shows its end.
pub fn tail(text: &str, start: usize, allow: Allowance, max_line: Option<usize>) -> (Side, usize) {
    let b = text.as_bytes();
    let mut rev: Vec<Item> = Vec::new();
    let mut side = Side::default();
    let mut pos = text.len();
    while pos > start && side.lines < allow.lines {
        let room = allow.bytes - side.bytes;
        let line_end = pos;
        let content_end = if b[pos - 1] == b'\n' { pos - 1 } else { pos };
        let line_start = memrchr(b'\n', &b[start..content_end]).map_or(start, |i| start + i + 1);
        let content = content_end - line_start;
        // A line whose start the head already showed is continued, not restarted.
        let continued = line_start == start && start > 0 && b[start - 1] != b'\n';
        let too_long = max_line.is_some_and(|m| content > m);
        let whole = line_end - line_start;
        if !too_long && whole <= room {
            push_rev(
                &mut rev,
                &mut side,
                &[Item::Range(line_start, line_end)],
                whole,
            );
            pos = line_start;
            continue;
        }
        if let (true, false, Some(m)) = (too_long, continued, max_line) {
            let keep = m.min(room.saturating_sub(max_marker_len(content) + 1));
            let k = floor_boundary(text, line_start + keep) - line_start;
            if k == 0 {
                break;
            }
            let marker_len = line_cut_marker(content - k).len();
            let end_item = if content_end < line_end {
                Item::Range(content_end, line_end)
            } else {
                Item::Newline
            };
            let items = [
                Item::Range(line_start, line_start + k),
                Item::LineCut(content - k),
                end_item,
            ];
            push_rev(&mut rev, &mut side, &items, k + marker_len + 1);
            pos = line_start;
            continue;
        }
        if side.bytes * 2 < allow.bytes || continued {
            let keep = room.min(max_line.map_or(usize::MAX, |m| m + (line_end - content_end)));
            let s = ceil_boundary(text, line_end - keep.min(whole));
            if s < line_end {
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

    /// The original ranges shown, in order.
    pub fn ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.items.iter().filter_map(|i| {
            if let Item::Range(a, b) = *i {
                Some((a, b))
            } else {
                None
            }
        })
    }
}

/// The room this call's notice needs in `form`, with its real path, reason
/// and call, and numbers bounded by the input's size.
fn call_room(
    bytes: u64,
    lines: u64,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    form: NoticeForm,
) -> usize {
    let bound = Loss {
        original_bytes: bytes,
        original_lines: lines,
        omitted_bytes: bytes,
        // At least 2: "0 whole lines" of a one-line text is longer than "1 whole line".
        omitted_lines: lines.max(2),
        gap_line: lines.max(1),
    };
    let text = notice::render_notice(&bound, outcome, notice.call, notice.style, form).len();
    let gap = "[...  bytes omitted here (bytes .. of the full output, from line ) ...]".len()
        + 3 * digits(bytes)
        + digits(lines.max(1))
        + 1;
    text + gap + 1
}

/// Build the preview and notice for a text that does not fit.
fn preview_within(
    text: &str,
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
) -> (String, Loss) {
    let bytes = text.len() as u64;
    let lines = index.lines();
    let max_bytes = budget.max_bytes as usize;
    let form = NoticeForm::Full;
    let reserve = call_room(bytes, lines, outcome, notice, form);
    let allow = Allowance {
        bytes: max_bytes.saturating_sub(reserve),
        lines: budget.max_lines.map_or(usize::MAX, |m| {
            (m as usize).saturating_sub((form.lines() + GAP_LINES) as usize)
        }),
    };
    let max_line = budget.max_line_bytes.map(|m| m as usize);
    let leaning = *budget;
    let (head, head_end, tail) = choose(text, &leaning, allow, max_line);
    let loss = account(text, index, &head, &tail);
    // Never reserve the budget itself: max-bytes may be huge next to the text.
    let mut out = String::with_capacity(max_bytes.min(text.len() + reserve));
    render(text, &head.items, &mut out);
    let tail_start = tail.ranges().next().map_or(text.len(), |(a, _)| a);
    if head_end < tail_start {
        let gap_line = index.line_of(head_end);
        out.push_str(&notice::gap_marker(
            head_end as u64,
            tail_start as u64,
            gap_line,
        ));
        out.push('\n');
    }
    render(text, &tail.items, &mut out);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&notice::render_notice(
        &loss,
        outcome,
        notice.call,
        notice.style,
        form,
    ));
    debug_assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
    (out, loss)
}

/// The choice `budget` really makes: `head-and-tail` with `head-percent` 100
/// leaves nothing to a tail and is `head`; with 0 it is `tail`.
fn effective_keep(budget: &Budget) -> Keep {
    match (budget.keep, budget.head_percent) {
        (Keep::HeadAndTail, 100) => Keep::Head,
        (Keep::HeadAndTail, 0) => Keep::Tail,
        (keep, _) => keep,
    }
}

/// Split the allowance between head and tail as `keep` asks; the tail gets
/// whatever the head leaves.
fn choose(
    text: &str,
    budget: &Budget,
    allow: Allowance,
    max_line: Option<usize>,
) -> (Side, usize, Side) {
    let keep = effective_keep(budget);
    let share = match keep {
        Keep::Head => 100,
        Keep::Tail => 0,
        Keep::HeadAndTail => usize::from(budget.head_percent),
    };
    let head_allow = Allowance {
        bytes: allow.bytes * share / 100,
        lines: if allow.lines == usize::MAX {
            usize::MAX
        } else {
            allow.lines * share / 100
        },
    };
    let (head, head_end) = head(text, text.len(), head_allow, max_line);
    if keep == Keep::Head {
        return (head, head_end, Side::default());
    }
    let tail_allow = Allowance {
        bytes: allow.bytes - head.bytes,
        lines: allow.lines.saturating_sub(head.lines),
    };
    let (tail, _) = tail(text, head_end, tail_allow, max_line);
    (head, head_end, tail)
}

/// Exact loss accounting from the ranges actually shown.
fn account(text: &str, index: &LineIndex<'_>, head: &Side, tail: &Side) -> Loss {
    let lines = index.lines();
    let shown = (head.shown() + tail.shown()) as u64;
    let mut cursor = 0;
    let mut gap = None;
    for (a, e) in head.ranges().chain(tail.ranges()) {
        if a > cursor && gap.is_none() {
            gap = Some(cursor);
        }
        cursor = e;
    }
    let gap = gap.unwrap_or(cursor);
    let head_last = head
        .ranges()
        .last()
        .map_or(0, |(_, e)| index.line_of(e - 1));
    let tail_first = tail
        .ranges()
        .next()
        .map_or(lines + 1, |(a, _)| index.line_of(a));
    Loss {
        original_bytes: text.len() as u64,
        original_lines: lines,
        omitted_bytes: text.len() as u64 - shown,
        omitted_lines: tail_first.saturating_sub(head_last + 1),
        gap_line: index.line_of(gap),
    }
}

/// The 0.1 preview of `text` (which does not fit `budget`) with its loss
/// accounting, for the saved file `outcome`.
pub fn preview(
    text: &str,
    budget: &Budget,
    outcome: Saved<'_>,
    call: &Call,
    style: &NoticeStyle,
) -> (String, Loss) {
    let index = LineIndex::with_lfs(
        text.as_bytes(),
        toolcap_core::text::count_lfs(text.as_bytes()),
    );
    preview_within(text, budget, &index, outcome, &NoticeParts { call, style })
}
