//! Overflow references: the one definition of their text form, shared by the
//! writer (notices, placeholders) and the parser (`find_refs`).
//!
//! Token: `full content at <path>] (ref bytes=<n> lines=<n> blake3=<16 hex> tag=<16 hex>)`
//! where `<path>` is `<display root>/<thread>/<file>`. A notice ends with
//! `[full output saved; <token>`, a placeholder is `[tool output pruned; <token>`.
//! The tag is HMAC-SHA-256 under the session key over the relative path, size,
//! line count and digest, cut to 8 bytes. Only canonical renders are accepted.

use hmac::{Hmac, Mac};
use memchr::memmem::Finder;
use sha2::Sha256;

use crate::error::CapError;
use crate::naming::{self, DIGEST_HEX, MAX_SAFE_NAME, SPILL_SUFFIX};

type HmacSha256 = Hmac<Sha256>;

/// Shortest key a host may give.
pub const MIN_KEY_BYTES: usize = 16;
/// Hex digits of a tag.
pub const TAG_HEX: usize = 16;
/// Prefix of every placeholder `prune` writes.
pub const PRUNED_PREFIX: &str = "[tool output pruned; ";
/// Prefix of the reference line that ends a notice.
pub const SAVED_PREFIX: &str = "[full output saved; ";
const TOKEN_HEAD: &str = "full content at ";
/// The content digest's field, space included.
const DIGEST_FIELD: &str = " blake3=";
/// Longest spill file name: safe call name, `-`, digest, suffix.
const MAX_FILE_NAME: usize = MAX_SAFE_NAME + 1 + DIGEST_HEX + SPILL_SUFFIX.len();
/// Longest decimal u64.
const MAX_DIGITS: usize = 20;

/// A reference to a spilled file. Mirrors WIT `overflow-ref`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OverflowRef {
    /// Host-visible path: display root, `/`, thread, `/`, file name.
    pub path: String,
    /// Size of the full output in bytes.
    pub bytes: u64,
    /// Lines of the full output.
    pub lines: u64,
    /// Content digest (16 hex digits of BLAKE3).
    pub digest: String,
    /// Verification tag (16 hex digits).
    pub tag: String,
}

/// How one session names, tags and recognises its references.
pub struct RefScheme {
    display_root: String,
    thread: String,
    /// HMAC state with the key already absorbed: each tag clones it instead
    /// of hashing the key's two pad blocks again.
    keyed: HmacSha256,
    anchor: Finder<'static>,
}

impl std::fmt::Debug for RefScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("RefScheme")
            .field("display_root", &self.display_root)
            .field("thread", &self.thread)
            .finish_non_exhaustive()
    }
}

impl RefScheme {
    /// A scheme for one thread. `display_root` must be non-empty and on one
    /// line; a trailing `/` is dropped. `key` must have [`MIN_KEY_BYTES`].
    pub fn new(display_root: &str, thread_id: &str, key: Vec<u8>) -> Result<Self, CapError> {
        if thread_id.is_empty() {
            return Err(CapError::InvalidSettings(
                "thread-id must not be empty".into(),
            ));
        }
        if display_root.is_empty() || display_root.contains(['\n', '\r']) {
            return Err(CapError::InvalidSettings(
                "display-root must be a non-empty path on one line".into(),
            ));
        }
        if key.len() < MIN_KEY_BYTES {
            return Err(CapError::InvalidSettings(format!(
                "key must be empty (random) or at least {MIN_KEY_BYTES} bytes, got {}",
                key.len()
            )));
        }
        let display_root = display_root.trim_end_matches('/').to_owned();
        let thread = naming::safe_name(thread_id);
        let anchor = format!("{TOKEN_HEAD}{display_root}/{thread}/");
        let anchor = Finder::new(anchor.as_bytes()).into_owned();
        // new_from_slice only fails for fixed-size MACs; HMAC takes any key.
        let keyed = HmacSha256::new_from_slice(&key).expect("HMAC accepts any key length");
        Ok(RefScheme {
            display_root,
            thread,
            keyed,
            anchor,
        })
    }

