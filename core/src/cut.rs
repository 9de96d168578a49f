//! Choosing the preview: which bytes of the original stay, at the head, the
//! tail or both, cutting on line boundaries when it does not waste the budget
//! and always on character boundaries.

use memchr::{memchr, memrchr};

use crate::text::{ceil_boundary, digits, floor_boundary};

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
