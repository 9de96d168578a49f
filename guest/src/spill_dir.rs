//! The spill directory as the host granted it: a WASI preopen found by guest
//! path. All paths below it are single names, opened without following
//! symbolic links, so nothing here can reach outside the preopen.

use toolcap_core::readback::RandomRead;
use toolcap_core::{CapError, SpillStore};
use wasi::filesystem::preopens::get_directories;
use wasi::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};

use crate::files;
use crate::fs_error::{describe, to_cap_error};
use toolcap_core::catalog;

/// Folder depth `purge` descends into. Spill folders are one level deep; a
/// bound keeps a hostile tree from exhausting the guest's stack.
const MAX_PURGE_DEPTH: u32 = 64;

/// The preopen that holds the spill folders, or why there is none.
pub struct SpillDir {
    root: Result<Descriptor, String>,
}

impl SpillDir {
    /// Find the preopen named `guest_path` (or a folder inside one).
    pub fn find(guest_path: &str) -> SpillDir {
        SpillDir {
            root: open_root(guest_path),
        }
    }

    pub fn root(&self) -> Result<&Descriptor, CapError> {
        self.root
            .as_ref()
            .map_err(|why| CapError::NoSpillDir(why.clone()))
    }

    /// Open `<thread>` below the root, creating it if `create`.
    pub fn thread_dir(&self, thread: &str, create: bool) -> Result<Descriptor, CapError> {
        let root = self.root()?;
        let open = || {
            root.open_at(
                PathFlags::empty(),
                thread,
                OpenFlags::DIRECTORY,
                DescriptorFlags::READ,
            )
            .map_err(|e| to_cap_error("cannot open the thread folder", e))
        };
        match create.then(|| root.create_directory_at(thread)) {
            None | Some(Ok(())) | Some(Err(ErrorCode::Exist)) => open(),
            // A read-only grant refuses the create even when the folder is
            // there; then the error worth reporting is the file's, not this.
            Some(Err(e)) => open().map_err(|_| to_cap_error("cannot create the thread folder", e)),
        }
    }

    /// Open the spill file `<thread>/<name>` for reading.
    /// A file that is not there is `not-found` saying whether a sweep
    /// deleted it (expired) or it never existed; `path` names it so.
    pub fn open_file(&self, thread: &str, name: &str, path: &str) -> Result<SpillFile, CapError> {
        let dir = match self.thread_dir(thread, false) {
            Ok(dir) => dir,
            Err(CapError::NotFound(_)) => {
                return Err(CapError::NotFound(catalog::unknown_message(path)));
            }
            Err(e) => return Err(e),
        };
        let fd = match dir.open_at(
            PathFlags::empty(),
            name,
            OpenFlags::empty(),
            DescriptorFlags::READ,
        ) {
            Ok(fd) => fd,
            Err(ErrorCode::NoEntry) => {
                return Err(CapError::NotFound(files::missing_message(&dir, name, path)));
            }
            Err(e) => return Err(to_cap_error("cannot open the spilled file", e)),
        };
        let stat = fd
            .stat()
            .map_err(|e| to_cap_error("cannot stat the spilled file", e))?;
        if stat.type_ != DescriptorType::RegularFile {
            return Err(CapError::OutsideRoot(
                "the path is not a regular spilled file".into(),
            ));
        }
        Ok(SpillFile {
            fd,
            size: stat.size,
        })
    }

    /// Delete `<thread>` and everything in it; bytes of files removed.
    pub fn purge(&self, thread: &str) -> Result<u64, CapError> {
        let root = self.root()?;
        let dir = match self.thread_dir(thread, false) {
            Ok(dir) => dir,
            Err(CapError::NotFound(_)) => return Ok(0),
            Err(e) => return Err(e),
        };
        let freed = empty_dir(&dir, 0)?;
        drop(dir);
        root.remove_directory_at(thread)
            .map_err(|e| to_cap_error("cannot remove the thread folder", e))?;
        Ok(freed)
    }
}

/// Saves spills of one session, with the catalog note beside each.
pub struct CallStore<'a> {
    pub dir: &'a SpillDir,
    /// What the session's notices promise (`retention-seconds`).
    pub retention_seconds: Option<u64>,
}

