//! The whole-text preview: head, tail, folds, notable lines, search
//! windows and the JSON preview, chosen from a text in memory, then
//! rendered by [`crate::preview::render`].

use std::cell::OnceCell;

use crate::budget::{Budget, Keep};
use crate::notice::{self, GAP_LINES, Loss, NoticeForm, Saved};
use crate::preview::Preview;
use crate::preview::account::{self, Span};
use crate::preview::cut::{self, Allowance, Last, Middle, Runs, Shape, Side};
use crate::preview::diff;
use crate::preview::notable::{self, Patterns, Room, Selection};
use crate::preview::render::{self, Item, Layout, Omitted};
use crate::preview::{fold, json, search};
use crate::room::{NoticeParts, call_room, effective_keep, head_share, lean_to_tail};
use crate::text::{LineIndex, count_lines, digits};

/// The first line of a JSON preview.
pub const JSON_HEADER: &str =
    "[toolcap] JSON document cut to fit; the notice at the end says where the full output is.";

/// Largest input given a JSON preview. Parsing builds the whole document in
/// memory, several times the text's size; a larger document gets the text
/// preview, which needs no more memory than the budget.
pub const JSON_MAX_INPUT: usize = 8 * 1024 * 1024;

/// Build the preview and notice for `shared`'s text, which does not fit.
/// When a head's fold ran up to the tail, the preview that folds less is
/// tried too, and the one that shows more of the text kept: folding is
/// worth it only when it frees room for something better.
pub(crate) fn preview_within(
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    shared: &Shared<'_, '_>,
) -> Preview {
    let (folded, refoldable) = preview_shaped(budget, index, outcome, notice, shared, false);
    if !refoldable {
        return folded;
    }
    let (refolded, _) = preview_shaped(budget, index, outcome, notice, shared, true);
    if refolded.loss.omitted_bytes < folded.loss.omitted_bytes {
        refolded
    } else {
        folded
    }
}

/// What every preview of one text shares, whatever its budget (a token
/// limit asks for a few, in less room each): the patterns its notable lines
/// are found with, the long runs of similar lines measured in it, and its
/// JSON document, parsed once (a 4 MiB document took 11 ms natively, every
/// round).
pub(crate) struct Shared<'t, 'p> {
    text: &'t str,
    patterns: &'p Patterns,
    runs: Runs,
    json: OnceCell<Option<json::Document<'t>>>,
}

impl<'t, 'p> Shared<'t, 'p> {
    /// What the previews of `text` share.
    pub(crate) fn new(text: &'t str, patterns: &'p Patterns) -> Self {
        Shared {
            text,
            patterns,
            runs: Runs::default(),
            json: OnceCell::new(),
        }
    }

    /// The JSON document the text is, if it is one, parsed the first time
    /// it is asked for. An item or string that holds a hit of the call's
    /// search `terms` (the same for every preview of a call) is notable, as
    /// one with a host pattern is.
    fn json(&self, terms: &[&str]) -> Option<&json::Document<'t>> {
        self.json
            .get_or_init(|| {
                if terms.is_empty() {
                    json::parse_document_with(self.text, self.patterns)
                } else {
                    json::parse_document_with(self.text, &self.patterns.with_terms(terms))
                }
            })
            .as_ref()
    }
}

