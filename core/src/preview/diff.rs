//! Diffs: the changes that stand out. A large diff is mostly repetition (a
//! codemod touching 1,500 files the same way, a lock file's version and
//! hash churn), and what a reviewer looks for is the change that is not
//! like the others. When the whole output is a unified diff (`git diff`,
//! `diff -u`, `git log -p`, `git show`, `git format-patch`), the notable
//! lines of its omitted middle are its rare changes instead of failure
//! words (a diff of code that handles errors is not a failed command):
//!
//! ```text
//! [line 1817] commit 9f2c1e7a4b1d4c55a9e02f7d1b6c3e908f1c2e7a
//! [line 1821]     Lower connection pool timeout to 2s
//! [line 1825] diff --git a/crates/db/src/pool.rs b/crates/db/src/pool.rs
//! [line 1827] @@ -40,7 +40,7 @@ pub fn connect(url: &str) -> Pool {
//! [line 1828] -        .acquire_timeout(Duration::from_secs(30))
//! [line 1829] +        .acquire_timeout(Duration::from_secs(2))
//! ```
//!
//! A changed line (`+` or `-` inside a hunk) is rare when at most
//! [`RARE_MAX`] changed lines of the middle share its shape: its text,
//! trimmed, once numbers, hex ids and other random-looking tokens count as
//! equal ([`crate::preview::notable::dedupe_key`]). So `- "version": "1.2.3"` and a
//! lock file's `"integrity": "sha512-..."` lines are common, and the one
//! edited constant is rare. Each hunk with rare lines is one candidate,
//! shown with the lines that say where it is: its commit and the commit's
//! subject (in a log), its file's `diff --git` (or `+++`) line, the header
//! of its hunk (`@@ -40,7 +40,7 @@ fn connect`), and up to
//! [`RARE_PER_HUNK`] rare lines of the hunk. They are ranked below a host's
//! own patterns, and taken in file order. Changes to lock files
//! (`package-lock.json`, `Cargo.lock`, `go.sum`, ...) are never rare: their
//! hashes and versions are churn a package manager wrote.
//!
//! Counting uses a count-min sketch of fixed size, which can only
//! over-count: a line it calls rare is rare, memory is bounded whatever the
//! diff's size, and the work is two passes over the middle.

use memchr::memchr;

use crate::preview::notable::{Candidate, dedupe_key};

/// Most changed lines of the same shape for a change to count as rare: a
/// `-`/`+` pair that edits one line has two.
pub const RARE_MAX: u8 = 2;

/// Rare lines of one hunk shown, at most.
pub const RARE_PER_HUNK: usize = 8;

/// Confidence of a rare change: above a weak failure word, below a host's
/// pattern.
const SCORE: u8 = 2;

/// Rows and columns of the count-min sketch (4 x 16 Ki one-byte counters).
const ROWS: usize = 4;
const COLUMNS: usize = 1 << 14;

/// True when `text` is a unified diff as a whole: its first non-blank line
/// starts a diff (`diff `, `--- `, `Index: `), a `git log` or `git show`
/// entry (`commit <hex>`), or a format-patch mail (`From <hex> `).
pub fn is_diff(text: &str) -> bool {
    let first = text
        .lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let hex_after = |prefix: &str| {
        first.strip_prefix(prefix).is_some_and(|rest| {
            let id: &str = rest.split(' ').next().unwrap_or("");
            id.len() >= 7 && id.bytes().all(|c| c.is_ascii_hexdigit())
        })
    };
    first.starts_with("diff --git ")
        || first.starts_with("diff -")
        || first.starts_with("Index: ")
        || (first.starts_with("--- ") && text.contains("\n+++ "))
        || hex_after("commit ")
        || hex_after("From ")
}

