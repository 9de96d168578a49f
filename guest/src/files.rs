//! Small file operations inside one folder of the spill directory: atomic
//! writes, the catalog notes beside spills, listing entries without
//! following links, and the clock.

use toolcap_core::catalog::{self, SpillMeta};
use toolcap_core::{Call, CapError};
use wasi::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorType, DirectoryEntry, OpenFlags, PathFlags,
};

use crate::fs_error::to_cap_error;

/// Bytes per `write` call. The host copies each out of the component's
/// memory and then writes it; a copy of 256 KiB is still in cache when it is
/// written (4 MiB a call: the component's 4 MiB cap + spill 6.9 -> 6.7 ms).
pub(crate) const WRITE_CHUNK: usize = 256 << 10;

/// Nanoseconds since the Unix epoch, by the host's wall clock.
pub fn now_ns() -> u64 {
    let t = wasi::clocks::wall_clock::now();
    t.seconds * 1_000_000_000 + u64::from(t.nanoseconds)
}

/// Write `content` as `name` atomically: to a random temporary name, then
/// renamed, so a reader never sees a partial file under `name`.
pub fn write_atomic(dir: &Descriptor, name: &str, content: &[u8]) -> Result<(), CapError> {
    let tmp = temp_name(name);
    let result = write_new(dir, &tmp, content).and_then(|()| {
        dir.rename_at(&tmp, dir, name)
            .map_err(|e| to_cap_error("cannot rename", e))
    });
    if result.is_err() {
        // Best effort: never leave a partial file behind.
        let _ = dir.unlink_file_at(&tmp);
    }
    result
}

/// A random temporary name for `name`: concurrent writers never share it,
/// and its leading dot keeps it outside the spill file scheme.
pub fn temp_name(name: &str) -> String {
    format!(
        "{}{:016x}-{name}",
        catalog::TEMP_PREFIX,
        wasi::random::insecure::get_insecure_random_u64()
    )
}

/// Note where spill `name` came from, beside it, with what its notice
/// promised (kept `retention_seconds` from now). Best effort: a spill
/// without its note is still listed (from its name and the file's time).
pub fn write_meta(
    dir: &Descriptor,
    name: &str,
    call: &Call,
    bytes: u64,
    lines: u64,
    retention_seconds: Option<u64>,
) {
    let now = now_ns();
    let meta = SpillMeta {
        call_id: call.id.clone(),
        tool: call.tool.clone(),
        created_ns: now,
        bytes,
        lines,
        expires_ns: catalog::promised_expiry(now, retention_seconds),
    };
    let _ = write_atomic(dir, &catalog::meta_name(name), meta.to_json().as_bytes());
}

/// Spill `name` (of `bytes` bytes and `lines` lines) is named by a new
/// notice that promises `retention_seconds` from now: its note keeps the
/// later promise. A spill without a note (saved by an older version) gets
/// one, dated by the file. Best effort, like [`write_meta`].
pub fn renew_meta(
    dir: &Descriptor,
    name: &str,
    bytes: u64,
    lines: u64,
    retention_seconds: Option<u64>,
) {
    let Some(promise) = catalog::promised_expiry(now_ns(), retention_seconds) else {
        // Nothing promised: nothing to renew.
        return;
    };
    let meta = match read_meta(dir, name, bytes) {
        Some(meta) if meta.expires_ns >= Some(promise) => return,
        Some(meta) => meta.renewed(Some(promise)),
        None => {
            let Some((_, mtime)) = file_stat(dir, name) else {
                return;
            };
            SpillMeta {
                call_id: catalog::call_of_name(name).unwrap_or(name).to_owned(),
                tool: None,
                created_ns: mtime,
                bytes,
                lines,
                expires_ns: Some(promise),
            }
        }
    };
    let _ = write_atomic(dir, &catalog::meta_name(name), meta.to_json().as_bytes());
}

/// Every entry of `dir` (links are listed as links, never followed).
pub fn entries(dir: &Descriptor) -> Result<Vec<DirectoryEntry>, CapError> {
    let err = |e| to_cap_error("cannot list the folder", e);
    let stream = dir.read_directory().map_err(err)?;
    let mut out = Vec::new();
    loop {
        match stream.read_directory_entry() {
            Ok(Some(entry)) => out.push(entry),
            Ok(None) => return Ok(out),
            // Deleted or renamed while the folder was read (a concurrent
            // sweep, or a cap's rename): it is not there, so it is not listed.
            Err(wasi::filesystem::types::ErrorCode::NoEntry) => continue,
            Err(e) => return Err(err(e)),
        }
    }
}

/// Size and modification time (ns) of a regular file `name`, not
/// following links; `None` for anything else.
pub fn file_stat(dir: &Descriptor, name: &str) -> Option<(u64, u64)> {
    let stat = dir.stat_at(PathFlags::empty(), name).ok()?;
    if stat.type_ != DescriptorType::RegularFile {
        return None;
    }
    let mtime = stat
        .data_modification_timestamp
        .map_or(0, |t| t.seconds * 1_000_000_000 + u64::from(t.nanoseconds));
    Some((stat.size, mtime))
}

