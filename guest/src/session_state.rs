//! What one `session` handle and the streams it starts share: the capper
//! and the thread's spill folder.

use std::cell::RefCell;
use std::collections::HashSet;

use toolcap_core::Capper;
use toolcap_core::readback::RedactedFile;

use crate::spill_dir::{CallStore, SpillDir, SpillFile};

/// What a session and the streams it starts share.
pub struct Inner {
    /// Mutable only by `calibrate`, which moves the token scale.
    pub capper: RefCell<Capper>,
    pub spill: SpillDir,
    /// Files the read tool found to match their reference, with their size:
    /// each is read whole once per session, not on every page.
    pub checked: RefCell<HashSet<(String, u64)>>,
}

impl Inner {
    /// Resolve a path given by the model or host (a display path or
    /// `<thread>/<file>`) to a file of this thread and open it.
    pub fn open(&self, path: &str) -> Result<SpillFile, toolcap_core::CapError> {
        let capper = self.capper.borrow();
        let scheme = capper.scheme();
        let name = scheme.resolve(path)?;
        self.spill.open_file(scheme.thread_dir(), name, path)
    }

    /// [`open`](Self::open), read as the model is shown it: redacted when
    /// the session redacts (offsets stay those of the saved file).
    pub fn open_shown(
        &self,
        path: &str,
    ) -> Result<RedactedFile<SpillFile>, toolcap_core::CapError> {
        let file = self.open(path)?;
        RedactedFile::new(file, self.capper.borrow().redactor())
    }

    pub fn store(&self) -> CallStore<'_> {
        CallStore {
            dir: &self.spill,
            retention_seconds: self.retention_seconds(),
        }
    }

    /// What this session's notices promise.
    pub fn retention_seconds(&self) -> Option<u64> {
        self.capper.borrow().settings().notice.retention_seconds
    }
}
