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

/// Bytes of an id kept verbatim as a name: no ASCII uppercase, so that two
/// verbatim names never differ only in case (macOS and Windows folders are
/// case-insensitive by default).
fn is_verbatim_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
}

/// Names Windows reserves for devices in every folder, in any case and with
/// any extension (`nul.txt` is the device too).
const WINDOWS_DEVICES: [&str; 4] = ["con", "prn", "aux", "nul"];

/// True when Windows takes `name` for a device: its stem before the first
/// `.`, without trailing spaces, is a reserved name, ignoring ASCII case.
fn is_windows_device(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let numbered = |prefix: &str| {
        let b = stem.as_bytes();
        b.len() == 4 && b[..3].eq_ignore_ascii_case(prefix.as_bytes()) && b[3].is_ascii_digit()
    };
    WINDOWS_DEVICES.iter().any(|d| stem.eq_ignore_ascii_case(d))
        || numbered("com")
        || numbered("lpt")
}

/// A folder or file name made from any id, valid on Linux, macOS and Windows.
///
/// The id itself if it is at most [`MAX_KEPT`] bytes of lowercase ASCII
/// letters, digits, `_` and `-`, does not look hashed (16 hex digits, alone
/// or after a `-`) and is not a Windows device name (`con`, `nul`, `com1`,
/// ...). Any other id: its first [`MAX_KEPT`] bytes with every byte but ASCII
/// letters, digits, `_` and `-` turned into `_`, then `-` and 16 lowercase
/// hex digits of the SHA-256 of the raw id.
///
/// Two distinct ids never get names equal ignoring ASCII case, so they never
/// share a folder even on a case-insensitive filesystem: two verbatim names
/// have no uppercase, so equal ignoring case means equal; two hashed names
/// end in their lowercase id hashes, which differ (64 bits: no one finds two
/// ids with the same hash); and a verbatim name equal to a hashed one
/// ignoring case would end like a hash, which is never kept verbatim.
/// Never empty, never `.` or `..`, never contains `/`, `.` or a space, at most
/// [`MAX_SAFE_NAME`] bytes.
pub fn safe_name(raw: &str) -> String {
    let verbatim = !raw.is_empty()
        && raw.len() <= MAX_KEPT
        && raw.bytes().all(is_verbatim_byte)
        && !looks_hashed(raw)
        && !is_windows_device(raw);
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

    /// `raw`'s name if it was hashed: the kept part, `-`, the id hash.
    fn hashed(kept: &str, raw: &str) -> String {
        let hash = hex(&Sha256::digest(raw.as_bytes())[..ID_HASH_HEX / 2]);
        if kept.is_empty() {
            hash
        } else {
            format!("{kept}-{hash}")
        }
    }

    #[test]
    fn plain_ids_are_kept() {
        for id in [
            "toolu_01abc-9",
            "thread-1",
            "t1",
            "c",
            "con1",
            "com",
            "lpt10",
            "nul_",
            "-x_",
        ] {
            assert_eq!(safe_name(id), id);
        }
        assert_eq!(safe_name(&"z".repeat(48)), "z".repeat(48));
    }

    #[test]
    fn uppercase_and_device_ids_are_hashed() {
        // Uppercase: `T1` and `t1` would share one folder on macOS and Windows.
        for id in [
            "T1",
            "toolu_01AbC-9",
            "CON",
            "Nul",
            "STRASSE",
            "ABC-0123456789ABCDEF",
        ] {
            assert_eq!(safe_name(id), hashed(id, id), "{id}");
        }
        // Windows devices, in any case; the stem decides, so `nul.txt` too.
        for id in [
            "con", "prn", "aux", "nul", "com0", "com9", "lpt1", "lpt9", "nul.txt",
        ] {
            assert_eq!(safe_name(id), hashed(&id.replace('.', "_"), id), "{id}");
        }
        // Trailing dots and spaces, which Windows strips, become `_`.
        assert_eq!(safe_name("a."), hashed("a_", "a."));
        assert_eq!(safe_name("b "), hashed("b_", "b "));
        assert_eq!(safe_name("Straße"), hashed("Stra__e", "Straße"));
        assert_eq!(safe_name(""), hashed("", ""));
    }

    #[test]
    fn windows_devices_are_recognised_by_their_stem() {
        for name in [
            "CON",
            "con",
            "cOn.txt",
            "NUL.tar.gz",
            "nul ",
            "AUX .x",
            "COM0",
            "lpt9.log",
        ] {
            assert!(is_windows_device(name), "{name}");
        }
        for name in [
            "con1", "com", "com10", "lptx", "xnul", "nul_", "com-1", "ncon.txt", "", "é",
        ] {
            assert!(!is_windows_device(name), "{name}");
        }
    }

    /// Reserved on Windows in every folder (the ones with `$` or superscript
    /// digits are listed for completeness: they are not made of safe bytes).
    fn windows_reserved(stem: &str) -> bool {
        let mut reserved: Vec<String> = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"]
            .map(String::from)
            .into();
        for port in ["COM", "LPT"] {
            for digit in [
                "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³",
            ] {
                reserved.push(format!("{port}{digit}"));
            }
        }
        reserved
            .iter()
            .any(|r| r.to_uppercase() == stem.to_uppercase())
    }

    /// Whether Linux, macOS and Windows all accept `name` as a file or folder
    /// name, `.` allowed only if `dots`.
    fn valid_everywhere(name: &str, dots: bool) -> Result<(), String> {
        let stem = name
            .split('.')
            .next()
            .unwrap_or_default()
            .trim_end_matches(' ');
        let bytes_ok = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (dots && b == b'.'));
        let problem = if name.is_empty() || name == "." || name == ".." {
            "empty, . or .."
        } else if name.len() > 255 {
            "longer than 255 bytes"
        } else if !bytes_ok {
            "a byte outside [A-Za-z0-9_-]"
        } else if name.ends_with('.') || name.ends_with(' ') {
            "a trailing dot or space"
        } else if windows_reserved(stem) {
            "a Windows device name"
        } else {
            return Ok(());
        };
        Err(format!("{name:?}: {problem}"))
    }

    #[test]
    fn no_two_case_variants_share_a_name() {
        // Every case variant of these ids: no two names equal ignoring case.
        let words = [
            "t1",
            "con",
            "nul",
            "com1",
            "lpt9",
            "aux",
            "abc-0123456789abcdef",
            "straße",
        ];
        let mut seen = std::collections::HashMap::new();
        for word in words {
            let letters: Vec<usize> = (0..word.len())
                .filter(|&i| word.as_bytes()[i].is_ascii_alphabetic())
                .collect();
            for mask in 0..1u32 << letters.len() {
                let mut id = word.as_bytes().to_vec();
                for (bit, &i) in letters.iter().enumerate() {
                    if mask >> bit & 1 == 1 {
                        id[i] = id[i].to_ascii_uppercase();
                    }
                }
                let id = String::from_utf8(id).unwrap();
                let name = safe_name(&id);
                valid_everywhere(&name, false).unwrap();
                if let Some(other) = seen.insert(name.to_ascii_lowercase(), id.clone()) {
                    panic!("{id:?} and {other:?} share the folder {name:?}");
                }
            }
        }
        assert!(seen.len() > 200, "{}", seen.len());
    }

    /// Ids from pieces rich in case variants, device names, dots, spaces,
    /// hash look-alikes and non-ASCII letters.
    fn hostile_id() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "a",
            "A",
            "t",
            "T",
            "1",
            "9",
            "0",
            "-",
            "_",
            ".",
            " ",
            "..",
            "/",
            "\\",
            ":",
            "\0",
            "con",
            "CON",
            "Con",
            "nul",
            "NUL",
            "aux",
            "prn",
            "com",
            "COM",
            "lpt",
            "LPT",
            ".txt",
            "ß",
            "ẞ",
            "SS",
            "ss",
            "é",
            "É",
            "ı",
            "İ",
            "K",
            "\u{212a}",
            "Ж",
            "ж",
            "🦀",
            "0123456789abcdef",
            "0123456789ABCDEF",
            "-0123456789abcdef",
            "fedcba9876543210",
        ]);
        prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
    }

    /// `id` with the ASCII case of some of its letters flipped.
    fn flip_case(id: &str, mask: u64) -> String {
        id.chars()
            .enumerate()
            .map(|(i, c)| match mask >> (i % 64) & 1 {
                1 if c.is_ascii_lowercase() => c.to_ascii_uppercase(),
                1 if c.is_ascii_uppercase() => c.to_ascii_lowercase(),
                _ => c,
            })
            .collect()
    }

    fn cases() -> proptest::test_runner::Config {
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok());
        proptest::test_runner::Config::with_cases(cases.unwrap_or(4000))
    }

    proptest::proptest! {
        #![proptest_config(cases())]

        /// Distinct ids (unrelated, or case variants of each other, or
        /// repeated past the kept length) never get names equal ignoring
        /// ASCII case, and every name is valid on Linux, macOS and Windows.
        #[test]
        fn distinct_ids_never_meet_on_any_filesystem(
            a in hostile_id(),
            b in hostile_id(),
            mask in proptest::prelude::any::<u64>(),
            repeat in 1usize..12,
        ) {
            let digest = content_digest(b"same content");
            for (x, y) in [
                (a.clone(), b.clone()),
                (a.clone(), flip_case(&a, mask)),
                (a.repeat(repeat), format!("{}{b}", a.repeat(repeat))),
            ] {
                let (nx, ny) = (safe_name(&x), safe_name(&y));
                for (id, name) in [(&x, &nx), (&y, &ny)] {
                    proptest::prop_assert!(name.len() <= MAX_SAFE_NAME, "{id:?}: {name:?}");
                    if let Err(why) = valid_everywhere(name, false) {
                        proptest::prop_assert!(false, "{id:?}: {why}");
                    }
                    if !id.is_empty() {
                        let file = spill_file_name(id, &digest);
                        if let Err(why) = valid_everywhere(&file, true) {
                            proptest::prop_assert!(false, "{id:?}: {why}");
                        }
                        proptest::prop_assert_eq!(digest_of_file_name(&file), Some(digest.as_str()));
                    }
                }
                if x != y {
                    proptest::prop_assert!(
                        !nx.eq_ignore_ascii_case(&ny),
                        "{x:?} and {y:?} meet in {nx:?} and {ny:?}"
                    );
                    if !x.is_empty() && !y.is_empty() {
                        let (fx, fy) = (spill_file_name(&x, &digest), spill_file_name(&y, &digest));
                        proptest::prop_assert!(!fx.eq_ignore_ascii_case(&fy), "{fx:?} {fy:?}");
                    }
                }
            }
        }
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