/// [`preview_within`] with a fold that meets the tail kept (`refold`
/// false) or shortened; and whether one met the tail.
fn preview_shaped(
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    shared: &Shared<'_, '_>,
    refold: bool,
) -> (Preview, bool) {
    let Shared { text, patterns, .. } = *shared;
    let bytes = text.len() as u64;
    let lines = index.lines();
    let max_bytes = budget.max_bytes as usize;
    let features = notice.features;
    let full_room = call_room(bytes, lines, outcome, notice, NoticeForm::Full);
    let form = notice.form(budget, full_room.0 + full_room.1);
    if features.json
        && let Some(json) = json_within(budget, index, outcome, notice, form, shared)
    {
        return (json, false);
    }
    let (notice_room, gap_room) = call_room(bytes, lines, outcome, notice, form);
    let allow = Allowance {
        bytes: max_bytes.saturating_sub(notice_room + gap_room),
        lines: budget.max_lines.map_or(usize::MAX, |m| {
            (m as usize).saturating_sub((form.lines() + GAP_LINES) as usize)
        }),
    };
    let shape = Shape {
        max_line: budget.max_line_bytes.map(|m| m as usize),
        graphemes: features.fill,
        fill_room: features.fill,
        fold_reach: features.fold.then_some(0),
        spare_last_line: false,
        refold,
        runs: Some(&shared.runs),
    };
    let leaning = lean_to_tail(budget, notice);
    let terms = notice.call.search_terms().unwrap_or_default();
    let notables = if features.notable {
        let searched = Searched {
            patterns,
            terms: &terms,
        };
        with_notable_lines(text, index, &leaning, allow, shape, searched, gap_room)
    } else {
        None
    };
    let (mut chosen, mut selection, used) = notables.unwrap_or_else(|| {
        let terms = if features.notable { &terms[..] } else { &[] };
        let chosen = choose_showing_hits(text, &leaning, allow, shape, terms);
        (chosen, Selection::default(), (0, 0))
    });
    if features.fill {
        join_split_line(&mut chosen);
    }
    // Number the notable lines and render them; their markers' room beyond
    // the gap marker's comes out of the allowance.
    let (head_end, tail_start) = (chosen.head_end, chosen.tail_start);
    selection.number(
        text.as_bytes(),
        (head_end, index.line_of(head_end)),
        (tail_start, index.line_of(tail_start)),
    );
    let markers = notable::marker_overhead(bytes, lines, gap_room);
    let last = if effective_keep(&leaning) == Keep::Head {
        Last::Head
    } else {
        Last::Tail
    };
    // Budget left goes to the lines cut (`fill`); a side that grows up to
    // a notable line takes it in (`adjoin`) and may grow on.
    // The last step is always an adjoin: a side that the last fill grew up
    // to a notable line takes it in.
    // A fill that closes the middle frees the gap marker's room, which one
    // more round gives to the lines still cut.
    let mut closed = false;
    for round in 0..=FILL_ROUNDS {
        let adjoined = adjoin(text, &mut chosen, &mut selection);
        if round == FILL_ROUNDS
            || !features.fill
            || (!adjoined && !closed && fill_done(&chosen, &selection))
        {
            break;
        }
        let notable_bytes = selection.cost(text, 0).0 + selection.digits_len();
        let markers = if selection.lines.is_empty() {
            0
        } else {
            markers
        };
        debug_assert!(selection.lines.is_empty() || notable_bytes + markers <= used.0);
        let (head_end, tail_start) = (chosen.head_end, chosen.tail_start);
        let shown_lines = chosen.head.lines + chosen.tail.lines + selection.lines.len();
        // Without a gap, the gap marker's room is free too.
        let no_gap = head_end >= tail_start;
        let room = Allowance {
            bytes: (allow.bytes + if no_gap { gap_room } else { 0 })
                .saturating_sub(chosen.head.bytes + chosen.tail.bytes + notable_bytes + markers),
            lines: allow
                .lines
                .saturating_add(if no_gap { GAP_LINES as usize } else { 0 })
                .saturating_sub(shown_lines + usize::from(!selection.lines.is_empty())),
        };
        let middle = Middle {
            head_end,
            tail_start,
            head_max: selection
                .lines
                .first()
                .map_or(tail_start, |s| s.reach(text).0),
            tail_min: selection.lines.last().map_or(head_end, |s| s.reach(text).1),
            new_line: Some(last),
        };
        (chosen.head_end, chosen.tail_start) =
            cut::fill(text, &mut chosen.head, &mut chosen.tail, room, middle);
        chosen.filled = true;
        closed = !no_gap && chosen.head_end >= chosen.tail_start;
    }
    // A window taken in by both sides can close the middle inside a line.
    // (0.1, every feature off, showed such a line's parts as two lines.)
    if features.fill || features.notable {
        join_split_line(&mut chosen);
    }
    if selection.lines.is_empty() {
        let may_shorten = budget.max_line_bytes.is_some();
        // Bytes no side uses; the gap marker's room too, should the gap
        // close.
        let spare = (allow.bytes + gap_room).saturating_sub(chosen.head.bytes + chosen.tail.bytes);
        let shorten = may_shorten.then_some(spare);
        reach_hit_in_split_line(text, &mut chosen, &terms, &shape, shorten);
    }
    // Hits in the parts of head and tail lines that `max-line-bytes` cut
    // are in no middle: those lines show windows in place.
    if budget.max_line_bytes.is_some() {
        search::open_cut_lines(text, &mut chosen.head, &terms);
        search::open_cut_lines(text, &mut chosen.tail, &terms);
    }
    let (notable_items, _) = selection.items(text);
    let Chosen {
        head,
        head_end,
        tail,
        tail_start,
        refoldable,
        ..
    } = chosen;
    let loss = account(text, index, &head, &selection, &tail);
    let middle = (head_end < tail_start).then(|| Omitted {
        from: head_end as u64,
        to: tail_start as u64,
        first_line: index.line_of(head_end),
        last_line: index.line_of(tail_start - 1),
        notable: &notable_items,
        notable_lines: selection.lines.len(),
    });
    let layout = Layout {
        head: &head.items,
        middle,
        tail: &tail.items,
    };
    let notice_text = notice::render_notice_lossy(
        &loss,
        outcome,
        notice.call,
        notice.style,
        form,
        notice.lossy,
    );
    // Never reserve the budget itself: max-bytes may be huge next to the text.
    let capacity = max_bytes.min(text.len() + notice_room + gap_room);
    let out = render::render(text, &layout, &notice_text, capacity);
    debug_assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
    let preview = Preview {
        text: out,
        loss,
        notable: selection.lines.len() as u64,
        folded: head.folded + tail.folded,
        tokens: 0,
    };
    (preview, refoldable)
}

