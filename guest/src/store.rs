//! The `spill-store` resource: every thread folder under the spill
//! directory, for a host's retention. Walks one level of thread folders and
//! never follows a link; deletes spills oldest first as
//! `toolcap_core::retention` picks them, with their catalog notes, and notes
//! each deletion in its thread folder so a reference to it reads as expired.

use toolcap_core::CapError;
use toolcap_core::catalog;
use toolcap_core::retention::{self, RetentionPolicy, StoredSpill, SweepReason};
use wasi::filesystem::types::{Descriptor, DescriptorFlags, DescriptorType, OpenFlags, PathFlags};

use crate::bindings::exports::toolcap::tool_output_cap::capper;
use crate::bindings::toolcap::tool_output_cap::types;
use crate::convert::{self, CapResult};
use crate::files;
use crate::fs_error::to_cap_error;
use crate::listing;
use crate::spill_dir::SpillDir;

/// State behind one `spill-store` handle.
pub struct Store {
    pub dir: SpillDir,
}

/// What a walk of the store found.
#[derive(Default)]
pub struct Walk {
    pub threads: u32,
    pub spills: Vec<StoredSpill>,
    /// Temporary files, `<thread>/<name>`, with their modification time.
    pub temporaries: Vec<(String, u64)>,
    pub skipped: Vec<String>,
}

/// What a sweep did.
pub struct Swept {
    pub deleted: Vec<(StoredSpill, SweepReason)>,
    pub kept_files: u64,
    pub kept_bytes: u64,
    pub skipped: Vec<String>,
}

impl Store {
    pub fn open(spill_dir: &str) -> Result<Store, CapError> {
        let dir = SpillDir::find(spill_dir);
        dir.root()?;
        Ok(Store { dir })
    }

    /// Every thread folder's spills and temporaries; links and foreign
    /// entries are skipped with why.
    pub fn walk(&self) -> Result<Walk, CapError> {
        let root = self.dir.root()?;
        let mut walk = Walk::default();
        for entry in files::entries(root)? {
            match entry.type_ {
                DescriptorType::Directory => {}
                DescriptorType::SymbolicLink => {
                    walk.skipped
                        .push(format!("{}: a symbolic link, never followed", entry.name));
                    continue;
                }
                _ => {
                    walk.skipped
                        .push(format!("{}: not a thread folder", entry.name));
                    continue;
                }
            }
            let Ok(dir) = open_dir(root, &entry.name) else {
                walk.skipped
                    .push(format!("{}: cannot be opened", entry.name));
                continue;
            };
            walk.threads += 1;
            self.walk_thread(&entry.name, &dir, &mut walk)?;
        }
        Ok(walk)
    }

    fn walk_thread(&self, thread: &str, dir: &Descriptor, walk: &mut Walk) -> Result<(), CapError> {
        // One listing of the folder: its spills, and everything else.
        let entries = files::entries(dir)?;
        for entry in &entries {
            let name = &entry.name;
            let ours = catalog::is_spill_name(name) || catalog::is_note_name(name);
            if entry.type_ == DescriptorType::SymbolicLink {
                walk.skipped
                    .push(format!("{thread}/{name}: a symbolic link, never followed"));
            } else if name.starts_with(catalog::TEMP_PREFIX) {
                if let Some((_, mtime)) = files::file_stat(dir, name) {
                    walk.temporaries.push((format!("{thread}/{name}"), mtime));
                }
            } else if !ours || entry.type_ != DescriptorType::RegularFile {
                walk.skipped.push(format!("{thread}/{name}: not a spill"));
            }
        }
        for spill in listing::spills_among(dir, entries) {
            walk.spills.push(StoredSpill {
                relative_path: format!("{thread}/{}", spill.name),
                bytes: spill.bytes,
                created_ns: spill.created_ns,
                expires_ns: spill.meta.and_then(|m| m.expires_ns),
            });
        }
        Ok(())
    }

