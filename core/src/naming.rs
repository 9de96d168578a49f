//! Spill file names: safe folder and file names from arbitrary ids.
//!
//! Layout: `<thread>/<call>-<digest>.txt`, where `<thread>` and `<call>` are
//! [`safe_name`]s and `<digest>` is 16 lowercase hex digits of the content's
//! BLAKE3 hash. Temporary files start with `.` and so never match the scheme.

use sha2::{Digest, Sha256};

/// Longest run of an id kept verbatim in a name.
const MAX_KEPT: usize = 48;
/// Hex digits of the id hash appended when an id had to be changed: 64 bits,
/// so that no one finds two ids with the same folder.
const ID_HASH_HEX: usize = 16;
/// Hex digits of the content digest.
pub const DIGEST_HEX: usize = 16;
/// Longest safe name: kept part, `-`, id hash.
pub const MAX_SAFE_NAME: usize = MAX_KEPT + 1 + ID_HASH_HEX;
/// File name suffix of every spill file.
pub const SPILL_SUFFIX: &str = ".txt";

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// First [`DIGEST_HEX`] hex digits of the BLAKE3 hash of `content`.
pub fn content_digest(content: &[u8]) -> String {
    content_digest_with(content, |_| {})
}

/// Bytes hashed per step of [`content_digest_with`]: small enough to stay in
/// the L2 cache between the visit and the hash.
const DIGEST_BLOCK: usize = 64 << 10;

/// [`content_digest`], showing each block of `content` to `visit` right
/// before hashing it: a caller that must also scan the content (to count its
/// lines) reads it from main memory once instead of twice. Single-threaded
/// `update` (no rayon): the SIMD lanes already hash several chunks at once,
/// and the guest has no threads.
pub fn content_digest_with(content: &[u8], mut visit: impl FnMut(&[u8])) -> String {
    let mut hasher = blake3::Hasher::new();
    for block in content.chunks(DIGEST_BLOCK) {
        visit(block);
        hasher.update(block);
    }
    hex(&hasher.finalize().as_bytes()[..DIGEST_HEX / 2])
}

fn is_safe_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A folder or file name made from any id: ASCII letters, digits, `_` and `-`
/// kept, everything else `_`, at most [`MAX_KEPT`] bytes. If anything changed,
/// a hash of the raw id is appended so that distinct ids stay distinct. An id
/// that already looks like such a name is hashed too, so no id can take the
/// folder of another. Never empty, never `.` or `..`, never contains `/`.
pub fn safe_name(raw: &str) -> String {
    let verbatim = !raw.is_empty()
        && raw.len() <= MAX_KEPT
        && raw.bytes().all(is_safe_byte)
        && !looks_hashed(raw);
    if verbatim {
        return raw.to_owned();
    }
    let mut name: String = raw
        .bytes()
        .take(MAX_KEPT)
        .map(|b| if is_safe_byte(b) { b as char } else { '_' })
        .collect();
    if !name.is_empty() {
        name.push('-');
    }
    let hash = Sha256::digest(raw.as_bytes());
    name.push_str(&hex(&hash[..ID_HASH_HEX / 2]));
    name
}

/// True when `name` ends like a hashed [`safe_name`]: `-` and the hash digits.
fn looks_hashed(name: &str) -> bool {
    let Some(cut) = name.len().checked_sub(ID_HASH_HEX) else {
        return false;
    };
    let (head, tail) = name.split_at(cut);
    (head.is_empty() || head.ends_with('-')) && tail.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The spill file name for a call and its content digest.
pub fn spill_file_name(call_id: &str, digest: &str) -> String {
    let call = if call_id.is_empty() {
        "call".to_owned()
    } else {
        safe_name(call_id)
    };
    format!("{call}-{digest}{SPILL_SUFFIX}")
}

/// If `name` fits the spill file scheme, the content digest it carries.
pub fn digest_of_file_name(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(SPILL_SUFFIX)?;
    if stem.len() < DIGEST_HEX + 2 {
        return None;
    }
    let (call, digest) = stem.split_at(stem.len() - DIGEST_HEX);
    let call = call.strip_suffix('-')?;
    let call_ok = !call.is_empty() && call.len() <= MAX_SAFE_NAME && call.bytes().all(is_safe_byte);
    let digest_ok = digest
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (call_ok && digest_ok).then_some(digest)
}

/// True for bytes that may appear in a spill file name.
pub fn is_name_byte(b: u8) -> bool {
    is_safe_byte(b) || b == b'.'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ids_are_kept() {
        assert_eq!(safe_name("toolu_01AbC-9"), "toolu_01AbC-9");
    }

    #[test]
    fn hostile_ids_become_distinct_safe_names() {
        let names = ["../etc", "a/b", "a_b_", "..", ".", "", "a b", "Ж", "a\0b"].map(safe_name);
        for n in &names {
            assert!(!n.is_empty() && n.len() <= MAX_SAFE_NAME, "{n}");
            assert!(n.bytes().all(is_safe_byte), "{n}");
        }
        assert_ne!(safe_name("a/b"), safe_name("a_b"));
        // An id shaped like another's escaped name gets a folder of its own.
        assert_ne!(safe_name(&safe_name("a/b")), safe_name("a/b"));
        assert_ne!(safe_name("0123456789abcdef"), "0123456789abcdef");
        assert_ne!(safe_name("a/b"), safe_name("a:b"));
        let long = "x".repeat(200);
        assert_eq!(safe_name(&long).len(), MAX_SAFE_NAME);
        assert_ne!(safe_name(&long), safe_name(&"x".repeat(201)));
    }

    #[test]
    fn content_digest_is_blake3_in_any_block_split() {
        // The BLAKE3 test vector for the empty input.
        assert_eq!(content_digest(b""), "af1349b9f5f9a1a6");
        let big: Vec<u8> = (0..3 * DIGEST_BLOCK + 7).map(|i| (i % 251) as u8).collect();
        let mut seen = 0;
        let d = content_digest_with(&big, |b| seen += b.len());
        assert_eq!(seen, big.len());
        assert_eq!(d, hex(&blake3::hash(&big).as_bytes()[..DIGEST_HEX / 2]));
    }

    #[test]
    fn file_names_round_trip_their_digest() {
        let d = content_digest(b"hello");
        assert_eq!(d.len(), DIGEST_HEX);
        let name = spill_file_name("call-1", &d);
        assert_eq!(digest_of_file_name(&name), Some(d.as_str()));
        assert_eq!(
            digest_of_file_name(&spill_file_name("", &d)),
            Some(d.as_str())
        );
        for bad in [
            "x.txt",
            ".tmp-call-0123456789abcdef.txt",
            "call-0123456789abcdeF.txt",
            "call-0123456789abcdef.txt.tmp",
            "-0123456789abcdef.txt",
            "a/b-0123456789abcdef.txt",
            "..-0123456789abcdef.txt",
        ] {
            assert_eq!(digest_of_file_name(bad), None, "{bad}");
        }
    }
}
