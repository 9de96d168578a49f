//! The searches as two automata where aho-corasick's SIMD prefilter (Teddy)
//! runs ahead of them: one of the literals of four bytes or more, one of
//! the shorter ones, with the answers of one automaton of them all.
//!
//! Teddy fingerprints as many first bytes as the shortest literal has, at
//! most four, in buckets shared by several literals. With the three-byte
//! ones among the built-in searches it fingerprinted three, and in source
//! code, prose or JSON most positions then passed some bucket: the search
//! of a 4 MiB middle took 9-11 ms there against 0.6 ms in the bench's log.
//! Apart, the long ones take 1.6-3.2 ms and the few short ones (`ERR`,
//! `ail`, the cross marks) 0.3-0.4 ms.
//!
//! **The same answers.** Each automaton reports, from a position, its
//! leftmost match and, of those that start there, the one it lists first.
//! Of the two, the one that starts first (on a tie, the one listed first
//! among all the searches) is then what one automaton of all of them
//! reports with leftmost-first semantics, and its end the same. A part's
//! answer also stands for any later position up to its start, so it is
//! kept until passed.

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};

use super::classify::NATIVELY_SHORT;
use super::walk::Occurrence;

/// Literals at least this long go in the first automaton (but for the few
/// of [`NATIVELY_SHORT`]): Teddy fingerprints no more bytes than this.
pub(super) const LONG: usize = 4;

/// Whether `search` goes in the automaton of long literals.
pub(super) fn is_long(search: &str) -> bool {
    search.len() >= LONG && !NATIVELY_SHORT.contains(&search)
}

/// Whether aho-corasick has a SIMD prefilter here, so that splitting pays:
/// not in wasm, where two automata would be two walks of every byte.
pub(super) const HAS_PREFILTER: bool = !cfg!(target_arch = "wasm32");

/// The searches, in one automaton or split by length.
#[derive(Debug, Clone)]
pub(super) struct Split {
    parts: Vec<Part>,
}

/// One automaton, and the index among all the searches of each of its
/// patterns.
#[derive(Debug, Clone)]
struct Part {
    dfa: DFA,
    ids: Vec<usize>,
}

impl Split {
    /// `searches` in automata of `kind`: split by length when `split` and
    /// the semantics are leftmost-first (what [`Searcher::first`] merges;
    /// the standard semantics report the match that ends first), else one.
    pub(super) fn new<'a>(
        searches: impl IntoIterator<Item = &'a str>,
        kind: MatchKind,
        split: bool,
    ) -> Split {
        let split = split && kind == MatchKind::LeftmostFirst;
        let (mut long, mut short) = (Vec::new(), Vec::new());
        for (id, search) in searches.into_iter().enumerate() {
            if !split || is_long(search) {
                long.push((id, search));
            } else {
                short.push((id, search));
            }
        }
        let part = |literals: Vec<(usize, &str)>| Part {
            dfa: DFA::builder()
                .match_kind(kind)
                .build(literals.iter().map(|&(_, l)| l))
                .expect("a few short literals build an automaton"),
            ids: literals.iter().map(|&(id, _)| id).collect(),
        };
        Split {
            parts: [long, short]
                .into_iter()
                .filter(|literals| !literals.is_empty())
                .map(part)
                .collect(),
        }
    }

    /// Whether some search occurs in `hay`.
    pub(super) fn occurs(&self, hay: &str) -> bool {
        self.parts.iter().any(|part| {
            part.dfa
                .try_find(&Input::new(hay).earliest(true))
                .expect("an unanchored DFA searches")
                .is_some()
        })
    }

    /// Where the searches occur in `hay` (non-overlapping, in order), as
    /// one automaton's search reports them one after the other.
    pub(super) fn starts<'a>(&'a self, hay: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        self.starts_from(hay, 0)
    }

    /// [`Split::starts`] of `hay[from..]`.
    pub(super) fn starts_from<'a>(
        &'a self,
        hay: &'a [u8],
        mut from: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        let mut searcher = self.searcher(hay);
        std::iter::from_fn(move || {
            if from > hay.len() {
                return None;
            }
            let (o, end) = searcher.first(from, hay.len())?;
            // An empty match (an empty pattern of a host's) moves on a byte.
            from = if end > o.start { end } else { end + 1 };
            Some(o.start)
        })
    }

    /// What the automata report of `hay`, search by search.
    pub(super) fn searcher<'a>(&'a self, hay: &'a [u8]) -> Searcher<'a> {
        Searcher {
            split: self,
            hay,
            kept: vec![None; self.parts.len()],
        }
    }
}

/// Searches of one haystack, each part's last answer kept.
pub(super) struct Searcher<'a> {
    split: &'a Split,
    hay: &'a [u8],
    /// Per part, its last search.
    kept: Vec<Option<Kept>>,
}

/// A part's last search: from where, to where, and its answer (where the
/// match starts, which search, and where it ends).
#[derive(Debug, Clone, Copy)]
struct Kept {
    from: usize,
    to: usize,
    answer: Option<(Occurrence, usize)>,
}

