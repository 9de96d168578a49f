//! Retention across every thread: the component's `spill-store`, in its own
//! short-lived instance that sees only the spill directory.

use std::path::Path;

use wasmtime::Store;
use wasmtime::component::ResourceAny;
use wasmtime_wasi::FsPerms;

use crate::bindings::ToolOutputCap;
use crate::limits::Limits;
use crate::sandbox::{SPILL_GUEST_PATH, Sandbox};
use crate::{
    Error, ToolCap, private_dir,
    types::{RetentionPolicy, StoreStats, SweepReport},
};

/// Every thread's spilled outputs under one spill directory: statistics, and
/// sweeping by age, total size and count, oldest first. Sweeps never follow
/// a link out of the directory and never touch a file a cap is still
/// writing; a swept file's reference then reads as expired. No file is
/// deleted before the expiry its notice promised (its session's
/// `retention_seconds`), whatever the policy: such files are kept and named
/// in the report's `skipped`.
///
/// ```
/// # use tool_output_cap::{Budget, SessionConfig, ToolCap, types::RetentionPolicy};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spill = tempfile::tempdir()?;
/// let tool_cap = ToolCap::new()?;
/// let mut session = tool_cap.open_session(SessionConfig::new("thread-42", spill.path()))?;
/// session.cap(&"x\n".repeat(100_000), &Budget::new(4096), "call-1")?;
///
/// let mut store = tool_cap.open_spill_store(spill.path())?;
/// assert_eq!(store.stats()?.files, 1);
/// let policy = RetentionPolicy { max_age_seconds: None, max_total_bytes: Some(0), max_files: None };
/// let report = store.sweep(&policy)?;
/// assert_eq!((report.deleted.len(), report.kept_files), (1, 0));
/// # Ok(())
/// # }
/// ```
pub struct SpillStore {
    // Field order matters for Drop: the resource is released before the store goes.
    resource: Option<ResourceAny>,
    exports: ToolOutputCap,
    store: Store<Sandbox>,
    tool_cap: ToolCap,
    limits: Limits,
}

impl ToolCap {
    /// Opens the spill directory `spill_dir` (created, owner-only, if
    /// missing) for retention: see [`SpillStore`].
    pub fn open_spill_store(&self, spill_dir: impl AsRef<Path>) -> Result<SpillStore, Error> {
        let dir = spill_dir.as_ref();
        private_dir::create(dir).map_err(|e| {
            Error::runtime(
                anyhow::Error::new(e).context(format!("spill directory {}", dir.display())),
            )
        })?;
        let limits = self.limits();
        let (mut store, exports) =
            self.instantiate(Sandbox::new(Some((dir, FsPerms::ReadWrite)))?, &limits)?;
        let running = self.arm(&mut store, &limits)?;
        let opened = exports
            .toolcap_tool_output_cap_capper()
            .spill_store()
            .call_open(&mut store, SPILL_GUEST_PATH);
        drop(running);
        let opened = opened.map_err(|err| store.data().memory.explain(err, &limits));
        Ok(SpillStore {
            resource: Some(opened??),
            exports,
            store,
            tool_cap: self.clone(),
            limits,
        })
    }
}

impl SpillStore {
    /// How many spilled outputs every thread holds, their bytes, and the
    /// oldest and newest.
    pub fn stats(&mut self) -> Result<StoreStats, Error> {
        let resource = self.resource.expect("present until drop");
        self.enter(|exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .spill_store()
                .call_stats(store, resource)
        })
    }

    /// Deletes spilled outputs, oldest first, until every limit of `policy`
    /// holds (but never a file before the expiry its notice promised);
    /// reports what was deleted, kept and skipped.
    pub fn sweep(&mut self, policy: &RetentionPolicy) -> Result<SweepReport, Error> {
        let resource = self.resource.expect("present until drop");
        self.enter(|exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .spill_store()
                .call_sweep(store, resource, *policy)
        })
    }

    fn enter<R>(
        &mut self,
        call: impl FnOnce(
            &ToolOutputCap,
            &mut Store<Sandbox>,
        ) -> wasmtime::Result<Result<R, crate::CapError>>,
    ) -> Result<R, Error> {
        let running = self.tool_cap.arm(&mut self.store, &self.limits)?;
        let result = call(&self.exports, &mut self.store);
        drop(running);
        let answer = result.map_err(|err| self.store.data().memory.explain(err, &self.limits))?;
        Ok(answer?)
    }
}

impl Drop for SpillStore {
    fn drop(&mut self) {
        if let Some(resource) = self.resource.take()
            && let Ok(_running) = self.tool_cap.arm(&mut self.store, &self.limits)
        {
            let _ = resource.resource_drop(&mut self.store);
        }
    }
}
