//! Notable lines: the lines of the omitted middle that carry a failure, shown
//! between the head and the tail so that an error in the middle of a long
//! log is not lost.
//!
//! # In the preview
//!
//! ```text
//! ...head...
//! [... lines 23..2965 omitted here (bytes 629..90861 of the full output), all but these 3 notable lines ...]
//! [line 1500] error[E0308]: mismatched types
//! [line 1501]   --> src/lib.rs:42:5
//! [line 2210 and 14 more like it] npm ERR! code ELIFECYCLE
//! [... end of the omitted lines 23..2965 ...]
//! ...tail...
//! ```
//!
//! Each notable line is the input's line verbatim after a `[line N] ` prefix
//! (N is its 1-based line number), or `[line N and K more like it] ` when K
//! more lines of the omitted part equal it once digit runs and hex ids are
//! replaced by a placeholder (those K are not shown). A line longer than
//! `max-line-bytes`, or than what is left of the share, is cut on a grapheme
//! boundary and ends with ` [... M bytes cut]`. Lines come in file order.
//! Some lines bring the lines that say where or why (each numbered too):
//! a compiler error its ` --> file:line:col` line and the snippet line that
//! marks the spot (`^^^ expected u64, found Decimal`), a linker's `ld
//! returned 1` the `undefined reference` line above it, a `Traceback` its
//! last `File` line in the application's code, its last `File` line and the
//! exception line that ends it, an exception its first `at` frame, `on
//! main.tf line 42` or `Detail:` line, a Rust panic its message (and an
//! assertion's `left:`/`right:`), a pytest `file.py:N: Error` location the
//! `E` line above it, a Go `--- FAIL` the nearest `file.go:N:` line, an
//! ESLint error the file it is in, a Jest `●` failure its first frame
//! outside `node_modules`, and any line a `Detail:` or `symbol:` line right
//! after it. A notable line right next to the head or tail joins it as a
//! plain line.
//!
//! # Finding them
//!
//! A few `memchr` searches run over the omitted middle only ([`Patterns`]):
//! one substring each for the words failures are written with, and one
//! three-byte search for rarer signs. Each hit's line is then classified
//! ([`classify`]) into a confidence from 1 (weak: a lone "error" in prose) to
//! 4 (definitive: a compiler error, a panic, a failed test, a Kubernetes
//! crash reason); the host's own patterns (literal substrings) rank above
//! all at 5. Look-alikes score 0 and are dropped: counts of zero (`0
//! errors`, `failed: 0`, `errors: []`, `error: null`), identifiers and flags
//! (`error_count`, `ERROR_CODES`, `-Werror`, `--fail-fast`, `on_error`),
//! paths (`src/error.rs`), and, below 4, lines that also say a test passed
//! (`test error_path ... ok`, `✓ handles errors`) or are warnings. The
//! preview takes the best ranked (confidence, then file order) that fit its
//! share of the budget. Work is linear in the middle, and memory bounded by
//! the budget: only as many distinct candidates are kept as could be shown.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use memchr::memmem::Finder;
use memchr::{memchr, memchr3_iter, memrchr};

use crate::cut::{Item, line_cut_marker, max_marker_len};
use crate::text::{count_lfs, digits, floor_grapheme};

/// Substrings that start the search for failure lines. Each is one pass of
/// `memchr::memmem` over the middle; [`RARE`] bytes are one more.
const ANCHORS: [&str; 10] = [
    "rror",        // error, Error, TypeError, make's `Error 2`, `error TS2322`
    "ERR",         // ERROR, npm ERR!, docker `ERROR [`
    "FA",          // FAIL, FAILED, FAILURE, FATAL
    "ail",         // failed, Failed, failure, FailedScheduling
    "anic",        // panic, panicked
    "atal",        // fatal:, Fatal error
    "Traceback",   // Python
    "BackOff",     // CrashLoopBackOff, ImagePullBackOff, BackOff
    "egmentation", // Segmentation fault
    "\" 5",        // HTTP 5xx in access logs
];

/// Bytes searched together (`memchr3`), each checked where it occurs: `x`
/// of exception and exit, `K` of Killed and OOMKilled, and the lead byte of
/// the cross marks of test runners (✕ ✖ ✗ ✘) and of Jest's `●`.
const RARE: [u8; 3] = [b'x', b'K', 0xE2];

/// Lines longer than this are not taken as notable (minified code, data):
/// no failure line is that long, and it bounds the work per hit.
const MAX_LINE: usize = 64 * 1024;

/// Only this much of a line is classified.
const CLASSIFY_BYTES: usize = 4096;

/// The middle is searched in pieces of about this size, cut at line ends,
/// so that hits come in file order and stay in cache.
const CHUNK: usize = 256 * 1024;

/// Confidence of a host pattern.
const HOST_SCORE: u8 = 5;

/// The share of the preview's budget (bytes and lines) notable lines may
/// take, in percent.
pub const SHARE_PERCENT: usize = 25;

/// Shortest part of a notable line worth showing when it must be cut.
const MIN_SHOWN: usize = 24;

/// The searches for one session: built-in anchors and the host's patterns.
#[derive(Debug, Clone)]
pub struct Patterns {
    anchors: Vec<Finder<'static>>,
    host: Vec<Finder<'static>>,
}

impl Patterns {
    /// The built-in searches and the host's literal `patterns`.
    pub fn new(patterns: &[String]) -> Patterns {
        Patterns {
            anchors: ANCHORS
                .iter()
                .map(|a| Finder::new(a.as_bytes()).into_owned())
                .collect(),
            host: patterns
                .iter()
                .map(|p| Finder::new(p.as_bytes()).into_owned())
                .collect(),
        }
    }
}

/// What else a notable line brings along.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing, or a `Detail:`/`symbol:` line right after it.
    Plain,
    /// A compiler error: the ` --> file:line:col` line after it and the
    /// snippet line that marks the spot (`^^^ expected u64`), or the
    /// `undefined reference` line before a linker's error.
    Compiler,
    /// A Rust panic whose message is on the next line (and an assertion's
    /// `left:`/`right:` lines).
    Panic,
    /// An exception: its first `at` frame, `on file line N` or `Detail:`
    /// line.
    Exception,
    /// A Python traceback: its last `File` line and its exception line.
    Traceback,
    /// A Go `--- FAIL`: the nearest `file.go:N:` line around it.
    GoFail,
    /// A pytest location `file.py:N: Error`: the `E` line above it.
    PytestLocation,
    /// An ESLint error `12:5  error  ...`: the file it is in, above it.
    Eslint,
    /// A Jest failure `● Suite › test`: its first frame outside
    /// `node_modules`.
    Jest,
}

