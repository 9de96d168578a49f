//! Notable lines of a text read once, in bounded memory.
//!
//! Each line's first [`CLASSIFY_BYTES`] are classified as the preview of
//! the whole text (`cap`) classifies them (the host's patterns first, then
//! [`notable::classify`]), and the best lines are kept by confidence, then
//! file order, with a count of the lines alike ([`notable::dedupe_key`]).
//! Three pools of at most `keep` lines each, so that no part of the text
//! crowds out another:
//!
//! - **early**: lines that start within the first `window` bytes (the head
//!   may show them);
//! - **recent**: lines with at most `window` bytes after them (the tail may
//!   show them); a line moves on to the settled pool once more than `window`
//!   bytes follow it, so a burst of failures at the end cannot push out the
//!   failures of the middle;
//! - **settled**: the lines of the middle.
//!
//! Which lines the preview shows is decided at the end, once the head and
//! the tail are chosen.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::preview::notable::{self, HOST_SCORE, Kind, Patterns};
use crate::preview::one_pass::Notable;

/// Bytes of a line that are classified.
pub(crate) const CLASSIFY_BYTES: usize = 4096;

impl Notable {
    /// Better lines sort first: higher confidence, then earlier.
    pub(crate) fn rank(&self) -> Rank {
        (Reverse(self.score), self.start)
    }
}

/// Order of merit of a line.
pub(crate) type Rank = (Reverse<u8>, u64);

/// The best `cap` lines seen, one per family of lines alike.
#[derive(Debug)]
struct Pool {
    cap: usize,
    by_rank: BTreeMap<Rank, Notable>,
    by_key: HashMap<u64, Rank>,
}

impl Pool {
    fn new(cap: usize) -> Pool {
        Pool {
            cap,
            by_rank: BTreeMap::new(),
            by_key: HashMap::new(),
        }
    }

    /// Keep `n` if it is among the best, or count it in the line it is like.
    /// Whether it was kept as a line of its own.
    fn offer(&mut self, n: Notable) -> bool {
        if let Some(rank) = self.by_key.get(&n.key) {
            let kept = self.by_rank.get_mut(rank).expect("keys follow ranks");
            kept.similar += 1 + n.similar;
            return false;
        }
        if self.by_rank.len() >= self.cap {
            let Some((&worst, _)) = self.by_rank.last_key_value() else {
                return false;
            };
            if n.rank() > worst {
                return false;
            }
            self.remove(&worst);
        }
        self.by_key.insert(n.key, n.rank());
        self.by_rank.insert(n.rank(), n);
        true
    }

    fn remove(&mut self, rank: &Rank) -> Option<Notable> {
        let n = self.by_rank.remove(rank)?;
        self.by_key.remove(&n.key);
        Some(n)
    }

    fn retained_bytes(&self) -> usize {
        let entry = size_of::<Notable>() + size_of::<Rank>() + 2 * size_of::<u64>();
        self.by_rank
            .values()
            .map(|n| n.prefix.capacity() + entry)
            .sum::<usize>()
            + self.by_key.capacity() * (size_of::<u64>() + size_of::<Rank>())
    }
}

/// A line's first bytes, and whether a pattern is known to be in them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Head<'a> {
    /// Searched here before the line is classified.
    Unsearched(&'a str),
    /// The caller's search of its piece found a pattern whole in them, so
    /// they are not searched again (a 64 MiB log of warnings in the
    /// component: 935 -> 896 ms).
    HoldsPattern(&'a str),
}

/// The notable lines of a text fed line by line.
#[derive(Debug)]
pub(crate) struct NotableScan {
    /// Bytes the head or the tail can show at most.
    window: u64,
    /// Longest prefix kept of a line.
    prefix_cap: usize,
    early: Pool,
    recent: Pool,
    /// The lines put in `recent`, in file order, with their ends: they
    /// move on to `settled` in this order (those dropped meanwhile are
    /// skipped).
    arrivals: VecDeque<(u64, Rank)>,
    settled: Pool,
}

impl NotableScan {
    /// A scan keeping up to `keep` lines per pool and `prefix_cap` bytes of
    /// each, for a preview whose head or tail shows at most `window` bytes.
    pub(crate) fn new(window: u64, keep: usize, prefix_cap: usize) -> NotableScan {
        NotableScan {
            window,
            prefix_cap,
            early: Pool::new(keep),
            recent: Pool::new(keep),
            arrivals: VecDeque::new(),
            settled: Pool::new(keep),
        }
    }

    /// Consider the line `start..end` (number `line`; `content` bytes
    /// without its LF), of which `head` is the first bytes, up to
    /// [`CLASSIFY_BYTES`]; how it was classified, if notable.
    pub(crate) fn line(
        &mut self,
        start: u64,
        end: u64,
        line: u64,
        content: u64,
        head: Head<'_>,
        patterns: &Patterns,
    ) -> Option<(u8, Kind)> {
        self.settle(end);
        let head = match head {
            Head::HoldsPattern(head) => {
                debug_assert!(patterns.may_be_notable(head));
                head
            }
            Head::Unsearched(head) if patterns.may_be_notable(head) => head,
            Head::Unsearched(_) => return None,
        };
        let (score, kind) = if patterns.host_matches(head) {
            (HOST_SCORE, Kind::Plain)
        } else {
            notable::classify(head)?
        };
        let n = Notable {
            start,
            end,
            line,
            score,
            key: notable::dedupe_key(head.as_bytes()),
            similar: 0,
            content,
            prefix: head[..head.floor_char_boundary(self.prefix_cap)].to_owned(),
            lead: 0,
        };
        if start < self.window {
            self.early.offer(n);
        } else {
            let rank = n.rank();
            if self.recent.offer(n) {
                self.arrivals.push_back((end, rank));
            }
        }
        Some((score, kind))
    }

    /// Lines with more than `window` bytes after them, `now` being the end
    /// of what was read, can no longer be in the tail. [`line`](Self::line)
    /// does this first; a line known not to be notable only needs this.
    pub(crate) fn settle(&mut self, now: u64) {
        while let Some(&(end, rank)) = self.arrivals.front() {
            if end + self.window >= now {
                break;
            }
            self.arrivals.pop_front();
            if let Some(n) = self.recent.remove(&rank) {
                self.settled.offer(n);
            }
        }
    }

    /// Every line kept, in no particular order.
    pub(crate) fn into_lines(self) -> Vec<Notable> {
        [self.early, self.recent, self.settled]
            .into_iter()
            .flat_map(|p| p.by_rank.into_values())
            .collect()
    }

    /// Heap bytes held, about.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.early.retained_bytes()
            + self.recent.retained_bytes()
            + self.settled.retained_bytes()
            + self.arrivals.capacity() * size_of::<(u64, Rank)>()
    }
}
