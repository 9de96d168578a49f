//! Which spilled outputs a sweep deletes: every thread's files, oldest first,
//! until each limit of the policy holds. Pure: the guest lists the files and
//! deletes what this module picks.

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
}

impl StoredSpill {
    /// When it was saved, in milliseconds since the Unix epoch.
    pub fn created_ms(&self) -> u64 {
        self.created_ns / 1_000_000
    }
}

/// A temporary file untouched for this long belongs to a writer that
/// stopped (a crash), not to a cap in progress.
pub const STALE_TEMPORARY_NS: u64 = 24 * 3_600 * 1_000_000_000;

/// The files to delete, each with its reason, oldest first; `spills` is
/// sorted oldest first (ties by path, so the choice is deterministic).
pub fn plan_sweep(
    spills: &mut [StoredSpill],
    policy: RetentionPolicy,
    now_ns: u64,
) -> Vec<(usize, SweepReason)> {
    spills.sort_by(|a, b| (a.created_ns, &a.relative_path).cmp(&(b.created_ns, &b.relative_path)));
    let mut doomed = Vec::new();
    let mut first_kept = 0;
    if let Some(age) = policy.max_age_seconds {
        let cutoff = now_ns.saturating_sub(age.saturating_mul(1_000_000_000));
        while first_kept < spills.len() && spills[first_kept].created_ns < cutoff {
            doomed.push((first_kept, SweepReason::Age));
            first_kept += 1;
        }
    }
    if let Some(max) = policy.max_total_bytes {
        let mut total: u64 = spills[first_kept..].iter().map(|s| s.bytes).sum();
        while total > max && first_kept < spills.len() {
            total -= spills[first_kept].bytes;
            doomed.push((first_kept, SweepReason::TotalBytes));
            first_kept += 1;
        }
    }
    if let Some(max) = policy.max_files {
        while spills.len() - first_kept > max as usize {
            doomed.push((first_kept, SweepReason::FileCount));
            first_kept += 1;
        }
    }
    doomed
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
        let doomed = plan_sweep(&mut spills, policy, 10_000 * 1_000_000);
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
        assert!(plan_sweep(&mut spills, RetentionPolicy::default(), u64::MAX).is_empty());
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
            let doomed = plan_sweep(&mut spills, policy, now * 1_000_000);
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
    }
}