/// A line the head shows in part and the tail shows the rest of, with
/// nothing omitted between them, is one line: the LF added after the
/// head's part goes.
fn join_split_line(chosen: &mut Chosen) {
    if let [.., Item::Range(_, e), Item::Newline] = chosen.head.items[..]
        && e == chosen.head_end
        && chosen.tail_start == e
        && chosen.tail.start() == Some(e)
    {
        chosen.head.items.pop();
        chosen.head.bytes -= 1;
        chosen.head.lines -= 1;
    }
}

/// Bytes shown beside a hit that a split line's part is moved to show.
const HIT_CONTEXT: usize = 64;

/// A search's first hit in the part of a line that head and tail leave out
/// between them (each shows one of its ends, the gap between): the nearer
/// side's part grows to show the hit and a little around it, and the other
/// side's part gives up as many bytes, when it has them; failing that, with
/// `max-line-bytes`, the text's last line is shortened instead
/// ([`shorten_split_line`]). Without a notable line in the middle, such a
/// hit had none of the middle's windows: the sides first took the line
/// otherwise (the tail as one line shortened, or its end), and `fill` then
/// split it around the hit.
fn reach_hit_in_split_line(
    text: &str,
    chosen: &mut Chosen,
    terms: &[&str],
    shape: &Shape,
    shorten: Option<usize>,
) {
    let b = text.as_bytes();
    let (e, t) = (chosen.head_end, chosen.tail_start);
    let [.., Item::Range(a, end), Item::Newline] = chosen.head.items[..] else {
        return;
    };
    let Some(&Item::Range(ts, te)) = chosen.tail.items.first() else {
        return;
    };
    let in_one_line = end == e && e < t && ts == t && memchr::memchr(b'\n', &b[e..t]).is_none();
    if !in_one_line {
        return;
    }
    // Where the tail's part of the line ends (it may show lines after it).
    let part_end = memchr::memchr(b'\n', &b[t..te]).map_or(te, |i| t + i);
    // The first of the alternatives' first hits in the gap.
    let Some((hit, hit_end)) = terms
        .iter()
        .filter_map(|term| {
            let at = memchr::memmem::find(b, term.as_bytes())?;
            (at < t && at + term.len() > e).then_some((at, at + term.len()))
        })
        .min()
    else {
        return;
    };
    let line_start = memchr::memrchr(b'\n', &b[a..e]).map_or(a, |i| a + i + 1);
    // Toward the head: its part grows to the hit, the tail's gives as much.
    let head_end = shape
        .floor(text, (hit_end + HIT_CONTEXT).min(t))
        .max(hit_end);
    let tail_start = shape.ceil(text, t + (head_end - e));
    let (head_end, tail_start) = if head_end < tail_start && tail_start < part_end {
        (head_end, tail_start)
    } else {
        // Toward the tail: its part grows back to the hit, the head's gives.
        let tail_start = shape
            .floor(text, hit.saturating_sub(HIT_CONTEXT).max(e + 1))
            .min(hit);
        let head_end = shape.floor(text, e.saturating_sub(t - tail_start));
        if tail_start <= e || head_end <= line_start || head_end >= tail_start {
            if let Some(spare) = shorten {
                shorten_split_line(text, chosen, shape, spare);
            }
            return;
        }
        (head_end, tail_start)
    };
    let items = chosen.head.items.len();
    if let Item::Range(_, end) = &mut chosen.head.items[items - 2] {
        *end = head_end;
    }
    chosen.tail.items[0] = Item::Range(tail_start, te);
    chosen.head.bytes = chosen.head.bytes + head_end - e;
    chosen.tail.bytes = chosen.tail.bytes + t - tail_start;
    (chosen.head_end, chosen.tail_start) = (head_end, tail_start);
}

