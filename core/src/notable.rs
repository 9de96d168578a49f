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
//! more lines of the omitted part equal it once digit runs, ids (hex, and
//! random-looking names such as Kubernetes' `web-7d9f8c6b5-x2k4p`) and
//! base64 tokens are replaced by a placeholder and a table's padding by one
//! space ([`dedupe_key`]; those K are not shown). A line longer than
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
//! `E` line above it, a Go `--- FAIL` the nearest `file.go:N:` line, a Go
//! `panic:`, `fatal error:` or `WARNING: DATA RACE` the first stack frame in
//! the program's own code (its function line and its `\t/app/lru.go:77
//! +0x2d` line, frames of the Go runtime and `testing` skipped), an
//! ESLint error the file it is in, a Jest `●` failure its first frame
//! outside `node_modules`, and any line a `Detail:` or `symbol:` line right
//! after it; a failed test the line that started it (Go's `=== RUN
//! TestX`, cargo's `---- name stdout ----`, pytest's `____ test_name ____`
//! header). A notable line right next to the head or tail joins it as a
//! plain line.
//!
//! The first failure (the best ranked; [`blocks`]) comes whole, each of
//! its lines numbered the same way: a rustc or clang diagnostic with its
//! annotated source and notes, a Python traceback to its exception line, a
//! pytest failure's section, a Go `--- FAIL` with its `=== RUN` line and
//! log or a Go panic or race with its first frames, a Java or JavaScript
//! exception with the first frames of each `Caused by:`, a Jest failure
//! or a tsc/ESLint error with its code frame, pip's resolver conflict with
//! what caused it, a Terraform resource that `must be replaced` or `will be
//! destroyed` with its changes, a webpack `ERROR in` with its
//! message. It takes at most [`BLOCK_PERCENT`] of the notable lines' room;
//! what does not fit is left out, the lines that matter most kept.
//!
//! # A search's hits
//!
//! When the call says what the tool searched for ([`crate::Call::search`]),
//! the first [`crate::search::HITS_PER_TERM`] hits of each alternative in
//! the omitted middle come first, above the host's patterns: every
//! alternative's first hit before any second one. A hit's line shows whole
//! when it is short enough; otherwise a window of a few hundred bytes
//! ([`crate::search::window_bytes`], within `max-line-bytes`) around the
//! hit, with the bytes of the line cut before and after it counted:
//!
//! ```text
//! [line 3] [... 512345 bytes cut] ...context before... HIT ...context after... [... 480000 bytes cut]
//! ```
//!
//! Windows that overlap in a line merge; one that starts where the head
//! ends (or ends where the tail starts) joins it. A hit the head or tail
//! already shows needs none.
//!
//! # Finding them
//!
//! A few `memchr` searches run over the omitted middle only ([`Patterns`]):
//! one substring each for the words failures are written with, and one
//! three-byte search for rarer signs. Each hit's line is then classified
//! ([`classify`]) into a confidence from 1 (weak: a lone "error" in prose) to
//! 4 (definitive: a compiler error, a panic, a failed test, a Go data race,
//! an out-of-memory kill, a Kubernetes crash reason); an error log level
//! (`ERROR`, `CRITICAL`, `level=critical`, nginx's `[crit]`) is 3. The
//! host's own patterns (literal substrings) rank above all at 5.
//! Look-alikes score 0 and are dropped: counts of zero (`0 errors`, `failed:
//! 0`, `errors: []`, `error: null`, `CRITICAL: 0`), identifiers and flags
//! (`error_count`, `ERROR_CODES`, `CRITICAL_THRESHOLD`, `-Werror`,
//! `--fail-fast`, `on_error`), paths (`src/error.rs`), code (`panic(err)`,
//! `catch (OutOfMemoryError e)`), `critical` in prose (`critical section`),
//! and, below 4, lines that also say a test passed (`test error_path ...
//! ok`, `✓ handles errors`). A file tool's permission error (`Permission
//! denied`, `EACCES`, `Operation not permitted`, `Access is denied`) is 3.
//! Warnings are a second tier at 1 ([`WARNING_SCORE`]): a compiler's
//! `warning:`, a `WARN`/`WARNING` level (`npm WARN deprecated`, pip's
//! `WARNING:`), a Python `UserWarning:`/`RuntimeWarning:`; they rank
//! below every failure, so they show only where the failures leave room (a
//! race report's `WARNING: DATA RACE` is 4, a failure).
//!
//! # Choosing them
//!
//! A long log often says the same thing many times with different names: a
//! cluster's events list the same failed readiness probe for hundreds of
//! pods, and one `OOMKilling` among them. So lines alike count as one
//! family ([`Sketch`]: at least 60% of their words in common, any word with
//! a digit counting as one same word), and the preview prefers variety:
//! ranked by confidence, then file order, a line alike to one already shown
//! waits behind every other line of its confidence, and the lines that
//! waited fill what room is left, in file order. The scan keeps the same
//! order of merit: when it must drop candidates, it keeps the first lines
//! of each family before the tenth of another, so that a rare line late in
//! the log is still there to choose.
//!
//! Work is linear in the middle (each line is compared with a few families
//! at most), and memory bounded by the budget: only as many distinct
//! candidates are kept as could be shown, a few times over.

use std::collections::HashMap;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};
use memchr::memmem::Finder;
use memchr::{memchr, memchr3_iter, memrchr};

use crate::cut::{Item, line_cut_marker, line_prefix_len, max_marker_len};
use crate::search::{self, Hit};

pub(crate) mod blocks;
use crate::text::{count_lfs, digits, floor_grapheme};

/// Substrings that start the search for failure lines. Each is one pass of
/// `memchr::memmem` over the middle; [`RARE`] bytes are one more. A hit
/// counts if [`LEVEL_ANCHORS`] allow it.
const ANCHORS: [&str; 21] = [
    "rror",          // error, Error, TypeError, make's `Error 2`, `error TS2322`
    "ERR",           // ERROR, npm ERR!, docker `ERROR [`
    "FA",            // FAIL, FAILED, FAILURE, FATAL
    "ail",           // failed, Failed, failure, FailedScheduling
    "anic",          // panic, panicked
    "atal",          // fatal:, Fatal error
    "Traceback",     // Python
    "BackOff",       // CrashLoopBackOff, ImagePullBackOff, BackOff
    "egmentation",   // Segmentation fault
    "\" 5",          // HTTP 5xx in access logs
    "CRIT",          // CRITICAL, CRIT
    "crit",          // level=critical, nginx's [crit], .NET's `crit:`
    "DATA RACE",     // Go's race detector
    "WARN",          // WARN, WARNING, npm WARN: warnings, the second tier
    "arning",        // warning:, Warning:, UserWarning, RuntimeWarning
    "denied",        // Permission denied, Access is denied
    "EACCES",        // Node's and libc's permission errors
    "EPERM",         //
    "not permitted", // Operation not permitted
    "e replaced",    // terraform plan: `# aws_db.x must be replaced`
    "e destroyed",   // terraform plan: `# aws_db.x will be destroyed`
];

/// Anchors that are words of prose too (`critical path`): a hit counts only
/// where a log level is written, after `=`, `[` or `"`, or starting a line.
const LEVEL_ANCHORS: [&str; 1] = ["crit"];

/// Bytes searched together (`memchr3`), each checked where it occurs: `x`
/// of exception and exit, `K` of Kill, Killed, OOMKilled and OOMKilling
/// (and so of the kernel's `Out of memory: Killed process`), and the lead
/// byte of the cross marks of test runners (✕ ✖ ✗ ✘) and of Jest's `●`.
const RARE: [u8; 3] = [b'x', b'K', 0xE2];

/// The words [`RARE`] bytes stand for, as [`rare_lines`] checks them: the
/// prefilter of [`Patterns::may_be_notable`].
const RARE_SIGNS: [&str; 10] = [
    "exception",
    "Exception",
    "exit",
    "Exit",
    "Kill",
    "\u{2715}",
    "\u{2716}",
    "\u{2717}",
    "\u{2718}",
    "\u{25cf}",
];

/// Lines longer than this are not taken as notable (minified code, data):
/// no failure line is that long, and it bounds the work per hit.
const MAX_LINE: usize = 64 * 1024;

/// Only this much of a line is classified.
const CLASSIFY_BYTES: usize = 4096;

/// The middle is searched in pieces of about this size, cut at line ends,
/// so that hits come in file order and stay in cache.
const CHUNK: usize = 256 * 1024;

/// How [`Patterns::occurrences`] reports overlapping patterns; which lines
/// hold an occurrence is the same either way. Leftmost-first lets the
/// automaton run on its SIMD prefilter (Teddy) where it has one: natively,
/// the one-pass preview of 64 MiB of log then takes 77 ms instead of 210.
/// wasm has no Teddy, and there the standard semantics measured a little
/// faster (`toolcap cap` of 64 MiB: 0.36 s of CPU against 0.39).
const ANY_MATCH_KIND: MatchKind = if cfg!(target_arch = "wasm32") {
    MatchKind::Standard
} else {
    MatchKind::LeftmostFirst
};

