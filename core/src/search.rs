//! Where a call's search terms ([`crate::Call::search_terms`]) occur in the
//! omitted bytes of a preview: the first few hits of each alternative, so
//! that the preview can show a window around each ([`crate::notable`]),
//! even inside a line of megabytes.

use memchr::memmem::Finder;

/// Hits shown per alternative, at most.
pub const HITS_PER_TERM: usize = 3;

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

/// The first [`HITS_PER_TERM`] occurrences of each of `terms` in
/// `b[lo..hi]` (each search resumes after the end of the previous hit), in
/// the order they are to be shown: every alternative's first hit, then
/// every second one, and so on, alternatives in their order.
pub fn first_hits(b: &[u8], lo: usize, hi: usize, terms: &[&str]) -> Vec<Hit> {
    let mut per_term: Vec<Vec<Hit>> = Vec::with_capacity(terms.len());
    for (term, t) in terms.iter().enumerate() {
        let finder = Finder::new(t.as_bytes());
        let mut hits = Vec::new();
        let mut p = lo;
        while hits.len() < HITS_PER_TERM && p < hi {
            let Some(i) = finder.find(&b[p..hi]) else {
                break;
            };
            hits.push(Hit {
                term,
                at: p + i,
                len: t.len(),
            });
            p += i + t.len().max(1);
        }
        per_term.push(hits);
    }
    round_robin(per_term)
}

/// The hits in showing order: each alternative's first, then its second...
pub fn round_robin(per_term: Vec<Vec<Hit>>) -> Vec<Hit> {
    let mut out = Vec::new();
    for round in 0..HITS_PER_TERM {
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