    /// Delete what `policy` picks, and temporaries a crashed writer left.
    pub fn sweep(&self, policy: RetentionPolicy) -> Result<Swept, CapError> {
        let root = self.dir.root()?;
        let mut walk = self.walk()?;
        let now = files::now_ns();
        let mut deleted = Vec::new();
        for (path, mtime) in std::mem::take(&mut walk.temporaries) {
            let (thread, name) = path.split_once('/').expect("walk joins thread/name");
            if now.saturating_sub(mtime) < retention::STALE_TEMPORARY_NS {
                walk.skipped
                    .push(format!("{path}: a cap in progress is writing it"));
                continue;
            }
            let size = open_dir(root, thread).ok().and_then(|dir| {
                let size = files::file_stat(&dir, name).map(|s| s.0);
                dir.unlink_file_at(name).ok().and(size)
            });
            if let Some(bytes) = size {
                let spill = StoredSpill {
                    relative_path: path,
                    bytes,
                    created_ns: mtime,
                    expires_ns: None,
                };
                deleted.push((spill, SweepReason::StaleTemporary));
            }
        }
        let plan = retention::plan_sweep(&mut walk.spills, policy, now);
        let mut gone = vec![false; walk.spills.len()];
        for &(i, reason) in &plan.deleted {
            let spill = &walk.spills[i];
            let (thread, name) = spill
                .relative_path
                .split_once('/')
                .expect("walk joins thread/name");
            let dir = open_dir(root, thread)
                .map_err(|e| to_cap_error("cannot open the thread folder", e))?;
            // A cap may have named the file again since the walk (dedupe
            // renews its promise): read the note once more.
            let renewed = files::read_meta(&dir, name, spill.bytes)
                .and_then(|m| m.expires_ns)
                .filter(|&e| e > now);
            if let Some(expires) = renewed {
                walk.skipped.push(held_message(spill, reason, expires));
                continue;
            }
            match dir.unlink_file_at(name) {
                Ok(()) => {}
                // Deleted meanwhile by another sweep or a purge.
                Err(wasi::filesystem::types::ErrorCode::NoEntry) => {
                    gone[i] = true;
                    continue;
                }
                Err(e) => return Err(to_cap_error("cannot delete a spilled file", e)),
            }
            gone[i] = true;
            let _ = dir.unlink_file_at(&catalog::meta_name(name));
            files::note_expired(&dir, name, now / 1_000_000);
            deleted.push((spill.clone(), reason));
        }
        for &(i, reason) in &plan.held {
            let spill = &walk.spills[i];
            let expires = spill.expires_ns.unwrap_or(now);
            walk.skipped.push(held_message(spill, reason, expires));
        }
        let kept: Vec<&StoredSpill> = walk
            .spills
            .iter()
            .zip(&gone)
            .filter(|(_, gone)| !**gone)
            .map(|(s, _)| s)
            .collect();
        Ok(Swept {
            deleted,
            kept_files: kept.len() as u64,
            kept_bytes: kept.iter().map(|s| s.bytes).sum(),
            skipped: walk.skipped,
        })
    }
}

/// The `skipped` line of a spill a promise keeps from `reason`.
fn held_message(spill: &StoredSpill, reason: SweepReason, expires_ns: u64) -> String {
    let limit = match reason {
        SweepReason::Age => "max-age-seconds",
        SweepReason::TotalBytes => "max-total-bytes",
        SweepReason::FileCount => "max-files",
        SweepReason::StaleTemporary => "stale temporary",
    };
    format!(
        "{}: kept until {}, as its notice promised, although the policy's {limit} would \
         delete it",
        spill.relative_path,
        catalog::utc_minute(expires_ns / 1_000_000)
    )
}

/// Open the folder `name` of `dir`, not following a link.
fn open_dir(
    dir: &Descriptor,
    name: &str,
) -> Result<Descriptor, wasi::filesystem::types::ErrorCode> {
    dir.open_at(
        PathFlags::empty(),
        name,
        OpenFlags::DIRECTORY,
        DescriptorFlags::READ,
    )
}

impl capper::GuestSpillStore for Store {
    fn open(spill_dir: String) -> CapResult<capper::SpillStore> {
        Store::open(&spill_dir)
            .map(capper::SpillStore::new)
            .map_err(convert::error)
    }

    fn stats(&self) -> CapResult<types::StoreStats> {
        self.walk().map(store_stats).map_err(convert::error)
    }

    fn sweep(&self, policy: types::RetentionPolicy) -> CapResult<types::SweepReport> {
        self.sweep(convert::retention_policy(policy))
            .map(sweep_report)
            .map_err(convert::error)
    }
}

fn sweep_reason(r: SweepReason) -> types::SweepReason {
    use SweepReason as R;
    match r {
        R::Age => types::SweepReason::Age,
        R::TotalBytes => types::SweepReason::TotalBytes,
        R::FileCount => types::SweepReason::FileCount,
        R::StaleTemporary => types::SweepReason::StaleTemporary,
    }
}

fn sweep_report(s: Swept) -> types::SweepReport {
    types::SweepReport {
        deleted: s
            .deleted
            .into_iter()
            .map(|(f, reason)| types::SweptFile {
                created_ms: f.created_ms(),
                relative_path: f.relative_path,
                bytes: f.bytes,
                reason: sweep_reason(reason),
            })
            .collect(),
        kept_files: s.kept_files,
        kept_bytes: s.kept_bytes,
        skipped: s.skipped,
    }
}

fn store_stats(w: Walk) -> types::StoreStats {
    types::StoreStats {
        threads: w.threads,
        files: w.spills.len() as u64,
        bytes: w.spills.iter().map(|s| s.bytes).sum(),
        oldest_ms: w.spills.iter().map(|s| s.created_ms()).min(),
        newest_ms: w.spills.iter().map(|s| s.created_ms()).max(),
    }
}
