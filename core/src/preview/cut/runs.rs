//! Runs of similar lines measured in one text, kept while its previews are
//! chosen. The whole-text preview chooses head and tail more than once over
//! the same text (with the notable lines' share set aside, then without it
//! when the middle has no notable line; once more folding less; again in
//! each round a token limit asks for), and a run of lines alike is compared
//! up to the fold reach (1 MiB a side) each time: a 4 MiB log of lines
//! alike and no failure compared all of it, for the half it needed.

use std::cell::RefCell;

use super::Run;

/// Bytes a measure must have compared to be kept: a run that stops after a
/// few lines costs less to measure again than to keep.
const KEPT_BYTES: usize = 4096;

/// What a run's measure depends on besides the text and where it must
/// stop: the same measure gives the same run, so a kept one is taken as it
/// is where it stopped before the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Measure {
    /// After the line (a head) or before it (a tail).
    pub forward: bool,
    /// The line the run is like: its start and the end of its content.
    pub line: (usize, usize),
    /// The run it goes on from.
    pub from: Run,
    pub reach: usize,
    /// A head's run leaves the text's last line to the tail.
    pub spare_last: bool,
}

/// A run kept, with the limit it was measured to and the line that
/// stopped it (see [`super::extend_after`] and [`super::extend_before`]).
#[derive(Debug, Clone, Copy)]
struct Kept {
    limit: usize,
    run: Run,
    stopped_at: Option<usize>,
}

impl Kept {
    /// Whether measuring to `limit` finds this run: the same limit, or one
    /// past the line that stopped it. (A tail's limit is where the head
    /// ends, which moves with the head's room; a head's is the text's end.)
    fn holds_to(&self, forward: bool, limit: usize) -> bool {
        limit == self.limit
            || self
                .stopped_at
                .is_some_and(|at| if forward { limit > at } else { limit <= at })
    }
}

/// The long runs measured in one text. Shared by every choice of head and
/// tail over that text, and only that text: a measure names no text.
#[derive(Debug, Default)]
pub struct Runs {
    /// In the order of their measures: a side looks one up for every line
    /// it shows, and keeps at most one per [`KEPT_BYTES`] of its reach.
    kept: RefCell<Vec<(Measure, Kept)>>,
}

impl Runs {
    /// The run `measure` finds up to `limit`, by `run_it` (the run, and
    /// where the line that stopped it is) unless it was kept.
    pub(super) fn run(
        &self,
        measure: Measure,
        limit: usize,
        run_it: impl FnOnce() -> (Run, Option<usize>),
    ) -> Run {
        let found = self
            .kept
            .borrow()
            .binary_search_by_key(&measure, |&(m, _)| m);
        if let Ok(i) = found {
            let kept = self.kept.borrow()[i].1;
            if kept.holds_to(measure.forward, limit) {
                return kept.run;
            }
        }
        let (run, stopped_at) = run_it();
        if run.bytes - measure.from.bytes >= KEPT_BYTES {
            let kept = Kept {
                limit,
                run,
                stopped_at,
            };
            let mut all = self.kept.borrow_mut();
            match found {
                Ok(i) => all[i].1 = kept,
                Err(i) => all.insert(i, (measure, kept)),
            }
        }
        run
    }

    /// Measures kept.
    #[cfg(test)]
    pub(super) fn kept(&self) -> usize {
        self.kept.borrow().len()
    }
}