/// A notable line of the middle, with the lines shown with it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Start of the line.
    pub start: usize,
    /// End of the line, after its LF (or the end of the text).
    pub end: usize,
    /// Confidence, 1 to 5.
    pub score: u8,
    /// More lines of the middle like this one (not shown).
    pub similar: u64,
    /// Other lines shown with it, `(start, end)`, in file order.
    pub context: Vec<(usize, usize)>,
}

/// Find the notable lines of `text[from..to]`; `from` starts a line and
/// `to` ends one (or is the end of the text). At most about `keep` distinct
/// candidates of each confidence are kept, the earliest.
pub fn scan(
    text: &str,
    from: usize,
    to: usize,
    patterns: &Patterns,
    keep: usize,
) -> Vec<Candidate> {
    let b = text.as_bytes();
    let mut found = Found {
        kept: Vec::new(),
        by_key: HashMap::new(),
        at_least: [0; 6],
        keep: keep.max(1),
    };
    let mut hits: Vec<(usize, bool)> = Vec::new();
    let mut pos = from;
    while pos < to {
        let target = pos + CHUNK;
        let end = if target >= to {
            to
        } else {
            memchr(b'\n', &b[target..to]).map_or(to, |i| target + i + 1)
        };
        hits.clear();
        for finder in &patterns.anchors {
            lines_with(finder, b, pos, end, false, &mut hits);
        }
        rare_lines(b, pos, end, &mut hits);
        for finder in &patterns.host {
            lines_with(finder, b, pos, end, true, &mut hits);
        }
        // One entry per line, host patterns first.
        hits.sort_unstable_by_key(|&(start, host)| (start, !host));
        hits.dedup_by_key(|h| h.0);
        for &(start, host) in &hits {
            let line_end = memchr(b'\n', &b[start..end]).map_or(end, |i| start + i + 1);
            found.consider(text, start, line_end, host, from, to);
        }
        pos = end;
    }
    found.kept
}

/// The lines of `b[lo..hi]` (which starts a line) where `finder` matches.
fn lines_with(
    finder: &Finder<'_>,
    b: &[u8],
    lo: usize,
    hi: usize,
    host: bool,
    out: &mut Vec<(usize, bool)>,
) {
    let mut p = lo;
    while p < hi {
        let Some(i) = finder.find(&b[p..hi]) else {
            break;
        };
        let hit = p + i;
        if let Some(start) = line_start(b, lo, hit) {
            out.push((start, host));
        }
        p = memchr(b'\n', &b[hit..hi]).map_or(hi, |i| hit + i + 1);
    }
}

/// The lines of `b[lo..hi]` with a rare sign: `exception`, `exit`, `Killed`,
/// or a cross mark.
fn rare_lines(b: &[u8], lo: usize, hi: usize, out: &mut Vec<(usize, bool)>) {
    let hay = &b[lo..hi];
    let mut skip_to = 0;
    for i in memchr3_iter(RARE[0], RARE[1], RARE[2], hay) {
        if i < skip_to {
            continue;
        }
        let rest = &hay[i..];
        let sign = match rest[0] {
            b'x' => {
                i > 0
                    && matches!(hay[i - 1], b'e' | b'E')
                    && (rest[1..].starts_with(b"ception") || rest[1..].starts_with(b"it"))
            }
            b'K' => rest.starts_with(b"Killed"),
            _ => {
                rest.len() >= 3
                    && ((rest[1] == 0x9C && matches!(rest[2], 0x95..=0x98))
                        || (rest[1] == 0x97 && rest[2] == 0x8F))
            }
        };
        if sign {
            let hit = lo + i;
            if let Some(start) = line_start(b, lo, hit) {
                out.push((start, false));
            }
            skip_to = memchr(b'\n', rest).map_or(hay.len(), |j| i + j + 1);
        }
    }
}

/// The start of the line holding `hit` (not before `lo`), or `None` when the
/// line is longer than [`MAX_LINE`].
fn line_start(b: &[u8], lo: usize, hit: usize) -> Option<usize> {
    let floor = hit.saturating_sub(MAX_LINE).max(lo);
    match memrchr(b'\n', &b[floor..hit]) {
        Some(i) => Some(floor + i + 1),
        None if floor == lo => Some(lo),
        None => None,
    }
}

/// The candidates kept so far.
struct Found {
    kept: Vec<Candidate>,
    /// Dedupe key of each kept line: its index in `kept`.
    by_key: HashMap<u64, usize>,
    /// `at_least[s]`: kept candidates of confidence `s` or more.
    at_least: [usize; 6],
    keep: usize,
}

impl Found {
    fn consider(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        host: bool,
        from: usize,
        to: usize,
    ) {
        let b = text.as_bytes();
        let content_end = if end > start && b[end - 1] == b'\n' {
            end - 1
        } else {
            end
        };
        if content_end - start > MAX_LINE {
            return;
        }
        let line = &text[start..content_end];
        let classified = classify(line);
        let (score, kind) = match (host, classified) {
            (true, Some((_, kind))) => (HOST_SCORE, kind),
            (true, None) => (HOST_SCORE, Kind::Plain),
            (false, Some(found)) => found,
            (false, None) => return,
        };
        let key = dedupe_key(line.as_bytes());
        if let Some(&i) = self.by_key.get(&key) {
            self.kept[i].similar += 1;
            return;
        }
        // Earlier lines of this confidence or more fill every place already.
        if self.at_least[usize::from(score)] >= self.keep {
            return;
        }
        let context = context_lines(b, start, end, kind, from, to);
        self.by_key.insert(key, self.kept.len());
        self.kept.push(Candidate {
            start,
            end,
            score,
            similar: 0,
            context,
        });
        for s in 0..=usize::from(score) {
            self.at_least[s] += 1;
        }
        if self.kept.len() > 4 * self.keep {
            self.compact(text);
        }
    }