/// Confidence of a host pattern.
pub const HOST_SCORE: u8 = 5;

/// The share of the preview's budget (bytes and lines) notable lines may
/// take, in percent.
pub const SHARE_PERCENT: usize = 25;

/// Shortest part of a notable line worth showing when it must be cut.
const MIN_SHOWN: usize = 24;

/// The searches for one session: built-in anchors and the host's patterns.
#[derive(Debug, Clone)]
pub struct Patterns {
    /// Each built-in anchor, and whether it is a [`LEVEL_ANCHORS`] one.
    anchors: Vec<(Finder<'static>, bool)>,
    host: Vec<Finder<'static>>,
    /// The host's patterns as given.
    host_text: Vec<String>,
    /// Every anchor, rare sign and host pattern in one automaton: a line
    /// none of them occurs in is not notable, so one pass over it decides
    /// (the one-pass preview asks this of every line). A DFA itself, as in
    /// [`crate::redact`]: the same matches as `AhoCorasick`, a smaller
    /// component.
    any: DFA,
}

impl Patterns {
    /// The built-in searches and the host's literal `patterns`.
    pub fn new(patterns: &[String]) -> Patterns {
        Patterns {
            anchors: ANCHORS
                .iter()
                .map(|a| {
                    let finder = Finder::new(a.as_bytes()).into_owned();
                    (finder, LEVEL_ANCHORS.contains(a))
                })
                .collect(),
            host: patterns
                .iter()
                .map(|p| Finder::new(p.as_bytes()).into_owned())
                .collect(),
            host_text: patterns.to_vec(),
            any: DFA::builder()
                .match_kind(ANY_MATCH_KIND)
                .build(
                    ANCHORS
                        .iter()
                        .chain(&RARE_SIGNS)
                        .copied()
                        .chain(patterns.iter().map(String::as_str)),
                )
                .expect("a few short literals build an automaton"),
        }
    }

    /// False when `line` holds no anchor, rare sign or host pattern: then it
    /// is not notable, whatever [`classify`] would make of it.
    pub fn may_be_notable(&self, line: &str) -> bool {
        self.any
            .try_find(&Input::new(line).earliest(true))
            .expect("an unanchored DFA searches")
            .is_some()
    }

    /// Where anchors, rare signs and host patterns occur in `hay`
    /// (non-overlapping, in order). None spans a line break, so a line of
    /// `hay` that holds none of these starts holds no occurrence at all and
    /// [`may_be_notable`](Self::may_be_notable) of any part of it is false:
    /// one search of a whole buffer stands in for a call per line.
    pub fn occurrences<'a>(&'a self, hay: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.any
            .try_find_iter(Input::new(hay))
            .expect("an unanchored DFA searches")
            .map(|m| m.start())
    }

    /// These searches with a call's search `terms` added to the host's
    /// patterns (what the JSON preview keeps an item for).
    pub fn with_terms(&self, terms: &[&str]) -> Patterns {
        let mut all = self.host_text.clone();
        all.extend(terms.iter().map(|t| (*t).to_owned()));
        Patterns::new(&all)
    }

    /// True when one of the host's patterns occurs in `s`.
    pub fn host_matches(&self, s: &str) -> bool {
        self.host.iter().any(|f| f.find(s.as_bytes()).is_some())
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
    /// A Go `panic:`, `fatal error:` or `WARNING: DATA RACE`: the first
    /// stack frame below it in the program's own code (not the Go
    /// runtime's or `testing`'s), its function line and its
    /// `\t/path/file.go:77 +0x2d` line.
    GoStack,
    /// A pytest location `file.py:N: Error`: the `E` line above it.
    PytestLocation,
    /// An ESLint error `12:5  error  ...`: the file it is in, above it.
    Eslint,
    /// A Jest failure `● Suite › test`: its first frame outside
    /// `node_modules`.
    Jest,
    /// A webpack `ERROR in ./src/x.js`: nothing, but its block is the
    /// lines after it up to a blank line.
    Paragraph,
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
    /// What it is, for the lines of its whole block ([`blocks::block`]).
    pub kind: Kind,
}

/// Find the notable lines of `text[from..to]`; `from` starts a line and
/// `to` ends one (or is the end of the text). Distinct candidates are
/// kept up to 4 x `keep`, then cut back to the best `keep` by confidence,
/// then rank in their family of lines alike (round robin between
/// families), then file order.
pub fn scan(
    text: &str,
    from: usize,
    to: usize,
    patterns: &Patterns,
    keep: usize,
) -> Vec<Candidate> {
    let b = text.as_bytes();
    let mut found = Found::new(keep);
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
        for (finder, level) in &patterns.anchors {
            lines_with(finder, *level, b, pos, end, false, &mut hits);
        }
        rare_lines(b, pos, end, &mut hits);
        for finder in &patterns.host {
            lines_with(finder, false, b, pos, end, true, &mut hits);
        }
        // One entry per line, host patterns first.
        crate::order::sort_by_key(&mut hits, |&(start, host)| (start, !host));
        hits.dedup_by_key(|h| h.0);
        for &(start, host) in &hits {
            let line_end = memchr(b'\n', &b[start..end]).map_or(end, |i| start + i + 1);
            found.consider(text, start, line_end, host, from, to);
        }
        pos = end;
    }
    found.kept
}

/// The lines of `b[lo..hi]` (which starts a line) where `finder` matches;
/// only where a log level is written if `level`.
fn lines_with(
    finder: &Finder<'_>,
    level: bool,
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
        if level && hit > lo && !matches!(b[hit - 1], b'=' | b'[' | b'"' | b'\n') {
            p = hit + 1;
            continue;
        }
        if let Some(start) = line_start(b, lo, hit) {
            out.push((start, host));
        }
        p = memchr(b'\n', &b[hit..hi]).map_or(hi, |i| hit + i + 1);
    }
}

/// The lines of `b[lo..hi]` with a rare sign: `exception`, `exit`, `Kill`,
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
            b'K' => rest.starts_with(b"Kill"),
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

/// Kept members of a family told apart in ranking; later ones rank alike.
const RANKS: usize = 16;

/// Shown lines a candidate is compared with in [`select`], at most, so that
/// the work per candidate stays bounded.
const MAX_COMPARE: usize = 128;

/// Families a line is compared with in the scan: the most often seen ones
/// (where a flood finds its family at once), then those of each of its
/// [`Sketch::keys`], at most.
const FAMILY_COMPARE: usize = 4;

/// The candidates kept so far: at most about 4 x `keep`, cut back to the
/// best `keep` by confidence, then rank in their family (round robin
/// between families), then file order.
struct Found {
    kept: Vec<Candidate>,
    /// For each kept candidate: its family (index in `families`) and its
    /// rank there (0 for the first kept).
    place: Vec<(usize, usize)>,
    /// Dedupe key of each kept line: its index in `kept`.
    by_key: HashMap<u64, usize>,
    families: Vec<Family>,
    /// The most often seen families of each confidence (up to
    /// [`FAMILY_COMPARE`]), the most seen first.
    hot: [Vec<usize>; 6],
    /// The families of each confidence by each of their [`Sketch::keys`].
    by_sketch_key: HashMap<(u8, u32), Vec<usize>>,
    /// The sketch of the line considered.
    sketch: Sketch,
    /// `slots[s][r]`: kept candidates of confidence `s` and rank `r` (the
    /// last counts every rank from `RANKS - 1` on).
    slots: [[usize; RANKS]; 6],
    keep: usize,
}

/// Kept lines alike ([`Sketch::similar`]) and of one confidence.
struct Family {
    sketch: Sketch,
    /// The rank of the next member.
    next_rank: usize,
    /// Lines found alike, kept or not.
    seen: usize,
}