impl SpillStore for CallStore<'_> {
    fn save(&mut self, thread: &str, name: &str, content: &[u8]) -> Result<(), CapError> {
        let dir = self.dir.thread_dir(thread, true)?;
        files::write_atomic(&dir, name, content)
    }

    fn save_call(
        &mut self,
        thread: &str,
        name: &str,
        content: &[u8],
        call: &toolcap_core::Call,
        lines: u64,
    ) -> Result<(), CapError> {
        self.save(thread, name, content)?;
        let dir = self.dir.thread_dir(thread, false)?;
        files::write_meta(
            &dir,
            name,
            call,
            content.len() as u64,
            lines,
            self.retention_seconds,
        );
        Ok(())
    }

    fn existing(&mut self, thread: &str, digest: &str, bytes: u64) -> Option<String> {
        let dir = self.dir.thread_dir(thread, false).ok()?;
        files::find_digest(&dir, digest, bytes)
    }

    fn renew(&mut self, thread: &str, name: &str, bytes: u64, lines: u64) {
        if let Ok(dir) = self.dir.thread_dir(thread, false) {
            files::renew_meta(&dir, name, bytes, lines, self.retention_seconds);
        }
    }
}

/// Remove everything in `dir`, not following links; bytes of files removed
/// (bookkeeping notes not counted).
fn empty_dir(dir: &Descriptor, depth: u32) -> Result<u64, CapError> {
    let err = |e| to_cap_error("cannot empty the thread folder", e);
    let entries = dir.read_directory().map_err(err)?;
    let mut names = Vec::new();
    while let Some(entry) = entries.read_directory_entry().map_err(err)? {
        names.push(entry);
    }
    let mut freed = 0;
    for entry in names {
        if entry.type_ == DescriptorType::Directory {
            if depth >= MAX_PURGE_DEPTH {
                return Err(CapError::Io(format!(
                    "cannot empty the thread folder: folders nested deeper than {MAX_PURGE_DEPTH}"
                )));
            }
            let sub = dir
                .open_at(
                    PathFlags::empty(),
                    &entry.name,
                    OpenFlags::DIRECTORY,
                    DescriptorFlags::READ,
                )
                .map_err(err)?;
            freed += empty_dir(&sub, depth + 1)?;
            drop(sub);
            dir.remove_directory_at(&entry.name).map_err(err)?;
        } else {
            // Every file's content counts but the component's bookkeeping:
            // the catalog notes and the expired note.
            if entry.type_ == DescriptorType::RegularFile && !catalog::is_note_name(&entry.name) {
                freed += dir
                    .stat_at(PathFlags::empty(), &entry.name)
                    .map_or(0, |s| s.size);
            }
            dir.unlink_file_at(&entry.name).map_err(err)?;
        }
    }
    Ok(freed)
}

fn open_root(guest_path: &str) -> Result<Descriptor, String> {
    let wanted = guest_path.trim_end_matches('/');
    let mut best: Option<(Descriptor, String)> = None;
    for (fd, name) in get_directories() {
        let name = name.trim_end_matches('/').to_owned();
        let rest = if name == wanted {
            Some(String::new())
        } else {
            wanted.strip_prefix(&format!("{name}/")).map(str::to_owned)
        };
        if let Some(rest) = rest
            && best.as_ref().is_none_or(|(_, r)| rest.len() < r.len())
        {
            best = Some((fd, rest));
        }
    }
    let Some((fd, rest)) = best else {
        return Err(format!(
            "no spill directory: the host granted no preopen {guest_path:?}"
        ));
    };
    if rest.is_empty() {
        return Ok(fd);
    }
    if rest
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(format!("spill-dir {guest_path:?} must be a plain path"));
    }
    fd.open_at(
        PathFlags::empty(),
        &rest,
        OpenFlags::DIRECTORY,
        DescriptorFlags::READ,
    )
    .map_err(|e| format!("no spill directory at {guest_path:?}: {}", describe(e)))
}

/// A spilled file opened for reading.
pub struct SpillFile {
    fd: Descriptor,
    size: u64,
}

impl RandomRead for SpillFile {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.size)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let at = offset + out.len() as u64;
            let (chunk, eof) = self
                .fd
                .read((len - out.len()) as u64, at)
                .map_err(|e| to_cap_error("cannot read the spilled file", e))?;
            out.extend_from_slice(&chunk);
            if eof || chunk.is_empty() {
                break;
            }
        }
        Ok(out)
    }
}