    /// Keep only the best `keep` candidates.
    fn compact(&mut self, text: &str) {
        self.kept
            .sort_by_key(|c| (std::cmp::Reverse(c.score), c.start));
        self.kept.truncate(self.keep);
        self.kept.sort_by_key(|c| c.start);
        self.by_key.clear();
        self.at_least = [0; 6];
        for (i, c) in self.kept.iter().enumerate() {
            let b = text.as_bytes();
            let content_end = if b[c.end - 1] == b'\n' {
                c.end - 1
            } else {
                c.end
            };
            self.by_key.insert(dedupe_key(&b[c.start..content_end]), i);
            for s in 0..=usize::from(c.score) {
                self.at_least[s] += 1;
            }
        }
    }
}

/// The key under which near-identical lines count as one: the line with
/// every run of ASCII digits, and every hex id (a run of hex digits and
/// letters holding a digit, at least 6 long, or after `0x`), replaced by one
/// placeholder.
pub fn dedupe_key(line: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        if c.is_ascii_alphanumeric() {
            let start = i;
            while i < line.len() && line[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let word = &line[start..i];
            let hex_prefixed = word.len() > 2
                && (word.starts_with(b"0x") || word.starts_with(b"0X"))
                && word[2..].iter().all(u8::is_ascii_hexdigit);
            let hex_id = word.len() >= 6
                && word.iter().all(u8::is_ascii_hexdigit)
                && word.iter().any(u8::is_ascii_digit);
            if hex_prefixed || hex_id {
                0u8.hash(&mut h);
                continue;
            }
            let mut j = 0;
            while j < word.len() {
                if word[j].is_ascii_digit() {
                    while j < word.len() && word[j].is_ascii_digit() {
                        j += 1;
                    }
                    0u8.hash(&mut h);
                } else {
                    word[j].hash(&mut h);
                    j += 1;
                }
            }
        } else {
            c.hash(&mut h);
            i += 1;
        }
    }
    h.finish()
}

/// The lines shown with a notable line of `kind` at `start..end`, inside
/// `from..to`, in file order.
fn context_lines(
    b: &[u8],
    start: usize,
    end: usize,
    kind: Kind,
    from: usize,
    to: usize,
) -> Vec<(usize, usize)> {
    let lines = Lines { b, from, to };
    let has =
        |line: (usize, usize), s: &[u8]| memchr::memmem::find(&b[line.0..line.1], s).is_some();
    // What follows the line's own prefix (a timestamp, a `│ `), trimmed.
    let text = |line: (usize, usize)| -> &[u8] {
        let t = b[line.0..line.1].trim_ascii();
        match memchr::memmem::find(t, "│".as_bytes()) {
            Some(i) => t[i + "│".len()..].trim_ascii(),
            None => t,
        }
    };
    let detail = |line: (usize, usize)| {
        let t = text(line);
        ["Detail:", "DETAIL:", "symbol:", "Hint:"]
            .iter()
            .any(|d| t.starts_with(d.as_bytes()))
    };
    let mut out = Vec::new();
    match kind {
        Kind::Plain => out.extend(lines.after(end, 1).filter(|&l| detail(l))),
        Kind::Compiler => {
            let after: Vec<_> = lines.after(end, 6).collect();
            if let Some(i) = after.iter().position(|&l| text(l).starts_with(b"--> ")) {
                out.push(after[i]);
                // The snippet line that points at the spot, with its label.
                out.extend(
                    after[i + 1..]
                        .iter()
                        .take_while(|&&l| {
                            text(l)
                                .first()
                                .is_some_and(|c| c.is_ascii_digit() || *c == b'|')
                        })
                        .find(|&&l| has(l, b"^"))
                        .copied(),
                );
            } else if has((start, end), b"ld returned") {
                out.extend(
                    lines.before(start, 5).find(|&l| {
                        has(l, b"undefined reference") || has(l, b"multiple definition")
                    }),
                );
            }
        }
        Kind::Panic => {
            let after: Vec<_> = lines.after(end, 3).collect();
            if let Some(&message) = after.first() {
                out.push(message);
                if has(message, b"assertion") {
                    out.extend(
                        after[1..]
                            .iter()
                            .filter(|&&l| has(l, b"left:") || has(l, b"right:")),
                    );
                }
            }
        }
        Kind::Exception => out.extend(lines.after(end, 4).find(|&l| {
            let t = text(l);
            t.starts_with(b"at ") || (t.starts_with(b"on ") && has(l, b" line ")) || detail(l)
        })),
        Kind::GoFail => {
            let go = |l: (usize, usize)| has(l, b".go:") && !has(l, b"--- ");
            out.extend(lines.before(start, 3).find(|&l| go(l)));
            out.extend(lines.after(end, 3).find(|&l| go(l)));
        }
        Kind::Traceback => {
            // Frames are indented after whatever prefixes the header line.
            let prefix = memchr::memmem::find(&b[start..end], b"Traceback").unwrap_or(0);
            let indented = |(a, e): (usize, usize)| {
                let rest = &b[(a + prefix).min(e)..e];
                matches!(rest.first(), Some(b' ' | b'\t'))
            };
            // The last frame, and the last one in the application's own
            // code (not an installed package), where the fix usually is.
            let (mut last_file, mut last_own) = (None, None);
            for line in lines.after(end, 400) {
                if line.1 - start > MAX_LINE {
                    break;
                }
                if indented(line) {
                    if has(line, b"File \"") {
                        last_file = Some(line);
                        if !has(line, b"site-packages") && !has(line, b"/lib/python") {
                            last_own = Some(line);
                        }
                    }
                    continue;
                }
                out.extend(last_own);
                out.extend(last_file);
                out.push(line);
                break;
            }
        }
        Kind::PytestLocation => {
            // The first `E` line of the block above (a blank line may sit
            // between them).
            let mut first_e = None;
            for line in lines.before(start, 8) {
                if b[line.0..line.1].starts_with(b"E ") {
                    first_e = Some(line);
                } else if first_e.is_some() || !text(line).is_empty() {
                    break;
                }
            }
            out.extend(first_e);
        }
        Kind::Eslint => out.extend(
            lines
                .before(start, 200)
                .find(|&l| l.0 < l.1 && !matches!(b[l.0], b' ' | b'\t' | b'\n' | b'\r')),
        ),
        Kind::Jest => out.extend(
            lines
                .after(end, 30)
                .find(|&l| text(l).starts_with(b"at ") && !has(l, b"node_modules")),
        ),
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Lines of `b[from..to]` around a line.
#[derive(Clone, Copy)]
struct Lines<'a> {
    b: &'a [u8],
    from: usize,
    to: usize,
}

impl<'a> Lines<'a> {
    /// Up to `n` lines from `p` (a line start) on.
    fn after(self, mut p: usize, n: usize) -> impl Iterator<Item = (usize, usize)> + 'a {
        let Lines { b, to, .. } = self;
        (0..n).map_while(move |_| {
            if p >= to {
                return None;
            }
            let e = memchr(b'\n', &b[p..to]).map_or(to, |i| p + i + 1);
            let line = (p, e);
            p = e;
            Some(line)
        })
    }

    /// Up to `n` lines before `p` (a line start), nearest first.
    fn before(self, mut p: usize, n: usize) -> impl Iterator<Item = (usize, usize)> + 'a {
        let Lines { b, from, .. } = self;
        (0..n).map_while(move |_| {
            if p <= from {
                return None;
            }
            let a = memrchr(b'\n', &b[from..p - 1]).map_or(from, |i| from + i + 1);
            let line = (a, p);
            p = a;
            Some(line)
        })
    }
}

