//! One conversation thread's session: a store, an instance and the `session` resource.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use wasmtime::Store;
use wasmtime::component::ResourceAny;
use wasmtime_wasi::FsPerms;

use crate::bindings::{GuestSession, ToolOutputCap};
use crate::sandbox::{SPILL_GUEST_PATH, Sandbox};
use crate::{
    Budget, Capped, CappedParts, ContentPart, Error, GrepResult, OverflowRef, Page, PrunePolicy,
    Pruned, SessionSettings, ToolCap,
};

/// What a host grants one session.
#[derive(Clone, Debug, Default)]
pub struct SessionConfig {
    /// The conversation this session serves; spills go to `<spill_dir>/<thread>/`.
    pub thread_id: String,
    /// Host directory granted to the component as its spill directory.
    /// `None` grants nothing: cut results then say the output could not be saved.
    pub spill_dir: Option<PathBuf>,
    /// Grant `spill_dir` read-only (to test the "could not be saved" path).
    pub read_only: bool,
    /// The spill directory as the model sees it, at the start of every path in
    /// a notice. `None`: the canonical absolute path of `spill_dir`, or
    /// `/spill` when there is none.
    pub display_root: Option<String>,
    /// Key for the references' verification tags, at least 16 bytes. Empty: the
    /// component draws a random key, so references do not outlive the session.
    pub key: Vec<u8>,
}

impl SessionConfig {
    /// A thread's config that spills into `spill_dir`, read-write, with the defaults.
    pub fn new(thread_id: impl Into<String>, spill_dir: impl Into<PathBuf>) -> Self {
        Self {
            thread_id: thread_id.into(),
            spill_dir: Some(spill_dir.into()),
            ..Self::default()
        }
    }
}

/// One conversation thread's view of the spill directory.
///
/// Each session owns a store and an instance of the component, so sessions
/// are independent and can live on different threads. Methods take
/// `&mut self` because every call enters the store.
pub struct Session {
    // Field order matters for Drop: the resource is released before the store goes.
    resource: Option<ResourceAny>,
    exports: ToolOutputCap,
    store: Store<Sandbox>,
    spill_dir: Option<PathBuf>,
    display_root: String,
}

impl Session {
    pub(crate) fn open(tool_cap: &ToolCap, config: SessionConfig) -> Result<Self, Error> {
        let perms = if config.read_only {
            FsPerms::ReadOnly
        } else {
            FsPerms::ReadWrite
        };
        let spill_dir = match &config.spill_dir {
            Some(dir) => Some(
                dir.canonicalize()
                    .with_context(|| format!("spill directory {}", dir.display()))?,
            ),
            None => None,
        };
        let display_root = match (config.display_root, &spill_dir) {
            (Some(root), _) => root,
            (None, Some(dir)) => dir.to_string_lossy().into_owned(),
            (None, None) => SPILL_GUEST_PATH.to_owned(),
        };
        let sandbox = Sandbox::new(spill_dir.as_deref().map(|dir| (dir, perms)))?;
        let (mut store, exports) = tool_cap.instantiate(sandbox)?;
        let settings = SessionSettings {
            thread_id: config.thread_id,
            spill_dir: SPILL_GUEST_PATH.to_owned(),
            display_root: display_root.clone(),
            key: config.key,
        };
        let resource = exports
            .toolcap_tool_output_cap_capper()
            .session()
            .call_open(&mut store, &settings)??;
        Ok(Self {
            resource: Some(resource),
            exports,
            store,
            spill_dir,
            display_root,
        })
    }

    /// The prefix of every path in this session's notices.
    pub fn display_root(&self) -> &str {
        &self.display_root
    }

    /// The host directory granted as the spill directory (canonical), if any.
    pub fn spill_dir(&self) -> Option<&Path> {
        self.spill_dir.as_deref()
    }

    /// Where a reference's file lies on the host, for a host that reads it
    /// directly (with a display root that differs from the host path).
    /// `None` if the reference is not under this session's display root.
    pub fn host_path(&self, reference: &OverflowRef) -> Option<PathBuf> {
        let relative = reference
            .path
            // The component drops a trailing `/` from the root; so must we.
            .strip_prefix(self.display_root.trim_end_matches('/'))?
            .strip_prefix('/')?;
        Some(self.spill_dir.as_ref()?.join(relative))
    }

    /// Fits one tool result to `budget`, spilling the full output if it is cut.
    pub fn cap(&mut self, output: &str, budget: &Budget, call_id: &str) -> Result<Capped, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_cap(store, resource, output, *budget, call_id)??)
    }

    /// Fits a structured (MCP-like) result: media parts pass through untouched.
    pub fn cap_parts(
        &mut self,
        parts: &[ContentPart],
        budget: &Budget,
        call_id: &str,
    ) -> Result<CappedParts, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_cap_parts(store, resource, parts, *budget, call_id)??)
    }

    /// Every genuine reference in `text`, in order; forged ones are skipped.
    pub fn find_refs(&mut self, text: &str) -> Result<Vec<OverflowRef>, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_find_refs(store, resource, text)?)
    }

    /// The pruned placeholder for a genuine reference.
    pub fn pruned_placeholder(&mut self, reference: &OverflowRef) -> Result<String, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_pruned_placeholder(store, resource, reference)??)
    }

    /// A page of a spilled file by bytes, from `offset`.
    pub fn read(&mut self, path: &str, offset: u64, max_bytes: u32) -> Result<Page, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_read(store, resource, path, offset, max_bytes)??)
    }

    /// A page of `count` lines of a spilled file, from 1-based `first_line`.
    pub fn read_lines(
        &mut self,
        path: &str,
        first_line: u64,
        count: u32,
        max_bytes: u32,
    ) -> Result<Page, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_read_lines(store, resource, path, first_line, count, max_bytes)??)
    }

    /// The first `max_matches` occurrences of the literal `pattern` in a spilled file.
    pub fn grep(
        &mut self,
        path: &str,
        pattern: &str,
        max_matches: u32,
    ) -> Result<GrepResult, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_grep(store, resource, path, pattern, max_matches)??)
    }

    /// Replaces stale tool message bodies (oldest first) by placeholders or markers.
    pub fn prune(&mut self, messages: &[String], policy: &PrunePolicy) -> Result<Pruned, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_prune(store, resource, messages, *policy)??)
    }

    /// Deletes this thread's spill folder; returns the bytes of content freed.
    pub fn purge(&mut self) -> Result<u64, Error> {
        let (api, store, resource) = self.parts();
        Ok(api.call_purge(store, resource)??)
    }

    /// The resource's functions, the store and the resource handle, borrowed apart.
    fn parts(&mut self) -> (GuestSession<'_>, &mut Store<Sandbox>, ResourceAny) {
        let resource = self.resource.expect("present until drop");
        (
            self.exports.toolcap_tool_output_cap_capper().session(),
            &mut self.store,
            resource,
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Runs the guest's destructor. After a trap the instance refuses to be
        // entered again; the store is freed either way, so the error is moot.
        if let Some(resource) = self.resource.take() {
            let _ = resource.resource_drop(&mut self.store);
        }
    }
}