impl Found {
    fn new(keep: usize) -> Found {
        Found {
            kept: Vec::new(),
            place: Vec::new(),
            by_key: HashMap::new(),
            families: Vec::new(),
            hot: Default::default(),
            by_sketch_key: HashMap::new(),
            sketch: Sketch::default(),
            slots: [[0; RANKS]; 6],
            keep: keep.max(1),
        }
    }

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
        let s = usize::from(score);
        // Even as the first of a new family, earlier lines of this
        // confidence or more fill every place already.
        if self.ahead(s, 0) >= self.keep {
            return;
        }
        self.sketch.set(line.as_bytes());
        let family = self.family_of(score);
        let rank = family.map_or(0, |f| self.families[f].next_rank);
        if rank > 0 && self.ahead(s, rank) >= self.keep {
            return; // one more like lines kept already
        }
        let f = family.unwrap_or_else(|| {
            let f = self.families.len();
            for key in self.sketch.keys() {
                self.by_sketch_key.entry((score, key)).or_default().push(f);
            }
            self.families.push(Family {
                sketch: self.sketch.clone(),
                next_rank: 0,
                seen: 1,
            });
            if self.hot[s].len() < FAMILY_COMPARE {
                self.hot[s].push(f);
            }
            f
        });
        self.families[f].next_rank += 1;
        let context = context_lines(b, start, end, kind, from, to);
        self.by_key.insert(key, self.kept.len());
        self.kept.push(Candidate {
            start,
            end,
            score,
            similar: 0,
            context,
            kind,
        });
        self.place.push((f, rank));
        self.slots[s][rank.min(RANKS - 1)] += 1;
        if self.kept.len() > 4 * self.keep {
            self.compact(text);
        }
    }

    /// Kept candidates that rank before a new one of confidence `s` and
    /// rank `rank` in its family.
    fn ahead(&self, s: usize, rank: usize) -> usize {
        let above: usize = self.slots[s + 1..].iter().flatten().sum();
        above + self.slots[s][..=rank.min(RANKS - 1)].iter().sum::<usize>()
    }

    /// The family of confidence `score` the line of `self.sketch` belongs
    /// to, if any is found; counted as seen.
    fn family_of(&mut self, score: u8) -> Option<usize> {
        let s = usize::from(score);
        let (families, sketch) = (&self.families, &self.sketch);
        let alike = |&f: &usize| families[f].sketch.similar(sketch);
        let f = match self.hot[s].iter().find(|f| alike(f)) {
            Some(&f) => f,
            None => sketch.keys().find_map(|key| {
                let bucket = self.by_sketch_key.get(&(score, key))?;
                bucket
                    .iter()
                    .take(FAMILY_COMPARE)
                    .find(|f| alike(f))
                    .copied()
            })?,
        };
        self.families[f].seen += 1;
        // Keep the most seen first.
        let hot = &mut self.hot[s];
        let mut k = match hot.iter().position(|&h| h == f) {
            Some(k) => k,
            None if hot.len() < FAMILY_COMPARE => {
                hot.push(f);
                hot.len() - 1
            }
            None if self.families[hot[hot.len() - 1]].seen < self.families[f].seen => {
                let last = hot.len() - 1;
                hot[last] = f;
                last
            }
            None => return Some(f),
        };
        while k > 0 && self.families[hot[k - 1]].seen < self.families[f].seen {
            hot.swap(k - 1, k);
            k -= 1;
        }
        Some(f)
    }

    /// Keep only the best `keep` candidates.
    fn compact(&mut self, text: &str) {
        let mut best: Vec<usize> = (0..self.kept.len()).collect();
        crate::order::sort_by_key(&mut best, |&i| {
            (
                std::cmp::Reverse(self.kept[i].score),
                self.place[i].1.min(RANKS - 1),
                self.kept[i].start,
            )
        });
        best.truncate(self.keep);
        best.sort_unstable();
        let mut kept = std::mem::take(&mut self.kept);
        let mut place = std::mem::take(&mut self.place);
        let mut i = 0;
        kept.retain(|_| {
            i += 1;
            best.binary_search(&(i - 1)).is_ok()
        });
        let mut i = 0;
        place.retain(|_| {
            i += 1;
            best.binary_search(&(i - 1)).is_ok()
        });
        // Families with no member left go; the others are numbered anew.
        let mut next_rank = vec![0; self.families.len()];
        for &(f, rank) in &place {
            next_rank[f] = next_rank[f].max(rank + 1);
        }
        let mut renumber = vec![usize::MAX; self.families.len()];
        let mut families = Vec::new();
        for (f, mut family) in std::mem::take(&mut self.families).into_iter().enumerate() {
            if next_rank[f] > 0 {
                renumber[f] = families.len();
                family.next_rank = next_rank[f];
                families.push(family);
            }
        }
        for hot in &mut self.hot {
            hot.retain_mut(|f| {
                *f = renumber[*f];
                *f != usize::MAX
            });
        }
        self.by_sketch_key.retain(|_, bucket| {
            bucket.retain_mut(|f| {
                *f = renumber[*f];
                *f != usize::MAX
            });
            !bucket.is_empty()
        });
        self.families = families;
        self.by_key.clear();
        self.slots = [[0; RANKS]; 6];
        let b = text.as_bytes();
        for (i, (c, (f, rank))) in kept.iter().zip(&mut place).enumerate() {
            *f = renumber[*f];
            let content_end = if b[c.end - 1] == b'\n' {
                c.end - 1
            } else {
                c.end
            };
            self.by_key.insert(dedupe_key(&b[c.start..content_end]), i);
            self.slots[usize::from(c.score)][(*rank).min(RANKS - 1)] += 1;
        }
        self.kept = kept;
        self.place = place;
    }
}

/// Lines this alike (in percent of their words, [`Sketch::similar`]) count
/// as one family: they are ranked behind the other lines of their
/// confidence.
const SIMILAR_PERCENT: usize = 60;

/// Words of a line a [`Sketch`] keeps, at most.
const SKETCH_WORDS: usize = 32;

/// The words of a line, to tell lines alike: the sorted hashes of its
/// distinct words (a word holding a digit counts as one same word, so
/// numbers, ages and ids do not matter), the smallest [`SKETCH_WORDS`] only
/// (a bottom-k sketch).
#[derive(Debug, Clone, Default)]
struct Sketch(Vec<u32>);

/// The hash every word holding a digit has in a [`Sketch`].
const NUMBER_WORD: u32 = 0x9e37_79b9;

impl Sketch {
    fn of(line: &[u8]) -> Sketch {
        let mut sketch = Sketch::default();
        sketch.set(line);
        sketch
    }

    /// Make this the sketch of `line`, reusing its memory.
    fn set(&mut self, line: &[u8]) {
        /// Bytes of words: ASCII letters, digits and `_`, and every byte
        /// of a non-ASCII character.
        static WORD: [bool; 256] = {
            let mut table = [false; 256];
            let mut c = 0;
            while c < 256 {
                table[c] = is_word_byte(c as u8) || c >= 0x80;
                c += 1;
            }
            table
        };
        let line = &line[..line.len().min(CLASSIFY_BYTES)];
        let word = |c: u8| WORD[usize::from(c)];
        let hashes = &mut self.0;
        hashes.clear();
        let mut i = 0;
        while i < line.len() {
            if !word(line[i]) {
                i += 1;
                continue;
            }
            // FNV-1a.
            let (mut h, mut digit) = (0x811c_9dc5_u32, false);
            while i < line.len() && word(line[i]) {
                digit |= line[i].is_ascii_digit();
                h = (h ^ u32::from(line[i])).wrapping_mul(0x0100_0193);
                i += 1;
            }
            hashes.push(if digit { NUMBER_WORD } else { h });
        }
        hashes.sort_unstable();
        hashes.dedup();
        hashes.truncate(SKETCH_WORDS);
    }

    /// True when the Jaccard similarity of the two lines' word sets is at
    /// least [`SIMILAR_PERCENT`]: exact for lines of up to [`SKETCH_WORDS`]
    /// distinct words, estimated from the smallest hashes of their union
    /// beyond.
    fn similar(&self, other: &Sketch) -> bool {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j, mut union, mut both) = (0, 0, 0, 0);
        while union < SKETCH_WORDS && (i < a.len() || j < b.len()) {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    both += 1;
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x > y => j += 1,
                (Some(_), _) => i += 1,
                (None, _) => j += 1,
            }
            union += 1;
        }
        union > 0 && both * 100 >= union * SIMILAR_PERCENT
    }

    /// The keys a family is found by: its two smallest hashes. Lines alike
    /// share their smallest hash with a chance of their similarity, so
    /// these find most of a line's family, cheaply.
    fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().take(2).copied()
    }
}