/// The hunks of `text[lo..hi]` (`lo` starts a line, `hi` ends one) with
/// rare changes, as notable candidates in file order, at most `keep`.
pub fn rare_changes(text: &str, lo: usize, hi: usize, keep: usize) -> Vec<Candidate> {
    let b = text.as_bytes();
    let mut sketch = Sketch::new();
    for line in Walk::new(b, lo, hi) {
        if let Some(key) = line.change_key(b) {
            sketch.add(key);
        }
    }
    let mut out = Vec::new();
    let mut hunk: Option<Hunk> = None;
    let mut place = Place::default();
    for line in Walk::new(b, lo, hi) {
        if line.kind != Kind::Change
            && let Some(h) = hunk.take()
        {
            out.extend(h.finish(&place));
        }
        if out.len() >= keep {
            break;
        }
        match line.kind {
            Kind::Commit => {
                place = Place {
                    commit: Some(line.span),
                    ..Place::default()
                }
            }
            Kind::Subject => place.subject = Some(line.span),
            Kind::HunkHeader => place.hunk = Some(line.span),
            Kind::File => {
                place.hunk = None;
                place.file = Some(line.span);
                place.named_by_diff_line = true;
                place.generated = names_lock_file(&b[line.span.0..line.span.1]);
            }
            // `diff -u` has no `diff` line: the `+++` line names the file.
            Kind::NewSide if !place.named_by_diff_line => {
                place.file = Some(line.span);
                place.generated = names_lock_file(&b[line.span.0..line.span.1]);
            }
            Kind::NewSide => place.named_by_diff_line = false,
            Kind::Change if place.generated => {}
            Kind::Change => {
                let rare = line
                    .change_key(b)
                    .is_some_and(|key| sketch.count(key) <= RARE_MAX);
                if rare {
                    hunk.get_or_insert_with(Hunk::default).rare.push(line.span);
                }
            }
            Kind::Other => {}
        }
    }
    if let Some(h) = hunk {
        out.extend(h.finish(&place));
    }
    out.truncate(keep);
    out
}

/// Where a hunk is: the lines that say so, `(start, end)`.
#[derive(Debug, Default, Clone, Copy)]
struct Place {
    commit: Option<(usize, usize)>,
    subject: Option<(usize, usize)>,
    file: Option<(usize, usize)>,
    /// `file` is a `diff` line, which the `+++` line after it repeats.
    named_by_diff_line: bool,
    /// `file` is a lock file, written by a tool: its changes are churn.
    generated: bool,
    /// The header of the hunk the changes are in (`@@ -a,b +c,d @@`).
    hunk: Option<(usize, usize)>,
}

/// Lock files: package managers rewrite them, and their hashes and versions
/// change on every update.
const LOCK_FILES: [&str; 10] = [
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "Cargo.lock",
    "poetry.lock",
    "Pipfile.lock",
    "composer.lock",
    "Gemfile.lock",
    "go.sum",
];

/// True when the file header `line` (`diff --git a/x b/x`, `+++ b/x\tdate`,
/// `Index: x`) names a lock file.
fn names_lock_file(line: &[u8]) -> bool {
    let line = std::str::from_utf8(line).unwrap_or("");
    // The path is the last word, or the one before a `diff -u` date.
    let path = line
        .split('\t')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .last()
        .unwrap_or("");
    let name = path.rsplit('/').next().unwrap_or(path);
    LOCK_FILES.contains(&name)
}

/// The rare lines of one run of changed lines.
#[derive(Debug, Default)]
struct Hunk {
    rare: Vec<(usize, usize)>,
}

impl Hunk {
    fn finish(self, place: &Place) -> Option<Candidate> {
        let (&first, more) = self.rare.split_first()?;
        let mut context: Vec<(usize, usize)> =
            [place.commit, place.subject, place.file, place.hunk]
                .into_iter()
                .flatten()
                .chain(more.iter().take(RARE_PER_HUNK - 1).copied())
                .collect();
        context.sort_unstable();
        context.dedup();
        Some(Candidate {
            start: first.0,
            end: first.1,
            score: SCORE,
            similar: 0,
            context,
            kind: crate::preview::notable::Kind::Plain,
        })
    }
}