/// The text's last line, split between head and tail around a hit too far
/// from the head's part to reach, shown instead as the line `max-line-bytes`
/// shortens (the head's part, then the cut), where `open_cut_lines` opens
/// the hit's window: the line's end gives way to the hit. The bytes the
/// tail's part took, and the `spare` bytes no side used, go to the line's
/// start.
fn shorten_split_line(text: &str, chosen: &mut Chosen, shape: &Shape, spare: usize) {
    let b = text.as_bytes();
    let (e, t) = (chosen.head_end, chosen.tail_start);
    let ([.., Item::Range(a, _), Item::Newline], [Item::Range(_, line_end)]) =
        (&chosen.head.items[..], &chosen.tail.items[..])
    else {
        return;
    };
    let (a, line_end) = (*a, *line_end);
    // Only the text's last line: the tail shows nothing after it.
    if memchr::memchr(b'\n', &b[t..line_end]).is_some_and(|i| t + i + 1 < line_end) {
        return;
    }
    let body = match &b[..line_end] {
        [.., b'\r', b'\n'] => line_end - 2,
        [.., b'\n'] => line_end - 1,
        _ => line_end,
    };
    if body <= e {
        return;
    }
    // The bytes the tail's part and the head's LF took go to the start,
    // less the cut marker.
    let freed = (line_end - t + 1 + spare)
        .saturating_sub(render::line_cut_len(body - e) + (line_end - body));
    let shown = shape.floor(text, (e + freed).min(body - 1)).max(e);
    let start = memchr::memrchr(b'\n', &b[a..e]).map_or(a, |i| a + i + 1);
    let head = &mut chosen.head;
    head.items.truncate(head.items.len() - 2);
    if start > a {
        head.items.push(Item::Range(a, start));
    }
    head.bytes -= e - start + 1;
    head.lines -= 1;
    let mut items = vec![Item::Range(start, shown), Item::LineCut(body - shown)];
    if line_end > body {
        items.push(Item::Range(body, line_end));
    }
    chosen.tail.items = items;
    chosen.tail.bytes = (shown - start) + render::line_cut_len(body - shown) + (line_end - body);
    (chosen.head_end, chosen.tail_start) = (start, start);
}

/// Whether `fill` has nothing more to do: it ran, and no side reached a
/// notable line it could take in.
fn fill_done(chosen: &Chosen, selection: &Selection) -> bool {
    chosen.filled
        && selection
            .lines
            .first()
            .is_none_or(|s| s.start != chosen.head_end)
        && selection
            .lines
            .last()
            .is_none_or(|s| s.end != chosen.tail_start)
}

