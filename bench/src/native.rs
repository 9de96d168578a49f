//! Native stand-ins for what the component does through WASI: the baselines
//! that tell what running sandboxed costs. Each one does the steps the guest
//! does (guest/src/spill_dir.rs, guest/src/session.rs), with `std::fs`, so a
//! ratio measures the sandbox and not a difference in work.

use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher as _, RandomState};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use toolcap_core::readback::RandomRead;
use toolcap_core::{CapError, RefScheme, SpillStore};

/// A store that keeps nothing: the cap's own work, without the write.
#[derive(Debug, Default)]
pub struct Discard;

impl SpillStore for Discard {
    fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
        Ok(())
    }
}

/// A store that refuses every save as the guest does when the host granted no
/// spill directory: the same error, so the cap renders the same notice (the
/// "could not be saved" one) on both sides of a no-write comparison.
#[derive(Debug, Default)]
pub struct NoSpillDir;

impl SpillStore for NoSpillDir {
    fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
        Err(CapError::NoSpillDir(
            "no spill directory: the host granted no preopen \"/spill\"".to_owned(),
        ))
    }
}

/// Bytes per write, as the guest's `WRITE_CHUNK`.
const WRITE_CHUNK: usize = 256 << 10;

/// Spills with `std::fs` in the guest's steps, each call: create the thread
/// folder (an existing one is fine), create a temporary file with a random
/// name exclusively (`create_new`), write it in 256 KiB positioned writes,
/// rename it to the spill name, and remove the temporary file if any step
/// failed.
#[derive(Debug)]
pub struct FsSpill {
    root: PathBuf,
    random: u64,
}

impl FsSpill {
    /// Spill into folders below `root`.
    pub fn new(root: &Path) -> FsSpill {
        FsSpill {
            root: root.to_owned(),
            random: RandomState::new().hash_one(root) | 1,
        }
    }

    /// The next temporary-name suffix (xorshift: the guest asks the host for
    /// an insecure random number, a call about as cheap).
    fn next_random(&mut self) -> u64 {
        self.random ^= self.random << 13;
        self.random ^= self.random >> 7;
        self.random ^= self.random << 17;
        self.random
    }
}

impl SpillStore for FsSpill {
    fn save(&mut self, thread: &str, name: &str, content: &[u8]) -> Result<(), CapError> {
        let io = |what: &str, e: std::io::Error| CapError::Io(format!("{what}: {e}"));
        let dir = self.root.join(thread);
        match fs::create_dir(&dir) {
            Err(e) if e.kind() != ErrorKind::AlreadyExists => {
                return Err(io("cannot create the thread folder", e));
            }
            _ => {}
        }
        let tmp = dir.join(format!(".tmp-{:016x}-{name}", self.next_random()));
        let result = write_new(&tmp, content)
            .map_err(|e| io("cannot write the spill file", e))
            .and_then(|()| fs::rename(&tmp, dir.join(name)).map_err(|e| io("cannot rename", e)));
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }
}

fn write_new(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let mut offset = 0;
    while offset < content.len() {
        let end = (offset + WRITE_CHUNK).min(content.len());
        file.write_all_at(&content[offset..end], offset as u64)?;
        offset = end;
    }
    Ok(())
}

/// A spilled file read with `std::fs`, for the native side of read-back.
#[derive(Debug)]
pub struct FsFile {
    file: File,
    size: u64,
}

impl FsFile {
    /// What the guest does before every read-back call: resolve the path a
    /// model wrote with the session's scheme, open the file in the thread
    /// folder below `root`, and check that it is a regular file.
    pub fn open_ref(root: &Path, scheme: &RefScheme, path: &str) -> Result<FsFile, CapError> {
        let name = scheme.resolve(path)?;
        let path = root.join(scheme.thread_dir()).join(name);
        let io = |e: std::io::Error| CapError::Io(format!("cannot open the spilled file: {e}"));
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(CapError::OutsideRoot(
                "the path is not a regular spilled file".into(),
            ));
        }
        Ok(FsFile {
            file,
            size: meta.len(),
        })
    }
}

impl RandomRead for FsFile {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.size)
    }

    /// Positioned reads until `len` bytes or the end, as the guest reads.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        let mut out = vec![0; len];
        let mut filled = 0;
        while filled < len {
            let n = self
                .file
                .read_at(&mut out[filled..], offset + filled as u64)
                .map_err(|e| CapError::Io(format!("cannot read the spilled file: {e}")))?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        out.truncate(filled);
        Ok(out)
    }
}

/// Removes every file in `dir` (not the folder itself, so the next spill
/// finds it as a later call of a real session does). A missing folder is
/// empty.
pub fn remove_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let _ = fs::remove_file(entry.path());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_under_the_name_given_and_leaves_no_temporary_file() {
        let root = tempfile::tempdir().unwrap();
        let mut store = FsSpill::new(root.path());
        store.save("t", "a.txt", b"one").unwrap();
        store
            .save("t", "b.txt", &vec![b'x'; WRITE_CHUNK + 3])
            .unwrap();
        let dir = root.path().join("t");
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"one");
        assert_eq!(fs::read(dir.join("b.txt")).unwrap().len(), WRITE_CHUNK + 3);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        remove_files(&dir);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        assert!(NoSpillDir.save("t", "c.txt", b"").is_err());
    }
}