/// What a line of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `commit <hex>` or `From <hex> `: a new entry of a log.
    Commit,
    /// The first line of a commit message.
    Subject,
    /// `diff ...` or `Index: `: a new file.
    File,
    /// `+++ ` outside a hunk: the file's new side.
    NewSide,
    /// `@@ -a,b +c,d @@ fn ...`: a hunk starts.
    HunkHeader,
    /// `+` or `-` inside a hunk.
    Change,
    /// Anything else.
    Other,
}

/// One line of the walk.
#[derive(Debug, Clone, Copy)]
struct Line {
    span: (usize, usize),
    kind: Kind,
}

impl Line {
    /// The sketch key of a changed line: its text after the `+`/`-`,
    /// trimmed, by shape.
    fn change_key(&self, b: &[u8]) -> Option<u64> {
        if self.kind != Kind::Change {
            return None;
        }
        let body = b[self.span.0 + 1..self.span.1].trim_ascii();
        // A blank line or a lone brace is never the change that matters.
        if body.len() < 3 {
            return None;
        }
        Some(dedupe_key(body))
    }
}

/// The lines of `b[lo..hi]`, classified with the state a diff needs: inside
/// a hunk or not, and whether a commit message is starting.
struct Walk<'a> {
    b: &'a [u8],
    pos: usize,
    hi: usize,
    in_hunk: bool,
    /// After a `commit` line, before its message's first line.
    want_subject: bool,
}

