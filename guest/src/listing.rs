//! `list` and the spill store's walk: the spilled outputs of a folder, with
//! what the catalog notes say of them.

use toolcap_core::catalog;
use toolcap_core::{CapError, OverflowRef, RefScheme, naming};
use wasi::filesystem::types::{Descriptor, DescriptorType, DirectoryEntry};

use crate::files;

/// One spilled output of a thread folder.
pub struct Listed {
    pub name: String,
    pub bytes: u64,
    /// When it was saved, in nanoseconds since the Unix epoch.
    pub created_ns: u64,
    /// The note, when it is there and matches the file.
    pub meta: Option<catalog::SpillMeta>,
}

/// The spill files of one thread folder, oldest first. Links and names
/// outside the scheme are not spills and are left out.
pub fn spills(dir: &Descriptor) -> Result<Vec<Listed>, CapError> {
    Ok(spills_among(dir, files::entries(dir)?))
}

/// [`spills`] of `dir` among its `entries`, for a caller that looks at the
/// other entries too.
pub fn spills_among(dir: &Descriptor, entries: Vec<DirectoryEntry>) -> Vec<Listed> {
    let mut out = Vec::new();
    for entry in entries {
        if entry.type_ != DescriptorType::RegularFile || !catalog::is_spill_name(&entry.name) {
            continue;
        }
        let Some((bytes, modified_ns)) = files::file_stat(dir, &entry.name) else {
            continue;
        };
        let meta = files::read_meta(dir, &entry.name, bytes);
        out.push(Listed {
            created_ns: meta.as_ref().map_or(modified_ns, |m| m.created_ns),
            name: entry.name,
            bytes,
            meta,
        });
    }
    toolcap_core::order::sort_by(&mut out, |a, b| {
        (a.created_ns, &a.name).cmp(&(b.created_ns, &b.name))
    });
    out
}

/// A catalog entry: a genuine reference and where the output came from.
pub struct Entry {
    pub reference: OverflowRef,
    pub created_ms: u64,
    pub call_id: String,
    pub tool: Option<String>,
}

/// This thread's catalog. A spill without a note (saved by an older
/// version) is listed from its name and file: its call id is the name's,
/// its lines are counted.
pub fn catalog(dir: &Descriptor, scheme: &RefScheme) -> Result<Vec<Entry>, CapError> {
    let mut out = Vec::new();
    for spill in spills(dir)? {
        let Some(digest) = naming::digest_of_file_name(&spill.name) else {
            continue;
        };
        let (call_id, tool, lines) = match spill.meta {
            Some(m) => (m.call_id, m.tool, m.lines),
            None => {
                let call = catalog::call_of_name(&spill.name).unwrap_or(digest);
                (
                    call.to_owned(),
                    None,
                    files::count_file_lines(dir, &spill.name)?,
                )
            }
        };
        out.push(Entry {
            reference: scheme.make_ref(&spill.name, spill.bytes, lines, digest),
            created_ms: spill.created_ns / 1_000_000,
            call_id,
            tool,
        });
    }
    Ok(out)
}