    /// The thread's folder name inside the spill directory.
    pub fn thread_dir(&self) -> &str {
        &self.thread
    }

    /// The display root, without a trailing `/`.
    pub fn display_root(&self) -> &str {
        &self.display_root
    }

    /// Host-visible path of a file in this thread's folder.
    pub fn display_path(&self, file_name: &str) -> String {
        format!("{}/{}/{}", self.display_root, self.thread, file_name)
    }

    /// A genuine reference to `file_name` in this thread's folder.
    pub fn make_ref(&self, file_name: &str, bytes: u64, lines: u64, digest: &str) -> OverflowRef {
        let tag = self.tag(file_name, bytes, lines, digest);
        OverflowRef {
            path: self.display_path(file_name),
            bytes,
            lines,
            digest: digest.into(),
            tag,
        }
    }

    fn mac(&self, file_name: &str, bytes: u64, lines: u64, digest: &str) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        let msg = format!(
            "toolcap-ref-v1\n{}/{file_name}\n{bytes}\n{lines}\n{digest}",
            self.thread
        );
        mac.update(msg.as_bytes());
        mac
    }

    fn tag(&self, file_name: &str, bytes: u64, lines: u64, digest: &str) -> String {
        let out = self
            .mac(file_name, bytes, lines, digest)
            .finalize()
            .into_bytes();
        naming::hex(&out[..TAG_HEX / 2])
    }

    /// True when `r` names a spill file of this thread and its tag verifies.
    pub fn verify(&self, r: &OverflowRef) -> bool {
        let Ok(file_name) = self.resolve(&r.path) else {
            return false;
        };
        // Only the canonical display path, never the `<thread>/<file>` alias.
        if r.path != self.display_path(file_name) {
            return false;
        }
        if naming::digest_of_file_name(file_name) != Some(r.digest.as_str()) {
            return false;
        }
        let Some(tag) = parse_hex(&r.tag) else {
            return false;
        };
        // Constant-time comparison of the tag.
        self.mac(file_name, r.bytes, r.lines, &r.digest)
            .verify_truncated_left(&tag)
            .is_ok()
    }

    /// The file name inside this thread's folder that `path` names: the
    /// display path of a reference, or `<thread>/<file>`. Anything else,
    /// including other threads, `..` and temporary files, is refused.
    pub fn resolve<'p>(&self, path: &'p str) -> Result<&'p str, CapError> {
        let relative = path
            .strip_prefix(self.display_root.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(path);
        let Some((thread, file)) = relative.split_once('/') else {
            return Err(outside(
                path,
                "it is not <thread>/<file> under the spill root",
            ));
        };
        if thread != self.thread {
            return Err(outside(path, "it is not in this session's thread folder"));
        }
        if naming::digest_of_file_name(file).is_none() {
            return Err(outside(path, "it is not the name of a spilled file"));
        }
        Ok(file)
    }

    /// The reference token of `r` (see the module docs).
    pub fn token(r: &OverflowRef) -> String {
        format!(
            "{TOKEN_HEAD}{}] (ref bytes={} lines={}{DIGEST_FIELD}{} tag={})",
            r.path, r.bytes, r.lines, r.digest, r.tag
        )
    }

    /// The placeholder that replaces a pruned body holding `r`.
    pub fn placeholder(&self, r: &OverflowRef) -> Result<String, CapError> {
        if !self.verify(r) {
            return Err(CapError::InvalidArgument(
                "the reference is not genuine for this session (its tag does not verify)".into(),
            ));
        }
        Ok(format!("{PRUNED_PREFIX}{}", Self::token(r)))
    }

    /// Longest token this session can render, for budget checks.
    pub fn max_token_len(&self) -> usize {
        let path = self.display_root.len() + 1 + self.thread.len() + 1 + MAX_FILE_NAME;
        TOKEN_HEAD.len()
            + path
            + "] (ref bytes= lines=".len()
            + DIGEST_FIELD.len()
            + " tag=)".len()
            + 2 * MAX_DIGITS
            + DIGEST_HEX
            + TAG_HEX
    }

    /// Every genuine reference in `text`, in order. Linear in `text`: one
    /// substring search, then a bounded parse at each hit.
    pub fn find_refs(&self, text: &str) -> Vec<OverflowRef> {
        self.find_refs_with_work(text).0
    }

    /// [`find_refs`](Self::find_refs), and the bytes its bounded parse
    /// examined beyond the substring search (each byte looked at after a hit,
    /// and the bytes compared with the canonical render). At most about two
    /// [`max_token_len`](Self::max_token_len) per hit, so tests can check that
    /// scanning stays linear without timing it.
    #[doc(hidden)]
    pub fn find_refs_with_work(&self, text: &str) -> (Vec<OverflowRef>, usize) {
        let mut work = 0;
        let refs = self
            .anchor
            .find_iter(text.as_bytes())
            .filter_map(|at| {
                let mut cur = Cursor {
                    s: text.as_bytes(),
                    i: at + self.anchor.needle().len(),
                    seen: 0,
                };
                let found = self.parse_at(&mut cur, at);
                work += cur.seen;
                found
            })
            .collect();
        (refs, work)
    }

    /// The reference whose anchor starts at `at`, read from `cur` (just past it).
    fn parse_at(&self, cur: &mut Cursor<'_>, at: usize) -> Option<OverflowRef> {
        let file_name = cur.take_while(naming::is_name_byte, MAX_FILE_NAME)?;
        cur.literal("] (ref bytes=")?;
        let bytes = cur.number()?;
        cur.literal(" lines=")?;
        let lines = cur.number()?;
        cur.literal(DIGEST_FIELD)?;
        let digest = cur.hex(DIGEST_HEX)?;
        cur.literal(" tag=")?;
        let tag = cur.hex(TAG_HEX)?;
        cur.literal(")")?;
        let file_name = std::str::from_utf8(file_name).ok()?;
        let r = OverflowRef {
            path: self.display_path(file_name),
            bytes,
            lines,
            digest: std::str::from_utf8(digest).ok()?.to_owned(),
            tag: std::str::from_utf8(tag).ok()?.to_owned(),
        };
        // Only canonical renders count: no leading zeros, no alternate forms.
        let canonical = Self::token(&r);
        (cur.read_since(at) == canonical.as_bytes() && self.verify(&r)).then_some(r)
    }
}

