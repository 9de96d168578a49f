//! Native stand-ins for what the component does through WASI: the baselines
//! that tell what running sandboxed costs.

use std::fs::{self, File};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use toolcap_core::readback::RandomRead;
use toolcap_core::{CapError, SpillStore};

/// A store that keeps nothing: the cap's own work, without the write.
#[derive(Debug, Default)]
pub struct Discard;

impl SpillStore for Discard {
    fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
        Ok(())
    }
}

/// Spills with `std::fs` the way the guest does through `wasi:filesystem`:
/// make sure the thread folder exists, write a temporary file, rename it.
#[derive(Debug)]
pub struct FsSpill {
    root: PathBuf,
}

impl FsSpill {
    /// Spill into folders below `root`.
    pub fn new(root: &Path) -> FsSpill {
        FsSpill {
            root: root.to_owned(),
        }
    }
}

impl SpillStore for FsSpill {
    fn save(&mut self, thread: &str, name: &str, content: &[u8]) -> Result<(), CapError> {
        let dir = self.root.join(thread);
        let tmp = dir.join(format!(".tmp-{name}"));
        fs::create_dir_all(&dir)
            .and_then(|()| fs::write(&tmp, content))
            .and_then(|()| fs::rename(&tmp, dir.join(name)))
            .map_err(|e| CapError::Io(e.to_string()))
    }
}

/// A spilled file read with `std::fs`, for the native side of read-back.
#[derive(Debug)]
pub struct FsFile {
    file: File,
    size: u64,
}

impl FsFile {
    /// Open `path` for reading.
    pub fn open(path: &Path) -> std::io::Result<FsFile> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        Ok(FsFile { file, size })
    }
}

impl RandomRead for FsFile {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.size)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        let io = |e: std::io::Error| CapError::Io(e.to_string());
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let mut out = Vec::with_capacity(len);
        (&mut self.file)
            .take(len as u64)
            .read_to_end(&mut out)
            .map_err(io)?;
        Ok(out)
    }
}
