//! Overflow references: the one definition of their text form, shared by the
//! writer (notices, placeholders) and the parser (`find_refs`).
//!
//! Token: `full content at <path>] (ref bytes=<n> lines=<n> blake3=<16 hex> tag=<16 hex>)`
//! where `<path>` is `<display root>/<thread>/<file>`. A notice ends with
//! `[full output saved; <token>`, a placeholder is `[tool output pruned; <token>`.
//! The tag is HMAC-SHA-256 under the session key over the relative path, size,
//! line count and digest, cut to 8 bytes. Only canonical renders are accepted.
//!
//! A tool message stored JSON-encoded holds its references inside a JSON
//! string, where `/` may be written `\/` or `\u002f`. So `find_refs` also
//! reads every span between two unescaped `"` that holds a backslash with its
//! JSON escapes decoded. A backslash outside such a span is not a
//! JSON escape and stays what it is: a byte that no canonical render holds.

use hmac::{Hmac, Mac};
use memchr::memchr;
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
    /// The path relative to the spill directory, `<thread>/<file>`: the
    /// exact path the tag covers. A host joins it onto the directory it granted.
    pub relative_path: String,
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

    /// `<thread>/<file>` of a file in this thread's folder.
    fn relative_of(&self, file_name: &str) -> String {
        format!("{}/{}", self.thread, file_name)
    }

    /// A genuine reference to `file_name` in this thread's folder.
    pub fn make_ref(&self, file_name: &str, bytes: u64, lines: u64, digest: &str) -> OverflowRef {
        let tag = self.tag(file_name, bytes, lines, digest);
        OverflowRef {
            path: self.display_path(file_name),
            relative_path: self.relative_of(file_name),
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
        // Only the canonical display path, never the `<thread>/<file>` alias,
        // and the relative path it implies.
        if r.path != self.display_path(file_name) || r.relative_path != self.relative_of(file_name)
        {
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

    /// The path relative to the spill directory, `<thread>/<file>`, of a
    /// file of this thread named exactly by its display path
    /// `<display root>/<thread>/<file>` (a spill file name). `None` for
    /// anything else: another thread, a relative or guest path, `..`, `//`,
    /// a temporary file. Hosts join the result onto the directory they
    /// granted, so it never leaves it.
    pub fn relative_path(&self, path: &str) -> Option<String> {
        let rest = path
            .strip_prefix(self.display_root.as_str())?
            .strip_prefix('/')?;
        let (thread, file) = rest.split_once('/')?;
        let genuine_name = thread == self.thread && naming::digest_of_file_name(file).is_some();
        genuine_name.then(|| format!("{thread}/{file}"))
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

    /// Every genuine reference in `text`, in order of appearance: written
    /// plainly, or inside a JSON string with JSON escapes (see the module
    /// docs). A reference found both ways at one place counts once. Linear in
    /// `text`: substring searches, one decoding pass over the JSON strings
    /// that hold a backslash, and a bounded parse at each hit.
    pub fn find_refs(&self, text: &str) -> Vec<OverflowRef> {
        self.refs_and_work(text).0
    }

    /// [`find_refs`](Self::find_refs), and the bytes its bounded parse
    /// examined beyond the substring searches and the decoding of JSON
    /// strings (each byte looked at after a hit, and the bytes compared with
    /// the canonical render). At most about two
    /// [`max_token_len`](Self::max_token_len) per hit, in the text or in a
    /// decoded JSON string, so tests can check that scanning stays linear
    /// without timing it. Test support only (feature `test-support`).
    #[cfg(any(test, feature = "test-support"))]
    pub fn find_refs_with_work(&self, text: &str) -> (Vec<OverflowRef>, usize) {
        self.refs_and_work(text)
    }

    fn refs_and_work(&self, text: &str) -> (Vec<OverflowRef>, usize) {
        let mut work = 0;
        let mut found: Vec<(usize, OverflowRef)> = Vec::new();
        let bytes = text.as_bytes();
        self.scan(bytes, &mut work, |at, r| found.push((at, r)));
        if memchr(b'\\', bytes).is_none() {
            return (found.into_iter().map(|(_, r)| r).collect(), work);
        }
        let plain = found.len();
        let mut view = json::View::default();
        json::for_each_string(bytes, |start, end| {
            let inner = &bytes[start..end];
            if memchr(b'\\', inner).is_none() {
                return;
            }
            view.decode(inner);
            let mut walker = json::Walker::new(inner);
            self.scan(view.bytes(), &mut work, |at, r| {
                found.push((start + walker.source_offset(at), r));
            });
        });
        if found.len() > plain {
            // Stable: at one place, the plain find comes first and its
            // decoded twin is dropped.
            crate::order::sort_by_key(&mut found, |&(at, _)| at);
            found.dedup();
        }
        (found.into_iter().map(|(_, r)| r).collect(), work)
    }

    /// Parse at every anchor of `s`, adding the parse's work to `work` and
    /// handing each genuine reference and its offset to `found`.
    fn scan(&self, s: &[u8], work: &mut usize, mut found: impl FnMut(usize, OverflowRef)) {
        for at in self.anchor.find_iter(s) {
            let mut cur = Cursor {
                s,
                i: at + self.anchor.needle().len(),
                seen: 0,
            };
            let r = self.parse_at(&mut cur, at);
            *work += cur.seen;
            if let Some(r) = r {
                found(at, r);
            }
        }
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
            relative_path: self.relative_of(file_name),
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

/// JSON strings inside any text, and their decoded contents.
mod json {
    use memchr::{memchr, memchr2};

    /// Call `f` with the byte range between every two consecutive `"` that
    /// no backslash escapes, left to right. Both the strings of a JSON
    /// document and the gaps between them are such ranges, so a stray `"`
    /// in prose before a JSON document changes nothing.
    pub fn for_each_string(s: &[u8], mut f: impl FnMut(usize, usize)) {
        let mut open = None;
        let mut i = 0;
        while let Some(k) = memchr2(b'"', b'\\', &s[i..]) {
            let at = i + k;
            if s[at] == b'\\' {
                // The escaped byte, whatever it is, ends nothing.
                i = (at + 2).min(s.len());
                continue;
            }
            if let Some(start) = open {
                f(start, at);
            }
            open = Some(at + 1);
            i = at + 1;
        }
    }

    /// One JSON string's contents with its escapes decoded (`\"`, `\\`,
    /// `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX` and surrogate pairs).
    /// A backslash that starts no valid escape (a lone surrogate, `\x`)
    /// stays as it is. Reused from one string to the next, so a text costs
    /// at most its size in memory.
    #[derive(Default)]
    pub struct View {
        bytes: Vec<u8>,
    }

    impl View {
        /// Decode `src`, replacing what the view held.
        pub fn decode(&mut self, src: &[u8]) {
            self.bytes.clear();
            let mut i = 0;
            while i < src.len() {
                let end = memchr(b'\\', &src[i..]).map_or(src.len(), |k| i + k);
                self.bytes.extend_from_slice(&src[i..end]);
                i = end;
                if i == src.len() {
                    break;
                }
                match escape(&src[i..]) {
                    Some((c, len)) => {
                        let mut buf = [0; 4];
                        self.bytes
                            .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        i += len;
                    }
                    None => {
                        self.bytes.push(b'\\');
                        i += 1;
                    }
                }
            }
        }

        /// The decoded bytes: valid UTF-8 when the source was.
        pub fn bytes(&self) -> &[u8] {
            &self.bytes
        }
    }

    /// The way back from offsets in a [`View`] to offsets in its source,
    /// for offsets asked in increasing order: it walks the source forward
    /// once, however many offsets are asked, and holds no table.
    pub struct Walker<'a> {
        src: &'a [u8],
        /// Source offset of the byte at view offset `view`.
        at: usize,
        view: usize,
    }

    impl<'a> Walker<'a> {
        /// A walker at the start of `src`.
        pub fn new(src: &'a [u8]) -> Self {
            Walker {
                src,
                at: 0,
                view: 0,
            }
        }

        /// The source offset of view offset `to` (not less than any offset
        /// asked before): the same byte if it was copied, the start of its
        /// escape if it was decoded.
        pub fn source_offset(&mut self, to: usize) -> usize {
            while self.view < to && self.at < self.src.len() {
                let rest = &self.src[self.at..];
                if rest[0] != b'\\' {
                    let run = memchr(b'\\', rest).unwrap_or(rest.len());
                    let step = run.min(to - self.view);
                    self.at += step;
                    self.view += step;
                    continue;
                }
                let (decoded, len) = escape(rest).map_or((1, 1), |(c, len)| (c.len_utf8(), len));
                if self.view + decoded > to {
                    // `to` lies inside this escape's character.
                    break;
                }
                self.at += len;
                self.view += decoded;
            }
            self.at
        }
    }

    /// The character and length of the escape at the start of `s` (which
    /// starts with a backslash), if it is a valid JSON escape (a lone
    /// surrogate is not).
    fn escape(s: &[u8]) -> Option<(char, usize)> {
        let head = crate::raw_json::escape_head(s.get(1..)?)?;
        let (c, used) = crate::raw_json::strict_escape(head)?;
        Some((c, 1 + used))
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
    fn relative_path_only_for_exact_display_paths_of_own_files() {
        let s = RefScheme::new("/r", "t1", vec![7; 32]).unwrap();
        let d = naming::content_digest(b"full output");
        let r = s.make_ref(&naming::spill_file_name("c1", &d), 11, 1, &d);
        let file = r.path.rsplit('/').next().unwrap();
        assert_eq!(s.relative_path(&r.path), Some(format!("t1/{file}")));
        for bad in [
            "/r//etc/passwd".to_owned(),
            "/r/../secret.txt".to_owned(),
            "/r/t1/../../secret.txt".to_owned(),
            format!("/r//t1/{file}"),
            format!("/r/t1//{file}"),
            format!("/r/t1/../t1/{file}"),
            format!("/r/t2/{file}"),
            format!("t1/{file}"),
            format!("/rr/t1/{file}"),
            format!("/r/t1/.tmp-{file}"),
            format!("/r/t1/{file}/"),
            format!("/r/t1/sub/{file}"),
            "/r/t1/".to_owned(),
            "/r".to_owned(),
        ] {
            assert_eq!(s.relative_path(&bad), None, "{bad}");
        }
    }

    /// `text` as a JSON string, quotes included, the way serde_json writes
    /// it, except that `/` is written `slash` and, when `ascii`, every
    /// character beyond ASCII is `\uXXXX` (surrogate pairs above U+FFFF).
    fn json_string(text: &str, slash: &str, ascii: bool) -> String {
        let mut out = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '/' => out.push_str(slash),
                '\n' => out.push_str("\\n"),
                c if c < ' ' || (ascii && !c.is_ascii()) => {
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn finds_references_inside_json_strings() {
        for root in [
            "/home/me/spill",
            "/srv/\"q\"/sp ill",
            "C:\\Users\\me",
            "/tmp/Жизнь/😀",
        ] {
            let s = RefScheme::new(root, "t1", vec![7; 32]).unwrap();
            let r = sample(&s);
            let notice = format!("log line\n{SAVED_PREFIX}{}", RefScheme::token(&r));
            let placeholder = s.placeholder(&r).unwrap();
            for body in [&notice, &placeholder] {
                for (slash, ascii) in [
                    ("/", false),
                    ("\\/", false),
                    ("\\u002f", true),
                    ("\\u002F", true),
                ] {
                    let encoded = json_string(body, slash, ascii);
                    let message = format!("{{\"role\":\"tool\",\"content\":{encoded}}}");
                    assert_eq!(s.find_refs(&message), vec![r.clone()], "{message}");
                }
            }
        }
    }

    #[test]
    fn json_strings_keep_order_and_count_each_reference_once() {
        let s = scheme();
        let d = |c: &[u8]| naming::content_digest(c);
        let refs: Vec<OverflowRef> = (0..3)
            .map(|i| {
                let digest = d(format!("out {i}").as_bytes());
                s.make_ref(
                    &naming::spill_file_name(&format!("c{i}"), &digest),
                    9,
                    1,
                    &digest,
                )
            })
            .collect();
        let token = |i: usize| RefScheme::token(&refs[i]);
        // A plain one, an escaped one, and a plain one inside a JSON string
        // that holds escapes elsewhere (found by both scans, reported once).
        let text = format!(
            "{} and [{}, \"a\\tb {} \"]",
            token(0),
            json_string(&token(1), "\\/", false),
            token(2)
        );
        assert_eq!(s.find_refs(&text), refs);
    }

    #[test]
    fn escapes_outside_json_strings_and_forged_tags_inside_them_are_rejected() {
        let s = scheme();
        let r = sample(&s);
        let good = RefScheme::token(&r);
        let escaped = good.replace('/', "\\/");
        // No quotes around it: prose, not JSON; and one quote is no string.
        assert!(s.find_refs(&escaped).is_empty());
        assert!(s.find_refs(&format!("\"{escaped}")).is_empty());
        assert!(s.find_refs(&format!("{escaped}\"")).is_empty());
        for forged in [
            good.replace(&r.tag, "0000000000000000"),
            good.replace("bytes=11", "bytes=12"),
            good.replace("bytes=11", "bytes=011"),
            good.replace("/thread-1/", "/thread-1/../thread-1/"),
        ] {
            for slash in ["\\/", "\\u002f"] {
                let text = json_string(&forged, slash, false);
                assert!(s.find_refs(&text).is_empty(), "accepted {text}");
            }
        }
        // Escapes that do not decode to the canonical render.
        for bad in [
            good.replace("/home", "\\x2fhome"),
            good.replace("/home", "\\ud800home"),
            good.replace("/home", "\\u002"),
            good.replace("bytes=11", "bytes=1\\u0031\\u0030"),
        ] {
            let text = format!("\"{bad}\"");
            assert!(s.find_refs(&text).is_empty(), "accepted {text}");
        }
        // An escaped quote does not end the string.
        let text = format!("\"x\\\" {} \"", escaped);
        assert_eq!(s.find_refs(&text), vec![r]);
    }

    #[test]
    fn json_view_maps_offsets_back_to_the_source() {
        let src = br#"a\/b\u00e9c\ud83d\ude00d\x"#;
        let mut view = json::View::default();
        view.decode(src);
        assert_eq!(view.bytes(), "a/béc😀d\\x".as_bytes());
        let mut walker = json::Walker::new(src);
        let mut at = |needle: &str| {
            let i = view
                .bytes()
                .windows(needle.len())
                .position(|w| w == needle.as_bytes());
            walker.source_offset(i.unwrap())
        };
        assert_eq!(
            [
                at("a"),
                at("/"),
                at("b"),
                at("é"),
                at("c"),
                at("😀"),
                at("d"),
                at("\\x"),
                at("x")
            ],
            [0, 1, 3, 4, 10, 11, 23, 24, 25]
        );
        // Inside a decoded character: the start of its escape.
        assert_eq!(json::Walker::new(src).source_offset(4), 4);
        assert_eq!(json::Walker::new(src).source_offset(8), 11);
        assert_eq!(json::Walker::new(src).source_offset(13), src.len());
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

        /// Against an encoder that notes where each character's encoding
        /// starts: the view is the text, and the walker finds those starts.
        #[test]
        fn json_view_decodes_and_maps_back_any_encoding(
            text in "[\\PC\\x00-\\x1f]{0,60}",
            styles in proptest::collection::vec(0u8..3, 60),
        ) {
            let unicode = |c: char| {
                let units = c.encode_utf16(&mut [0; 2]).to_vec();
                units.iter().map(|u| format!("\\u{u:04X}")).collect::<String>()
            };
            let mut src = String::new();
            let mut starts = Vec::new();
            for (i, c) in text.chars().enumerate() {
                starts.push((src.len(), c.len_utf8()));
                let escaped = match (c, styles[i % styles.len()]) {
                    ('"', _) => "\\\"".to_owned(),
                    ('\\', _) => "\\\\".to_owned(),
                    ('\n', 0) => "\\n".to_owned(),
                    ('\t', 0) => "\\t".to_owned(),
                    ('/', 1) => "\\/".to_owned(),
                    (c, 2) => unicode(c),
                    (c, _) if c < ' ' => unicode(c),
                    (c, _) => c.to_string(),
                };
                src.push_str(&escaped);
            }
            let mut view = json::View::default();
            view.decode(src.as_bytes());
            proptest::prop_assert_eq!(view.bytes(), text.as_bytes());
            let mut walker = json::Walker::new(src.as_bytes());
            let mut at = 0;
            for (start, len) in starts {
                proptest::prop_assert_eq!(walker.source_offset(at), start);
                at += len;
            }
            proptest::prop_assert_eq!(walker.source_offset(at), src.len());
        }
    }

    #[test]
    fn work_stays_bounded_per_hit_inside_json_strings() {
        let s = scheme();
        let r = sample(&s);
        let good = RefScheme::token(&r);
        // Near-complete tokens, escaped, all in one JSON string.
        let near = good.replace(&r.tag, "000000000000000").replace('/', "\\/");
        let per_hit = 2 * s.max_token_len();
        let work = |n: usize| {
            let text = format!("\"{}\"", near.repeat(n));
            let (refs, work) = s.find_refs_with_work(&text);
            assert!(refs.is_empty());
            assert!(work > 0 && work <= n * per_hit, "{work} for {n} hits");
            work
        };
        assert_eq!(work(1000), 10 * work(100));
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
