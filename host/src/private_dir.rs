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