/// A word of a line: a run of ASCII letters, digits and `_`.
#[derive(Debug, Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

fn words(line: &str) -> impl Iterator<Item = Word<'_>> {
    let b = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !is_word_byte(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        while i < b.len() && is_word_byte(b[i]) {
            i += 1;
        }
        Some(Word {
            text: &line[start..i],
            start,
            end: i,
        })
    })
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// How sure we are that `line` (without its LF) reports a failure: 1 to 4,
/// and what it brings along; `None` when it does not.
pub fn classify(line: &str) -> Option<(u8, Kind)> {
    let line = &line[..line.floor_char_boundary(CLASSIFY_BYTES)];
    let line = line.strip_suffix('\r').unwrap_or(line);
    let t = line.trim_start();
    // Terraform and friends frame their messages in a box.
    let t = t.strip_prefix("│ ").map_or(t, str::trim_start);
    let mut best: Option<(u8, Kind)> = None;
    let mut take = |score: u8, kind: Kind| {
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, kind));
        }
    };
    // Definitive forms, by where the line starts.
    if t.starts_with("error[E") {
        take(4, Kind::Compiler);
    } else if let Some(rest) = t.strip_prefix("error: ")
        && !is_zero_value(rest)
    {
        let summary = ["could not compile", "aborting due to", "previous error"]
            .iter()
            .any(|s| rest.contains(s));
        take(if summary { 3 } else { 4 }, Kind::Compiler);
    }
    if t.contains("Traceback (most recent call last)") {
        take(4, Kind::Traceback);
    }
    if let Some(rest) = t.strip_prefix("● ")
        && rest.contains(" › ")
    {
        take(4, Kind::Jest);
    }
    if is_eslint_error(t) {
        take(4, Kind::Eslint);
    }
    if t.starts_with("panic: ") || t.starts_with("fatal error: ") || t.starts_with("fatal: ") {
        take(4, Kind::Plain);
    }
    if t.starts_with("Caused by: ") || t.starts_with("Exception in thread ") {
        take(4, Kind::Exception);
    }
    if t.starts_with("--- FAIL") || t.contains(" --- FAIL: ") {
        take(4, Kind::GoFail);
    }
    if t.starts_with("npm ERR!") || t.starts_with("npm error ") {
        take(3, Kind::Plain);
    }
    if t.starts_with("error Command failed") {
        take(4, Kind::Plain);
    }
    if t.starts_with("ERROR [") || t.starts_with("ERROR: failed to") {
        take(4, Kind::Plain);
    }
    if (t.starts_with("make: ***") || t.starts_with("make[")) && t.contains("***") {
        take(4, Kind::Plain);
    }
    if t.contains("panicked at") {
        let kind = if t.ends_with(':') {
            Kind::Panic
        } else {
            Kind::Plain
        };
        take(4, kind);
    }
    if t.contains("Segmentation fault") || t.contains("(core dumped)") {
        take(4, Kind::Plain);
    }
    if t.contains("didn't exit successfully") {
        take(4, Kind::Plain);
    }
    if let Some(mark) = t.chars().find(|c| matches!(c, '✕' | '✖' | '✗' | '✘')) {
        take(if t.starts_with(mark) { 4 } else { 3 }, Kind::Plain);
    }
    if is_pytest_location(t) {
        take(4, Kind::PytestLocation);
    }
    if is_access_log_5xx(line) {
        take(2, Kind::Plain);
    }
    if exit_is_nonzero(t) {
        take(3, Kind::Plain);
    }
    let first = words(t).next().map(|w| w.start);
    for w in words(t) {
        if let Some((score, kind)) = word_signal(t, w, first == Some(w.start)) {
            take(score, kind);
        }
    }
    let (score, kind) = best?;
    // Below definitive, a line that says something passed, or is a warning,
    // is not a failure.
    if score < 4 && (says_passed(t) || is_warning(t)) {
        return None;
    }
    Some((score, kind))
}

