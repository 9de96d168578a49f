//! Timing for the report. The routines of one comparison run in interleaved
//! rounds, so a subject and its baseline see the same machine (other builds,
//! page cache, clock frequency) and their ratio stays fair when absolute
//! times drift. Criterion (`cargo bench`) gives the detailed statistics; this
//! gives the one table.

use std::time::{Duration, Instant};

/// How long to measure one comparison.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Short routines repeat until one sample takes at least this long.
    pub sample: Duration,
    /// Stop after this much time, once `min_rounds` are done.
    pub budget: Duration,
    /// Fewest rounds, however slow the routines.
    pub min_rounds: usize,
    /// Most rounds, however fast the routines.
    pub max_rounds: usize,
}

impl Plan {
    /// The plan `make bench` uses: about a second per comparison.
    pub const FULL: Plan = Plan {
        sample: Duration::from_millis(2),
        budget: Duration::from_millis(1200),
        min_rounds: 7,
        max_rounds: 400,
    };

    /// A smoke run (`TOOLCAP_BENCH_QUICK=1`): every path runs, numbers are rough.
    pub const QUICK: Plan = Plan {
        sample: Duration::from_micros(500),
        budget: Duration::from_millis(100),
        min_rounds: 3,
        max_rounds: 50,
    };

    /// [`Plan::QUICK`] when `TOOLCAP_BENCH_QUICK` is set, else [`Plan::FULL`].
    pub fn from_env() -> Plan {
        if std::env::var_os("TOOLCAP_BENCH_QUICK").is_some() {
            Plan::QUICK
        } else {
            Plan::FULL
        }
    }
}

/// One routine to time; each call is one iteration.
pub type Routine<'a> = &'a mut dyn FnMut();

/// The median time of one iteration of each routine, in the order given.
pub fn medians(routines: &mut [Routine<'_>], plan: Plan) -> Vec<Duration> {
    medians_between(routines, plan, &mut || {})
}

/// [`medians`], running `between` untimed before every sample of every
/// routine: a reset that keeps the state each sample starts from the same on
/// both sides of a comparison (for example, removing the files the last
/// sample wrote, so the disk use stays at one sample's files).
pub fn medians_between(
    routines: &mut [Routine<'_>],
    plan: Plan,
    between: Routine<'_>,
) -> Vec<Duration> {
    let iters: Vec<u32> = routines
        .iter_mut()
        .map(|r| calibrate(&mut **r, plan.sample, &mut *between))
        .collect();
    let mut samples = vec![Vec::new(); routines.len()];
    let start = Instant::now();
    let mut round = 0;
    while round < plan.max_rounds && (round < plan.min_rounds || start.elapsed() < plan.budget) {
        // Alternate the order, so no routine always follows the same one.
        let order: Vec<usize> = if round % 2 == 0 {
            (0..routines.len()).collect()
        } else {
            (0..routines.len()).rev().collect()
        };
        for i in order {
            between();
            samples[i].push(time(&mut *routines[i], iters[i]) / iters[i]);
        }
        round += 1;
    }
    samples.into_iter().map(median).collect()
}

/// The median of `rounds` timed calls of each routine, in alternating
/// order, with `between` (untimed) before each: for routines of seconds,
/// where calibration and the time budget do not apply.
pub fn medians_of_rounds(
    routines: &mut [Routine<'_>],
    rounds: usize,
    between: Routine<'_>,
) -> Vec<Duration> {
    let mut samples = vec![Vec::new(); routines.len()];
    for round in 0..rounds {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..routines.len()).collect()
        } else {
            (0..routines.len()).rev().collect()
        };
        for i in order {
            between();
            let start = Instant::now();
            routines[i]();
            samples[i].push(start.elapsed());
        }
    }
    samples.into_iter().map(median).collect()
}

/// Iterations per sample: doubled until a sample lasts `sample / 2`. The
/// first call also warms the routine up (page faults, caches, lazy state).
fn calibrate(routine: Routine<'_>, sample: Duration, between: Routine<'_>) -> u32 {
    between();
    routine();
    let mut n = 1u32;
    loop {
        between();
        if n >= 1 << 20 || time(routine, n) >= sample / 2 {
            return n;
        }
        n *= 2;
    }
}

fn time(routine: Routine<'_>, iters: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        routine();
    }
    start.elapsed()
}

/// The median of `samples` (the upper one of an even count).
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slower_routine_has_larger_median() {
        let plan = Plan {
            sample: Duration::from_micros(200),
            budget: Duration::from_millis(20),
            min_rounds: 3,
            max_rounds: 20,
        };
        let mut fast = || {
            std::hint::black_box((0..100u64).sum::<u64>());
        };
        let mut slow = || std::thread::sleep(Duration::from_micros(300));
        let m = medians(&mut [&mut fast, &mut slow], plan);
        assert!(m[0] < m[1], "{m:?}");
        assert!(m[1] >= Duration::from_micros(300));
    }

    #[test]
    fn between_runs_before_every_sample_untimed() {
        let plan = Plan {
            sample: Duration::from_micros(100),
            budget: Duration::from_millis(5),
            min_rounds: 3,
            max_rounds: 3,
        };
        let mut resets = 0;
        let mut calls = 0;
        let mut slow_reset = || {
            resets += 1;
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut routine = || {
            calls += 1;
            std::thread::sleep(Duration::from_micros(200));
        };
        let m = medians_between(&mut [&mut routine], plan, &mut slow_reset);
        assert!(
            m[0] < Duration::from_millis(2),
            "the reset was timed: {m:?}"
        );
        // One before the warm-up, one per calibration step, one per round.
        assert!(resets >= 1 + 1 + 3, "{resets}");
        assert!(calls >= 1 + 1 + 3, "{calls}");
    }
}