/// Notable lines right after the head, or right before the tail, join it
/// as plain lines (a cut one keeps its cut, and shows its own line break):
/// nothing is omitted between them, and the side can then go on past them.
/// Whether any did.
fn adjoin(text: &str, chosen: &mut Chosen, selection: &mut Selection) -> bool {
    let before = selection.lines.len();
    while let Some(&first) = selection.lines.first()
        && first.start == chosen.head_end
        && let Some((items, bytes)) = plain_line(text, &first)
    {
        chosen.head.items.extend(items);
        chosen.head.bytes += bytes;
        chosen.head.lines += 1;
        chosen.head_end = first.end;
        selection.lines.remove(0);
    }
    while let Some(&last) = selection.lines.last()
        && last.end == chosen.tail_start
        && let Some((items, bytes)) = plain_line(text, &last)
    {
        chosen.tail.items.splice(0..0, items);
        chosen.tail.bytes += bytes;
        chosen.tail.lines += 1;
        chosen.tail_start = last.start;
        selection.lines.pop();
    }
    while let Some(&first) = selection.lines.first()
        && first.window
        && first.from == chosen.head_end
        && join_window_to_head(text, &mut chosen.head, &first)
    {
        chosen.head_end = first.range(text).1;
        selection.lines.remove(0);
    }
    while let Some(&last) = selection.lines.last()
        && last.window
        && last.range(text).1 == chosen.tail_start
        && join_window_to_tail(text, &mut chosen.tail, &last)
    {
        chosen.tail_start = last.from;
        selection.lines.pop();
    }
    selection.lines.len() < before
}

/// Times the budget left is given back ([`cut::fill`]) at most: each can
/// grow a side up to the next notable line, which it then takes in.
const FILL_ROUNDS: usize = 8;

/// A window that starts where the head ends continues it: the head's part
/// of the line grows by the window (or the window starts the head's next
/// line, shown in part). Whether it could.
fn join_window_to_head(text: &str, head: &mut Side, w: &notable::Shown) -> bool {
    let (a, e) = w.range(text);
    let ends_line = text.as_bytes()[e - 1] == b'\n';
    match head.items[..] {
        [.., Item::Range(s, end), Item::Newline] if end == a => {
            head.items.truncate(head.items.len() - 2);
            head.items.push(Item::Range(s, e));
            head.bytes += e - a;
            if ends_line {
                head.bytes -= 1;
            } else {
                head.items.push(Item::Newline);
            }
            true
        }
        _ if a == w.start && (a == 0 || text.as_bytes()[a - 1] == b'\n') => {
            head.items.push(Item::Range(a, e));
            head.bytes += e - a;
            if !ends_line {
                head.items.push(Item::Newline);
                head.bytes += 1;
            }
            head.lines += 1;
            true
        }
        _ => false,
    }
}

/// A window that ends where the tail starts continues it backwards: the
/// tail's first line, shown in part, starts earlier (or the window is the
/// end of the line before the tail's first). Whether it could.
fn join_window_to_tail(text: &str, tail: &mut Side, w: &notable::Shown) -> bool {
    let (a, e) = w.range(text);
    let b = text.as_bytes();
    match tail.items.first() {
        Some(&Item::Range(s, end)) if s == e && b[e - 1] != b'\n' => {
            tail.items[0] = Item::Range(a, end);
            tail.bytes += e - a;
            true
        }
        Some(&Item::Range(s, _)) if s == e && b[e - 1] == b'\n' => {
            tail.items.insert(0, Item::Range(a, e));
            tail.bytes += e - a;
            tail.lines += 1;
            true
        }
        _ => false,
    }
}

/// The items of a notable line shown as a plain line, and their bytes;
/// `None` for a line without LF.
fn plain_line(text: &str, s: &notable::Shown) -> Option<(Vec<Item>, usize)> {
    let b = text.as_bytes();
    if b[s.end - 1] != b'\n' || s.window {
        return None;
    }
    let (a, e) = s.range(text);
    if e == s.end {
        return Some((vec![Item::Range(a, e)], e - a));
    }
    // A CRLF stays whole: the CR is shown with the LF, not cut.
    let body = if b[s.end - 2] == b'\r' && s.end - 2 >= e {
        s.end - 2
    } else {
        s.end - 1
    };
    let cut = body - e;
    let marker = if cut == 0 {
        0
    } else {
        render::line_cut_marker(cut).len()
    };
    let items = vec![
        Item::Range(a, e),
        Item::LineCut(cut),
        Item::Range(body, s.end),
    ];
    Some((items, (e - a) + marker + (s.end - body)))
}

