//! The occurrences of an automaton's patterns in a stretch of lines, found
//! by walking parts of it at once, or only the lines a prefilter finds.
//!
//! Without a SIMD prefilter (wasm has no Teddy) a search is one walk of the
//! automaton, a byte a step, and each step waits for the one before it: the
//! next state is a load from the transition table at the current state.
//! Where the patterns can be fingerprinted ([`super::fingerprint`]), the
//! automaton walks only the lines that hold a pattern. Otherwise walks over
//! parts of the bytes are chains that the processor runs side by side.
//!
//! **Exactly the search's answers.** When no pattern holds a line break, the
//! state after a line break is the start state: no part of a pattern can
//! reach over it. So a walk from a line start finds what a walk from further
//! back finds from there, the parts split at line starts, a line without a
//! pattern holds no match, and the answers of [`First::from`] are those of
//! a search from its position with standard semantics (the match that ends
//! first, then the next search from its end), whatever walked before. The
//! tests compare them with the automaton's own search.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, Input, MatchKind};
use memchr::{memchr, memrchr};

use super::fingerprint::Fingerprints;

/// The automaton of a session's searches, and the fingerprints of its
/// patterns where they can run ahead of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Search<'a> {
    pub dfa: &'a DFA,
    pub fingerprints: Option<&'a Fingerprints>,
}

/// One occurrence: where it starts, and which pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Occurrence {
    pub start: usize,
    pub pattern: usize,
}

/// Whether [`walk`] finds what the own search of an automaton of `kind`
/// of `patterns` finds: standard semantics, and no pattern that is empty or
/// holds a line break.
pub(super) fn walks_alike<'a>(
    kind: MatchKind,
    patterns: impl IntoIterator<Item = &'a str>,
) -> bool {
    kind == MatchKind::Standard
        && patterns
            .into_iter()
            .all(|p| !p.is_empty() && !p.contains('\n'))
}

/// Walks at once. A 4 MiB cap in the component took 8.0 ms with the
/// automaton's search, 7.4 ms with two walks and 7.1 ms with four (2-3%
/// less in rounds); six were no faster, and eight slower (9.2 ms).
const WALKS: usize = 4;

/// Appends to `out`, in order, every occurrence that `search`'s automaton
/// reports one after the other over `b[lo..hi]` (each search from the end
/// of the last match). `lo` starts a line, and [`walks_alike`] holds.
pub(super) fn walk(search: Search<'_>, b: &[u8], lo: usize, hi: usize, out: &mut Vec<Occurrence>) {
    match search.fingerprints {
        Some(fingerprints) => walk_lines(search.dfa, fingerprints, b, lo, hi, out),
        None => walk_parts(search.dfa, b, lo, hi, out),
    }
}

/// [`walk`] of the lines where `fingerprints` find a pattern, one after the
/// other. A 4 MiB cap in the component, against the walk in parts: a log
/// 9.7 to 7.9 ms, Russian or Chinese text 10.5 to 6.1 ms. Where most bytes
/// turn out to be on such lines (a log of warnings), the rest is walked in
/// parts, which run side by side.
fn walk_lines(
    dfa: &DFA,
    fingerprints: &Fingerprints,
    b: &[u8],
    lo: usize,
    hi: usize,
    out: &mut Vec<Occurrence>,
) {
    let start = dfa
        .start_state(Anchored::No)
        .expect("an unanchored DFA searches");
    let (mut from, mut walked) = (lo, 0);
    while let Some(at) = fingerprints.find(b, from, hi) {
        let line = memrchr(b'\n', &b[from..at]).map_or(from, |i| from + i + 1);
        let end = memchr(b'\n', &b[at..hi]).map_or(hi, |i| at + i + 1);
        // From `at`, not the line's start: no pattern starts before it on
        // the line, so what the walk would have begun there never matches.
        Walker::new(start, at, end).rest(dfa, b, start, out);
        walked += end - line;
        from = end;
        if walked >= DENSE_AFTER && walked * 2 > from - lo {
            walk_parts(dfa, b, from, hi, out);
            return;
        }
    }
}

