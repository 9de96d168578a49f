//! The session key file: 32 random bytes, readable by its owner only, made
//! once and read by every later run, so references verify across restarts.

use std::fs::{self, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Fewest bytes a key may have (the component refuses shorter keys).
const MIN_KEY_BYTES: usize = 16;
/// Bytes of a new key.
const NEW_KEY_BYTES: usize = 32;

#[derive(Debug)]
pub enum KeyError {
    /// The file exists but cannot be a key: the user must look at it.
    TooShort(String),
    /// The file could not be read or created (permissions, read-only disk).
    Unavailable(String),
}

/// The key in `path`, made first if the file does not exist.
pub fn load_or_create(path: &Path) -> Result<Vec<u8>, KeyError> {
    match fs::read(path) {
        Ok(key) => return checked(path, key),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(unavailable(path, "cannot read", e)),
    }
    create(path).map_err(|e| unavailable(path, "cannot create", e))?;
    let key = fs::read(path).map_err(|e| unavailable(path, "cannot read", e))?;
    checked(path, key)
}

fn checked(path: &Path, key: Vec<u8>) -> Result<Vec<u8>, KeyError> {
    if key.len() < MIN_KEY_BYTES {
        return Err(KeyError::TooShort(format!(
            "key file {} holds {} bytes, a key needs at least {MIN_KEY_BYTES}; \
             delete it to have a new one made (references made with the old key then stop verifying)",
            path.display(),
            key.len()
        )));
    }
    Ok(key)
}

fn unavailable(path: &Path, what: &str, e: io::Error) -> KeyError {
    KeyError::Unavailable(format!("{what} key file {}: {e}", path.display()))
}

/// Writes a new key to a temporary file (mode 0600) and links it into place
/// only if `path` still does not exist: a reader never sees a partial key,
/// and of two runs racing, both end up with the one key that won.
fn create(path: &Path) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        private_dirs(parent)?;
    }
    let mut key = [0u8; NEW_KEY_BYTES];
    getrandom::fill(&mut key).map_err(io::Error::other)?;
    let temporary = temporary_name(path);
    // Only a crashed run with this same process id can have left it.
    let _ = fs::remove_file(&temporary);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let written = options.open(&temporary).and_then(|mut file| {
        file.write_all(&key)?;
        file.sync_all()
    });
    let linked = written.and_then(|()| match fs::hard_link(&temporary, path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    });
    let _ = fs::remove_file(&temporary);
    linked
}

fn temporary_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// Creates `dir` and missing parents, owner-only on Unix.
fn private_dirs(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir)
}
