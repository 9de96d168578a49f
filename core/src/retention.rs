//! Which spilled outputs a sweep deletes: every thread's files, oldest first,
//! until each limit of the policy holds. Pure: the guest lists the files and
//! deletes what this module picks.
//!
//! A promise outranks the policy: a file whose note says a notice promised
//! it until a time still to come is never deleted, whatever the policy of
//! the process that sweeps (a default `toolcap mcp` keeps the 30 days a
//! `toolcap cap --retention-days 30` promised). Such a file is *held*: kept,
//! and reported with the limit it broke. A file without a promise (its
//! session stated no retention, or its note predates 0.3, or it has no note)
//! goes by the policy alone, from when it was saved (the note's time, else
//! the file's modification time).

/// A host's retention limits. Mirrors WIT `retention-policy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// Delete outputs saved more than this many seconds ago.
    pub max_age_seconds: Option<u64>,
    /// Then the oldest, until the rest total at most this many bytes.
    pub max_total_bytes: Option<u64>,
    /// Then the oldest, until at most this many remain.
    pub max_files: Option<u32>,
}

/// Why a file goes. Mirrors WIT `sweep-reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepReason {
    Age,
    TotalBytes,
    FileCount,
    StaleTemporary,
}

/// A spilled output as a sweep sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSpill {
    /// `<thread>/<file>`.
    pub relative_path: String,
    pub bytes: u64,
    /// When it was saved, in nanoseconds since the Unix epoch.
    pub created_ns: u64,
    /// Until when its notice promised it is kept; `None`: no promise.
    pub expires_ns: Option<u64>,
}

impl StoredSpill {
    /// True while a promise keeps the file from every sweep.
    pub fn promised_at(&self, now_ns: u64) -> bool {
        self.expires_ns.is_some_and(|e| e > now_ns)
    }

    /// When it was saved, in milliseconds since the Unix epoch.
    pub fn created_ms(&self) -> u64 {
        self.created_ns / 1_000_000
    }
}

/// A temporary file untouched for this long belongs to a writer that
/// stopped (a crash), not to a cap in progress.
pub const STALE_TEMPORARY_NS: u64 = 24 * 3_600 * 1_000_000_000;

/// What a sweep does to the files it was given, by index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepPlan {
    /// The files to delete, each with its reason, oldest first.
    pub deleted: Vec<(usize, SweepReason)>,
    /// The files a limit would delete but a promise keeps, each with the
    /// first limit it broke, oldest first.
    pub held: Vec<(usize, SweepReason)>,
}

/// The files to delete and those a promise holds; `spills` is sorted oldest
/// first (ties by path, so the choice is deterministic). Every limit holds
/// afterwards over the files it may delete: held files still count toward
/// the totals, so a sweep under promises deletes as much as the policy asks
/// of the rest, oldest first.
pub fn plan_sweep(spills: &mut [StoredSpill], policy: RetentionPolicy, now_ns: u64) -> SweepPlan {
    crate::order::sort_by(spills, |a, b| {
        (a.created_ns, &a.relative_path).cmp(&(b.created_ns, &b.relative_path))
    });
    let spills: &[StoredSpill] = spills;
    let mut picker = Picker {
        spills,
        now_ns,
        plan: SweepPlan::default(),
        gone: vec![false; spills.len()],
        held: vec![false; spills.len()],
    };
    if let Some(age) = policy.max_age_seconds {
        let cutoff = now_ns.saturating_sub(age.saturating_mul(1_000_000_000));
        for (i, spill) in spills.iter().enumerate() {
            if spill.created_ns >= cutoff {
                break;
            }
            picker.pick(i, SweepReason::Age);
        }
    }
    if let Some(max) = policy.max_total_bytes {
        let mut total: u64 = picker.left().map(|i| spills[i].bytes).sum();
        for (i, spill) in spills.iter().enumerate() {
            if total <= max {
                break;
            }
            if !picker.gone[i] && picker.pick(i, SweepReason::TotalBytes) {
                total -= spill.bytes;
            }
        }
    }
    if let Some(max) = policy.max_files {
        let mut count = picker.left().count();
        for i in 0..spills.len() {
            if count <= max as usize {
                break;
            }
            if !picker.gone[i] && picker.pick(i, SweepReason::FileCount) {
                count -= 1;
            }
        }
    }
    let mut plan = picker.plan;
    // Each file is held once: no equal keys.
    crate::order::sort_by_key(&mut plan.held, |&(i, _)| i);
    plan
}