/// Bytes walked line by line before [`walk_lines`] judges whether lines
/// with a pattern are most of the text.
const DENSE_AFTER: usize = 16 * 1024;

/// [`walk`] of `b[lo..hi]` whole, in parts at once.
fn walk_parts(dfa: &DFA, b: &[u8], lo: usize, hi: usize, out: &mut Vec<Occurrence>) {
    let start = dfa
        .start_state(Anchored::No)
        .expect("an unanchored DFA searches");
    // Each part but the last ends at the first line start after its share.
    let mut from = lo;
    let mut walkers: [Walker; WALKS] = std::array::from_fn(|k| {
        let share = (from + (hi - lo).div_ceil(WALKS)).min(hi);
        let end = match memchr(b'\n', &b[share..hi]) {
            Some(i) if k + 1 < WALKS => share + i + 1,
            _ => hi,
        };
        let walker = Walker::new(start, from, end);
        from = end;
        walker
    });
    let mut found: [Vec<Occurrence>; WALKS] = Default::default();
    // In rounds of as many steps as every walk has left: the steps of a
    // round read each part's bytes from one slice, with no end to check.
    loop {
        let steps = walkers.iter().map(|w| w.end - w.at).min().unwrap_or(0);
        if steps == 0 {
            break;
        }
        let parts: [&[u8]; WALKS] = std::array::from_fn(|k| &b[walkers[k].at..][..steps]);
        let mut sids: [StateID; WALKS] = std::array::from_fn(|k| walkers[k].sid);
        for i in 0..steps {
            for (sid, part) in sids.iter_mut().zip(parts) {
                *sid = dfa.next_state(Anchored::No, *sid, part[i]);
            }
            for ((sid, w), found) in sids.iter_mut().zip(&walkers).zip(&mut found) {
                if dfa.is_special(*sid) {
                    *sid = Walker::special_at(dfa, *sid, w.at + i + 1, start, found);
                }
            }
        }
        for (w, sid) in walkers.iter_mut().zip(sids) {
            w.sid = sid;
            w.at += steps;
        }
    }
    for (w, found) in walkers.iter_mut().zip(&mut found) {
        w.rest(dfa, b, start, found);
        out.append(found);
    }
}

/// One walk: its state, where its next byte is, and where it stops.
struct Walker {
    sid: StateID,
    at: usize,
    end: usize,
}

impl Walker {
    fn new(sid: StateID, at: usize, end: usize) -> Walker {
        Walker { sid, at, end }
    }

    /// After a step into the special state `sid`, entered at the byte before
    /// `end`: the state to go on from. A match is noted and the walk starts
    /// again after it, as the next search would. A dead state stays dead and
    /// matches nothing more, as a search ends there. (A start state is
    /// special only with a prefilter, which a walk does not use.)
    ///
    /// Never inlined: out of the loop of four walks, the rare match leaves
    /// the steps their registers (a 4 MiB cap of log in the component, 6.4
    /// to 6.05 ms). A table of every state's next state, with no bounds
    /// check, was no faster than the DFA's own steps.
    #[inline(never)]
    fn special_at(
        dfa: &DFA,
        sid: StateID,
        end: usize,
        start: StateID,
        out: &mut Vec<Occurrence>,
    ) -> StateID {
        if !dfa.is_match(sid) {
            return sid;
        }
        let pattern = dfa.match_pattern(sid, 0);
        out.push(Occurrence {
            start: end - dfa.pattern_len(pattern),
            pattern: pattern.as_usize(),
        });
        start
    }

    /// The rest of the walk alone.
    fn rest(&mut self, dfa: &DFA, b: &[u8], start: StateID, out: &mut Vec<Occurrence>) {
        while self.at < self.end {
            self.sid = dfa.next_state(Anchored::No, self.sid, b[self.at]);
            self.at += 1;
            if dfa.is_special(self.sid) {
                self.sid = Walker::special_at(dfa, self.sid, self.at, start, out);
            }
        }
    }
}

/// Bytes walked at a time by [`Starts`]: what it holds is one part's
/// occurrences, whatever the size of the text.
const PART: usize = 256 * 1024;