/// The confidence a word gives its line.
fn word_signal(t: &str, w: Word<'_>, first: bool) -> Option<(u8, Kind)> {
    let b = t.as_bytes();
    let before = b[..w.start].last().copied();
    let after = b.get(w.end).copied();
    let after2 = b.get(w.end + 1).copied();
    let rest = &t[w.end..];
    // Paths, flags, quoted code and dotted names are not failures.
    let in_code = t[..w.start].ends_with("::")
        || rest.starts_with("::")
        || matches!(
            before,
            Some(b'-' | b'/' | b'`' | b'$' | b'@' | b'#' | b'\\' | b'\'')
        )
        || matches!(after, Some(b'-' | b'/' | b'`' | b'\''))
        || (after == Some(b'.') && after2.is_some_and(is_word_byte));
    match w.text {
        "error" | "Error" | "errors" | "Errors" | "ERROR" | "ERRORS" | "ERR" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            let upper = w.text.starts_with("ERR");
            if upper {
                if w.text == "ERR" && after != Some(b'!') {
                    return Some((2, Kind::Plain));
                }
                return Some((3, Kind::Plain));
            }
            if rest.starts_with(" TS") && rest[3..].starts_with(|c: char| c.is_ascii_digit()) {
                return Some((4, Kind::Compiler));
            }
            if rest.starts_with(':') && t[..w.start].ends_with(": ") {
                return Some((4, Kind::Compiler)); // file.c:3:5: error: ...
            }
            if w.text == "Error" && rest.starts_with(':') {
                // Node and Terraform: `Error: ...` then where.
                return Some((if first { 4 } else { 3 }, Kind::Exception));
            }
            if before == Some(b'=') || (before == Some(b'[') && after == Some(b']')) {
                return Some((3, Kind::Plain)); // level=error, [error]
            }
            if matches!(w.text, "errors" | "Errors") && count_before(t, w).is_some_and(|n| n > 0) {
                return Some((3, Kind::Plain)); // 3 errors generated
            }
            if rest.starts_with(':') || first {
                return Some((3, Kind::Plain));
            }
            if w.text.starts_with('E') {
                return None; // a type in code: `fn f(e: Error)`
            }
            Some((2, Kind::Plain))
        }
        "FAIL" | "FAILED" | "FAILURE" | "FAILURES" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            if t.contains("=====") {
                return Some((2, Kind::Plain)); // a section header
            }
            Some((4, Kind::Plain))
        }
        "fail" | "failed" | "fails" | "failing" | "failure" | "failures" | "Fail" | "Failed"
        | "Failure" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            if count_before(t, w).is_some_and(|n| n > 0) {
                return Some((4, Kind::Plain)); // Tests: 2 failed, 10 passed
            }
            if matches!(w.text, "failed" | "Failed" | "failure" | "Failure") {
                return Some((3, Kind::Plain));
            }
            Some((2, Kind::Plain))
        }
        "fatal" | "Fatal" | "FATAL" => {
            if in_code {
                return None;
            }
            Some((if w.text == "fatal" { 2 } else { 3 }, Kind::Plain))
        }
        "panic" | "panicked" | "Panic" | "PANIC" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            Some((3, Kind::Plain))
        }
        "exception" | "Exception" | "exceptions" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            let loud = t.contains("nhandled") || t.contains("ncaught");
            Some((
                if loud || rest.starts_with(':') { 3 } else { 2 },
                Kind::Plain,
            ))
        }
        "CrashLoopBackOff"
        | "ImagePullBackOff"
        | "ErrImagePull"
        | "OOMKilled"
        | "CreateContainerConfigError"
        | "CreateContainerError"
        | "InvalidImageName"
        | "FailedScheduling"
        | "FailedMount"
        | "FailedCreatePodSandBox"
        | "FailedAttachVolume"
        | "SIGSEGV"
        | "SIGABRT"
        | "SIGBUS"
        | "SIGILL"
        | "SIGFPE" => Some((4, Kind::Plain)),
        "BackOff" | "Killed" | "Evicted" | "SIGKILL" => Some((3, Kind::Plain)),
        name if is_exception_name(name) => {
            if in_code && before != Some(b'.') {
                return None;
            }
            // `ValueError: x`, `java.lang.IllegalStateException: x` starting
            // a line (after a dotted package), or `Uncaught TypeError: x`.
            let head = &t[..w.start];
            if head.trim_end().ends_with("except") || head.contains("catch") {
                return None; // a handler in code
            }
            let leading = head.bytes().all(|c| is_word_byte(c) || c == b'.')
                || head.trim_end().ends_with("Uncaught")
                || head.trim_end().ends_with("Unhandled");
            if leading && (rest.is_empty() || rest.starts_with(':')) {
                return Some((4, Kind::Exception));
            }
            if rest.starts_with(':') {
                return Some((3, Kind::Plain));
            }
            None // a type in code: `impl Error for CapError`
        }
        _ => None,
    }
}

/// `TypeError`, `IOException`, `ModuleNotFoundError`: a class name.
fn is_exception_name(w: &str) -> bool {
    let b = w.as_bytes();
    (w.ends_with("Error") || w.ends_with("Exception"))
        && b.len() > "Error".len()
        && b[0].is_ascii_uppercase()
        && !w.contains('_')
}