/// The key under which near-identical lines count as one: the line with
/// every run of ASCII digits, and every id, replaced by one placeholder,
/// and every run of spaces and tabs (a table's padding) by one space. An id
/// is a hex id (a run of hex digits and letters holding a digit, at least 6
/// long, or after `0x`), a random-looking token (a run of letters and
/// digits, at least 5 long, with 2 digits or more and letters and digits
/// alternating at least twice: Kubernetes' `x68n5h5nhn`, `49775tdjl5`), or
/// a base64-like run (at least 20 of `A-Z a-z 0-9 + /`, with upper and
/// lower case letters, 2 digits or more, and the kind of byte changing at
/// least every third byte: a token or digest; a path's words change far
/// less often). Words stay words: `src/lib.rs`, `MAX_RETRIES`, `arm64` and
/// `250ms` keep their letters, and an error code (up to 5 capital letters
/// then digits: `E0308`, `TS2322`, `SC2086`) is kept whole, since which
/// error it is matters.
pub fn dedupe_key(line: &[u8]) -> u64 {
    let mut h = KeyHasher(0);
    let mut i = 0;
    // Runs that start before this are known not to be base64.
    let mut not_base64 = 0;
    while i < line.len() {
        let c = line[i];
        if c == b' ' || c == b'\t' {
            while i < line.len() && matches!(line[i], b' ' | b'\t') {
                i += 1;
            }
            h.byte(b' ');
            continue;
        }
        if !c.is_ascii_alphanumeric() {
            h.byte(c);
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = 0;
        while i < line.len() && line[i].is_ascii_alphanumeric() {
            digits += usize::from(line[i].is_ascii_digit());
            i += 1;
        }
        let word = &line[start..i];
        // A base64 run is one word, or words joined by `+` and `/`.
        let joined = matches!(line.get(i), Some(b'+' | b'/'));
        if start >= not_base64 && (joined || (digits >= 2 && word.len() >= 20)) {
            let more = line[i..].iter().take_while(|&&c| is_base64_byte(c));
            let run = word.len() + if joined { more.count() } else { 0 };
            if is_base64_like(&line[start..start + run]) {
                h.byte(0);
                i = start + run;
                while line.get(i) == Some(&b'=') {
                    i += 1;
                }
                continue;
            }
            not_base64 = start + run;
        }
        if digits == 0 || is_error_code(word) {
            word.iter().for_each(|&c| h.byte(c));
            continue;
        }
        let hex_prefixed = word.len() > 2
            && (word.starts_with(b"0x") || word.starts_with(b"0X"))
            && word[2..].iter().all(u8::is_ascii_hexdigit);
        let hex_id = word.len() >= 6 && word.iter().all(u8::is_ascii_hexdigit);
        if hex_prefixed || hex_id || is_random_id(word, digits) {
            h.byte(0);
            continue;
        }
        let mut j = 0;
        while j < word.len() {
            if word[j].is_ascii_digit() {
                while j < word.len() && word[j].is_ascii_digit() {
                    j += 1;
                }
                h.byte(0);
            } else {
                h.byte(word[j]);
                j += 1;
            }
        }
    }
    h.finish()
}

/// The hash of [`dedupe_key`]: FxHash's step per byte, then murmur3's
/// finalizer, so that every bit of the key depends on every byte (a
/// count-min sketch takes its rows from slices of it).
struct KeyHasher(u64);

impl KeyHasher {
    fn byte(&mut self, c: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// `E0308`, `TS2322`, `CS0246`: 1 to 5 capital letters, then 2 digits or
/// more, and nothing else.
fn is_error_code(word: &[u8]) -> bool {
    let letters = word.iter().take_while(|c| c.is_ascii_uppercase()).count();
    let digits = word.len() - letters;
    (1..=5).contains(&letters) && digits >= 2 && word[letters..].iter().all(u8::is_ascii_digit)
}

/// A run of letters and digits that looks random: at least 5 long, 2
/// digits or more, and 3 runs of letters or digits or more (so neither a
/// name with a number, `arm64`, nor a number with a unit, `250ms`).
fn is_random_id(word: &[u8], digits: usize) -> bool {
    if word.len() < 5 || digits < 2 || digits == word.len() {
        return false;
    }
    let changes = word
        .windows(2)
        .filter(|p| p[0].is_ascii_digit() != p[1].is_ascii_digit())
        .count();
    changes >= 2
}

fn is_base64_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
}

/// A run of base64 bytes that looks like encoded data: see [`dedupe_key`].
fn is_base64_like(run: &[u8]) -> bool {
    if run.len() < 20 {
        return false;
    }
    let class = |c: u8| match c {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let mut seen = [0usize; 4];
    for &c in run {
        seen[class(c)] += 1;
    }
    let changes = run
        .windows(2)
        .filter(|p| class(p[0]) != class(p[1]) && class(p[0]) != 3 && class(p[1]) != 3)
        .count();
    seen[0] > 0 && seen[1] > 0 && seen[2] >= 2 && changes * 3 >= run.len()
}

/// The lines shown with a notable line of `kind` at `start..end`, inside
/// `from..to`, in file order.
pub(crate) fn context_lines(
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
        ["Detail:", "DETAIL:", "symbol:", "Hint:", "HINT:"]
            .iter()
            .any(|d| t.starts_with(d.as_bytes()))
    };
    // psql's `LINE 1: select ...` and the `^` under the spot.
    let pointer = |line: (usize, usize)| {
        let t = text(line);
        (t.starts_with(b"LINE ") && t.get(5).is_some_and(u8::is_ascii_digit))
            || (!t.is_empty() && t.iter().all(|&c| c == b'^'))
    };
    let mut out = Vec::new();
    match kind {
        Kind::Plain => {
            let after: Vec<_> = lines.after(end, 4).collect();
            if after.first().is_some_and(|&l| detail(l) || pointer(l)) {
                out.extend(after.iter().take_while(|&&l| detail(l) || pointer(l)));
            }
        }
        Kind::Paragraph => {}
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
            // cargo test's `---- tests::name stdout ----`: the test.
            out.extend(lines.before(start, 2).find(|&l| {
                let t = text(l);
                t.starts_with(b"---- ") && t.ends_with(b" ----")
            }));
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
            // The test's `=== RUN   TestX` line: where it started.
            if let Some(name) = blocks::go_test_name(&b[start..end]) {
                out.extend(
                    lines
                        .before(start, TEST_START_LINES)
                        .find(|&l| blocks::is_run_line(&b[l.0..l.1], name)),
                );
            }
        }
        Kind::GoStack => {
            // Frames are pairs: the function, then its file line.
            let mut function = None;
            for line in lines.after(end, GO_FRAMES_LINES) {
                let t = &b[line.0..line.1];
                match go_frame_file(t) {
                    Some(path) if !is_go_runtime(path, function.map(&text)) => {
                        out.extend(function);
                        out.push(line);
                        break;
                    }
                    Some(_) => function = None,
                    None => function = (!t.trim_ascii().is_empty()).then_some(line),
                }
            }
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
            // The `____ test_name ____` header of the failure's section.
            out.extend(
                lines
                    .before(start, TEST_START_LINES)
                    .take_while(|&l| !text(l).starts_with(b"===="))
                    .find(|&l| {
                        let t = text(l);
                        t.len() > 8 && t.starts_with(b"___") && t.ends_with(b"___")
                    }),
            );
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

/// Lines before a failed test searched for the line that started it.
const TEST_START_LINES: usize = 200;

/// Lines after a Go `panic:` searched for its first own stack frame.
const GO_FRAMES_LINES: usize = 40;

/// The path of a Go stack frame's file line (`\t/app/lru.go:77 +0x2d`,
/// indented), or `None` for any other line.
fn go_frame_file(line: &[u8]) -> Option<&[u8]> {
    if !matches!(line.first(), Some(b' ' | b'\t')) {
        return None;
    }
    let t = line.trim_ascii();
    let i = memchr::memmem::find(t, b".go:")?;
    let (path, rest) = (&t[..i + 3], &t[i + 4..]);
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let tail = &rest[n..];
    let frame = n > 0 && (tail.is_empty() || tail.starts_with(b" +0x")) && !path.contains(&b' ');
    frame.then_some(path)
}

/// True when a frame is the Go runtime's or the `testing` package's (under
/// GOROOT, or built with `-trimpath`), by its file's `path` or its
/// `function` line.
fn is_go_runtime(path: &[u8], function: Option<&[u8]>) -> bool {
    let under = [
        b"/usr/local/go/src/".as_slice(),
        b"/go/src/runtime/",
        b"/src/runtime/",
        b"/src/testing/",
    ]
    .iter()
    .any(|d| memchr::memmem::find(path, d).is_some());
    let trimmed = path.starts_with(b"runtime/") || path.starts_with(b"testing/");
    let function = function.map(|f| f.strip_prefix(b"created by ").unwrap_or(f));
    let std_function = function.is_some_and(|f| {
        f.starts_with(b"runtime.") || f.starts_with(b"testing.") || f.starts_with(b"panic(")
    });
    under || trimmed || std_function
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

const fn is_word_byte(c: u8) -> bool {
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
    if t.starts_with("panic: ") || t.starts_with("fatal error: ") {
        take(4, Kind::GoStack);
    }
    if t.starts_with("fatal: ") {
        take(4, Kind::Plain);
    }
    // Go's race detector; a warning by its first word only.
    if t.starts_with("WARNING: DATA RACE") {
        take(4, Kind::GoStack);
    }
    if is_out_of_memory(t) {
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
    if t.starts_with("ERROR in ") {
        take(4, Kind::Paragraph); // webpack
    }
    if is_pip_conflict(t) {
        take(4, Kind::Paragraph);
    }
    if is_destructive_plan_change(t) {
        take(3, Kind::Paragraph);
    }
    if is_permission_error(t) {
        take(3, Kind::Plain);
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
    let Some((score, kind)) = best else {
        return warning(t);
    };
    // Below definitive, a line that says something passed is not a
    // failure, and a warning is only a warning.
    if score < 4 && says_passed(t) {
        return None;
    }
    if score < 4 && is_warning(t) {
        return warning(t);
    }
    Some((score, kind))
}

/// pip's resolver giving up: `ERROR: Cannot install a and b because these
/// package versions have conflicting dependencies.` (its block says which
/// requirements conflict), or `ERROR: ResolutionImpossible`.
fn is_pip_conflict(t: &str) -> bool {
    (t.starts_with("ERROR: Cannot install ") && t.contains("conflicting dependencies"))
        || t.starts_with("ERROR: ResolutionImpossible")
}

/// A plan that deletes data: Terraform's (and OpenTofu's) `# aws_db.x must
/// be replaced` or `# aws_db.x will be destroyed` heading a resource's
/// changes, which its block shows (the attribute that `# forces
/// replacement`).
fn is_destructive_plan_change(t: &str) -> bool {
    t.starts_with("# ")
        && [
            " must be replaced",
            " will be replaced",
            " will be destroyed",
        ]
        .iter()
        .any(|end| t.ends_with(end))
}

/// Confidence of a warning: below every failure, so that warnings show only
/// where the failures leave room.
pub const WARNING_SCORE: u8 = 1;

/// A warning line, as the second tier: a compiler's `warning:` (with its
/// location, as an error), a log level (`WARN`, `WARNING:`, `npm WARN`,
/// `[warn]`, `level=warning`), or a Python warning class
/// (`UserWarning: ...`, `RuntimeWarning`).
fn warning(t: &str) -> Option<(u8, Kind)> {
    // `warning: 0 errors in module x` reports nothing.
    let zero = words(t)
        .any(|w| matches!(w.text, "error" | "errors" | "warning" | "warnings") && zero_count(t, w));
    if zero {
        return None;
    }
    if t.starts_with("warning:") || t.starts_with("warning[") || t.contains(": warning: ") {
        return Some((WARNING_SCORE, Kind::Compiler));
    }
    if is_warning(t) && !t.starts_with("warnings") {
        return Some((WARNING_SCORE, Kind::Plain));
    }
    let first = words(t).next().map(|w| w.start);
    let warned = words(t).any(|w| {
        let b = t.as_bytes();
        let before = b[..w.start].last().copied();
        let after = b.get(w.end).copied();
        match w.text {
            // A level: `WARN`, `WARNING`, `[warn]`, `level=warning`.
            "WARN" | "WARNING" => {
                matches!(before, None | Some(b'[' | b'=' | b' ' | b'\t' | b'|'))
                    && matches!(after, None | Some(b' ' | b':' | b']' | b'\t' | b'|'))
            }
            "warn" | "warning" | "Warning" => {
                matches!(before, Some(b'=' | b'['))
                    || (first == Some(w.start) && after == Some(b':'))
                    || (after == Some(b':') && t[..w.start].ends_with(": "))
            }
            name => {
                name.len() > "Warning".len()
                    && name.ends_with("Warning")
                    && name.as_bytes()[0].is_ascii_uppercase()
                    && after == Some(b':')
            }
        }
    });
    warned.then_some((WARNING_SCORE, Kind::Plain))
}

/// A file tool's permission error: `Permission denied`, `EACCES`, `EPERM`,
/// `Operation not permitted`, Windows' `Access is denied`.
fn is_permission_error(t: &str) -> bool {
    let lower = |s: &str| t.contains(s) || t.contains(&s.to_ascii_lowercase());
    lower("Permission denied")
        || lower("Access is denied")
        || lower("Access denied")
        || lower("Operation not permitted")
        || words(t).any(|w| matches!(w.text, "EACCES" | "EPERM"))
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
            // `panic(err)`, and Go's `panic({0x7a2c40?, 0xa8e3b0?})` frame.
            if in_code || zero_count(t, w) || after == Some(b'(') {
                return None;
            }
            Some((3, Kind::Plain))
        }
        "CRITICAL" | "CRIT" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            Some((3, Kind::Plain)) // [CRITICAL], CRITICAL:root:, level=CRIT
        }
        "critical" | "crit" | "Critical" => {
            // Only as a log level: prose says `critical path`.
            if in_code || zero_count(t, w) || !is_level(t, w, first) {
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
        | "OOMKilling"
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
        "OutOfMemoryError" => {
            // Thrown, where the line starts or logged inside it; not code
            // that names it (`catch (OutOfMemoryError e)`, an import).
            let head = t[..w.start].trim_end();
            let leading = head.bytes().all(|c| is_word_byte(c) || c == b'.');
            let thrown = rest.starts_with(':') || (leading && rest.trim_end().is_empty());
            if (in_code && before != Some(b'.')) || head.contains("catch") || !thrown {
                return None;
            }
            Some((4, Kind::Exception))
        }
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

/// `level=critical`, `[crit]`, `"level": "critical"`, or .NET's `crit:`
/// starting the line: `w` written as a log level.
fn is_level(t: &str, w: Word<'_>, first: bool) -> bool {
    let b = t.as_bytes();
    let before = b[..w.start].last().copied();
    let after = b.get(w.end).copied();
    let quoted_value =
        before == Some(b'"') && after == Some(b'"') && t[..w.start - 1].trim_end().ends_with(':');
    before == Some(b'=')
        || (before == Some(b'[') && after == Some(b']'))
        || (first && after == Some(b':'))
        || quoted_value
}

/// The kernel's or a cgroup's OOM kill (`Out of memory: Killed process 812
/// (java)`, `Memory cgroup out of memory: Kill process`), V8's `JavaScript
/// heap out of memory`, or a fatal `out of memory` (`FATAL: out of memory`).
fn is_out_of_memory(t: &str) -> bool {
    // Most lines have no `y`: look for the phrase where one is.
    let b = t.as_bytes();
    let Some(end) = memchr::memchr_iter(b'y', b)
        .find(|&y| b[..=y].ends_with(b"out of memory") || b[..=y].ends_with(b"Out of memory"))
    else {
        return false;
    };
    let end = end + 1;
    let (before, after) = (&t[..end - "out of memory".len()], &t[end..]);
    let fatal = words(t).any(|w| w.text.eq_ignore_ascii_case("fatal"));
    after.starts_with(": Kill") || before.ends_with("JavaScript heap ") || fatal
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
    // `train.py:40: UserWarning: ...` is Python's warning, not a failure.
    let warning = rest[n..]
        .get(2..)
        .and_then(|r| r.split(':').next())
        .is_some_and(|name| name.ends_with("Warning"));
    !warning
        && !path.is_empty()
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

/// One line shown in the notable part of a preview: from its start, or a
/// window around a search hit inside it.
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
    /// Where the bytes shown start: `start`, or for a window the first
    /// byte of the window.
    pub from: usize,
    /// A window around a search hit: the bytes of the line before `from`
    /// and after `from + keep` are cut, each side with its marker.
    pub window: bool,
}

impl Shown {
    /// A line shown from its start, `keep` bytes of it.
    pub fn line(start: usize, end: usize, similar: u64, keep: usize) -> Shown {
        Shown {
            start,
            end,
            similar,
            line: 0,
            keep,
            from: start,
            window: false,
        }
    }

    /// The bytes of the input it shows verbatim.
    pub fn range(&self, text: &str) -> (usize, usize) {
        let content_end = self.start + content_len(text, self);
        if self.from + self.keep == content_end {
            (self.from, self.end)
        } else {
            (self.from, self.from + self.keep)
        }
    }

    /// Bytes of the input this line stands in for, which head and tail must
    /// not grow into: the whole line, or a window's own bytes (a window may
    /// lie in a line the head or tail shows in part).
    pub fn reach(&self, text: &str) -> (usize, usize) {
        if self.window {
            self.range(text)
        } else {
            (self.start, self.end)
        }
    }
}

/// The notable lines a preview shows, in file order.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The lines.
    pub lines: Vec<Shown>,
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
        // A window may start in a line the head shows in part: its own
        // first byte is where it is counted from (the same line).
        for s in self.lines.iter_mut().filter(|s| s.from < mid) {
            line += count_lfs(&text[pos..s.from]);
            pos = s.from;
            s.line = line;
        }
        let (mut pos, mut line) = after;
        for s in self.lines.iter_mut().rev().filter(|s| s.from >= mid) {
            line -= count_lfs(&text[s.from..pos]);
            pos = s.from;
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
            if s.from > s.start {
                items.push(Item::LeadCut(s.from - s.start));
            }
            if s.from + s.keep == content_end {
                items.push(Item::Range(s.from, s.end));
                if !has_lf {
                    items.push(Item::Newline);
                }
            } else if s.window {
                items.push(Item::Range(s.from, s.from + s.keep));
                items.push(Item::LineCut(content_end - s.from - s.keep));
                items.push(Item::Newline);
            } else if s.keep == content_end - s.start {
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
    let before = s.from - s.start;
    let lead = if before > 0 {
        line_cut_marker(before).len()
    } else {
        0
    };
    let after = content - before - s.keep;
    let marker = if after > 0 {
        line_cut_marker(after).len()
    } else {
        0
    };
    line_prefix_len(line_digits, s.similar) + lead + s.keep + marker + 1
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
    let prefix = line_prefix_len(line_digits, s.similar);
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
/// lines they bring. Candidates are ranked by confidence, then file order,
/// except that one alike ([`Sketch::similar`]) to a line already chosen
/// waits until every other candidate of its confidence has been tried; the
/// lines that waited then fill what room is left, in file order.
pub fn select(text: &str, candidates: &[Candidate], lo: usize, hi: usize, room: Room) -> Selection {
    select_with_hits(text, candidates, lo, hi, room, &Hits::default())
}

/// The search hits of a call in the omitted bytes, for [`select_with_hits`].
#[derive(Debug, Clone, Default)]
pub struct Hits<'a> {
    /// The hits, in showing order ([`crate::search::first_hits`]).
    pub hits: &'a [Hit],
    /// How many alternatives were searched for.
    pub terms: usize,
    /// The omitted bytes the hits were searched in, which a window must
    /// not go beyond (the middle, cut lines of head and tail included).
    pub middle: (usize, usize),
}

/// [`select`], the search hits first: each gets its line if that fits a
/// window whole, else a window of [`search::window_bytes`] around it, in the
/// order given (every alternative's first hit before any second), a window
/// that would overlap another in the same line merged with it, a hit
/// already shown left alone.
pub fn select_with_hits(
    text: &str,
    candidates: &[Candidate],
    lo: usize,
    hi: usize,
    room: Room,
    hits: &Hits<'_>,
) -> Selection {
    let b = text.as_bytes();
    let mut ranked: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.start >= lo && c.end <= hi)
        .collect();
    crate::order::sort_by_key(&mut ranked, |c| (std::cmp::Reverse(c.score), c.start));
    let mut chosen = Chosen {
        text,
        room,
        lines: Vec::new(),
        taken: std::collections::HashSet::new(),
        left: room.bytes,
        lines_left: room.lines,
    };
    for &hit in hits.hits {
        if chosen.lines_left == 0 {
            break;
        }
        chosen.take_hit(hit, hits, lo, hi);
    }
    // The sketches of the candidates chosen first of their kind.
    let mut shown: Vec<Sketch> = Vec::new();
    // The first (or most severe) failure with a block comes whole, first.
    if let Some((c, block)) = first_block(text, &ranked, lo, hi)
        && chosen.take_with_context(c, lo, hi)
    {
        chosen.take_block(&block);
        shown.push(Sketch::of(b[c.start..c.end].trim_ascii_end()));
    }
    let mut waiting: Vec<&Candidate> = Vec::new();
    for (i, &c) in ranked.iter().enumerate() {
        let content_end = if b[c.end - 1] == b'\n' {
            c.end - 1
        } else {
            c.end
        };
        let sketch = Sketch::of(&b[c.start..content_end]);
        if shown.iter().take(MAX_COMPARE).any(|s| s.similar(&sketch)) {
            waiting.push(c);
        } else if chosen.take_with_context(c, lo, hi) {
            shown.push(sketch);
        }
        if ranked.get(i + 1).is_none_or(|n| n.score != c.score) {
            for c in waiting.drain(..) {
                chosen.take_with_context(c, lo, hi);
            }
        }
        if chosen.lines_left == 0 {
            break;
        }
    }
    crate::order::sort_by_key(&mut chosen.lines, |s| (s.start, s.from));
    Selection {
        lines: chosen.lines,
    }
}

/// Share of the notable lines' room a failure's block may take, in percent.
pub const BLOCK_PERCENT: usize = 60;

/// Failures looked at for one with a block, at most.
const BLOCK_TRIES: usize = 8;

/// The best ranked failure (not a warning) of `ranked` that has a block,
/// and its lines.
fn first_block<'c>(
    text: &str,
    ranked: &[&'c Candidate],
    lo: usize,
    hi: usize,
) -> Option<(&'c Candidate, Vec<(usize, usize)>)> {
    ranked
        .iter()
        .filter(|c| c.score > WARNING_SCORE)
        .take(BLOCK_TRIES)
        .find_map(|&c| {
            let block = blocks::block(text.as_bytes(), c.start, c.end, c.kind, lo, hi);
            (!block.is_empty()).then_some((c, block))
        })
}

/// The lines [`select`] has chosen so far, and the room they leave.
struct Chosen<'a> {
    text: &'a str,
    room: Room,
    lines: Vec<Shown>,
    taken: std::collections::HashSet<usize>,
    left: usize,
    lines_left: usize,
}

impl Chosen<'_> {
    /// Take `c` if it fits, then what it brings that fits; true when `c`
    /// was taken.
    fn take_with_context(&mut self, c: &Candidate, lo: usize, hi: usize) -> bool {
        if !self.take(c.start, c.end, c.similar) {
            return false;
        }
        for &(start, end) in &c.context {
            if start >= lo && end <= hi {
                self.take(start, end, 0);
            }
        }
        true
    }

    /// Take the lines of a block, best first, while they fit in the
    /// block's share of the room and leave lines for other failures.
    fn take_block(&mut self, block: &[(usize, usize)]) {
        let rest = |n: usize| (n as u128 * (100 - BLOCK_PERCENT) as u128 / 100) as usize;
        let (floor, lines_floor) = (rest(self.room.bytes), rest(self.room.lines));
        for &(start, end) in block {
            if self.taken.contains(&start) {
                continue;
            }
            let s = Shown::line(
                start,
                end,
                0,
                content_len(self.text, &Shown::line(start, end, 0, 0)),
            );
            let cost = rendered_len(self.text, &s, self.room.line_digits);
            if self.left < floor + cost || self.lines_left <= lines_floor {
                break;
            }
            if !self.take(start, end, 0) {
                break;
            }
        }
    }

    /// Show `hit`: its whole line when that is whole lines of `lo..hi` and
    /// no longer than a window, else a window around it within the line and
    /// the middle. Nothing when it is shown already or nothing fits.
    fn take_hit(&mut self, hit: Hit, hits: &Hits<'_>, lo: usize, hi: usize) {
        let b = self.text.as_bytes();
        let end = hit.at + hit.len;
        if self
            .lines
            .iter()
            .any(|s| s.range(self.text).0 <= hit.at && end <= s.range(self.text).1)
        {
            return;
        }
        let start = memrchr(b'\n', &b[..hit.at]).map_or(0, |i| i + 1);
        let line_end = memchr(b'\n', &b[hit.at..]).map_or(b.len(), |i| hit.at + i + 1);
        let content_end = if b[line_end - 1] == b'\n' {
            line_end - 1
        } else {
            line_end
        };
        let room = self.room;
        let width = search::window_bytes(room.bytes, hits.terms, room.max_line, hit.len);
        if start >= lo && line_end <= hi && content_end - start <= width {
            if !self.taken.contains(&start) {
                self.take(start, line_end, 0);
            }
            return;
        }
        let (mlo, mhi) = hits.middle;
        let (line_lo, line_hi) = (start.max(mlo), content_end.min(mhi));
        // A hit across the middle's edge: its part in the middle, next to
        // the side that shows the rest.
        let at = hit.at.max(line_lo);
        let part = Hit {
            at,
            len: end.min(line_hi).saturating_sub(at),
            ..hit
        };
        let Some(mut win) = search::window(self.text, part, line_lo, line_hi, width) else {
            return;
        };
        // Merge with a window of the same line it overlaps or touches.
        let mut replaces = None;
        for (i, s) in self.lines.iter().enumerate() {
            let (a, e) = s.range(self.text);
            if s.start == start && s.window && a <= win.1 && win.0 <= e && replaces.is_none() {
                win = (win.0.min(a), win.1.max(e.min(content_end)));
                replaces = Some(i);
            } else if a < win.1 && win.0 < e {
                return; // overlaps a line shown from its start, or two windows
            }
        }
        let shown = Shown {
            start,
            end: line_end,
            similar: 0,
            line: 0,
            keep: win.1 - win.0,
            from: win.0,
            window: true,
        };
        let cost = rendered_len(self.text, &shown, room.line_digits);
        let freed = replaces.map_or(0, |i| {
            rendered_len(self.text, &self.lines[i], room.line_digits)
        });
        if cost > self.left + freed {
            return;
        }
        self.left = self.left + freed - cost;
        match replaces {
            Some(i) => self.lines[i] = shown,
            None => {
                self.lines_left -= 1;
                self.taken.insert(start);
                self.lines.push(shown);
            }
        }
    }

    fn take(&mut self, start: usize, end: usize, similar: u64) -> bool {
        if self.lines_left == 0 || self.taken.contains(&start) {
            return false;
        }
        let room = self.room;
        let mut s = Shown::line(start, end, similar, 0);
        let Some(keep) = fit_line(self.text, &s, room.max_line, room.line_digits, self.left) else {
            return false;
        };
        s.keep = keep;
        let cost = rendered_len(self.text, &s, room.line_digits);
        if cost > self.left {
            return false;
        }
        self.left -= cost;
        self.lines_left -= 1;
        self.taken.insert(start);
        self.lines.push(s);
        true
    }
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
        // A warning is only a warning: the second tier.
        assert_eq!(score("warning: unused variable: `error`"), WARNING_SCORE);
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

    #[test]
    fn critical_is_an_error_level() {
        for line in [
            "[2024-03-11 14:06:54,737] [1] [CRITICAL] WORKER TIMEOUT (pid:4127)",
            "CRITICAL:root:database unreachable after 5 attempts",
            "2024-03-11T14:06:54Z CRIT [scheduler] lost leadership",
            "time=\"2024-03-11T14:06:54Z\" level=critical msg=\"disk full\"",
            "2024/03/11 14:06:54 [crit] 1234#0: *5 connect() to unix:/run/php.sock failed",
            "crit: Microsoft.AspNetCore.Server.Kestrel[13]",
            "{\"ts\":1710166014.7,\"level\":\"critical\",\"msg\":\"queue lost\"}",
        ] {
            assert_eq!(score(line), 3, "{line}");
        }
        for line in [
            "entering critical section for shard 3",
            "Critical path: 3 tasks (12s)",
            "non-critical update skipped",
            "CRITICAL_THRESHOLD=5",
            "Total: 3 (UNKNOWN: 0, LOW: 1, MEDIUM: 2, HIGH: 0, CRITICAL: 0)",
            "run with --critical-only to see fewer",
            "the scheduler is critical to us",
        ] {
            assert_eq!(score(line), 0, "{line}");
        }
        // The scan looks at `crit` only where a level is written.
        let text = "entering critical section\nlevel=critical msg=\"disk full\"\n\
                    2024/03/11 14:06:54 [crit] 1234#0: *5 open() \"/var/lib/nginx/body/01\" (13: Permission denied)\n";
        let found: Vec<&str> = candidates(text)
            .iter()
            .map(|c| text[c.start..c.end].trim_end())
            .collect();
        assert_eq!(
            found,
            [
                "level=critical msg=\"disk full\"",
                "2024/03/11 14:06:54 [crit] 1234#0: *5 open() \"/var/lib/nginx/body/01\" (13: Permission denied)"
            ]
        );
    }

    #[test]
    fn races_and_out_of_memory_are_definitive() {
        assert_eq!(classify("WARNING: DATA RACE"), Some((4, Kind::GoStack)));
        assert_eq!(score("WARNING: unused import"), WARNING_SCORE);
        // Go reports the race again where the test ends; unchanged.
        assert_eq!(
            score("    testing.go:1398: race detected during execution of test"),
            0
        );
        for line in [
            "[81234.567890] Out of memory: Killed process 81234 (java) total-vm:8123456kB, anon-rss:4194304kB",
            "[  512.100000] Out of memory: Kill process 4127 (gunicorn) score 912 or sacrifice child",
            "Memory cgroup out of memory: Killed process 4127 (gunicorn) total-vm:912344kB",
            "default   7m   Warning   OOMKilling   node/ip-10-0-5-33.ec2.internal   Memory cgroup out of memory: Killed process 81234 (java)",
            "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
            "2024-03-11 14:00:00.123 ERROR [pool-1] c.a.Worker - java.lang.OutOfMemoryError: GC overhead limit exceeded",
            "java.lang.OutOfMemoryError",
            "fatal error: runtime: out of memory",
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            "2024-03-11 14:00:00.123 UTC [4127] FATAL:  out of memory",
        ] {
            assert_eq!(score(line), 4, "{line}");
        }
        for line in [
            "} catch (OutOfMemoryError e) {",
            "import java.lang.OutOfMemoryError;",
            "set NODE_OPTIONS so that builds do not run out of memory",
            "2024-03-11T14:00:00Z   Normal   Killing   pod/web-1   Stopping container web",
            "vm.overcommit_memory = 1",
            "panic({0x7a2c40?, 0xa8e3b0?})",
            "    panic(err)",
            "grep -c \"WARNING: DATA RACE\" race.log",
        ] {
            assert_eq!(score(line), 0, "{line}");
        }
    }

    /// The lines `found` shows with the candidate starting with `head`.
    fn brought(text: &str, found: &[Candidate], head: &str) -> Vec<String> {
        let c = found
            .iter()
            .find(|c| text[c.start..].starts_with(head))
            .unwrap_or_else(|| panic!("no candidate {head:?} in {found:?}"));
        c.context
            .iter()
            .map(|&(a, e)| text[a..e].trim_end().to_owned())
            .collect()
    }

    #[test]
    fn a_go_race_brings_its_first_own_frame() {
        let text = "=== RUN   TestConcurrentPut\n\
            ==================\n\
            WARNING: DATA RACE\n\
            Write at 0x00c000126f88 by goroutine 23:\n  \
              runtime.mapassign_faststr()\n      \
                  /usr/local/go/src/runtime/map_faststr.go:203 +0x0\n  \
              github.com/acme/cache/lru.(*Cache).Put()\n      \
                  /home/runner/work/cache/cache/lru/lru.go:52 +0x1c4\n  \
              github.com/acme/cache/lru.TestConcurrentPut.func1()\n      \
                  /home/runner/work/cache/cache/lru/lru_test.go:118 +0x8c\n\
            \n\
            Previous read at 0x00c000126f88 by goroutine 22:\n  \
              github.com/acme/cache/lru.(*Cache).Get()\n      \
                  /home/runner/work/cache/cache/lru/lru.go:38 +0x7a\n\
            \n\
            Goroutine 23 (running) created at:\n  \
              testing.(*T).Run()\n      \
                  /usr/local/go/src/testing/testing.go:1742 +0x825\n\
            ==================\n    \
                testing.go:1398: race detected during execution of test\n\
            --- FAIL: TestConcurrentPut (0.02s)\n";
        let found = candidates(text);
        assert_eq!(
            brought(text, &found, "WARNING: DATA RACE"),
            [
                "  github.com/acme/cache/lru.(*Cache).Put()",
                "      /home/runner/work/cache/cache/lru/lru.go:52 +0x1c4"
            ]
        );
        assert_eq!(
            brought(text, &found, "--- FAIL"),
            [
                "=== RUN   TestConcurrentPut",
                "    testing.go:1398: race detected during execution of test"
            ]
        );
    }

    #[test]
    fn a_go_panic_brings_its_first_own_frame() {
        let text = "=== RUN   TestEvictUnderPressure\n\
            --- FAIL: TestEvictUnderPressure (0.00s)\n\
            panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n\
            \tpanic: runtime error: invalid memory address or nil pointer dereference\n\
            [signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6b1f2d]\n\
            \n\
            goroutine 87 [running]:\n\
            testing.tRunner.func1.2({0x7a2c40, 0xa8e3b0})\n\
            \t/opt/hostedtoolcache/go/1.22.1/x64/src/testing/testing.go:1631 +0x24a\n\
            testing.tRunner.func1()\n\
            \t/opt/hostedtoolcache/go/1.22.1/x64/src/testing/testing.go:1634 +0x377\n\
            panic({0x7a2c40?, 0xa8e3b0?})\n\
            \t/opt/hostedtoolcache/go/1.22.1/x64/src/runtime/panic.go:770 +0x132\n\
            github.com/acme/cache/lru.(*Cache).evict(0xc0001a2000)\n\
            \t/home/runner/work/cache/cache/lru/lru.go:77 +0x2d\n\
            github.com/acme/cache/lru.TestEvictUnderPressure(0xc000183a00)\n\
            \t/home/runner/work/cache/cache/lru/lru_test.go:201 +0x11b\n\
            testing.tRunner(0xc000183a00, 0x8b2f50)\n\
            \t/opt/hostedtoolcache/go/1.22.1/x64/src/testing/testing.go:1689 +0xfb\n\
            created by testing.(*T).Run in goroutine 1\n\
            \t/opt/hostedtoolcache/go/1.22.1/x64/src/testing/testing.go:1742 +0x390\n\
            exit status 2\n\
            FAIL\tgithub.com/acme/cache/lru\t0.412s\n";
        let found = candidates(text);
        let frame = [
            "github.com/acme/cache/lru.(*Cache).evict(0xc0001a2000)",
            "\t/home/runner/work/cache/cache/lru/lru.go:77 +0x2d",
        ];
        assert_eq!(brought(text, &found, "panic: runtime error"), frame);
        // The frame of `panic(...)` itself is no failure line.
        assert!(!found.iter().any(|c| text[c.start..].starts_with("panic({")));

        // Built with -trimpath, an inlined frame without its offset, and a
        // deadlock.
        let text = "panic: assignment to entry in nil map\n\n\
            goroutine 1 [running]:\n\
            runtime/debug.Stack()\n\
            \truntime/debug/stack.go:24 +0x5e\n\
            main.(*Server).register(...)\n\
            \t/app/server.go:41\n\
            main.main()\n\
            \t/app/main.go:12 +0x45\n\
            fatal error: all goroutines are asleep - deadlock!\n\n\
            goroutine 1 [chan receive]:\n\
            main.main()\n\
            \t/home/dev/app/main.go:9 +0x2c\n";
        let found = candidates(text);
        assert_eq!(
            brought(text, &found, "panic: assignment"),
            ["main.(*Server).register(...)", "\t/app/server.go:41"]
        );
        assert_eq!(
            brought(text, &found, "fatal error: all goroutines"),
            ["main.main()", "\t/home/dev/app/main.go:9 +0x2c"]
        );
    }

    #[test]
    fn dedupe_treats_random_ids_as_one_and_keeps_words() {
        let key = |s: &str| dedupe_key(s.as_bytes());
        // Kubernetes' generated names, a table's padding.
        assert_eq!(
            key(
                "staging   5h    Warning   Unhealthy   pod/search-x68n5h5nhn-2r4vp    Readiness probe failed"
            ),
            key(
                "staging   12h   Warning   Unhealthy   pod/search-ph6cp52mr6-q7k9t Readiness probe failed"
            ),
        );
        assert_eq!(
            key("rs/web-7d9f8c6b5 scaled"),
            key("rs/web-49775tdjl5 scaled")
        );
        // Tokens and digests.
        assert_eq!(
            key("401 for token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 from 10.0.0.1"),
            key("401 for token eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ== from 10.0.0.7"),
        );
        assert_eq!(
            key("\"integrity\": \"sha512-Dmx3a2ZXb1J+vNkx0bUh5c2VRT0pHa2hX/RkFkWlp6dz09==\""),
            key("\"integrity\": \"sha512-q8Ze3Kb0w7Yt+Pn2Vc9Lm4Hs1Jd6Fg5Rx/3Tk0Qa8Ue7Wi==\""),
        );
        assert_eq!(key("timeout after 250ms"), key("timeout after 30ms"));
        // Words, paths and error codes stay.
        for (a, b) in [
            (
                "error[E0308]: mismatched types",
                "error[E0277]: mismatched types",
            ),
            ("error TS2322: x", "error TS2345: x"),
            ("Compiling src/lib.rs", "Compiling src/cli.rs"),
            ("MAX_RETRIES exceeded", "MAX_REQUESTS exceeded"),
            ("build for arm64 failed", "build for amd64 failed"),
            (
                "open /Users/John/Projects/app2/src/main.rs failed",
                "open /Users/Jane/Projects/app2/src/main.rs failed",
            ),
            ("pod/search-abc failed", "pod/search-abd failed"),
        ] {
            assert_ne!(key(a), key(b), "{a} / {b}");
        }
        assert_eq!(
            key("open /Users/John/Projects/app2/src/main.rs failed"),
            key("open /Users/John/Projects/app3/src/main.rs failed"),
        );
    }

    #[test]
    fn sketches_tell_lines_alike() {
        let alike = |a: &str, b: &str| Sketch::of(a.as_bytes()).similar(&Sketch::of(b.as_bytes()));
        let unhealthy = "staging   5h   Warning   Unhealthy   pod/search-x68n5h5nhn-2rnvp   \
                         Readiness probe failed: HTTP probe failed with statuscode: 503";
        assert!(alike(
            unhealthy,
            "prod   40m   Warning   Unhealthy   pod/web-hwww6j6ktm-q5cps   \
             Readiness probe failed: HTTP probe failed with statuscode: 503"
        ));
        assert!(!alike(
            unhealthy,
            "default   7m   Warning   OOMKilling   node/ip-10-0-5-33.ec2.internal   \
             Memory cgroup out of memory: Killed process 81234 (java)"
        ));
        assert!(!alike(
            "--- FAIL: TestParse (0.00s)",
            "--- FAIL: TestRender (0.01s)"
        ));
        assert!(alike(
            "error: cannot find value `x` in this scope",
            "error: cannot find value `total` in this scope"
        ));
        assert!(!alike("", ""));
        // Beyond SKETCH_WORDS words, estimated from the smallest hashes.
        let long: String = (0..200)
            .map(|i| format!("w{} ", char::from(b'a' + (i % 26) as u8)).repeat(1 + i / 26))
            .collect();
        assert!(alike(&long, &long));
    }

    /// The workspace's seeded generator, with what synthetic logs draw.
    struct Rng(crate::test_support::SplitMix);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.next() as usize % from.len()]
        }
        fn name(&mut self, len: usize) -> String {
            let alphabet = b"bcdfghjklmnpqrstvwxz2456789";
            (0..len)
                .map(|_| char::from(alphabet[self.next() as usize % alphabet.len()]))
                .collect()
        }
    }

    /// `kubectl get events -A` on a large cluster: `unhealthy` readiness
    /// failures of random pods in 5 namespaces among normal events, then the
    /// `late` rows, then more of the same.
    fn kubectl_events(unhealthy: usize, late: &[&str]) -> String {
        let mut rng = Rng(crate::test_support::SplitMix::new(0x9e37_79b9_7f4a_7c15));
        let mut text = String::from(
            "NAMESPACE       LAST SEEN   TYPE      REASON              OBJECT                                        MESSAGE\n",
        );
        let mut row =
            |rng: &mut Rng, text: &mut String, kind: &str, reason: &str, message: &str| {
                let ns = rng.pick(&[
                    "prod",
                    "staging",
                    "team-data",
                    "monitoring",
                    "ingress-nginx",
                ]);
                let deploy = rng.pick(&[
                    "web", "api", "search", "checkout", "auth", "pricing", "reviews",
                ]);
                let pod = format!("pod/{deploy}-{}-{}", rng.name(10), rng.name(5));
                let age = format!("{}m", rng.next() % 300);
                text.push_str(&format!(
                    "{ns:<15} {age:<11} {kind:<9} {reason:<19} {pod:<45} {message}\n"
                ));
            };
        let normal =
            |rng: &mut Rng,
             text: &mut String,
             row: &mut dyn FnMut(&mut Rng, &mut String, &str, &str, &str)| {
                match rng.next() % 3 {
                    0 => row(
                        rng,
                        text,
                        "Normal",
                        "Pulled",
                        "Container image \"registry/app:1.4.2\" already present on machine",
                    ),
                    1 => row(rng, text, "Normal", "Started", "Started container app"),
                    _ => row(
                        rng,
                        text,
                        "Normal",
                        "Scheduled",
                        "Successfully assigned pod to node",
                    ),
                }
            };
        let readiness = "Readiness probe failed: HTTP probe failed with statuscode: 503";
        for i in 0..unhealthy + 50 {
            if i == unhealthy {
                for line in late {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            normal(&mut rng, &mut text, &mut row);
            row(&mut rng, &mut text, "Warning", "Unhealthy", readiness);
            normal(&mut rng, &mut text, &mut row);
        }
        text
    }

    const OOM_ROW: &str = "default         7m          Warning   OOMKilling          node/ip-10-0-5-33.ec2.internal                \
        Memory cgroup out of memory: Killed process 81234 (java) total-vm:8123456kB, anon-rss:4194304kB";
    const SCHEDULING_ROW: &str = "team-data       19m         Warning   FailedScheduling    pod/search-indexer-5c8d7f9b4-qk2lm            \
        0/42 nodes are available: 42 Insufficient memory.";
    const BACKOFF_ROW: &str = "prod            3m12s       Warning   BackOff             pod/payments-api-7d9f8c6b5-x2kqp              \
        Back-off restarting failed container api in pod payments-api-7d9f8c6b5-x2kqp_prod";

    fn shown(text: &str, sel: &Selection) -> Vec<String> {
        sel.lines
            .iter()
            .map(|s| text[s.start..s.end].trim_end().to_owned())
            .collect()
    }

    #[test]
    fn rare_events_are_shown_among_many_alike() {
        let text = kubectl_events(600, &[SCHEDULING_ROW, BACKOFF_ROW, OOM_ROW]);
        let room = Room {
            bytes: 4096,
            lines: usize::MAX,
            max_line: Some(2000),
            line_digits: 4,
        };
        // What the preview keeps for a room of 4 KiB (see `cap`).
        let keep = room.lines.min(room.bytes / 12).clamp(1, 2048) * 2;
        for keep in [keep, 16] {
            let found = scan(&text, 0, text.len(), &Patterns::new(&[]), keep);
            assert!(found.len() <= 4 * keep);
            let lines = shown(&text, &select(&text, &found, 0, text.len(), room));
            for row in [OOM_ROW, SCHEDULING_ROW, BACKOFF_ROW] {
                assert!(
                    lines.iter().any(|l| l == row),
                    "keep {keep}: {row} not in {lines:#?}"
                );
            }
            // The readiness failures fill the rest of the room.
            let unhealthy = lines.iter().filter(|l| l.contains("Unhealthy")).count();
            assert!(unhealthy > 5, "keep {keep}: {lines:#?}");
        }
    }

    #[test]
    fn a_line_alike_waits_behind_the_others_of_its_confidence() {
        let text = "2024-03-11 ERROR [alpha] sync failed for shard 17: upstream timed out\n\
                    2024-03-11 ERROR [beta] sync failed for shard 18: upstream timed out\n\
                    2024-03-11 ERROR [gamma] sync failed for shard 19: upstream timed out\n\
                    2024-03-11 ERROR [billing] invoice 7 rejected: card expired\n";
        let found = candidates(text);
        assert_eq!(found.len(), 4);
        let room = |lines| Room {
            bytes: 4096,
            lines,
            max_line: None,
            line_digits: 1,
        };
        let two = shown(text, &select(text, &found, 0, text.len(), room(2)));
        assert!(
            two[0].contains("alpha") && two[1].contains("invoice"),
            "{two:?}"
        );
        let three = shown(text, &select(text, &found, 0, text.len(), room(3)));
        assert!(
            three[1].contains("beta") && three[2].contains("invoice"),
            "{three:?}"
        );
    }
}
