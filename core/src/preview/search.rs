//! Where a call's search terms ([`crate::Call::search_terms`]) occur in the
//! omitted bytes of a preview: the first few hits of each alternative, so
//! that the preview can show a window around each ([`crate::preview::notable`]),
//! even inside a line of megabytes.

use memchr::memmem::Finder;

use crate::preview::cut::Side;
use crate::preview::render::{Item, line_cut_len};

/// Hits shown per alternative, at most.
pub const HITS_PER_TERM: usize = 8;

/// Hits of one alternative within a single line, at most: a search over
/// one huge line (a minified bundle) shows a few of its hits, a search over
/// many lines the first hit of each.
pub const HITS_PER_LINE: usize = 3;

/// One occurrence of an alternative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Which alternative (its index in the call's terms).
    pub term: usize,
    /// Where it starts in the text.
    pub at: usize,
    /// Its length in bytes.
    pub len: usize,
}

/// The first occurrences of each of `terms` that overlap `b[lo..hi]`, in
/// the order they are to be shown: every alternative's first hit, then
/// every second one, and so on, alternatives in their order. Each
/// alternative brings the first hit of each line before a second hit of
/// any line (a grep over a dozen bundles shows a hit in each), at most
/// [`HITS_PER_TERM`], and at most [`HITS_PER_LINE`] in one line. A hit
/// across an edge counts (a middle's edge can fall inside a hit; the side
/// beyond shows the rest): each alternative is looked for up to its length
/// less one byte beyond each edge, so no hit wholly outside takes a slot.
pub fn first_hits(b: &[u8], lo: usize, hi: usize, terms: &[&str]) -> Vec<Hit> {
    let per_term = terms
        .iter()
        .enumerate()
        .map(|(term, t)| {
            let reach = t.len().saturating_sub(1);
            let (lo, hi) = (lo.saturating_sub(reach), (hi + reach).min(b.len()));
            let finder = Finder::new(t.as_bytes());
            let hit = |at| Hit {
                term,
                at,
                len: t.len(),
            };
            // The first hit of each line, then, in the lines that had one,
            // the next hits, until the alternative has its share.
            let firsts = scan(&finder, b, lo, hi, HITS_PER_TERM, true);
            let mut hits: Vec<Hit> = firsts.iter().map(|&at| hit(at)).collect();
            if hits.len() < HITS_PER_TERM {
                let more = scan(&finder, b, lo, hi, HITS_PER_TERM * HITS_PER_LINE, false);
                let (mut in_line, mut last) = (0, None);
                for at in more {
                    // Hits come in order: a LF since the last starts a line.
                    let same_line =
                        last.is_some_and(|p| memchr::memchr(b'\n', &b[p..at]).is_none());
                    in_line = if same_line { in_line + 1 } else { 1 };
                    last = Some(at);
                    if hits.len() == HITS_PER_TERM {
                        break;
                    }
                    if in_line <= HITS_PER_LINE && !firsts.contains(&at) {
                        hits.push(hit(at));
                    }
                }
            }
            hits
        })
        .collect();
    round_robin(per_term)
}

/// Where `finder` matches in `b[lo..hi]`, at most `most` times, each search
/// resuming after the end of the last hit, or with `by_line` at the next
/// line.
fn scan(
    finder: &Finder<'_>,
    b: &[u8],
    lo: usize,
    hi: usize,
    most: usize,
    by_line: bool,
) -> Vec<usize> {
    let len = finder.needle().len().max(1);
    let mut out = Vec::new();
    let mut p = lo;
    while out.len() < most && p < hi {
        let Some(i) = finder.find(&b[p..hi]) else {
            break;
        };
        out.push(p + i);
        p += i + len;
        if by_line {
            p = memchr::memchr(b'\n', &b[p.min(hi)..hi]).map_or(hi, |j| p + j + 1);
        }
    }
    out
}

/// The hits in showing order: each alternative's first, then its second...
pub fn round_robin(per_term: Vec<Vec<Hit>>) -> Vec<Hit> {
    let rounds = per_term.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for round in 0..rounds {
        out.extend(per_term.iter().filter_map(|hits| hits.get(round).copied()));
    }
    out
}

/// Bytes of text a window around one hit shows: about an even split of
/// the room among the alternatives' first hits, between [`MIN_WINDOW`] and
/// [`MAX_WINDOW`] (and within `max-line-bytes`), never less than the hit.
pub fn window_bytes(room: usize, terms: usize, max_line: Option<usize>, hit_len: usize) -> usize {
    let even = room / (2 * terms.clamp(1, 8));
    even.clamp(MIN_WINDOW, MAX_WINDOW)
        .min(max_line.unwrap_or(usize::MAX))
        .max(hit_len)
}