/// The count written just before `w` (`3 errors`), if any.
fn count_before(t: &str, w: Word<'_>) -> Option<u64> {
    let head = t[..w.start].trim_end_matches(' ');
    let digits_start = head
        .bytes()
        .rposition(|c| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let n = &head[digits_start..];
    if n.is_empty() || (digits_start > 0 && is_word_byte(head.as_bytes()[digits_start - 1])) {
        return None;
    }
    n.parse().ok()
}

/// `0 errors`, `no errors`, `without error`, `errors: 0`, `error=None`,
/// `"errors": []`, `failed: 0`, `error: null`.
fn zero_count(t: &str, w: Word<'_>) -> bool {
    if count_before(t, w) == Some(0) {
        return true;
    }
    let head = t[..w.start].trim_end();
    let previous = head.rsplit(' ').next().unwrap_or("").to_ascii_lowercase();
    if matches!(previous.as_str(), "no" | "without" | "zero") {
        return true;
    }
    let rest = t[w.end..].trim_start_matches(['"', '\'']).trim_start();
    let Some(value) = rest.strip_prefix([':', '=']) else {
        return false;
    };
    is_zero_value(value)
}

/// `0`, `[]`, `null`, `None`, `false` and the like start `value`.
fn is_zero_value(value: &str) -> bool {
    let value = value.trim_start().trim_start_matches(['"', '\'']);
    let zero = [
        "0", "[]", "{}", "null", "None", "none", "nil", "<nil>", "false", "False",
    ];
    zero.iter().any(|z| {
        value.starts_with(z)
            && !value[z.len()..]
                .bytes()
                .next()
                .is_some_and(|c| is_word_byte(c) || c == b'.')
    })
}

/// `exit code 2`, `exit status 1`, `exited with code 137`, `Exit Code: 1`,
/// `returned non-zero exit status 1`, `non-zero exit`.
fn exit_is_nonzero(t: &str) -> bool {
    if t.contains("non-zero exit") {
        return true;
    }
    let lower = t.to_ascii_lowercase();
    for (i, _) in lower.match_indices("exit") {
        let mut rest = &lower[i + 4..];
        rest = rest.strip_prefix("ed").unwrap_or(rest);
        rest = rest.trim_start();
        rest = rest.strip_prefix("with").map_or(rest, str::trim_start);
        let Some(after) = rest
            .strip_prefix("code")
            .or_else(|| rest.strip_prefix("status"))
        else {
            continue;
        };
        let after = after.trim_start_matches([' ', ':', '=', '\t']);
        let number: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        if let Ok(n) = number.parse::<i64>()
            && n != 0
        {
            return true;
        }
    }
    false
}

/// `  88:5  error  Promises must be awaited ...` (ESLint's stylish format).
fn is_eslint_error(t: &str) -> bool {
    let Some((pos, rest)) = t.split_once(char::is_whitespace) else {
        return false;
    };
    let position = pos.split_once(':').is_some_and(|(l, c)| {
        !l.is_empty() && !c.is_empty() && l.bytes().chain(c.bytes()).all(|b| b.is_ascii_digit())
    });
    position && rest.trim_start().starts_with("error ")
}

/// `tests/test_io.py:42: AssertionError`.
fn is_pytest_location(t: &str) -> bool {
    let Some(i) = t.find(".py:") else {
        return false;
    };
    let path = &t[..i];
    let rest = &t[i + 4..];
    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
    !path.is_empty()
        && !path.contains(' ')
        && n > 0
        && rest[n..].starts_with(": ")
        && rest[n + 2..].starts_with(|c: char| c.is_ascii_uppercase())
}

/// `"GET /x HTTP/1.1" 502 123`: a server error in an access log.
fn is_access_log_5xx(line: &str) -> bool {
    let Some(http) = line.find("HTTP/") else {
        return false;
    };
    line[http..].match_indices("\" 5").any(|(i, _)| {
        let status = &line.as_bytes()[http + i + 2..];
        status.len() >= 3
            && status[..3].iter().all(u8::is_ascii_digit)
            && status.get(3).is_none_or(|c| !c.is_ascii_digit())
    })
}

/// `test x ... ok`, `PASSED`, `✓`, `3 passed`: a line reporting success.
fn says_passed(t: &str) -> bool {
    let t = t.trim_end();
    t.ends_with(" ok")
        || t.ends_with(" ... ok")
        || t.starts_with("PASS ")
        || t.starts_with("ok ")
        || [
            "PASSED",
            "✓",
            "✔",
            " passed",
            "[PASS]",
            "SUCCESS",
            "succeeded",
        ]
        .iter()
        .any(|p| t.contains(p))
}

fn is_warning(t: &str) -> bool {
    let lower = t.get(..7).unwrap_or(t).to_ascii_lowercase();
    lower.starts_with("warn") || t.starts_with("W/")
}

/// One line shown in the notable part of a preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// Start of the line.
    pub start: usize,
    /// End of the line, after its LF (or the end of the text).
    pub end: usize,
    /// Lines like it not shown.
    pub similar: u64,
    /// 1-based line number, once counted.
    pub line: u64,
    /// Bytes of its text shown (its length without the LF when whole).
    pub keep: usize,
}

impl Shown {
    /// The bytes of the input it shows verbatim, `start..end`.
    pub fn range(&self, text: &str) -> (usize, usize) {
        if self.keep == content_len(text, self) {
            (self.start, self.end)
        } else {
            (self.start, self.start + self.keep)
        }
    }
}

/// The notable lines a preview shows, in file order.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The lines.
    pub lines: Vec<Shown>,
}

/// The prefix of a notable line.
pub fn prefix(line: u64, similar: u64) -> String {
    if similar == 0 {
        format!("[line {line}] ")
    } else {
        format!("[line {line} and {similar} more like it] ")
    }
}

fn prefix_len(line_digits: usize, similar: u64) -> usize {
    if similar == 0 {
        "[line ] ".len() + line_digits
    } else {
        "[line  and  more like it] ".len() + line_digits + digits(similar)
    }
}

/// The marker before the notable lines; `lines` are `first..=last`.
pub fn open_marker(from: u64, to: u64, first: u64, last: u64, count: usize) -> String {
    format!(
        "[... lines {first}..{last} omitted here (bytes {from}..{to} of the full output), all but \
         these {count} notable lines ...]"
    )
}

/// The marker after the notable lines.
pub fn close_marker(first: u64, last: u64) -> String {
    format!("[... end of the omitted lines {first}..{last} ...]")
}

/// Bytes the two markers take beyond a plain gap marker's room, at most, for
/// a text of `bytes` bytes and `lines` lines.
pub fn marker_overhead(bytes: u64, lines: u64, plain_room: usize) -> usize {
    let open = open_marker(0, 0, 0, 0, 0).len() - 5
        + 2 * digits(bytes)
        + 2 * digits(lines.max(1))
        + digits(lines)
        + 1;
    let close = close_marker(0, 0).len() - 2 + 2 * digits(lines.max(1)) + 1;
    (open + close).saturating_sub(plain_room)
}

impl Selection {
    /// Bytes and lines of the rendered lines, with every line number at
    /// most `line_digits` digits.
    pub fn cost(&self, text: &str, line_digits: usize) -> (usize, usize) {
        let bytes = self
            .lines
            .iter()
            .map(|s| rendered_len(text, s, line_digits))
            .sum();
        (bytes, self.lines.len())
    }

    /// Bytes of the line numbers of the numbered lines.
    pub fn digits_len(&self) -> usize {
        self.lines.iter().map(|s| digits(s.line)).sum()
    }