/// Head, tail and the notable lines of the middle between them, within
/// `allow`: head and tail are chosen with [`notable::SHARE_PERCENT`] of it
/// set aside, the notable lines of the middle they leave take what they need
/// of that share, and [`cut::fill`] gives the rest back. `None` when the
/// middle has no notable line that fits. With the selection come the bytes
/// and lines it uses, markers included.
fn with_notable_lines(
    text: &str,
    index: &LineIndex<'_>,
    budget: &Budget,
    allow: Allowance,
    shape: Shape,
    searched: Searched<'_>,
    gap_room: usize,
) -> Option<(Chosen, Selection, (usize, usize))> {
    let Searched { patterns, terms } = searched;
    let bytes = text.len() as u64;
    let overhead = notable::marker_overhead(bytes, index.lines(), gap_room);
    let share = allow.percent(notable::SHARE_PERCENT);
    let room = Room {
        bytes: share.bytes.checked_sub(overhead)?,
        lines: share.lines.checked_sub(1).filter(|&l| l > 0)?,
        max_line: shape.max_line,
        line_digits: digits(index.lines()),
    };
    let provisional = choose(text, budget, allow.less(share.bytes, share.lines), shape);
    // The search's hits are looked for in every omitted byte of the middle,
    // the parts of lines head and tail show in part included.
    let middle = (provisional.head_end, provisional.tail_start);
    let hits = if terms.is_empty() || middle.0 >= middle.1 {
        Vec::new()
    } else {
        search::first_hits(text.as_bytes(), middle.0, middle.1, terms)
    };
    let bounds = provisional.scan_bounds(text);
    if bounds.is_none() && hits.is_empty() {
        return None;
    }
    // Whole lines only: an empty range when the middle has none.
    let (lo, hi) = bounds.unwrap_or((middle.0, middle.0));
    let mut candidates = Vec::new();
    if lo < hi {
        // As many distinct lines as could ever be shown, twice over.
        let keep = room.lines.min(room.bytes / 12).clamp(1, 2048) * 2;
        candidates = notable::scan(text, lo, hi, patterns, keep);
        if diff::is_diff(text) {
            // Code that mentions errors is not a failure: in a diff, the rare
            // changes stand in for the failure lines; the host's patterns stay.
            candidates.retain(|c| c.score >= notable::HOST_SCORE);
            candidates.extend(diff::rare_changes(text, lo, hi, keep));
        }
    }
    let hits = notable::Hits {
        hits: &hits,
        terms: terms.len(),
        middle,
    };
    let selection = notable::select_with_hits(text, &candidates, lo, hi, room, &hits);
    if selection.lines.is_empty() {
        return None;
    }
    // What the lines leave of their share goes to `cut::fill`: the middle
    // stays as scanned, so no chosen line is lost to a growing head.
    let cost = selection.cost(text, room.line_digits);
    Some((provisional, selection, (cost.0 + overhead, cost.1 + 1)))
}

/// What `allow` leaves head and tail once the notable lines' share is set
/// aside.
fn without_share(allow: Allowance) -> Allowance {
    let share = allow.percent(notable::SHARE_PERCENT);
    allow.less(share.bytes, share.lines)
}

/// Head and tail without notable lines. When the search's first hits were
/// all in head or tail as chosen with the notable lines' share set aside
/// (so the middle had no hit to show), but head and tail chosen with the
/// whole allowance leave one in the middle (each side's share moves), the
/// first choice is kept: `fill` then gives it the rest of the budget, and
/// a side only grows.
fn choose_showing_hits(
    text: &str,
    budget: &Budget,
    allow: Allowance,
    shape: Shape,
    terms: &[&str],
) -> Chosen {
    let chosen = choose(text, budget, allow, shape);
    // A term's first hit in the gap; a hit after it does not count, so
    // the search stops at the gap's end.
    let in_gap = |c: &Chosen| {
        c.head_end < c.tail_start
            && terms.iter().any(|term| {
                let until = (c.tail_start + term.len())
                    .saturating_sub(1)
                    .min(text.len());
                memchr::memmem::find(&text.as_bytes()[..until], term.as_bytes())
                    .is_some_and(|at| at + term.len() > c.head_end)
            })
    };
    if terms.is_empty() || !in_gap(&chosen) {
        return chosen;
    }
    let showing = choose(text, budget, without_share(allow), shape);
    if in_gap(&showing) { chosen } else { showing }
}

