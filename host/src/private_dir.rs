//! Spill folders readable by their owner only: tool output can hold
//! anything a command printed, so other users of the machine must not read it.

use std::io;
use std::path::Path;

/// Create `dir` and any missing parents, each new one with mode 0700 on
/// Unix (elsewhere, the platform's default). A folder that exists is left
/// as it is: its owner chose its mode.
pub(crate) fn create(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Why `dir` is not this user's own folder: owned by another user, or
/// writable by its group or by others, who could then read what is spilled
/// there and replace a file behind a reference. `None` for a private folder,
/// or for one that does not exist (it will be created owner-only). On other
/// platforms than Unix, `None`.
pub fn shared_dir_problem(dir: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let meta = std::fs::metadata(dir).ok()?;
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Some(format!(
                "{} belongs to another user (uid {}, this process runs as uid {me}), who could \
                 read the outputs saved there and replace them",
                dir.display(),
                meta.uid()
            ));
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o022 != 0 {
            return Some(format!(
                "{} can be written by {} (mode {mode:04o}), who could replace the outputs saved \
                 there; make it private with `chmod 700 {}`",
                dir.display(),
                if mode & 0o002 != 0 {
                    "every user"
                } else {
                    "its group"
                },
                dir.display()
            ));
        }
        None
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}
