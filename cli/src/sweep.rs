//! Retention: deleting saved outputs older than the retention period.
//! `toolcap mcp` sweeps once at start; `toolcap cap`, which runs once per
//! command, sweeps at most once an hour per spill directory, so that a
//! machine that only ever runs `toolcap cap` keeps what its notices say and
//! no more. The component decides what goes: never a file whose notice
//! promised it for longer than this run's retention.

use std::fs::{self, File};
use std::time::{Duration, SystemTime};

use tool_output_cap::{ToolCap, types::RetentionPolicy};

use crate::log;
use crate::settings::Common;

/// Name of the file in the spill directory whose modification time says
/// when `toolcap cap` last swept it.
pub const STAMP: &str = ".toolcap-swept";
/// Least time between two sweeps of one spill directory by `toolcap cap`.
pub const CAP_INTERVAL: Duration = Duration::from_secs(3_600);

/// Sweeps now (`toolcap mcp`, at start).
pub fn at_start(tool_cap: &ToolCap, common: &Common) {
    sweep(tool_cap, common, true);
}

/// Sweeps unless the spill directory was swept within [`CAP_INTERVAL`]
/// (`toolcap cap`); quiet unless it fails.
pub fn now_and_then(tool_cap: &ToolCap, common: &Common) {
    if common.retention_seconds().is_none() {
        return;
    }
    let stamp = common.spill_dir.join(STAMP);
    let last = fs::symlink_metadata(&stamp)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|m| m.modified().ok());
    let due = last.is_none_or(|at| {
        SystemTime::now()
            .duration_since(at)
            .is_ok_and(|ago| ago >= CAP_INTERVAL)
    });
    if !due {
        return;
    }
    sweep(tool_cap, common, false);
    // The stamp is claimed after the sweep: a sweep that failed to start
    // (no spill directory yet) is tried again by the next run. A link at
    // its name is never followed.
    if fs::symlink_metadata(&stamp).is_ok_and(|m| !m.is_file()) {
        return;
    }
    let _ = File::create(&stamp).and_then(|f| f.set_modified(SystemTime::now()));
}

/// Deletes what the retention period no longer keeps.
fn sweep(tool_cap: &ToolCap, common: &Common, tell: bool) {
    let Some(max_age_seconds) = common.retention_seconds() else {
        return;
    };
    let policy = RetentionPolicy {
        max_age_seconds: Some(max_age_seconds),
        max_total_bytes: None,
        max_files: None,
    };
    let swept = tool_cap
        .open_spill_store(&common.spill_dir)
        .and_then(|mut store| store.sweep(&policy));
    match swept {
        Ok(report) if tell && !report.deleted.is_empty() => log::line(&format!(
            "deleted {} saved output{} older than {} days",
            report.deleted.len(),
            if report.deleted.len() == 1 { "" } else { "s" },
            common.retention_days
        )),
        Ok(_) => {}
        Err(e) => log::line(&format!(
            "could not sweep old outputs in {}: {e}",
            common.spill_dir.display()
        )),
    }
}