/// The plan as it grows: which files are deleted or held so far.
struct Picker<'a> {
    spills: &'a [StoredSpill],
    now_ns: u64,
    plan: SweepPlan,
    gone: Vec<bool>,
    held: Vec<bool>,
}

impl Picker<'_> {
    /// Give file `i` up to `reason`, unless a promise holds it; true when
    /// it is deleted.
    fn pick(&mut self, i: usize, reason: SweepReason) -> bool {
        if self.spills[i].promised_at(self.now_ns) {
            if !self.held[i] {
                self.held[i] = true;
                self.plan.held.push((i, reason));
            }
            false
        } else {
            self.gone[i] = true;
            self.plan.deleted.push((i, reason));
            true
        }
    }

    /// The files not deleted so far.
    fn left(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.spills.len()).filter(|&i| !self.gone[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A spill saved at `created_ms` (tests think in milliseconds).
    fn spill(path: &str, bytes: u64, created_ms: u64) -> StoredSpill {
        StoredSpill {
            relative_path: path.into(),
            bytes,
            created_ns: created_ms * 1_000_000,
            expires_ns: None,
        }
    }

    /// [`spill`] promised until `expires_ms`.
    fn promised(path: &str, bytes: u64, created_ms: u64, expires_ms: u64) -> StoredSpill {
        StoredSpill {
            expires_ns: Some(expires_ms * 1_000_000),
            ..spill(path, bytes, created_ms)
        }
    }

    #[test]
    fn each_limit_deletes_the_oldest_with_its_reason() {
        let mut spills = vec![
            spill("t/d", 10, 4_000),
            spill("t/a", 10, 1_000),
            spill("u/c", 30, 3_000),
            spill("t/b", 20, 2_000),
        ];
        let policy = RetentionPolicy {
            max_age_seconds: Some(8),
            max_total_bytes: Some(40),
            max_files: Some(1),
        };
        let doomed = plan_sweep(&mut spills, policy, 10_000 * 1_000_000).deleted;
        let named: Vec<_> = doomed
            .iter()
            .map(|&(i, r)| (spills[i].relative_path.as_str(), r))
            .collect();
        assert_eq!(
            named,
            [
                ("t/a", SweepReason::Age),
                ("t/b", SweepReason::TotalBytes),
                ("u/c", SweepReason::FileCount),
            ]
        );
    }

    #[test]
    fn no_policy_deletes_nothing() {
        let mut spills = vec![spill("t/a", 10, 1)];
        assert_eq!(
            plan_sweep(&mut spills, RetentionPolicy::default(), u64::MAX),
            SweepPlan::default()
        );
    }

    /// The paths and reasons of `picked`.
    fn named(
        spills: &[StoredSpill],
        picked: &[(usize, SweepReason)],
    ) -> Vec<(String, SweepReason)> {
        picked
            .iter()
            .map(|&(i, r)| (spills[i].relative_path.clone(), r))
            .collect()
    }

    #[test]
    fn a_promise_outlives_a_shorter_policy_and_the_rest_still_go() {
        // Saved at 1 s promised until 30 s (a 30-day cap), at 2 s and 3 s
        // with nothing promised, at 4 s promised until 9 s (lapsed).
        let mut spills = vec![
            promised("t/a", 100, 1_000, 30_000),
            spill("t/b", 100, 2_000),
            spill("t/c", 100, 3_000),
            promised("t/d", 100, 4_000, 9_000),
            spill("t/e", 100, 9_500),
        ];
        let policy = RetentionPolicy {
            max_age_seconds: Some(7),
            max_total_bytes: Some(250),
            max_files: Some(1),
        };
        let plan = plan_sweep(&mut spills, policy, 10_000 * 1_000_000);
        let s = |p: &str| p.to_owned();
        assert_eq!(
            named(&spills, &plan.deleted),
            [
                (s("t/b"), SweepReason::Age),
                (s("t/c"), SweepReason::TotalBytes),
                (s("t/d"), SweepReason::TotalBytes),
                (s("t/e"), SweepReason::FileCount),
            ]
        );
        // a broke every limit first by its age; held, it is never deleted.
        assert_eq!(named(&spills, &plan.held), [(s("t/a"), SweepReason::Age)]);
    }

    #[test]
    fn a_lapsed_or_missing_promise_leaves_the_policy_to_decide() {
        let mut spills = vec![promised("t/a", 1, 1_000, 5_000), spill("t/b", 1, 1_500)];
        let policy = RetentionPolicy {
            max_age_seconds: Some(1),
            ..RetentionPolicy::default()
        };
        let plan = plan_sweep(&mut spills, policy, 5_000 * 1_000_000);
        assert_eq!(plan.deleted.len(), 2);
        assert!(plan.held.is_empty());
    }

    proptest! {
        #[test]
        fn every_limit_holds_and_only_the_oldest_go(
            files in prop::collection::vec((0u64..1_000, 0u64..100), 0..40),
            age in prop::option::of(0u64..2),
            bytes in prop::option::of(0u64..3_000),
            count in prop::option::of(0u32..40),
        ) {
            let mut spills: Vec<_> = files
                .iter()
                .enumerate()
                .map(|(i, &(b, t))| spill(&format!("t/{i:03}"), b, t * 10))
                .collect();
            let policy = RetentionPolicy {
                max_age_seconds: age,
                max_total_bytes: bytes,
                max_files: count,
            };
            let now = 1_500;
            let doomed = plan_sweep(&mut spills, policy, now * 1_000_000).deleted;
            // The deleted are exactly a prefix of the oldest.
            let indices: Vec<usize> = doomed.iter().map(|d| d.0).collect();
            prop_assert_eq!(indices, (0..doomed.len()).collect::<Vec<_>>());
            let kept = &spills[doomed.len()..];
            if let Some(a) = age {
                prop_assert!(kept.iter().all(|s| s.created_ms() >= now - a * 1_000));
            }
            if let Some(b) = bytes {
                prop_assert!(kept.iter().map(|s| s.bytes).sum::<u64>() <= b);
            }
            if let Some(c) = count {
                prop_assert!(kept.len() <= c as usize);
            }
            // Minimal: keeping the newest deleted file would break a limit.
            if let Some(&(i, reason)) = doomed.last() {
                let back = &spills[i..];
                let broken = match reason {
                    SweepReason::Age => back[0].created_ms() < now - age.unwrap() * 1_000,
                    SweepReason::TotalBytes => {
                        back.iter().map(|s| s.bytes).sum::<u64>() > bytes.unwrap()
                    }
                    SweepReason::FileCount => back.len() > count.unwrap() as usize,
                    SweepReason::StaleTemporary => false,
                };
                prop_assert!(broken);
            }
        }

        #[test]
        fn no_promised_file_goes_and_the_rest_obey_every_limit(
            files in prop::collection::vec((0u64..1_000, 0u64..100, prop::option::of(0u64..3_000)), 0..40),
            age in prop::option::of(0u64..2),
            bytes in prop::option::of(0u64..3_000),
            count in prop::option::of(0u32..40),
        ) {
            let mut spills: Vec<_> = files
                .iter()
                .enumerate()
                .map(|(i, &(b, t, e))| StoredSpill {
                    expires_ns: e.map(|e| e * 1_000_000),
                    ..spill(&format!("t/{i:03}"), b, t * 10)
                })
                .collect();
            let policy = RetentionPolicy {
                max_age_seconds: age,
                max_total_bytes: bytes,
                max_files: count,
            };
            let now = 1_500;
            let plan = plan_sweep(&mut spills, policy, now * 1_000_000);
            let is_promised = |s: &StoredSpill| s.promised_at(now * 1_000_000);
            let mut deleted = vec![false; spills.len()];
            for &(i, _) in &plan.deleted {
                prop_assert!(!is_promised(&spills[i]));
                prop_assert!(!deleted[i]);
                deleted[i] = true;
            }
            for &(i, _) in &plan.held {
                prop_assert!(is_promised(&spills[i]) && !deleted[i]);
            }
            let kept: Vec<&StoredSpill> =
                spills.iter().zip(&deleted).filter(|(_, d)| !**d).map(|(s, _)| s).collect();
            if let Some(a) = age {
                prop_assert!(kept.iter().all(|s| is_promised(s) || s.created_ms() >= now - a * 1_000));
            }
            if let Some(b) = bytes
                && kept.iter().map(|s| s.bytes).sum::<u64>() > b
            {
                prop_assert!(kept.iter().all(|s| is_promised(s)));
            }
            if let Some(c) = count
                && kept.len() > c as usize
            {
                prop_assert!(kept.iter().all(|s| is_promised(s)));
            }
            // Every promised file the policy would delete is reported held.
            let unpromised_plan = {
                let mut all: Vec<_> = spills
                    .iter()
                    .map(|s| StoredSpill { expires_ns: None, ..s.clone() })
                    .collect();
                plan_sweep(&mut all, policy, now * 1_000_000).deleted
            };
            for (i, _) in unpromised_plan {
                if is_promised(&spills[i]) {
                    prop_assert!(plan.held.iter().any(|&(h, _)| h == i));
                }
            }
        }
    }
}