/// Fewest bytes of a window (the hit and some context).
pub const MIN_WINDOW: usize = 80;

/// Most bytes of a window.
pub const MAX_WINDOW: usize = 400;

/// Where the window `(from, to)` around `hit` lies in the line content
/// `line_lo..line_hi` (already clipped to what may be shown), `width`
/// bytes at most: the hit with as much before as after it, on cluster
/// boundaries. `None` when the hit does not fit whole.
pub fn window(
    text: &str,
    hit: Hit,
    line_lo: usize,
    line_hi: usize,
    width: usize,
) -> Option<(usize, usize)> {
    let end = hit.at + hit.len;
    if hit.at < line_lo || end > line_hi {
        return None;
    }
    let context = width.saturating_sub(hit.len);
    let mut from = hit.at.saturating_sub(context / 2).max(line_lo);
    let to = (from + width).min(line_hi);
    if to - from < width {
        from = to.saturating_sub(width).max(line_lo);
    }
    let from = crate::text::ceil_grapheme(text, from).min(hit.at);
    let to = crate::text::floor_grapheme(text, to).max(end);
    // A hit that starts or ends inside a cluster keeps its cut (rare: a
    // combining mark searched for alone), on char boundaries.
    let from = crate::text::floor_boundary(text, from);
    let to = crate::text::ceil_boundary(text, to);
    (from < to).then_some((from, to))
}

/// Fewest bytes of a shortened line's start that stay shown when windows
/// take its room (or half of what it showed, if less): a grep line's
/// `path:line:` fits.
pub const MIN_PREFIX: usize = 64;

/// Windows around the call's search hits in lines that `max-line-bytes`
/// shortened on a side of the preview (head or tail): a line whose cut
/// part holds the first hit of an alternative shows `start [... M bytes
/// cut] window [... K bytes cut]`, no longer than before. The first hit of
/// every alternative gets a window, in the order they come in the line,
/// while they fit with [`MIN_PREFIX`] bytes of its start; a window is only
/// as wide as leaves room for each later hit alone. What is left goes back
/// to the start.
pub fn open_cut_lines(text: &str, side: &mut Side, terms: &[&str]) {
    if terms.is_empty() {
        return;
    }
    let finders: Vec<Finder<'_>> = terms.iter().map(|t| Finder::new(t.as_bytes())).collect();
    let mut i = 0;
    while i + 1 < side.items.len() {
        if let (Item::Range(a, e), Item::LineCut(c)) = (side.items[i], side.items[i + 1])
            && c > 0
        {
            // A range can hold whole lines before the shortened one.
            let start = memchr::memrchr(b'\n', &text.as_bytes()[a..e]).map_or(a, |j| a + j + 1);
            let Some((mut items, old, new)) = opened(text, (start, e, e + c), &finders) else {
                i += 1;
                continue;
            };
            if start > a {
                items.insert(0, Item::Range(a, start));
            }
            let n = items.len();
            side.items.splice(i..i + 2, items);
            side.bytes = side.bytes + new - old;
            i += n;
            continue;
        }
        i += 1;
    }
}

