//! The session key file: 32 random bytes, readable by its owner only, made
//! once and read by every later run, so references verify across restarts.
//!
//! Whoever reads the key can forge references, so a key file is used only
//! if it is a regular file (not a link, a device or a pipe) of this user
//! that no one else can read or write (mode 0600 or 0400); anything else is
//! refused with what is wrong, before a byte is read.

use std::fs::{self, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};

/// Fewest bytes a key may have (the component refuses shorter keys).
const MIN_KEY_BYTES: usize = 16;
/// Bytes of a new key.
const NEW_KEY_BYTES: usize = 32;
/// Most bytes a key file may hold: a bound for a file that is not a key.
const MAX_KEY_BYTES: u64 = 4096;

#[derive(Debug)]
pub enum KeyError {
    /// The file exists but cannot be a key (too short or too long, a link,
    /// not a regular file, another user's, readable by others): the user
    /// must look at it.
    Refused(String),
    /// The file could not be read or created (permissions, read-only disk).
    Unavailable(String),
}

/// The key in `path`, made first if the file does not exist.
pub fn load_or_create(path: &Path) -> Result<Vec<u8>, KeyError> {
    match read_key(path) {
        Err(KeyError::Unavailable(_)) if !exists(path) => {}
        other => return other,
    }
    create(path).map_err(|e| unavailable(path, "cannot create", e))?;
    read_key(path)
}

/// True if anything (even a dangling link) is at `path`.
fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// The key in the file at `path`, once it is known to be a private regular
/// file: opened without following a link and without blocking (a pipe),
/// then checked by its open descriptor, so it cannot be swapped in between.
fn read_key(path: &Path) -> Result<Vec<u8>, KeyError> {
    let file = open_no_follow(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => unavailable(path, "cannot read", e),
        _ if is_link(path) => refused(path, "is a symbolic link"),
        _ => unavailable(path, "cannot read", e),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| unavailable(path, "cannot read", e))?;
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    private(path, &meta)?;
    if meta.len() > MAX_KEY_BYTES {
        return Err(refused(
            path,
            &format!(
                "holds {} bytes, more than a key's {MAX_KEY_BYTES}",
                meta.len()
            ),
        ));
    }
    let mut key = Vec::new();
    file.take(MAX_KEY_BYTES + 1)
        .read_to_end(&mut key)
        .map_err(|e| unavailable(path, "cannot read", e))?;
    checked(path, key)
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    Ok(fs::File::from(rustix::fs::open(
        path,
        flags,
        Mode::empty(),
    )?))
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<fs::File> {
    fs::File::open(path)
}

/// Refuses a key file of another user, or one others can read or write.
#[cfg(unix)]
fn private(path: &Path, meta: &fs::Metadata) -> Result<(), KeyError> {
    use std::os::unix::fs::MetadataExt as _;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(refused(
            path,
            &format!(
                "belongs to another user (uid {}, this process runs as uid {me})",
                meta.uid()
            ),
        ));
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(refused(
            path,
            &format!(
                "has mode {mode:04o}: others could read the key and forge references; make it \
                 private with `chmod 600 {}`",
                path.display()
            ),
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn private(_: &Path, _: &fs::Metadata) -> Result<(), KeyError> {
    Ok(())
}

fn refused(path: &Path, why: &str) -> KeyError {
    KeyError::Refused(format!(
        "refusing key file {}: it {why}; a key file must be a regular file of this user, \
         readable by its owner only (mode 0600)",
        path.display()
    ))
}

fn checked(path: &Path, key: Vec<u8>) -> Result<Vec<u8>, KeyError> {
    if key.len() < MIN_KEY_BYTES {
        return Err(KeyError::Refused(format!(
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
