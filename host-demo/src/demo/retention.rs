//! The thread's catalog of spills (`list`), and retention across threads:
//! a `SpillStore`'s stats and a sweep with the retention that notices state.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use super::checks::{self, Checks};
use super::pruning::comparable;
use super::text::size;
use tool_output_cap::{
    OverflowRef, Session, ToolCap,
    types::{RetentionPolicy, SpillEntry},
};

/// How long the host keeps spills: its sweep's age limit, and what every
/// notice tells the model (`SessionConfig::retention_seconds`).
pub const RETENTION_SECONDS: u64 = 7 * 24 * 3600;

/// Lists the thread's spills and checks that every reference a pruned
/// placeholder kept is among them.
pub fn check_catalog(
    session: &mut Session,
    pruned: &[OverflowRef],
    checks: &mut Checks,
) -> anyhow::Result<()> {
    let entries = session.list()?;
    let shown: Vec<String> = entries
        .iter()
        .map(|entry| {
            format!(
                "{} ({}, {})",
                entry.call_id,
                entry.tool.as_deref().unwrap_or("no tool"),
                size(entry.reference.bytes)
            )
        })
        .collect();
    println!("  list(): {}", shown.join(", "));
    let mut found = 0;
    for reference in pruned {
        let listed = entries
            .iter()
            .any(|entry| same(&entry.reference, reference));
        found += usize::from(listed);
        checks.record(checks::CATALOG_HAS_PRUNED, listed, || {
            format!("{} is not in the catalog", reference.relative_path)
        });
    }
    println!(
        "          {found} of the {} references that pruned placeholders kept are in it",
        pruned.len()
    );
    Ok(())
}

/// Opens the spill directory as a `SpillStore`, reports its stats, and
/// sweeps it with the retention the notices state: everything of this run
/// (the thread's catalog before the sweep) must still be there after it.
pub fn sweep(
    tool_cap: &ToolCap,
    spill_dir: &Path,
    session: &mut Session,
    checks: &mut Checks,
) -> anyhow::Result<()> {
    let before = session.list()?;
    let mut store = tool_cap.open_spill_store(spill_dir)?;
    let stats = store.stats()?;
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64);
    let oldest = stats.oldest_ms.map_or(String::new(), |ms| {
        format!(
            ", the oldest saved {} s ago",
            now_ms.saturating_sub(ms) / 1000
        )
    });
    println!(
        "  stats(): {} thread {}, {} spills, {}{oldest}",
        stats.threads,
        if stats.threads == 1 {
            "folder"
        } else {
            "folders"
        },
        stats.files,
        size(stats.bytes)
    );
    let policy = RetentionPolicy {
        max_age_seconds: Some(RETENTION_SECONDS),
        max_total_bytes: None,
        max_files: None,
    };
    let report = store.sweep(&policy)?;
    println!(
        "  sweep(max age 7 days): {} deleted, {} kept ({}), {} skipped",
        report.deleted.len(),
        report.kept_files,
        size(report.kept_bytes),
        report.skipped.len()
    );
    let after = session.list()?;
    let deleted_ours: Vec<&str> = report
        .deleted
        .iter()
        .filter(|file| listed(&before, &file.relative_path))
        .map(|file| file.relative_path.as_str())
        .collect();
    let kept = before.len() == after.len()
        && before
            .iter()
            .all(|b| after.iter().any(|a| same(&a.reference, &b.reference)));
    checks.record(
        checks::SWEEP_KEEPS_RUN,
        !before.is_empty() && kept && deleted_ours.is_empty(),
        || {
            format!(
                "{} spills listed before, {} after; deleted: {deleted_ours:?}",
                before.len(),
                after.len()
            )
        },
    );
    Ok(())
}

fn listed(entries: &[SpillEntry], relative_path: &str) -> bool {
    entries
        .iter()
        .any(|entry| entry.reference.relative_path == relative_path)
}

fn same(a: &OverflowRef, b: &OverflowRef) -> bool {
    comparable(std::slice::from_ref(a)) == comparable(std::slice::from_ref(b))
}