/// The items of the line whose bytes `a..e` are shown and `e..body` cut,
/// with windows opened around hits, and its rendered length before and
/// after; `None` when every first hit is shown already, or none fits.
fn opened(
    text: &str,
    (a, e, body): (usize, usize, usize),
    finders: &[Finder<'_>],
) -> Option<(Vec<Item>, usize, usize)> {
    let b = text.as_bytes();
    let old = (e - a) + line_cut_len(body - e);
    // A line shown short keeps half of what it showed.
    let prefix_end = crate::text::floor_grapheme(text, a + MIN_PREFIX.min((e - a) / 2));
    let mut hits: Vec<Hit> = finders
        .iter()
        .enumerate()
        .filter_map(|(term, f)| {
            let at = a + f.find(&b[a..body])?;
            let len = f.needle().len();
            (at + len > prefix_end).then_some(Hit { term, at, len })
        })
        .collect();
    if hits.iter().all(|h| h.at + h.len <= e) {
        return None;
    }
    crate::order::sort_by_key(&mut hits, |h| h.at);
    let width =
        ((e - a).saturating_sub(MIN_PREFIX) / (2 * hits.len())).clamp(MIN_WINDOW, MAX_WINDOW);
    // Each hit alone, the least a later hit needs.
    let alone: Vec<Option<(usize, usize)>> = hits
        .iter()
        .map(|&hit| window(text, hit, a, body, hit.len))
        .collect();
    let mut parts = vec![(a, prefix_end)];
    for (k, &hit) in hits.iter().enumerate() {
        // Narrower windows, down to the hit alone, when a wide one does not
        // fit, or leaves no room for the later hits alone.
        let widths = [width, width / 2, hit.len + MIN_WINDOW / 4, hit.len];
        for (n, w) in widths.into_iter().enumerate() {
            let Some(w) = window(text, hit, a, body, w.max(hit.len)) else {
                break;
            };
            let mut with = parts.clone();
            with.push(w);
            let with = merged(with);
            if rendered(&with, body) > old {
                continue;
            }
            let mut all = with.clone();
            all.extend(alone[k + 1..].iter().flatten());
            if n + 1 == widths.len() || rendered(&merged(all), body) <= old {
                parts = with;
                break;
            }
        }
    }
    if parts.len() == 1 && parts[0].1 <= e {
        return None;
    }
    // What is left goes to the start, up to the next part.
    loop {
        let left = old - rendered(&parts, body);
        let next = parts.get(1).map_or(body, |p| p.0);
        let end = crate::text::floor_grapheme(text, (parts[0].1 + left).min(next));
        if end <= parts[0].1 {
            break;
        }
        parts[0].1 = end;
        parts = merged(parts);
    }
    let mut items = Vec::with_capacity(2 * parts.len());
    for (k, &(s, t)) in parts.iter().enumerate() {
        if k > 0 {
            items.push(Item::MidCut(s - parts[k - 1].1));
        }
        items.push(Item::Range(s, t));
    }
    let last = parts[parts.len() - 1].1;
    items.push(Item::LineCut(body - last));
    let new = rendered(&parts, body);
    debug_assert!(new <= old, "{new} > {old}");
    Some((items, old, new))
}

/// `parts` in order, those that overlap or touch joined.
fn merged(mut parts: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    crate::order::sort_by(&mut parts, Ord::cmp);
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(parts.len());
    for (s, t) in parts {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(t),
            _ => out.push((s, t)),
        }
    }
    out
}

/// Rendered bytes of a line's content shown as `parts` (in order, apart)
/// up to `body`: the parts, a marker between each two, one after the last
/// unless it reaches `body`.
fn rendered(parts: &[(usize, usize)], body: usize) -> usize {
    let shown: usize = parts.iter().map(|&(s, t)| t - s).sum();
    let between: usize = parts
        .windows(2)
        .map(|w| line_cut_len(w[1].0 - w[0].1) + 1)
        .sum();
    shown + between + line_cut_len(body - parts[parts.len() - 1].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_hits_come_round_robin_and_do_not_overlap() {
        let text = b"aaaa b aa b b b b";
        let hits = first_hits(text, 0, text.len(), &["aa", "b"]);
        let got: Vec<(usize, usize)> = hits.iter().map(|h| (h.term, h.at)).collect();
        assert_eq!(got, [(0, 0), (1, 5), (0, 2), (1, 10), (0, 7), (1, 12)]);
        // Only within the bounds given.
        let hits = first_hits(text, 6, 10, &["aa", "b"]);
        assert_eq!(
            hits,
            [Hit {
                term: 0,
                at: 7,
                len: 2
            }]
        );
    }

    #[test]
    fn hits_across_the_edges_are_found_and_none_wholly_outside() {
        let text = b"ab NEEDLE cd ne NEEDLE";
        // The middle 5..12 starts inside the first NEEDLE: it is found;
        // `ab` and the second NEEDLE lie wholly outside.
        let hits = first_hits(text, 5, 12, &["NEEDLE", "ab"]);
        let got: Vec<(usize, usize)> = hits.iter().map(|h| (h.term, h.at)).collect();
        assert_eq!(got, [(0, 3)]);
    }

    #[test]
    fn windows_center_the_hit_within_the_line() {
        let text = "x".repeat(1000) + "NEEDLE" + &"y".repeat(1000);
        let hit = Hit {
            term: 0,
            at: 1000,
            len: 6,
        };
        let (a, b) = window(&text, hit, 0, text.len(), 106).unwrap();
        assert_eq!((a, b), (950, 1056));
        // Near an edge the window slides inward.
        let (a, b) = window(&text, hit, 990, text.len(), 106).unwrap();
        assert_eq!((a, b), (990, 1096));
        // A hit outside the bounds gets none.
        assert_eq!(window(&text, hit, 1001, text.len(), 106), None);
        assert!(window_bytes(100_000, 1, None, 6) <= MAX_WINDOW);
        assert_eq!(window_bytes(100_000, 1, Some(120), 6), 120);
        assert_eq!(window_bytes(0, 1, Some(10), 300), 300);
    }
}