/// What the notable lines are looked for with: the session's patterns and
/// the call's search terms.
#[derive(Clone, Copy)]
struct Searched<'a> {
    patterns: &'a Patterns,
    terms: &'a [&'a str],
}

/// The JSON preview of a whole JSON document: [`JSON_HEADER`], the preview,
/// the notice. `None` when the text is not one JSON object or array, or no
/// preview fits (then the text preview applies).
fn json_within(
    budget: &Budget,
    index: &LineIndex<'_>,
    outcome: Saved<'_>,
    notice: &NoticeParts<'_>,
    form: NoticeForm,
    shared: &Shared<'_, '_>,
) -> Option<Preview> {
    let text = shared.text;
    if text.len() > JSON_MAX_INPUT {
        return None;
    }
    let terms = notice.call.search_terms().unwrap_or_default();
    let doc = shared.json(&terms)?;
    let bytes = text.len() as u64;
    let lines = index.lines();
    let (notice_room, _) = call_room(bytes, lines, outcome, notice, form);
    let reserve = notice_room + JSON_HEADER.len() + 1;
    let max_json = (budget.max_bytes as usize).checked_sub(reserve)?;
    let max_lines = budget.max_lines.map_or(usize::MAX, |m| {
        (m as usize).saturating_sub(form.lines() as usize + 1)
    });
    if max_lines == 0 {
        return None;
    }
    let pretty = text.trim().contains('\n');
    let json = match json::preview_unless_taller(doc, max_json, pretty, max_lines) {
        Ok(json) => json?,
        // Too many lines pretty: one compact line keeps the structure.
        Err(json::TooTall) => json::preview(doc, max_json, false)
            .filter(|json| count_lines(json.text.as_bytes()) <= max_lines as u64)?,
    };
    let same = text
        .bytes()
        .zip(json.text.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(json.text.len().min(text.len()));
    let loss = Loss {
        original_bytes: bytes,
        original_lines: lines,
        omitted_bytes: bytes.saturating_sub(json.text.len() as u64),
        omitted_lines: lines.saturating_sub(count_lines(json.text.as_bytes())),
        gap_line: index.line_of(same).min(lines.max(1)),
    };
    let mut out = String::with_capacity(reserve + json.text.len());
    out.push_str(JSON_HEADER);
    out.push('\n');
    out.push_str(&json.text);
    out.push('\n');
    out.push_str(&notice::render_notice_lossy(
        &loss,
        outcome,
        notice.call,
        notice.style,
        form,
        notice.lossy,
    ));
    debug_assert!(out.len() <= budget.max_bytes as usize);
    Some(Preview {
        text: out,
        loss,
        notable: 0,
        folded: 0,
        tokens: 0,
    })
}

/// Head and tail of a preview, and the omitted middle between them.
#[derive(Debug, Clone)]
struct Chosen {
    head: Side,
    /// Where the middle starts: after the head and the lines it folded.
    head_end: usize,
    tail: Side,
    /// Where the middle ends: before the tail and the lines it folded.
    tail_start: usize,
    /// `cut::fill` has run.
    filled: bool,
    /// The head's fold ran up to the tail ([`Shape::refold`]).
    refoldable: bool,
}

impl Chosen {
    /// The whole lines of the middle, `lo..hi`, where notable lines are
    /// looked for; `None` when there are none.
    fn scan_bounds(&self, text: &str) -> Option<(usize, usize)> {
        let b = text.as_bytes();
        if self.head_end >= self.tail_start {
            return None;
        }
        let lo = if self.head_end == 0 || b[self.head_end - 1] == b'\n' {
            self.head_end
        } else {
            memchr::memchr(b'\n', &b[self.head_end..self.tail_start])
                .map(|i| self.head_end + i + 1)?
        };
        let hi = if self.tail_start == text.len() || b[self.tail_start - 1] == b'\n' {
            self.tail_start
        } else {
            memchr::memrchr(b'\n', &b[lo..self.tail_start]).map(|i| lo + i + 1)?
        };
        (lo < hi).then_some((lo, hi))
    }
}

/// The start of the earliest line before `end` such that the lines from it
/// to `end`, each shortened to `max_line` and marked, take at most `room`
/// bytes; `None` when not even one line does.
fn before_lines_worth(
    text: &str,
    end: usize,
    room: usize,
    max_line: Option<usize>,
) -> Option<usize> {
    let b = text.as_bytes();
    let (mut at, mut used) = (end, 0);
    while at > 0 {
        let start = memchr::memrchr(b'\n', &b[..at - 1]).map_or(0, |i| i + 1);
        let line = at - start;
        let shown = max_line.map_or(line, |m| line.min(m + render::max_marker_len(line) + 1));
        if used + shown > room {
            break;
        }
        used += shown;
        at = start;
    }
    (at < end).then_some(at)
}

/// Split the allowance between head and tail as `keep` asks; the tail gets
/// whatever the head leaves.
fn choose(text: &str, budget: &Budget, allow: Allowance, shape: Shape) -> Chosen {
    let keep = effective_keep(budget);
    let head_allow = allow.percent(head_share(budget));
    let head_shape = Shape {
        fill_room: shape.fill_room && keep == Keep::Head,
        fold_reach: shape.fold_reach.map(|_| fold::reach(head_allow.bytes)),
        spare_last_line: keep != Keep::Head,
        ..shape
    };
    let (mut head, mut head_end) = cut::head(text, text.len(), head_allow, head_shape);
    if keep == Keep::Head {
        return Chosen {
            head,
            head_end,
            tail: Side::default(),
            tail_start: text.len(),
            filled: false,
            refoldable: false,
        };
    }
    let tail_allow = Allowance {
        bytes: allow.bytes - head.bytes,
        lines: allow.lines.saturating_sub(head.lines),
    };
    let tail_shape = Shape {
        fold_reach: shape.fold_reach.map(|_| fold::reach(tail_allow.bytes)),
        ..shape
    };
    let (mut tail, mut tail_start) = cut::tail(text, head_end, tail_allow, tail_shape);
    // A head whose fold ran up to the tail took lines the tail had room
    // for: the head folds up to what the tail can show, and the tail shows it.
    // (The tail may show the end of the line the head ends in, the text's
    // last: it meets the head there.)
    let spare = tail_allow.bytes - tail.bytes.min(tail_allow.bytes);
    let b = text.as_bytes();
    let meets = tail_start >= head_end && memchr::memchr(b'\n', &b[head_end..tail_start]).is_none();
    let line_start = memchr::memrchr(b'\n', &b[..head_end]).map_or(0, |i| i + 1);
    let refold_end = (head.folded > 0 && meets)
        .then(|| before_lines_worth(text, line_start, spare, shape.max_line))
        .flatten();
    let refold = refold_end.is_some();
    if shape.refold
        && let Some(end) = refold_end
    {
        (head, head_end) = cut::head(text, end, head_allow, head_shape);
        let tail_allow = Allowance {
            bytes: allow.bytes - head.bytes,
            lines: allow.lines.saturating_sub(head.lines),
        };
        (tail, tail_start) = cut::tail(text, head_end, tail_allow, tail_shape);
    }
    Chosen {
        head,
        head_end,
        tail,
        tail_start,
        filled: false,
        refoldable: refold,
    }
}

/// Exact loss accounting from the ranges actually shown: the head's and the
/// tail's, and the notable lines' (numbered).
fn account(
    text: &str,
    index: &LineIndex<'_>,
    head: &Side,
    notable: &Selection,
    tail: &Side,
) -> Loss {
    let b = text.as_bytes();
    // The line of byte `e`: the line of byte `e - 1`, or the next after a LF.
    let span = |a: usize, e: usize, first: u64, last: u64| Span {
        a: a as u64,
        e: e as u64,
        first,
        last,
        after: last + u64::from(b[e - 1] == b'\n'),
    };
    let mut spans: Vec<Span> = Vec::new();
    for (a, e) in head.ranges() {
        spans.push(span(a, e, index.line_of(a), index.line_of(e - 1)));
    }
    for s in &notable.lines {
        let (a, e) = s.range(text);
        spans.push(span(a, e, s.line, s.line));
    }
    for (a, e) in tail.ranges() {
        spans.push(span(a, e, index.line_of(a), index.line_of(e - 1)));
    }
    account::loss(&spans, text.len() as u64, index.lines())
}

#[cfg(test)]
mod search_tests;