impl<'a> Walk<'a> {
    fn new(b: &'a [u8], lo: usize, hi: usize) -> Walk<'a> {
        Walk {
            b,
            pos: lo,
            hi,
            in_hunk: false,
            want_subject: false,
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.pos >= self.hi {
            return None;
        }
        let start = self.pos;
        let end = memchr(b'\n', &self.b[start..self.hi]).map_or(self.hi, |i| start + i + 1);
        self.pos = end;
        let line = &self.b[start..end];
        let content = line.strip_suffix(b"\n").unwrap_or(line);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        let kind = if content.starts_with(b"commit ") || content.starts_with(b"From ") {
            self.in_hunk = false;
            self.want_subject = content.starts_with(b"commit ");
            Kind::Commit
        } else if content.starts_with(b"diff ") || content.starts_with(b"Index: ") {
            self.in_hunk = false;
            Kind::File
        } else if content.starts_with(b"@@") {
            self.in_hunk = true;
            Kind::HunkHeader
        } else if self.in_hunk && matches!(content.first(), Some(b'+' | b'-')) {
            Kind::Change
        } else if self.in_hunk && matches!(content.first(), Some(b' ' | b'\\') | None) {
            Kind::Other
        } else if !self.in_hunk && content.starts_with(b"+++ ") {
            Kind::NewSide
        } else if self.want_subject && content.starts_with(b"    ") {
            self.want_subject = false;
            Kind::Subject
        } else {
            // A line no hunk has (a log's `Author:`, `Date:`, blank lines
            // between entries) ends the hunk.
            self.in_hunk = false;
            Kind::Other
        };
        Some(Line {
            span: (start, end),
            kind,
        })
    }
}

/// A count-min sketch of saturating one-byte counters: counts are never
/// under the truth.
struct Sketch {
    rows: Vec<u8>,
}

impl Sketch {
    fn new() -> Sketch {
        Sketch {
            rows: vec![0; ROWS * COLUMNS],
        }
    }

    /// The counter of `key` in each row: 14 bits of the key per row.
    fn cells(key: u64) -> [usize; ROWS] {
        std::array::from_fn(|row| row * COLUMNS + ((key >> (row * 14)) as usize & (COLUMNS - 1)))
    }

    fn add(&mut self, key: u64) {
        for cell in Self::cells(key) {
            self.rows[cell] = self.rows[cell].saturating_add(1);
        }
    }

    fn count(&self, key: u64) -> u8 {
        Self::cells(key)
            .into_iter()
            .map(|cell| self.rows[cell])
            .min()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A codemod over `files` files (the same import edited in each), with
    /// one file that also changes a constant.
    fn codemod(files: usize, odd_one: usize) -> String {
        let mut out = String::new();
        for i in 0..files {
            out.push_str(&format!(
                "diff --git a/src/mod{i}.ts b/src/mod{i}.ts\nindex 1a2b3c{i:x}..4d5e6f{i:x} 100644\n\
                 --- a/src/mod{i}.ts\n+++ b/src/mod{i}.ts\n@@ -1,6 +1,6 @@\n import {{ z }} from \"zod\";\n\
                 -import {{ http }} from \"../../lib/http\";\n+import {{ http }} from \"@acme/net\";\n \n"
            ));
            if i == odd_one {
                out.push_str(
                    "@@ -20,4 +20,4 @@ export const limits = {\n const TIMEOUT_MS = 15_000;\n\
                     -const MAX_REFUND_RETRIES = 5;\n+const MAX_REFUND_RETRIES = 0;\n \n",
                );
            }
        }
        out
    }

    fn shown(text: &str, c: &Candidate) -> Vec<String> {
        let mut spans = vec![(c.start, c.end)];
        spans.extend(&c.context);
        crate::order::sort_by(&mut spans, Ord::cmp);
        spans
            .iter()
            .map(|&(a, e)| text[a..e].trim_end().to_owned())
            .collect()
    }

    #[test]
    fn recognises_diffs_and_logs_only() {
        assert!(is_diff("diff --git a/x b/x\nindex 1..2\n"));
        assert!(is_diff(
            "\ncommit 9f2c1e7a4b1d4c55a9e02f7d1b6c3e908f1c2e7a\nAuthor: A\n"
        ));
        assert!(is_diff("commit 9f2c1e7 (HEAD -> main)\n"));
        assert!(is_diff(
            "From 9f2c1e7a4b1d4c55a9e02f7d1b6c3e908f1c2e7a Mon Sep 17 00:00:00 2001\n"
        ));
        assert!(is_diff(
            "--- a.txt\t2024-01-01\n+++ b.txt\t2024-01-02\n@@ -1 +1 @@\n"
        ));
        assert!(is_diff("Index: src/a.c\n===\n"));
        assert!(!is_diff("commit the changes before release\n"));
        assert!(!is_diff("--- FAIL: TestX (0.01s)\n"));
        assert!(!is_diff("   Compiling x v0.1.0\ndiff --git a/x b/x\n"));
        assert!(!is_diff(""));
    }

    #[test]
    fn the_change_unlike_the_others_stands_out() {
        let text = codemod(400, 257);
        let found = rare_changes(&text, 0, text.len(), 10);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            shown(&text, &found[0]),
            [
                "diff --git a/src/mod257.ts b/src/mod257.ts",
                "@@ -20,4 +20,4 @@ export const limits = {",
                "-const MAX_REFUND_RETRIES = 5;",
                "+const MAX_REFUND_RETRIES = 0;",
            ]
        );
    }

    #[test]
    fn a_log_brings_the_commit_and_its_subject() {
        let mut text = String::new();
        for i in 0..50 {
            let sha = format!("{:040x}", 0xabc0_u64 + i);
            text.push_str(&format!(
                "commit {sha}\nAuthor: Mo <mo@acme.io>\nDate:   Mon Feb 12 16:21:07 2024 +0100\n\n    \
                 Commit number {i}\n\n    Body text.\n\ndiff --git a/db/q{i}.rs b/db/q{i}.rs\n\
                 --- a/db/q{i}.rs\n+++ b/db/q{i}.rs\n@@ -1,3 +1,4 @@\n fn f() {{\n\
                 -    let c = pool.acquire()?;\n+    let c = pool.acquire().map_err(E::Acquire)?;\n \
                 }}\n"
            ));
            if i == 31 {
                text.push_str(
                    "diff --git a/db/pool.rs b/db/pool.rs\n--- a/db/pool.rs\n+++ b/db/pool.rs\n\
                     @@ -40,3 +40,3 @@\n     .max_connections(8)\n\
                     -    .acquire_timeout(Duration::from_secs(30))\n\
                     +    .acquire_timeout(Duration::from_secs(2))\n",
                );
            }
        }
        let found = rare_changes(&text, 0, text.len(), 10);
        assert_eq!(found.len(), 1, "{found:?}");
        let lines = shown(&text, &found[0]);
        assert_eq!(lines[0], format!("commit {:040x}", 0xabc0_u64 + 31));
        assert_eq!(lines[1], "    Commit number 31");
        assert_eq!(lines[2], "diff --git a/db/pool.rs b/db/pool.rs");
        assert_eq!(lines[3], "@@ -40,3 +40,3 @@");
        assert_eq!(lines[4], "-    .acquire_timeout(Duration::from_secs(30))");
        assert_eq!(lines[5], "+    .acquire_timeout(Duration::from_secs(2))");
    }

    #[test]
    fn lock_file_churn_is_not_rare() {
        let mut text = codemod(5, 3);
        text.push_str(
            "diff --git a/package-lock.json b/package-lock.json\n--- a/package-lock.json\n\
             +++ b/package-lock.json\n@@ -10,3 +10,3 @@\n\
             -      \"integrity\": \"sha512-6l1CMthRUW533FvdZeXpkQeMDO78yqDwNs7U==\",\n\
             +      \"integrity\": \"sha512-KcNnPUITRmMZLE5kZpB0ioi7B0kvt9Bv5rRJ==\",\n\
             diff -u old/go.sum new/go.sum\n--- old/go.sum\t2024-01-01\n+++ new/go.sum\t2024-01-02\n\
             @@ -1 +1 @@\n-golang.org/x/net v0.17.0 h1:pVaXccu2ozPjCXewfr1S=\n\
             +golang.org/x/net v0.19.0 h1:zTwKpTd2XuCqf8huc7Fo=\n",
        );
        let found = rare_changes(&text, 0, text.len(), 10);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(shown(&text, &found[0])[0].contains("mod3.ts"));
        assert!(names_lock_file(b"+++ b/web/yarn.lock"));
        assert!(names_lock_file(b"Index: Cargo.lock"));
        assert!(!names_lock_file(b"diff --git a/src/lock.rs b/src/lock.rs"));
    }

    #[test]
    fn hunk_headers_and_file_headers_are_not_changes() {
        // `--- a/x` and `+++ b/x` sit outside hunks; a removed SQL comment
        // (`--- note`) inside a hunk is a change.
        let text = "diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n\
                    --- note about the index\n SELECT 1;\n";
        let found = rare_changes(text, 0, text.len(), 10);
        assert_eq!(found.len(), 1);
        assert_eq!(
            shown(text, &found[0]),
            [
                "diff --git a/q.sql b/q.sql",
                "@@ -1,2 +1,1 @@",
                "--- note about the index"
            ]
        );
    }

    #[test]
    fn rarity_counts_every_changed_line_of_the_middle() {
        // Three files make the same edit: nothing stands out.
        let text = codemod(3, usize::MAX);
        assert!(rare_changes(&text, 0, text.len(), 10).is_empty());
        // Alone, one file's edit is rare.
        let text = codemod(1, usize::MAX);
        assert_eq!(rare_changes(&text, 0, text.len(), 10).len(), 1);
    }

    #[test]
    fn keep_bounds_the_candidates() {
        let mut text = String::new();
        for i in 0..100 {
            text.push_str(&format!(
                "diff --git a/f{i} b/f{i}\n--- a/f{i}\n+++ b/f{i}\n@@ -1 +1 @@\n-old_name_{}\n+new_name_{}\n",
                char::from(b'a' + (i % 26) as u8).to_string().repeat(i / 26 + 1),
                char::from(b'a' + (i % 26) as u8).to_string().repeat(i / 26 + 1),
            ));
        }
        assert_eq!(rare_changes(&text, 0, text.len(), 7).len(), 7);
    }

    #[test]
    fn the_sketch_never_undercounts() {
        let mut sketch = Sketch::new();
        for key in 0..200_000u64 {
            sketch.add(key.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        for key in (0..200_000u64).step_by(997) {
            assert!(sketch.count(key.wrapping_mul(0x9E37_79B9_7F4A_7C15)) >= 1);
        }
    }
}