/// Where the occurrences of a text start, in order, walked a part at a
/// time (each part ending at a line start), as `dfa`'s search of the whole
/// text reports them.
pub(super) struct Starts<'a> {
    search: Search<'a>,
    b: &'a [u8],
    /// Where the next part starts.
    at: usize,
    found: Vec<Occurrence>,
    next: usize,
}

impl<'a> Starts<'a> {
    /// The starts in `b` ([`walks_alike`] holds).
    pub(super) fn new(search: Search<'a>, b: &'a [u8]) -> Starts<'a> {
        Starts {
            search,
            b,
            at: 0,
            found: Vec::new(),
            next: 0,
        }
    }
}

impl Iterator for Starts<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.next == self.found.len() {
            if self.at == self.b.len() {
                return None;
            }
            let share = (self.at + PART).min(self.b.len());
            let end = memchr(b'\n', &self.b[share..]).map_or(self.b.len(), |i| share + i + 1);
            self.found.clear();
            self.next = 0;
            walk(self.search, self.b, self.at, end, &mut self.found);
            self.at = end;
        }
        self.next += 1;
        Some(self.found[self.next - 1].start)
    }
}

/// The first match from a position on, as a search from there finds it,
/// for positions that only move forward, from the occurrences of one
/// [`walk`] of `b[lo..hi]`.
pub(super) struct First<'a> {
    dfa: &'a DFA,
    b: &'a [u8],
    lo: usize,
    hi: usize,
    found: Vec<Occurrence>,
    /// The first of `found` not before the last position asked.
    next: usize,
}