fn outside(path: &str, why: &str) -> CapError {
    let shown: String = path.chars().take(200).collect();
    CapError::OutsideRoot(format!("refused path {shown:?}: {why}"))
}

fn parse_hex(s: &str) -> Option<Vec<u8>> {
    // Exactly the lowercase form `render` writes; `from_str_radix` alone would
    // also take uppercase and a leading `+`.
    let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if s.len() != TAG_HEX || !s.bytes().all(lower_hex) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A forward-only reader over bytes with bounded steps, counting the bytes
/// it looks at.
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
    seen: usize,
}

impl<'a> Cursor<'a> {
    fn take_while(&mut self, ok: impl Fn(u8) -> bool, max: usize) -> Option<&'a [u8]> {
        let rest = &self.s[self.i..];
        let n = rest.iter().take(max + 1).take_while(|&&b| ok(b)).count();
        // The run, and the byte that ended it.
        self.seen += (n + 1).min(max + 1).min(rest.len());
        if n == 0 || n > max {
            return None;
        }
        self.i += n;
        Some(&rest[..n])
    }

    fn literal(&mut self, lit: &str) -> Option<()> {
        let rest = &self.s[self.i..];
        self.seen += lit.len().min(rest.len());
        rest.starts_with(lit.as_bytes())
            .then(|| self.i += lit.len())
    }

    /// The bytes from `at` to here, to be looked at once more.
    fn read_since(&mut self, at: usize) -> &'a [u8] {
        self.seen += self.i - at;
        &self.s[at..self.i]
    }

    fn number(&mut self) -> Option<u64> {
        let digits = self.take_while(|b| b.is_ascii_digit(), MAX_DIGITS)?;
        std::str::from_utf8(digits).ok()?.parse().ok()
    }

    fn hex(&mut self, len: usize) -> Option<&'a [u8]> {
        let h = self.take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b), len)?;
        (h.len() == len).then_some(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheme() -> RefScheme {
        RefScheme::new("/home/me/spill/", "thread-1", vec![7; 32]).unwrap()
    }

    fn sample(s: &RefScheme) -> OverflowRef {
        let d = naming::content_digest(b"full output");
        s.make_ref(&naming::spill_file_name("call_7", &d), 11, 1, &d)
    }

    #[test]
    fn rejects_bad_settings() {
        assert!(RefScheme::new("/r", "", vec![0; 16]).is_err());
        assert!(RefScheme::new("", "t", vec![0; 16]).is_err());
        assert!(RefScheme::new("/r\n", "t", vec![0; 16]).is_err());
        assert!(RefScheme::new("/r", "t", vec![0; 15]).is_err());
    }

    #[test]
    fn token_round_trips() {
        let s = scheme();
        let r = sample(&s);
        assert!(r.path.starts_with("/home/me/spill/thread-1/call_7-"));
        let text = format!("noise {} more {}", s.placeholder(&r).unwrap(), SAVED_PREFIX);
        assert_eq!(s.find_refs(&text), vec![r.clone()]);
        assert!(s.verify(&r));
        assert!(RefScheme::token(&r).len() <= s.max_token_len());
    }

    #[test]
    fn rejects_forgeries() {
        let s = scheme();
        let r = sample(&s);
        let good = RefScheme::token(&r);
        let other_key = RefScheme::new("/home/me/spill", "thread-1", vec![8; 32]).unwrap();
        let other_thread = RefScheme::new("/home/me/spill", "thread-2", vec![7; 32]).unwrap();
        assert!(other_key.find_refs(&good).is_empty());
        assert!(other_thread.find_refs(&good).is_empty());
        let forged = [
            good.replace("bytes=11", "bytes=12"),
            good.replace("bytes=11", "bytes=011"),
            good.replace("lines=1 ", "lines=2 "),
            good.replace(&r.tag, "0000000000000000"),
            good.replace(&r.tag, &r.tag.to_uppercase()),
            good.replace("/thread-1/", "/thread-1/../thread-1/"),
            good.replace("/home/me/spill", "/etc"),
            good[..good.len() - 1].to_owned(),
        ];
        for f in &forged {
            assert!(s.find_refs(f).is_empty(), "accepted {f}");
        }
    }

    #[test]
    fn resolves_only_own_spill_files() {
        let s = scheme();
        let r = sample(&s);
        let file = s.resolve(&r.path).unwrap();
        assert_eq!(s.resolve(&format!("thread-1/{file}")).unwrap(), file);
        for bad in [
            "/etc/passwd".to_owned(),
            format!("thread-2/{file}"),
            format!("thread-1/../thread-2/{file}"),
            format!("thread-1/.tmp-{file}"),
            "thread-1/".to_owned(),
            format!("/home/me/spill/thread-1/sub/{file}"),
        ] {
            assert!(
                matches!(s.resolve(&bad), Err(CapError::OutsideRoot(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn placeholder_refuses_forged_ref() {
        let s = scheme();
        let mut r = sample(&s);
        r.bytes += 1;
        assert!(matches!(
            s.placeholder(&r),
            Err(CapError::InvalidArgument(_))
        ));
    }
}
