//! Before a file is served, it must still be the output its reference
//! names: the size the reference states (when the model gave one) and the
//! digest its name carries. A file replaced or changed after it was saved
//! (by another user of a shared folder, or by anything else) is refused
//! instead of shown as that output. Checked once per session per file.

use crate::error::CapError;
use crate::naming;
use crate::readback::RandomRead;

/// Bytes read per step of the digest.
const STEP: usize = 1 << 20;

/// `Ok(Ok(()))` when `file`, spill `name`, still has `bytes` bytes (if the
/// reference said) and the digest in its name; `Ok(Err(sentence))` when it
/// does not; `Err` when it cannot be read.
pub(crate) fn matches(
    file: &mut dyn RandomRead,
    path: &str,
    name: &str,
    bytes: Option<u64>,
) -> Result<Result<(), String>, CapError> {
    let size = file.size()?;
    let changed = |what: String| {
        format!(
            "{path} no longer holds the output its reference names: {what}, so it was changed \
             or replaced after it was saved. Nothing was read from it; run the tool again if you \
             still need its output."
        )
    };
    if let Some(expected) = bytes
        && expected != size
    {
        return Ok(Err(changed(format!(
            "it has {size} bytes where the reference says {expected}"
        ))));
    }
    let Some(digest) = naming::digest_of_file_name(name) else {
        return Ok(Ok(()));
    };
    let mut hasher = blake3::Hasher::new();
    let mut offset = 0;
    while offset < size {
        let chunk = file.read_at(offset, STEP)?;
        if chunk.is_empty() {
            break;
        }
        hasher.update(&chunk);
        offset += chunk.len() as u64;
    }
    let actual = naming::hex(&hasher.finalize().as_bytes()[..naming::DIGEST_HEX / 2]);
    if offset != size || actual != digest {
        return Ok(Err(changed(format!(
            "its content does not match the digest {digest} in its name"
        ))));
    }
    Ok(Ok(()))
}