impl<'a> First<'a> {
    /// Walks `b[lo..hi]` (`lo` starts a line; [`walks_alike`] holds).
    pub(super) fn new(search: Search<'a>, b: &'a [u8], lo: usize, hi: usize) -> First<'a> {
        let mut found = Vec::new();
        walk(search, b, lo, hi, &mut found);
        First {
            dfa: search.dfa,
            b,
            lo,
            hi,
            found,
            next: 0,
        }
    }

    /// What `dfa.try_find` of `b[q..hi]` finds; `q` is at or after the last
    /// position asked. From a line start the walk's next occurrence is the
    /// answer. Within a line, the rest of it is searched first: a match
    /// there ends before any in later lines.
    pub(super) fn from(&mut self, q: usize) -> Option<Occurrence> {
        let mut q = q;
        if q > self.lo && self.b[q - 1] != b'\n' {
            let line_end = memchr(b'\n', &self.b[q..self.hi]).map_or(self.hi, |i| q + i + 1);
            let found = self
                .dfa
                .try_find(&Input::new(self.b).range(q..line_end))
                .expect("an unanchored DFA searches");
            if let Some(m) = found {
                return Some(Occurrence {
                    start: m.start(),
                    pattern: m.pattern().as_usize(),
                });
            }
            q = line_end;
        }
        let skipped = self.found[self.next..].partition_point(|o| o.start < q);
        self.next += skipped;
        self.found.get(self.next).copied()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const PATTERNS: &[&str] = &[
        "rror", "ERR", "FA", "ail", "crit", "E   ", "exit", "Kill", "\u{2716}",
    ];

    /// The patterns with `FAI` for `FA`: all long enough to fingerprint.
    const FINGERPRINTED: &[&str] = &[
        "rror", "ERR", "FAI", "ail", "crit", "E   ", "exit", "Kill", "\u{2716}",
    ];

    fn standard() -> DFA {
        automaton(PATTERNS)
    }

    fn automaton(patterns: &[&str]) -> DFA {
        DFA::builder()
            .match_kind(MatchKind::Standard)
            .build(patterns)
            .unwrap()
    }

    /// Each way to walk: parts at once, and the lines the fingerprints
    /// find.
    fn each_way(test: impl Fn(Search<'_>)) {
        test(Search {
            dfa: &standard(),
            fingerprints: None,
        });
        let fingerprints =
            Fingerprints::new(FINGERPRINTED.iter().map(|p| p.as_bytes())).expect("3 bytes each");
        test(Search {
            dfa: &automaton(FINGERPRINTED),
            fingerprints: Some(&fingerprints),
        });
    }

    /// Lines of pieces that hold the patterns, parts of them, overlaps of
    /// two (`rrorr`, `FAil`), multi-byte chars and line breaks.
    fn text() -> impl Strategy<Value = String> {
        let pieces = [
            "error", "rror", "rro", "ERR", "ERROR", "FA", "FAil", "ail", "ai", "crit", "cri",
            "E   ", "E  ", "exit", "Kill", "Ki", "\u{2716}", "\u{2715}", "é", "中", "z", " ", "\n",
            "FAI", "\n\n", "\r\n",
        ];
        prop::collection::vec(prop::sample::select(pieces.to_vec()), 0..200)
            .prop_map(|parts| parts.concat())
    }

    fn searched(dfa: &DFA, b: &[u8], lo: usize, hi: usize) -> Vec<Occurrence> {
        dfa.try_find_iter(Input::new(b).range(lo..hi))
            .unwrap()
            .map(|m| Occurrence {
                start: m.start(),
                pattern: m.pattern().as_usize(),
            })
            .collect()
    }

    /// A line start at or before `cut`.
    fn line_start(b: &[u8], cut: usize) -> usize {
        let cut = cut.min(b.len());
        memchr::memrchr(b'\n', &b[..cut]).map_or(0, |i| i + 1)
    }

    #[test]
    fn only_standard_automata_of_patterns_without_line_breaks_walk_alike() {
        let standard = MatchKind::Standard;
        assert!(walks_alike(standard, PATTERNS.iter().copied()));
        assert!(!walks_alike(standard, ["a\nb"]));
        assert!(!walks_alike(standard, [""]));
        assert!(!walks_alike(
            MatchKind::LeftmostFirst,
            PATTERNS.iter().copied()
        ));
    }

    #[test]
    fn a_walk_of_nothing_finds_nothing() {
        each_way(|search| {
            let mut out = Vec::new();
            walk(search, b"", 0, 0, &mut out);
            walk(search, b"error\n", 6, 6, &mut out);
            walk(search, b"error\n", 0, 3, &mut out);
            assert!(out.is_empty());
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// The walks find every occurrence the automaton's search
        /// finds, in order, from any line start to any end.
        #[test]
        fn a_walk_finds_what_the_search_finds(text in text(), cut in 0usize..400, end in 0usize..400) {
            let b = text.as_bytes();
            let lo = line_start(b, cut);
            let hi = (lo + end).min(b.len());
            let hi = (lo..=hi).rev().find(|&i| text.is_char_boundary(i)).unwrap();
            each_way(|search| {
                let mut walked = Vec::new();
                walk(search, b, lo, hi, &mut walked);
                assert_eq!(walked, searched(search.dfa, b, lo, hi));
            });
        }

        /// Walked a part at a time, a long text's starts are the search's.
        #[test]
        fn the_starts_of_a_long_text_are_the_search_s(text in text(), repeat in 1usize..4000) {
            let text = format!("{text}\n").repeat(repeat);
            let b = text.as_bytes();
            each_way(|search| {
                let starts: Vec<usize> = Starts::new(search, b).collect();
                let searched: Vec<usize> =
                    searched(search.dfa, b, 0, b.len()).iter().map(|o| o.start).collect();
                assert_eq!(starts, searched);
            });
        }

        /// From any positions, line starts or not, in order: the search's
        /// first match from each.
        #[test]
        fn first_answers_as_the_search_does(
            text in text(),
            cut in 0usize..400,
            steps in prop::collection::vec(0usize..40, 0..30),
        ) {
            let b = text.as_bytes();
            let lo = line_start(b, cut);
            each_way(|search| {
                let mut first = First::new(search, b, lo, b.len());
                let mut q = lo;
                for &step in &steps {
                    q = (q + step).min(b.len());
                    let expected = search
                        .dfa
                        .try_find(&Input::new(b).range(q..b.len()))
                        .unwrap()
                        .map(|m| Occurrence { start: m.start(), pattern: m.pattern().as_usize() });
                    assert_eq!(first.from(q), expected, "from {}", q);
                }
            });
        }
    }
}