    /// Number each line: `before` and `after` are offsets of the text with
    /// their line numbers, around every line of the selection; each line is
    /// counted from the nearer one.
    pub fn number(&mut self, text: &[u8], before: (usize, u64), after: (usize, u64)) {
        let mid = before.0 + (after.0 - before.0) / 2;
        let (mut pos, mut line) = before;
        for s in self.lines.iter_mut().filter(|s| s.start < mid) {
            line += count_lfs(&text[pos..s.start]);
            pos = s.start;
            s.line = line;
        }
        let (mut pos, mut line) = after;
        for s in self.lines.iter_mut().rev().filter(|s| s.start >= mid) {
            line -= count_lfs(&text[s.start..pos]);
            pos = s.start;
            s.line = line;
        }
    }

    /// The items that render the selection, once numbered, and their bytes.
    pub fn items(&self, text: &str) -> (Vec<Item>, usize) {
        let b = text.as_bytes();
        let mut items = Vec::new();
        let mut bytes = 0;
        for s in &self.lines {
            bytes += rendered_len(text, s, digits(s.line));
            items.push(Item::LineNo {
                line: s.line,
                similar: s.similar,
            });
            let has_lf = b[s.end - 1] == b'\n';
            let content_end = if has_lf { s.end - 1 } else { s.end };
            if s.keep == content_end - s.start {
                items.push(Item::Range(s.start, s.end));
                if !has_lf {
                    items.push(Item::Newline);
                }
            } else {
                items.push(Item::Range(s.start, s.start + s.keep));
                items.push(Item::LineCut(content_end - s.start - s.keep));
                items.push(Item::Newline);
            }
        }
        (items, bytes)
    }
}

/// Bytes `s` renders to with a line number of `line_digits` digits.
fn rendered_len(text: &str, s: &Shown, line_digits: usize) -> usize {
    let content = content_len(text, s);
    let marker = if s.keep < content {
        line_cut_marker(content - s.keep).len()
    } else {
        0
    };
    prefix_len(line_digits, s.similar) + s.keep + marker + 1
}

fn content_len(text: &str, s: &Shown) -> usize {
    let has_lf = text.as_bytes()[s.end - 1] == b'\n';
    (if has_lf { s.end - 1 } else { s.end }) - s.start
}

/// The bytes of its text a notable line can show in `room` bytes of
/// rendering (prefix, text, cut marker and LF), at most `max_line`; `None`
/// if less than [`MIN_SHOWN`] would show.
fn fit_line(
    text: &str,
    s: &Shown,
    max_line: Option<usize>,
    line_digits: usize,
    room: usize,
) -> Option<usize> {
    let content = content_len(text, s);
    let prefix = prefix_len(line_digits, s.similar);
    let limit = max_line.unwrap_or(usize::MAX);
    if content <= limit && prefix + content < room {
        return Some(content);
    }
    let marker = max_marker_len(content);
    let fit = limit.min(room.saturating_sub(prefix + marker + 1));
    let keep = floor_grapheme(text, s.start + fit.min(content)) - s.start;
    if keep == 0 || keep < MIN_SHOWN.min(content) {
        return None;
    }
    Some(keep)
}

/// What notable lines may use.
#[derive(Debug, Clone, Copy)]
pub struct Room {
    /// Bytes of rendering.
    pub bytes: usize,
    /// Lines.
    pub lines: usize,
    /// `max-line-bytes`.
    pub max_line: Option<usize>,
    /// Digits of the largest line number.
    pub line_digits: usize,
}