impl Searcher<'_> {
    /// The first match in `hay[from..to]`, as one automaton of every search
    /// reports it: where it starts, which search (its index among all),
    /// and where it ends.
    pub(super) fn first(&mut self, from: usize, to: usize) -> Option<(Occurrence, usize)> {
        let mut best: Option<(Occurrence, usize)> = None;
        for (part, kept) in self.split.parts.iter().zip(&mut self.kept) {
            let answer = match *kept {
                // Nothing of this part starts between where it searched
                // and its answer: from anywhere up to that, the same.
                Some(kept)
                    if kept.from <= from
                        && kept.to == to
                        && kept.answer.is_none_or(|(o, _)| from <= o.start) =>
                {
                    kept.answer
                }
                _ => {
                    let found = part
                        .dfa
                        .try_find(&Input::new(self.hay).range(from..to))
                        .expect("an unanchored DFA searches")
                        .map(|m| {
                            let occurrence = Occurrence {
                                start: m.start(),
                                pattern: part.ids[m.pattern().as_usize()],
                            };
                            (occurrence, m.end())
                        });
                    *kept = Some(Kept {
                        from,
                        to,
                        answer: found,
                    });
                    found
                }
            };
            if let Some((o, end)) = answer
                && best.is_none_or(|(b, _)| (o.start, o.pattern) < (b.start, b.pattern))
            {
                best = Some((o, end));
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::preview::notable::classify::{ANCHORS, RARE_SIGNS};

    /// The built-in searches and host patterns that start where built-in
    /// ones start, one in each part (`ERROR!` with `ERR`, `ai` with `ail`).
    fn searches() -> Vec<&'static str> {
        let host = ["ERROR!", "ai", "Kil", "crit path"];
        ANCHORS
            .iter()
            .chain(&RARE_SIGNS)
            .chain(&host)
            .copied()
            .collect()
    }

    fn one(kind: MatchKind) -> DFA {
        DFA::builder().match_kind(kind).build(searches()).unwrap()
    }

    /// Pieces of the searches, near misses, line breaks and other bytes.
    fn text() -> impl Strategy<Value = String> {
        let pieces = [
            "ERROR!",
            "ERR",
            "ERRO",
            "rror",
            "ail",
            "ai",
            "Kill",
            "Kil",
            "exit",
            "crit path",
            "crit",
            "not found",
            "t found",
            "and not used",
            "\u{2716}",
            "\u{d7} ",
            "E: ",
            "E   ",
            "\" 5",
            "FATAL",
            "atal",
            "x",
            " ",
            "\n",
            "é",
            "中",
        ];
        prop::collection::vec(prop::sample::select(pieces.to_vec()), 0..120)
            .prop_map(|p| p.concat())
    }

    #[test]
    fn searches_split_by_length_unless_told_not_to() {
        let split = Split::new(searches(), MatchKind::LeftmostFirst, true);
        assert_eq!(split.parts.len(), 2);
        assert!(
            split.parts[0]
                .ids
                .iter()
                .all(|&i| searches()[i].len() >= LONG)
        );
        assert!(split.parts[1].ids.iter().all(|&i| {
            let search = searches()[i];
            search.len() < LONG || NATIVELY_SHORT.contains(&search)
        }));
        // The anchors sent with the short ones are there.
        for short in NATIVELY_SHORT {
            let id = searches()
                .iter()
                .position(|s| *s == short)
                .expect("an anchor");
            assert!(split.parts[1].ids.contains(&id), "{short}");
        }
        let whole = Split::new(searches(), MatchKind::LeftmostFirst, false);
        assert_eq!(whole.parts.len(), 1);
        let standard = Split::new(searches(), MatchKind::Standard, true);
        assert_eq!(standard.parts.len(), 1);
    }

    proptest! {
        /// From every position in turn, and back to an earlier one, the
        /// parts answer what one automaton of every search answers: the
        /// same start, search and end.
        #[test]
        fn the_parts_answer_as_one_automaton(text in text(), cut in 0usize..8) {
            for kind in [MatchKind::LeftmostFirst, MatchKind::Standard] {
                let one = one(kind);
                let split = Split::new(searches(), kind, true);
                let b = text.as_bytes();
                let to = b.len().saturating_sub(cut);
                let mut searcher = split.searcher(b);
                let froms = (0..=to).chain([0, to / 2]);
                for from in froms {
                    let expected = one
                        .try_find(&Input::new(b).range(from..to))
                        .unwrap()
                        .map(|m| (m.start(), m.pattern().as_usize(), m.end()));
                    let got = searcher
                        .first(from, to)
                        .map(|(o, end)| (o.start, o.pattern, end));
                    prop_assert_eq!(got, expected, "{:?} from {}", kind, from);
                }
                let expected: Vec<usize> =
                    one.try_find_iter(Input::new(b)).unwrap().map(|m| m.start()).collect();
                prop_assert_eq!(split.starts(b).collect::<Vec<_>>(), expected, "{:?}", kind);
                prop_assert_eq!(split.occurs(&text), split.starts(b).next().is_some());
            }
        }
    }
}
