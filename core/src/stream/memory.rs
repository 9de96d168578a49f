//! A [`SpillWriter`] in memory, for tests: it can be told to fail.

use super::SpillWriter;
use crate::error::CapError;

/// Files kept in memory; `fail_append` makes the append of that number
/// (0-based) fail, as a full disk would.
#[derive(Debug, Default)]
pub struct MemoryWriter {
    /// The file being written, if any.
    pub partial: Option<Vec<u8>>,
    /// Committed files: `<thread_dir>/<file_name>` and their bytes.
    pub committed: Vec<(String, Vec<u8>)>,
    /// The append that fails, if any.
    pub fail_append: Option<usize>,
    /// Appends so far.
    pub appends: usize,
    /// `abort` was called.
    pub aborted: bool,
}

impl SpillWriter for MemoryWriter {
    fn create(&mut self, _thread_dir: &str) -> Result<(), CapError> {
        self.partial = Some(Vec::new());
        Ok(())
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), CapError> {
        let n = self.appends;
        self.appends += 1;
        if self.fail_append == Some(n) {
            return Err(CapError::Io("no space left on device".into()));
        }
        let file = self
            .partial
            .as_mut()
            .ok_or_else(|| CapError::Other("append before create".into()))?;
        file.extend_from_slice(bytes);
        Ok(())
    }

    fn commit(&mut self, thread_dir: &str, file_name: &str) -> Result<(), CapError> {
        let file = self
            .partial
            .take()
            .ok_or_else(|| CapError::Other("commit before create".into()))?;
        self.committed
            .push((format!("{thread_dir}/{file_name}"), file));
        Ok(())
    }

    fn abort(&mut self) {
        self.partial = None;
        self.aborted = true;
    }
}