/// The best ranked candidates inside `lo..hi` that fit `room`, with the
/// lines they bring.
pub fn select(text: &str, candidates: &[Candidate], lo: usize, hi: usize, room: Room) -> Selection {
    let mut ranked: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.start >= lo && c.end <= hi)
        .collect();
    ranked.sort_by_key(|c| (std::cmp::Reverse(c.score), c.start));
    let mut chosen: Vec<Shown> = Vec::new();
    let mut taken: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let (mut left, mut lines_left) = (room.bytes, room.lines);
    let mut take =
        |start: usize, end: usize, similar: u64, left: &mut usize, lines_left: &mut usize| {
            if *lines_left == 0 || taken.contains(&start) {
                return false;
            }
            let mut s = Shown {
                start,
                end,
                similar,
                line: 0,
                keep: 0,
            };
            let Some(keep) = fit_line(text, &s, room.max_line, room.line_digits, *left) else {
                return false;
            };
            s.keep = keep;
            let cost = rendered_len(text, &s, room.line_digits);
            if cost > *left {
                return false;
            }
            *left -= cost;
            *lines_left -= 1;
            taken.insert(start);
            chosen.push(s);
            true
        };
    for c in ranked {
        if take(c.start, c.end, c.similar, &mut left, &mut lines_left) {
            for &(start, end) in &c.context {
                if start >= lo && end <= hi {
                    take(start, end, 0, &mut left, &mut lines_left);
                }
            }
        }
    }
    chosen.sort_by_key(|s| s.start);
    Selection { lines: chosen }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(line: &str) -> u8 {
        classify(line).map_or(0, |(s, _)| s)
    }

    #[test]
    fn failures_of_common_tools_are_definitive() {
        for line in [
            "error[E0308]: mismatched types",
            "error: expected one of `,` or `}`, found `;`",
            "src/main.c:12:5: error: 'x' undeclared (first use in this function)",
            "src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
            "src/app.ts:12:5 - error TS2322: Type 'string' is not assignable",
            "thread 'main' panicked at src/main.rs:3:5:",
            "panic: runtime error: index out of range [3] with length 3",
            "--- FAIL: TestParse (0.00s)",
            "FAIL\tgithub.com/acme/parse\t0.012s",
            "FAILED tests/test_io.py::test_read - OSError: [Errno 2] No such file",
            "FAIL: test_read (tests.test_io.ReadTest)",
            "  ✕ adds numbers (5 ms)",
            "Traceback (most recent call last):",
            "ValueError: invalid literal for int() with base 10: 'x'",
            "java.lang.IllegalStateException: closed",
            "Exception in thread \"main\" java.lang.NullPointerException",
            "Caused by: java.io.IOException: Broken pipe",
            "TypeError: Cannot read properties of undefined (reading 'x')",
            "Uncaught ReferenceError: x is not defined",
            "fatal: not a git repository (or any of the parent directories): .git",
            "make: *** [Makefile:12: all] Error 2",
            "make[1]: *** [build] Error 1",
            "error Command failed with exit code 1.",
            "ERROR [build 4/7] RUN npm ci",
            "│ Error: Invalid reference",
            "web-7d9f  0/1  CrashLoopBackOff  5  3m",
            "db-0  0/1  OOMKilled  2  10m",
            "api-1  0/1  ImagePullBackOff  0  1m",
            "Segmentation fault (core dumped)",
            "error: process didn't exit successfully: `target/debug/x` (signal: 11, SIGSEGV: invalid memory reference)",
            "tests/test_io.py:42: AssertionError",
        ] {
            assert_eq!(score(line), 4, "{line}");
        }
    }

    #[test]
    fn log_levels_and_summaries_are_notable() {
        for line in [
            "2024-05-01T12:00:00Z ERROR worker-3 request timed out",
            "npm ERR! code ELIFECYCLE",
            "npm error code 1",
            "Tests: 2 failed, 10 passed, 12 total",
            "error: could not compile `app` (bin \"app\") due to 2 previous errors",
            "Process finished with exit code 137",
            "Build failed in 3s",
            "level=error msg=\"connection refused\"",
            "4 errors generated.",
        ] {
            assert!(score(line) >= 3, "{line}: {}", score(line));
        }
        assert_eq!(
            score("10.0.0.1 - - [01/May/2024] \"GET /api HTTP/1.1\" 502 173"),
            2
        );
    }

    #[test]
    fn look_alikes_are_not_failures() {
        for line in [
            "0 errors, 0 warnings",
            "Found 0 errors.",
            "errors: 0",
            "error_count=0",
            "\"errors\": []",
            "error: null",
            "cc -Wall -Werror -o x x.c",
            "const ERROR_CODES = [1, 2];",
            "test error::tests::parse ... ok",
            "test_error_handling PASSED",
            "  ✓ handles error responses (3 ms)",
            "cargo test --no-fail-fast",
            "Compiling src/error.rs",
            "warning: unused variable: `error`",
            "no errors found",
            "Tests: 0 failed, 10 passed",
            "exit code 0",
            "exited with code 0",
            "Downloading 41%",
            "fn on_error(e: Error) {",
            "    except ValueError:",
            "impl std::error::Error for CapError {}",
            "10.0.0.1 - - \"GET /api HTTP/1.1\" 200 173",
            "available memory: 3 GiB",
            "mechanical and organic",
            "the tail of the detail",
        ] {
            assert_eq!(score(line), 0, "{line}");
        }
    }

    #[test]
    fn dedupe_ignores_numbers_and_ids() {
        let a = dedupe_key(b"request 41 to 0x7ffe12 failed after 3ms (id a3f9c2d1)");
        let b = dedupe_key(b"request 42 to 0x1 failed after 12ms (id 0b9e77aa)");
        assert_eq!(a, b);
        assert_ne!(a, dedupe_key(b"request 41 to 0x7ffe12 succeeded"));
        assert_ne!(dedupe_key(b"deadbeef"), dedupe_key(b"decafbad1")); // no digit: a word
    }

    fn candidates(text: &str) -> Vec<Candidate> {
        scan(text, 0, text.len(), &Patterns::new(&[]), 64)
    }

    #[test]
    fn scan_finds_lines_and_their_context() {
        let text = "ok\nerror[E0308]: mismatched types\n  --> src/lib.rs:4:5\nok\n\
                    Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    \
                    f()\n  File \"b.py\", line 9, in f\n    raise KeyboardInterrupt\nKeyboardInterrupt\n\
                    done\n";
        let found = candidates(text);
        let lines = |c: &Candidate| {
            std::iter::once((c.start, c.end))
                .chain(c.context.iter().copied())
                .map(|(a, e)| text[a..e].trim_end().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(
            lines(&found[0]),
            ["error[E0308]: mismatched types", "  --> src/lib.rs:4:5"]
        );
        assert_eq!(
            lines(&found[1]),
            [
                "Traceback (most recent call last):",
                "  File \"b.py\", line 9, in f",
                "KeyboardInterrupt"
            ]
        );
    }

    #[test]
    fn similar_lines_count_once_and_host_patterns_rank_first() {
        let mut text = String::new();
        for i in 0..50 {
            text.push_str(&format!("2024 ERROR worker-{i} timed out after {i}ms\n"));
            text.push_str("all good here\n");
        }
        text.push_str("deploy: QUOTA-EXCEEDED for project x\n");
        let found = candidates(&text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].similar, 49);
        let host = scan(
            &text,
            0,
            text.len(),
            &Patterns::new(&["QUOTA-EXCEEDED".into()]),
            64,
        );
        assert_eq!(host.len(), 2);
        assert_eq!(host[1].score, HOST_SCORE);
        let room = |bytes| Room {
            bytes,
            lines: 10,
            max_line: None,
            line_digits: 3,
        };
        let sel = select(&text, &host, 0, text.len(), room(200));
        assert_eq!(sel.lines.len(), 2);
        let small = select(&text, &host, 0, text.len(), room(50));
        assert_eq!(small.lines.len(), 1);
        assert_eq!(
            &text[small.lines[0].start..small.lines[0].start + 6],
            "deploy"
        );
    }

    #[test]
    fn long_lines_are_cut_and_numbered() {
        let text = format!("a\nb\nerror: {}\nc\n", "x".repeat(500));
        let found = candidates(&text);
        let room = Room {
            bytes: 1000,
            lines: 10,
            max_line: Some(100),
            line_digits: 1,
        };
        let mut sel = select(&text, &found, 0, text.len(), room);
        sel.number(text.as_bytes(), (0, 1), (text.len(), 5));
        assert_eq!(sel.lines[0].line, 3);
        let (items, bytes) = sel.items(&text);
        let mut out = String::new();
        crate::cut::render(&text, &items, &mut out);
        assert_eq!(out.len(), bytes);
        assert!(out.starts_with("[line 3] error: xxx"), "{out}");
        assert!(out.ends_with(" [... 407 bytes cut]\n"), "{out}");
    }
}