/// The whole of a small regular file, at most `max` bytes; `None` if it is
/// missing, a link, or larger.
pub fn read_small(dir: &Descriptor, name: &str, max: usize) -> Option<Vec<u8>> {
    let (size, _) = file_stat(dir, name)?;
    if size > max as u64 {
        return None;
    }
    let fd = dir
        .open_at(
            PathFlags::empty(),
            name,
            OpenFlags::empty(),
            DescriptorFlags::READ,
        )
        .ok()?;
    let mut out = Vec::with_capacity(size as usize);
    while (out.len() as u64) < size {
        let (chunk, eof) = fd.read(size - out.len() as u64, out.len() as u64).ok()?;
        out.extend_from_slice(&chunk);
        if eof || chunk.is_empty() {
            break;
        }
    }
    Some(out)
}

/// The catalog note of spill `name` if it is there and describes a file of
/// `bytes` bytes (a note left from an earlier file of the name is ignored).
pub fn read_meta(dir: &Descriptor, name: &str, bytes: u64) -> Option<SpillMeta> {
    let text = read_small(dir, &catalog::meta_name(name), 64 * 1024)?;
    SpillMeta::from_json(&text).filter(|m| m.bytes == bytes)
}

/// A spill of `dir` with this digest and size, to name instead of writing
/// the same output twice.
pub fn find_digest(dir: &Descriptor, digest: &str, bytes: u64) -> Option<String> {
    let suffix = format!("-{digest}{}", toolcap_core::naming::SPILL_SUFFIX);
    entries(dir)
        .ok()?
        .into_iter()
        .filter(|e| e.type_ == DescriptorType::RegularFile)
        .map(|e| e.name)
        .filter(|name| name.ends_with(&suffix) && catalog::is_spill_name(name))
        .filter(|name| file_stat(dir, name).is_some_and(|(size, _)| size == bytes))
        .min()
}

/// Lines of a regular file as `count_lines` counts them, read in chunks.
pub fn count_file_lines(dir: &Descriptor, name: &str) -> Result<u64, CapError> {
    let fd = dir
        .open_at(
            PathFlags::empty(),
            name,
            OpenFlags::empty(),
            DescriptorFlags::READ,
        )
        .map_err(|e| to_cap_error("cannot open the spilled file", e))?;
    let (mut offset, mut lfs, mut last) = (0u64, 0u64, None);
    loop {
        let (chunk, eof) = fd
            .read(1 << 20, offset)
            .map_err(|e| to_cap_error("cannot read the spilled file", e))?;
        lfs += memchr::memchr_iter(b'\n', &chunk).count() as u64;
        if let Some(&b) = chunk.last() {
            last = Some(b);
        }
        offset += chunk.len() as u64;
        if eof || chunk.is_empty() {
            break;
        }
    }
    Ok(match last {
        None => 0,
        Some(b'\n') => lfs,
        Some(_) => lfs + 1,
    })
}

/// Append one record to the expired note of `dir`. Best effort.
pub fn note_expired(dir: &Descriptor, name: &str, deleted_ms: u64) {
    let Ok(fd) = dir.open_at(
        PathFlags::empty(),
        catalog::EXPIRED_NOTE,
        OpenFlags::CREATE,
        DescriptorFlags::WRITE,
    ) else {
        return;
    };
    let Ok(stat) = fd.stat() else { return };
    if stat.type_ == DescriptorType::RegularFile {
        let _ = fd.write(
            catalog::expired_line(name, deleted_ms).as_bytes(),
            stat.size,
        );
    }
}

/// The `not-found` sentence for spill `name` of `dir`, missing: expired if
/// a sweep noted it, otherwise unknown.
pub fn missing_message(dir: &Descriptor, name: &str, path: &str) -> String {
    read_small(dir, catalog::EXPIRED_NOTE, catalog::MAX_EXPIRED_NOTE)
        .and_then(|note| catalog::expired_at(&note, name))
        .map_or_else(
            || catalog::unknown_message(path),
            |ms| catalog::expired_message(path, ms),
        )
}

/// Write `content` as a new file `name` (created exclusively).
fn write_new(dir: &Descriptor, name: &str, content: &[u8]) -> Result<(), CapError> {
    let file = dir
        .open_at(
            PathFlags::empty(),
            name,
            OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
            DescriptorFlags::WRITE,
        )
        .map_err(|e| to_cap_error("cannot create the spill file", e))?;
    let mut offset = 0;
    while offset < content.len() {
        let end = (offset + WRITE_CHUNK).min(content.len());
        let written = file
            .write(&content[offset..end], offset as u64)
            .map_err(|e| to_cap_error("cannot write the spill file", e))?;
        if written == 0 {
            return Err(CapError::Io(
                "cannot write the spill file: no progress".into(),
            ));
        }
        offset += written as usize;
    }
    Ok(())
}
