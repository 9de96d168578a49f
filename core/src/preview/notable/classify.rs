//! Whether a line reports a failure, and how surely: the rules for each
//! tool's failure lines, warnings and look-alikes, and the anchors the
//! scan finds their lines by. Teaching the preview a new tool's failure
//! line is a change here: its rule (which searches the line with
//! [`Line::has`]), its example in the tests' `DEFINITIVE`
//! or `NOTABLE`, and an anchor if none finds its lines yet
//! (`every_failure_example_passes_the_prefilters` fails until one does). A
//! failure that brings lines along adds a [`Kind`] in `context` too.

use std::ops::Deref;

use super::context::Kind;
use super::escapes::without_escapes;
use super::pairs::Pairs;

/// Substrings that start the search for failure lines. Over a short middle
/// each is one pass of `memchr::memmem` and [`RARE`] bytes are one more;
/// over a long one, one automaton finds them all
/// ([`super::Patterns::anchored_lines`]). A hit counts if
/// [`LEVEL_ANCHORS`] allow it. Where it can, an anchor starts on
/// bytes rare in text (`ddrinfo`, not `getaddrinfo`): the one-pass
/// preview's automaton ([`super::Patterns`]) is prefiltered on first bytes,
/// natively four of the anchors of four bytes or more and three of the
/// shorter ones, which go in an automaton of their own
/// ([`super::split`]); in wasm three, then four where a literal has them
/// ([`super::fingerprint`]). One `FA` for `FAIL` and `FATAL` made that
/// search of a 4 MiB log 2.5 times slower. Natively the long searches are
/// at most 64, Teddy's most: past that an anchor goes with the short ones
/// ([`NATIVELY_SHORT`]).
pub(super) const ANCHORS: [&str; 70] = [
    "rror",              // error, Error, TypeError, make's `Error 2`, `error TS2322`
    "ERR",               // ERROR, npm ERR!, docker `ERROR [`
    "FAIL",              // FAIL, FAILED, FAILURE
    "FATAL",             //
    "ail",               // failed, Failed, failure, FailedScheduling
    "anic",              // panic, panicked
    "atal",              // fatal:, Fatal error
    "Traceback",         // Python
    "BackOff",           // CrashLoopBackOff, ImagePullBackOff, BackOff
    "egmentation",       // Segmentation fault
    "\" 5",              // HTTP 5xx in access logs
    "CRIT",              // CRITICAL, CRIT
    "crit",              // level=critical, nginx's [crit], .NET's `crit:`
    "emerg",             // nginx's and syslog's [emerg], level=emerg
    "alert",             // nginx's and syslog's [alert], level=alert
    "WARN",              // WARN, WARNING (Go's `WARNING: DATA RACE`), npm WARN: the second tier
    "arning",            // warning:, Warning:, UserWarning, RuntimeWarning
    "denied",            // Permission denied, Access is denied
    "EACCES",            // Node's and libc's permission errors (EPERM comes with `not permitted`)
    "not permitted",     // Operation not permitted
    "e replaced",        // terraform plan: `# aws_db.x must be replaced`
    "e destroyed",       // terraform plan: `# aws_db.x will be destroyed`
    "not found",         // a shell's `command not found`, `sh: 1: protoc: not found`
    "No such file",      // coreutils and libc: `cat: x: No such file or directory`
    "dumped",            // `Aborted (core dumped)`, timeout's `dumped core`
    "timed out",         // `Operation timed out`, `Connection timed out`
    "refused",           // `Connection refused`
    "terminate called",  // C++: `terminate called after throwing an instance of`
    "ErrImage",          // Kubernetes: ErrImagePull, ErrImageNeverPull
    "InvalidImage",      // Kubernetes: InvalidImageName
    "Evicted",           // Kubernetes
    "E: ",               // apt: `E: Unable to locate package x`
    "No space left",     // `No space left on device`
    "CONFLICT (",        // git: `CONFLICT (content): Merge conflict in x`
    "undefined: ",       // Go: `./main.go:5:2: undefined: x`
    "and not used",      // Go: `declared and not used: x`, `imported and not used`
    "resolve host",      // curl's and git's `Could not resolve host: x`
    "ddrinfo",           // Node: `getaddrinfo ENOTFOUND x`, `getaddrinfo EAI_AGAIN x`
    "ECONN",             // Node: ECONNREFUSED, ECONNRESET, ECONNABORTED
    "rtificate",         // `SSL certificate problem`, `x509: certificate signed by`
    "HTTP/1.1 5",        // a 5xx status line: `HTTP/1.1 503 Service Unavailable`
    "HTTP/2 5",          // `< HTTP/2 502` (curl -v)
    "Gateway",           // `<h1>502 Bad Gateway</h1>`, `504 Gateway Time-out`
    "Many Requests",     // `HTTP 429 Too Many Requests`
    "ejected]",          // git push: ` ! [rejected]`, ` ! [remote rejected]`
    "BUG: ",             // the kernel: `BUG: kernel NULL pointer dereference`
    "== Invalid",        // valgrind: `==1234== Invalid read of size 4`
    "E   ",              // pytest: `E       assert 3 == 4` (where a line starts)
    "-zero ",            // Docker: `The command '/bin/sh -c x' returned a non-zero code: 1`
    "not ok",            // TAP: `not ok 3 - should add`
    "e: file:",          // Kotlin: `e: file:///app/Main.kt:12:5 Unresolved reference: x`
    ".kt: (",            // Kotlin before 1.9: `e: /app/Main.kt: (12, 5): Unresolved ...`
    "egfault",           // the kernel: `app[42]: segfault at 0 ip ...`, `Segfault`
    "\u{d7} ",           // miette's diagnostics (uv, ...): `  × No solution found`
    "undefined ref",     // GNU ld: `main.c:(.text+0x1e): undefined reference to `foo'`
    "nbound var",        // bash's `set -u`: `./deploy.sh: line 12: HOME_DIR: unbound variable`
    "Could not",         // Bundler's `Could not find gem 'x'`, Gradle's `Could not resolve all`
    "Cannot ",           // `Cannot connect to the Docker daemon`, `fork: Cannot allocate memory`
    "/o tim",            // Go: `dial tcp 10.0.0.1:443: i/o timeout`
    "*** ",              // make's `make[1]: *** No rule`, glibc's `*** stack smashing detected ***`
    "nly file system",   // `touch: cannot touch 'x': Read-only file system`
    "reset by peer",     // Go's `read: connection reset by peer`
    "ecognized as",      // Windows: `'x' is not recognized as an internal or external command`
    "ddress already in", // `listen tcp :8080: bind: address already in use`
    ": killed",          // zsh's `zsh: killed  python x.py`, Go's `signal: killed`
    "navailable",        // `503 Service Unavailable`, `Resource temporarily unavailable`
    "oo many",           // `accept4: Too many open files`, bash's `[: too many arguments`
    "Aborted",           // a shell's report of SIGABRT (`Aborted`, no core dumped)
    "busy",              // `Device or resource busy`, `Text file busy`
    "ORA-",              // Oracle: `ORA-00942: table or view does not exist`
];

/// Anchors of four bytes or more that natively go with the three-byte
/// searches, fingerprinted by their first three bytes, so that the long
/// ones stay within Teddy's 64: these start with three bytes few texts hold
/// (the bench's log, alike lines and JSON as fast as with them long;
/// `egfault` and `egmentation` there made Django's Python 17% slower). In
/// wasm every anchor is fingerprinted alike ([`super::fingerprint`]).
/// Which anchors fit is measured, not reasoned: Teddy puts a literal in a
/// bucket by its place in the list, and one more or less moves the rest.
/// Here `Illegal inst` (bash's `Illegal instruction`) made the short search
/// of Rust, Markdown and Python sources 1.6-1.8 times as slow, and `such
/// host` (Go's `no such host`) that of a build log of warnings five times;
/// `such host` with the long ones (and `ejected]` here) made their search
/// of the log, the alike lines and the minified text 1.8-2.8 times as slow.
/// Both stay unfound.
pub(super) const NATIVELY_SHORT: [&str; 4] = [".kt: (", "/o tim", "busy", "ORA-"];

/// Anchors that are words of prose (`critical path`) or columns of a table
/// (`TYPE   NAME`) too: a hit counts only where a log level is written,
/// after `=`, `[` or `"`, or starting a line.
pub(super) const LEVEL_ANCHORS: [&str; 4] = ["crit", "E   ", "emerg", "alert"];

/// Bytes searched together (`memchr3`), each checked where it occurs: `x`
/// of exception, exit and exceed (`context deadline exceeded`), `K` of
/// Kill, Killed, OOMKilled and OOMKilling (and so of the kernel's `Out of
/// memory: Killed process`), and the lead byte of the cross marks of test
/// runners (✕ ✖ ✗ ✘) and of Jest's `●`.
pub(super) const RARE: [u8; 3] = [b'x', b'K', 0xE2];

/// The words [`RARE`] bytes stand for, as [`super::scan::rare_lines`] checks them: the
/// prefilter of [`super::Patterns::may_be_notable`]. Each starts on its
/// rare byte, the letter before unread (`xit` of exit and Exit): one search
/// for both cases, and natively `xit` goes with the short searches, which
/// left three of Teddy's 64 for anchors.
pub(super) const RARE_SIGNS: [&str; 9] = [
    "xception", // exception, Exception
    "xit",      // exit, Exit
    "xceed",    // exceed, exceeded
    "Kill",     // Kill, Killed, OOMKilled
    "\u{2715}", // the cross marks of test runners: ✕
    "\u{2716}", // ✖
    "\u{2717}", // ✗
    "\u{2718}", // ✘
    "\u{25cf}", // Jest's failed test: ●
];

/// A line being classified, and the pairs of bytes it holds: [`Line::has`]
/// rules out most phrases without a search (on a log of warnings, where
/// every line is classified, the searches were half the time).
pub(super) struct Line<'a> {
    text: &'a str,
    pairs: Pairs,
}

impl<'a> Line<'a> {
    fn new(text: &'a str) -> Line<'a> {
        Line {
            text,
            pairs: Pairs::of(text),
        }
    }

    /// The line searched for every phrase, as [`has`] alone would.
    #[cfg(any(test, feature = "test-support"))]
    fn searched(text: &'a str) -> Line<'a> {
        Line {
            text,
            pairs: Pairs::any(),
        }
    }

    /// Whether `needle` occurs in the line, as `str::contains`. Not
    /// inlined: in forty places it was 5 KB of component for 2% of a log
    /// of warnings.
    #[inline(never)]
    fn has(&self, needle: &str) -> bool {
        self.pairs.may_hold(needle) && has(self.text, needle)
    }

    /// [`has_ignoring_case`] of the line.
    fn has_ignoring_case(&self, needle: &str) -> bool {
        self.pairs.may_hold(needle) && has_ignoring_case(self.text, needle)
    }

    /// [`has_lowercased`] of the line.
    fn has_lowercased(&self, needle: &str) -> bool {
        self.pairs.may_hold(needle) && has_lowercased(self.text, needle)
    }
}

impl Deref for Line<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.text
    }
}

/// Whether `needle` occurs in `line`, as `str::contains`: a line is
/// classified by thirty-odd phrases, and a scan for each one's first byte
/// costs less than the searcher `str::contains` builds per call (its
/// setup was 2% of a 4 MiB cap in the component).
fn has(line: &str, needle: &str) -> bool {
    find(line, needle).is_some()
}

/// Where `needle` first occurs in `line`, as `str::find`, found as [`has`]
/// finds it: three rules searched with `str::find` on every line, a
/// searcher each, were 8% of capping a log of warnings. (Scanning for a
/// rarer byte of the needle saved up to 9% natively and cost the component
/// up to 30%: choosing it, per needle and line, cost more than it saved.)
fn find(line: &str, needle: &str) -> Option<usize> {
    let (line, needle) = (line.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    memchr::memchr_iter(first, line).find(|&i| line[i + 1..].starts_with(rest))
}

/// Whether `needle` (in ASCII lower case) occurs in `line` ignoring ASCII
/// case, as `line.to_ascii_lowercase().contains(needle)`, with no copy.
fn has_ignoring_case(line: &str, needle: &str) -> bool {
    let (line, needle) = (line.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), line).any(|i| {
        line.get(i + 1..i + 1 + rest.len())
            .is_some_and(|after| after.eq_ignore_ascii_case(rest))
    })
}

/// Whether `needle` in ASCII lower case occurs in `line`, as
/// `line.contains(&needle.to_ascii_lowercase())`, with no copy.
fn has_lowercased(line: &str, needle: &str) -> bool {
    let (line, needle) = (line.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    memchr::memchr_iter(first.to_ascii_lowercase(), line).any(|i| {
        line.get(i + 1..i + 1 + rest.len()).is_some_and(|after| {
            after
                .iter()
                .zip(rest)
                .all(|(a, b)| *a == b.to_ascii_lowercase())
        })
    })
}

/// A word of a line: a run of ASCII letters, digits and `_`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

pub(super) fn words(line: &str) -> impl Iterator<Item = Word<'_>> {
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

/// The words of `line` that are `name` or its plural (`name` and `s`),
/// as [`words`] finds them, found where `name` occurs.
fn words_named<'a>(line: &'a str, name: &'a str) -> impl Iterator<Item = Word<'a>> {
    let b = line.as_bytes();
    let first = name.as_bytes()[0];
    memchr::memchr_iter(first, b).filter_map(move |start| {
        let mut end = start + name.len();
        if !b[start..].starts_with(name.as_bytes()) || (start > 0 && is_word_byte(b[start - 1])) {
            return None;
        }
        if b.get(end) == Some(&b's') {
            end += 1;
        }
        if b.get(end).is_some_and(|&c| is_word_byte(c)) {
            return None;
        }
        Some(Word {
            text: &line[start..end],
            start,
            end,
        })
    })
}

pub(super) const fn is_word_byte(c: u8) -> bool {
    WORD_BYTES[c as usize]
}

/// ASCII letters, digits and `_`, by byte: one load where the test was
/// three ranges (words are split on every classified line, twice or more).
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = (c as u8).is_ascii_alphanumeric() || c == b'_' as usize;
        c += 1;
    }
    table
};

/// Only this much of a line is classified.
pub(super) const CLASSIFY_BYTES: usize = 4096;

/// How sure we are that `line` (without its LF) reports a failure: 1 to 4,
/// and what it brings along; `None` when it does not.
pub fn classify(line: &str) -> Option<(u8, Kind)> {
    classify_as(line, |t| Line::new(t))
}

/// [`classify`] as if every phrase were searched for, with no pairs to
/// rule any out: what the fuzz check compares [`classify`] with.
#[cfg(any(test, feature = "test-support"))]
pub fn classify_searching_every_phrase(line: &str) -> Option<(u8, Kind)> {
    classify_as(line, |t| Line::searched(t))
}

/// [`classify`], with `line` (trimmed) read as `read` makes it; a line
/// with terminal escapes (colours) as it reads without them.
fn classify_as(line: &str, read: for<'a> fn(&'a str) -> Line<'a>) -> Option<(u8, Kind)> {
    let line = &line[..line.floor_char_boundary(CLASSIFY_BYTES)];
    if memchr::memchr(0x1b, line.as_bytes()).is_some() {
        return classify_plain(&without_escapes(line), read);
    }
    classify_plain(line, read)
}

fn classify_plain(line: &str, read: for<'a> fn(&'a str) -> Line<'a>) -> Option<(u8, Kind)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let t = line.trim_start();
    // Terraform and friends frame their messages in a box.
    let t = &read(t.strip_prefix("│ ").map_or(t, str::trim_start));
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
            .any(|s| has(rest, s));
        take(if summary { 3 } else { 4 }, Kind::Compiler);
    }
    if t.has("Traceback (most recent call last)") {
        take(4, Kind::Traceback);
    }
    if let Some(rest) = t.strip_prefix("● ")
        && has(rest, " › ")
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
    if t.starts_with("--- FAIL") || t.has(" --- FAIL: ") {
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
    // A GitHub Actions annotation a tool writes: `::error file=x,line=1::message`.
    if t.starts_with("::error ") || t.starts_with("::error::") {
        take(4, Kind::Plain);
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
    if is_make_error(t) || is_not_recognized_command(t) || is_libc_abort(t) {
        take(4, Kind::Plain);
    }
    if t.has("panicked at") {
        let kind = if t.ends_with(':') {
            Kind::Panic
        } else {
            Kind::Plain
        };
        take(4, kind);
    }
    if t.has("Segmentation fault")
        || t.has("segmentation fault") // zsh: `zsh: segmentation fault  ./a.out`
        || t.has("(core dumped)")
        || t.has("dumped core")
    {
        take(4, Kind::Plain);
    }
    if t.starts_with("not ok ") || t.starts_with("ERR_PNPM_") {
        take(4, Kind::Plain); // TAP's failed test; pnpm's errors
    }
    if t.starts_with("Failure/Error: ") || t.starts_with("CMake Error") {
        take(4, Kind::Paragraph); // RSpec's expected/got, CMake's message
    }
    if is_nonzero_exit(t) {
        take(3, Kind::Plain);
    }
    if t.starts_with("terminate called after throwing") {
        take(4, Kind::Paragraph); // C++: `  what():  ...` follows
    }
    if is_missing_command(t) {
        take(4, Kind::Plain);
    }
    if t.has("No such file or directory") {
        take(3, Kind::Plain);
    }
    if is_apt_error(t)
        || t.has("No space left on device")
        || t.starts_with("CONFLICT (")
        || t.has("symbol(s) not found")
        || is_go_compile_error(t)
    {
        take(4, Kind::Plain);
    }
    if is_kotlin_error(t) {
        take(4, Kind::Compiler);
    }
    if t.starts_with("\u{d7} ") {
        take(4, Kind::Plain); // miette: `  × No solution found when resolving`
    }
    if is_network_failure(t) || is_tls_failure(t) || is_http_5xx_status(t) {
        take(3, Kind::Plain);
    }
    if is_push_rejected(t) {
        take(4, Kind::Plain);
    }
    if is_kernel_bug(t) || is_valgrind_error(t) {
        take(4, Kind::Paragraph); // the trace or stack follows
    }
    if is_pytest_error_detail(line) {
        take(3, Kind::Plain);
    }
    if t.has("didn't exit successfully") {
        take(4, Kind::Plain);
    }
    if is_unresolved_name(t) || is_failed_recap(t) || is_failed_unit(t) {
        take(4, Kind::Plain);
    }
    if starts_could_not(t) || is_limit_exceeded(t) || is_killed(t) {
        take(3, Kind::Plain);
    }
    if t.has(" is not recognized as ") || is_address_in_use(t) || is_http_error_reason(t) {
        take(3, Kind::Plain); // `'x' is not recognized as a valid date`, EADDRINUSE, 502
    }
    if is_missing_dependency(t)
        || is_ruby_uncaught(t)
        || is_rails_exception(t)
        || is_module_exception(t)
    {
        take(4, Kind::Plain);
    }
    if is_system_error(t) || is_oracle_error(t) {
        take(3, Kind::Plain);
    }
    // The marks are `E2 9C 95..98`: a line without an 0xE2 byte decodes
    // no chars.
    if memchr::memchr(0xE2, t.as_bytes()).is_some()
        && let Some(mark) = t.chars().find(|c| matches!(c, '✕' | '✖' | '✗' | '✘'))
    {
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
pub(super) fn is_pip_conflict(t: &Line<'_>) -> bool {
    (t.starts_with("ERROR: Cannot install ") && t.has("conflicting dependencies"))
        || t.starts_with("ERROR: ResolutionImpossible")
}

/// A plan that deletes data: Terraform's (and OpenTofu's) `# aws_db.x must
/// be replaced` or `# aws_db.x will be destroyed` heading a resource's
/// changes, which its block shows (the attribute that `# forces
/// replacement`).
pub(super) fn is_destructive_plan_change(t: &str) -> bool {
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
pub(super) fn warning(t: &Line<'_>) -> Option<(u8, Kind)> {
    // `warning: 0 errors in module x`, `Warnings: 0, Errors: 0` report
    // nothing. (Only the words named so are looked at, where a search
    // finds them.)
    let zero = ["error", "warning", "Error", "Warning"]
        .iter()
        .any(|name| t.has(name) && words_named(t, name).any(|w| zero_count(t, w)));
    if zero {
        return None;
    }
    if t.starts_with("warning:") || t.starts_with("warning[") || t.has(": warning: ") {
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
pub(super) fn is_permission_error(t: &Line<'_>) -> bool {
    let lower = |s: &str| t.has(s) || t.has_lowercased(s);
    // Each phrase ends in one of these, in either form: two searches
    // spare most lines eight.
    let phrased = (t.has("denied") || t.has("not permitted"))
        && (lower("Permission denied")
            || lower("Access is denied")
            || lower("Access denied")
            || lower("Operation not permitted")
            // .NET's UnauthorizedAccessException: `Access to the path 'x' is denied.`
            || (t.has("Access to the path ") && t.has("' is denied")));
    // The codes start with `E`: most lines have none, and skip the words.
    phrased || (t.has("E") && words(t).any(|w| matches!(w.text, "EACCES" | "EPERM")))
}

/// A shell that could not find a command: bash's `./build.sh: line 4:
/// protoc: command not found`, zsh's `zsh: command not found: protoc`,
/// dash's `sh: 1: protoc: not found`.
pub(super) fn is_missing_command(t: &str) -> bool {
    t.ends_with(": command not found")
        || t.starts_with("zsh: command not found: ")
        || (t.ends_with(": not found")
            && ["sh: ", "dash: ", "/bin/sh: "]
                .iter()
                .any(|shell| t.starts_with(shell)))
}

/// apt's and dpkg's errors: `E: Unable to locate package x`, `E: Package
/// 'x' has no installation candidate`, `E: Could not get lock ...`.
pub(super) fn is_apt_error(t: &str) -> bool {
    t.strip_prefix("E: ")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Go's compiler, which writes no severity: `./main.go:5:2: undefined: x`,
/// `main.go:7:2: declared and not used: x`, `"os" imported and not used`.
pub(super) fn is_go_compile_error(t: &Line<'_>) -> bool {
    let located = find(t, ".go:")
        .is_some_and(|at| t[at + ".go:".len()..].starts_with(|c: char| c.is_ascii_digit()));
    located
        && [
            ": undefined: ",
            "declared and not used",
            "imported and not used",
        ]
        .iter()
        .any(|s| t.has(s))
}

/// A connection that failed: refused, a host that did not resolve, or a
/// wait that timed out (curl's `Operation timed out`, ssh's `Connection
/// timed out`, `Read timed out`, AWS Lambda's `Task timed out after 3.00
/// seconds`, Go's `i/o timeout`), a server nobody answers at (kubectl's
/// `... was refused`, Docker's `Cannot connect to the Docker daemon`), or
/// Node's codes for these (`getaddrinfo ENOTFOUND x`, `connect
/// ECONNREFUSED 127.0.0.1:5432`).
pub(super) fn is_network_failure(t: &Line<'_>) -> bool {
    let lower = |s: &str| t.has(s) || t.has_lowercased(s);
    // Each phrase ends in one of these, in either form: three searches
    // spare most lines ten.
    let phrased = (t.has("refused") || t.has("resolve host") || t.has("timed out"))
        && (lower("Connection refused")
            || lower("Could not resolve host")
            || t.has("unable to resolve host") // wget
            || [
                "Operation timed out",
                "Connection timed out",
                "Read timed out",
                " timed out after ",
            ]
            .iter()
            .any(|s| lower(s))
            // kubectl: `The connection to the server x:8080 was refused`.
            || (t.has(" was refused") && t.has("connection to ")));
    // Go's `dial tcp 10.0.0.1:443: i/o timeout`, Docker's client's
    // `Cannot connect to the Docker daemon at unix:///...`.
    let phrased = phrased || t.has("i/o timeout") || t.has("Cannot connect to");
    // Node's codes start with `E`: most lines have none, and skip the words.
    let coded = t.has("E")
        && words(t).any(|w| {
            matches!(
                w.text,
                "ENOTFOUND" | "EAI_AGAIN" | "ECONNREFUSED" | "ECONNRESET" | "ECONNABORTED"
            )
        });
    phrased || coded
}

/// A name nothing defines, where the tool writes no severity: GNU ld's
/// `main.c:(.text+0x1e): undefined reference to `foo'`, bash's `set -u`
/// stopping a script (`./deploy.sh: line 12: HOME_DIR: unbound variable`).
pub(super) fn is_unresolved_name(t: &Line<'_>) -> bool {
    t.has("undefined reference to") || t.ends_with(": unbound variable")
}

/// A host of Ansible's `PLAY RECAP` that failed or was unreachable: `web1
/// : ok=3 changed=1 unreachable=0 failed=1 skipped=0` (a count of another
/// column before a word is no count of it).
pub(super) fn is_failed_recap(t: &Line<'_>) -> bool {
    // Most lines have neither column: a check of their pairs says so.
    if !(t.has(" unreachable=") && t.has(" failed=")) {
        return false;
    }
    let nonzero = |column: &str| {
        find(t, column).is_some_and(|at| {
            let value = t[at + column.len()..].bytes();
            value.take_while(u8::is_ascii_digit).any(|d| d != b'0')
        })
    };
    nonzero(" unreachable=") || nonzero(" failed=")
}

/// systemd's unit whose process failed: `nginx.service: Main process
/// exited, code=exited, status=1/FAILURE`.
pub(super) fn is_failed_unit(t: &Line<'_>) -> bool {
    t.ends_with("/FAILURE") && t.has(" status=")
}

/// make (GNU make, `gmake`, `mingw32-make`, by path too) stopping: `make: *** [Makefile:12:
/// build] Error 2`, `make[1]: *** No rule to make target 'x.o'.  Stop.`
pub(super) fn is_make_error(t: &Line<'_>) -> bool {
    let Some((program, _)) = around(t, ": *** ") else {
        return false;
    };
    let program = program.split('[').next().unwrap_or(program);
    let program = program.rsplit(['/', '\\']).next().unwrap_or(program);
    matches!(program, "make" | "gmake" | "bmake" | "mingw32-make")
}

/// glibc stopping a process it caught corrupting memory: `*** stack
/// smashing detected ***: terminated`, `*** buffer overflow detected ***:
/// terminated`.
pub(super) fn is_libc_abort(t: &Line<'_>) -> bool {
    t.starts_with("*** ") && t.has(" detected ***: ")
}

/// Windows' shells asked for a command they do not have: cmd's `'x' is
/// not recognized as an internal or external command,`, PowerShell's `The
/// term 'x' is not recognized as the name of a cmdlet, function, ...`.
pub(super) fn is_not_recognized_command(t: &Line<'_>) -> bool {
    t.has(" is not recognized as ")
        && (t.has("internal or external command") || t.has("the name of a cmdlet"))
}

/// A port another process holds, as each runtime says it: Go's `listen tcp
/// :8080: bind: address already in use`, Python's `[Errno 98] Address
/// already in use`, Rust's `Address already in use (os error 98)`, Node's
/// `address already in use :::3000`: the phrase ends the message.
pub(super) fn is_address_in_use(t: &Line<'_>) -> bool {
    around(t, "ddress already in use").is_some_and(|(_, after)| ends_message(after))
}

/// Whether what follows a phrase ends its message: nothing, punctuation,
/// or a parenthesis (`(os error 98)`) or a port (` :::3000`) after a space.
fn ends_message(after: &str) -> bool {
    after.is_empty()
        || after.starts_with([':', '.', ',', '"', '\'', ')'])
        || after.starts_with(" (")
        || after.starts_with(" :")
}

/// The system's words for a failed call (libc's `strerror`; Go writes them
/// in lower case) where they are the message: `touch: cannot touch 'x':
/// Read-only file system`, `read tcp a->b: read: connection reset by peer`,
/// `OSError: [Errno 24] Too many open files: 'x'`, `bash: fork: Cannot
/// allocate memory` (and bash's `[: too many arguments`). Such a phrase
/// starts the line or what follows a `:` or `]`, and ends the message:
/// ending a sentence of prose (`the function takes too many arguments`) it
/// says no failure.
///
/// Not inlined: its eight phrases, unrolled into [`classify_plain`], were
/// 0.5 KB more of component.
#[inline(never)]
pub(super) fn is_system_error(t: &Line<'_>) -> bool {
    // The line's pairs rule out most lines; then one pass for where a
    // message may start, not a search per phrase (on lines too long to
    // pair, eight searches cost JavaScript's cap 7%).
    if !SYSTEM_ERRORS.iter().any(|phrase| t.pairs.may_hold(phrase)) {
        return false;
    }
    let b = t.as_bytes();
    let mut starts = std::iter::once(0).chain(memchr::memchr2_iter(b':', b']', b).map(|i| i + 1));
    starts.any(|at| {
        let at = at + b[at..].iter().take_while(|&&c| c == b' ').count();
        SYSTEM_ERRORS.iter().any(|phrase| {
            // The first letter in either case, the rest as written.
            let (p, m) = (phrase.as_bytes(), &b[at..]);
            m.len() >= p.len()
                && m[0].eq_ignore_ascii_case(&p[0])
                && m[1..p.len()] == p[1..]
                // The phrase starts with ASCII: it ends on a boundary.
                && ends_message(&t[at + p.len()..])
        })
    })
}

/// The phrases [`is_system_error`] reads.
const SYSTEM_ERRORS: [&str; 8] = [
    "Read-only file system",
    "Connection reset by peer",
    "Too many open files",
    "Cannot allocate memory",
    "Device or resource busy",
    "Text file busy",
    "Resource temporarily unavailable",
    "Too many arguments",
];

/// Oracle's errors, a code of five digits then a colon: `ORA-00942: table
/// or view does not exist`, `ORA-06512: at line 5`.
pub(super) fn is_oracle_error(t: &Line<'_>) -> bool {
    around(t, "ORA-").is_some_and(|(before, after)| {
        let code = after.as_bytes().get(..5);
        !before.bytes().next_back().is_some_and(is_word_byte)
            && code.is_some_and(|c| c.iter().all(u8::is_ascii_digit))
            && after[5..].starts_with(':')
    })
}

/// A server's overload or gateway answer by its code and reason, where no
/// status line says it: nginx's `<h1>502 Bad Gateway</h1>`, `Status: 504
/// Gateway Time-out`, `HTTP 429 Too Many Requests` (an API's rate limit),
/// `<title>503 Service Unavailable</title>`.
pub(super) fn is_http_error_reason(t: &Line<'_>) -> bool {
    [
        ("502 ", "Bad Gateway"),
        ("503 ", "Service Unavailable"),
        ("504 ", "Gateway Time"),
        ("429 ", "Too Many Requests"),
    ]
    .iter()
    .any(|(code, reason)| around(t, reason).is_some_and(|(before, _)| before.ends_with(code)))
}

/// What a build or a clone needs and did not find: Apple's linker's `ld:
/// library not found for -lssl`, git's `remote: Repository not found.`.
pub(super) fn is_missing_dependency(t: &Line<'_>) -> bool {
    t.has("library not found for -l") || t.has("Repository not found")
}

/// Rails' log of the exception a request raised: `ActionView::Template::Error
/// (undefined method 'name' for nil):`, `NoMethodError (undefined method 'x'
/// for nil):`: the class, qualified or not, then its message in
/// parentheses and a colon closing the line.
pub(super) fn is_rails_exception(t: &str) -> bool {
    // The end first: most lines are ruled out without a search.
    if !t.ends_with("):") {
        return false;
    }
    let Some(class) = find(t, " (").map(|at| &t[..at]) else {
        return false;
    };
    let last = class.rsplit("::").next().unwrap_or(class);
    let named = is_exception_name(last) || (last == "Error" && class.contains("::"));
    named
        && class.split("::").all(|part| {
            part.starts_with(|c: char| c.is_ascii_uppercase()) && part.bytes().all(is_word_byte)
        })
}

/// Ruby's report of an exception nobody rescued: `file.rb:540:in
/// 'materialize': Could not find rake-13.0.6 in locally installed gems
/// (Bundler::GemNotFound)`: a backtrace's place, then the class, qualified,
/// in parentheses at the end.
pub(super) fn is_ruby_uncaught(t: &Line<'_>) -> bool {
    let Some((_, class)) = t.strip_suffix(')').and_then(|rest| rest.rsplit_once(" (")) else {
        return false;
    };
    (t.has(":in `") || t.has(":in '"))
        && class.contains("::")
        && class.split("::").all(|part| {
            part.starts_with(|c: char| c.is_ascii_uppercase()) && part.bytes().all(is_word_byte)
        })
}

/// A Python exception of a library's errors module, at the start of its
/// line: `psycopg2.errors.UniqueViolation: duplicate key value violates
/// unique constraint "users_pkey"` (its class name need not end in `Error`).
pub(super) fn is_module_exception(t: &Line<'_>) -> bool {
    // Most lines hold no such module: the pairs rule them out unsearched.
    if ![".errors.", ".exceptions.", ".exc.", ".error."]
        .iter()
        .any(|module| t.has(module))
    {
        return false;
    }
    let name = find(t, ": ").map_or(&t[..], |at| &t[..at]);
    let mut parts = name.split('.');
    let Some(class) = parts.next_back() else {
        return false;
    };
    let in_errors = parts
        .clone()
        .any(|module| matches!(module, "errors" | "exceptions" | "exc" | "error"));
    in_errors
        && class.starts_with(|c: char| c.is_ascii_uppercase())
        && class.bytes().all(is_word_byte)
        && parts.all(|module| !module.is_empty() && module.bytes().all(is_word_byte))
}

/// A process killed by a signal, as the shell or Go's `os/exec` says it:
/// zsh's `zsh: killed     python train.py` (bash's `Killed` is a word of
/// its own), `signal: killed`.
pub(super) fn is_killed(t: &Line<'_>) -> bool {
    let Some((before, after)) = around(t, ": killed") else {
        return false;
    };
    let by = before.rsplit([' ', ':']).next().unwrap_or("");
    after.chars().next().is_none_or(char::is_whitespace)
        && matches!(by, "signal" | "zsh" | "bash" | "sh" | "fish")
}

/// What comes before and after the first `phrase` in `t`, if it has one.
fn around<'t>(t: &'t Line<'_>, phrase: &str) -> Option<(&'t str, &'t str)> {
    if !t.has(phrase) {
        return None;
    }
    find(t, phrase).map(|at| (&t[..at], &t[at + phrase.len()..]))
}

/// A tool that could not do what it was asked, saying so first:
/// Bundler's `Could not find gem 'rails (~> 7.0)' in locally installed
/// gems.`, Gradle's `Could not resolve all files for configuration`.
pub(super) fn starts_could_not(t: &str) -> bool {
    t.starts_with("Could not ")
}

/// A limit a run hit: Go's `context deadline exceeded`, `Time limit
/// exceeded`, `Rate limit exceeded`, `Quota exceeded for quota metric`, a
/// CI job's `The job exceeded the maximum time limit for jobs` (GitHub
/// Actions; `has exceeded the maximum execution time of 360 minutes`).
pub(super) fn is_limit_exceeded(t: &Line<'_>) -> bool {
    t.has("xceeded")
        && [
            "deadline exceeded",
            "limit exceeded",
            "uota exceeded",
            "exceeded the maximum time limit",
            "exceeded the maximum execution time",
        ]
        .iter()
        .any(|s| t.has(s))
}

/// A command that failed, in words: Docker's `The command '/bin/sh -c npm
/// ci' returned a non-zero code: 1`, `exited with non-zero status 2`.
pub(super) fn is_nonzero_exit(t: &str) -> bool {
    const NON_ZERO: &str = "non-zero ";
    find(t, NON_ZERO).is_some_and(|i| {
        let rest = &t[i + NON_ZERO.len()..];
        let word = rest.split(|c: char| !c.is_ascii_alphabetic()).next();
        matches!(word, Some("code" | "exit" | "status"))
    })
}

/// A TLS handshake that failed on the peer's certificate: curl's `SSL
/// certificate problem: unable to get local issuer certificate`, Go's
/// `x509: certificate signed by unknown authority`, `certificate has
/// expired`.
pub(super) fn is_tls_failure(t: &Line<'_>) -> bool {
    t.has("SSL certificate problem")
        || t.has("x509: certificate ")
        || t.has("certificate has expired")
}

/// A response status of a server failure, as `curl -i` or `-v` shows it:
/// `HTTP/1.1 503 Service Unavailable`, `< HTTP/2 502`.
pub(super) fn is_http_5xx_status(t: &str) -> bool {
    let t = t.strip_prefix("< ").unwrap_or(t);
    let Some(rest) = t.strip_prefix("HTTP/") else {
        return false;
    };
    let status = rest.split_once(' ').map_or("", |(_, after)| after);
    status.starts_with('5') && status.bytes().take_while(u8::is_ascii_digit).count() == 3
}

/// git refusing a push: ` ! [rejected]        main -> main
/// (non-fast-forward)`, ` ! [remote rejected] main -> main (pre-receive
/// hook declined)`.
pub(super) fn is_push_rejected(t: &str) -> bool {
    t.strip_prefix("! [")
        .is_some_and(|rest| rest.starts_with("rejected]") || rest.starts_with("remote rejected]"))
}

/// The kernel's `BUG: kernel NULL pointer dereference, address: 0`, `BUG:
/// KASAN: use-after-free in x`, `BUG: unable to handle page fault`, also
/// after dmesg's time (`[ 12.345678] BUG: ...`).
pub(super) fn is_kernel_bug(t: &str) -> bool {
    let t = match t.strip_prefix('[') {
        Some(rest) => find(rest, "] ").map_or(t, |at| &rest[at + "] ".len()..]),
        None => t,
    };
    t.strip_prefix("BUG: ")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// Valgrind's errors: `==1234== Invalid read of size 4` (and `write`,
/// `free() / delete / delete[]`), its stack on the lines after.
pub(super) fn is_valgrind_error(t: &str) -> bool {
    let Some(rest) = t.strip_prefix("==") else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with("== Invalid ")
}

/// pytest's explanation of a failed assertion, where the line starts with
/// `E` and spaces: `E       assert 3 == 4`, `E       KeyError: 'x'`.
pub(super) fn is_pytest_error_detail(line: &str) -> bool {
    line.strip_prefix("E   ")
        .is_some_and(|rest| !rest.trim_start().is_empty())
}

/// `rest`, what follows an error's name, past the code Node.js writes
/// between the name and its colon (`TypeError [ERR_INVALID_ARG_TYPE]: The
/// "path" argument must be of type string`): the name then reads as
/// `TypeError: ...` does.
fn without_node_code(rest: &str) -> &str {
    let Some(code) = rest.strip_prefix(" [") else {
        return rest;
    };
    let len = code
        .bytes()
        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
        .count();
    match code[len..].strip_prefix(']') {
        Some(after) if len >= 2 && after.starts_with(':') => after,
        _ => rest,
    }
}

/// The Kotlin compiler's errors, from kotlinc or Gradle: `e:
/// file:///app/src/Main.kt:12:5 Unresolved reference: x`, and before
/// Kotlin 1.9 `e: /app/src/Main.kt: (12, 5): Unresolved reference: x`.
pub(super) fn is_kotlin_error(t: &str) -> bool {
    t.strip_prefix("e: ")
        .is_some_and(|rest| has(rest, ".kt:") || has(rest, ".kts:"))
}

/// `head`, what precedes a word, is a program's name and a colon: `docker: `,
/// `tar: `, `gpg: ` (a tool writing its own error). Names are lower case,
/// so prose's `Note: Error handling` is not one.
fn is_program_prefix(head: &str) -> bool {
    head.strip_suffix(": ").is_some_and(|name| {
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.len() <= 32
            && name.bytes().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'.')
            })
    })
}

/// The confidence a word gives its line.
pub(super) fn word_signal(t: &Line<'_>, w: Word<'_>, first: bool) -> Option<(u8, Kind)> {
    // Every word below starts with a capital or one of these letters: most
    // words of code and prose are ruled out before their context is read.
    if !matches!(
        w.text.as_bytes()[0],
        b'A'..=b'Z' | b'a' | b'c' | b'e' | b'f' | b'p' | b's'
    ) {
        return None;
    }
    let b = t.as_bytes();
    let before = b[..w.start].last().copied();
    let after = b.get(w.end).copied();
    let after2 = b.get(w.end + 1).copied();
    let rest = without_node_code(&t[w.end..]);
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
            // Valgrind's `==12== ERROR SUMMARY: 0 errors from 0 contexts`.
            if w.text == "ERROR" && rest.strip_prefix(" SUMMARY:").is_some_and(is_zero_value) {
                return None;
            }
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
            if is_program_prefix(&t[..w.start]) {
                return Some((3, Kind::Plain)); // `docker: Error response from daemon`
            }
            if before == Some(b'=') || (before == Some(b'[') && after == Some(b']')) {
                return Some((3, Kind::Plain)); // level=error, [error]
            }
            // `3 errors generated`, `Errors: 2`.
            if matches!(w.text, "errors" | "Errors") && count_of(t, w).is_some_and(|n| n > 0) {
                return Some((3, Kind::Plain));
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
            if t.has("=====") {
                return Some((2, Kind::Plain)); // a section header
            }
            Some((4, Kind::Plain))
        }
        "fail" | "failed" | "fails" | "failing" | "failure" | "failures" | "Fail" | "Failed"
        | "Failure" | "Failures" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            // `Tests: 2 failed, 10 passed`; PHPUnit's `Tests: 5, Failures: 1.`
            if count_of(t, w).is_some_and(|n| n > 0) {
                return Some((4, Kind::Plain));
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
        "critical" | "crit" | "Critical" | "emerg" | "alert" => {
            // Only as a log level: prose says `critical path`, code `alert(`.
            if in_code || zero_count(t, w) || !is_level(t, w, first) {
                return None;
            }
            Some((3, Kind::Plain))
        }
        "exception" | "Exception" | "exceptions" => {
            if in_code || zero_count(t, w) {
                return None;
            }
            let loud = t.has("nhandled") || t.has("ncaught");
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
        "segfault" | "Segfault" | "SEGFAULT" if !in_code => Some((4, Kind::Plain)),
        "BackOff" | "SIGKILL" => Some((3, Kind::Plain)),
        "Killed" | "Evicted" | "Aborted" => {
            // A report of none: `Killed 0 processes`, `Evicted: 0`; a
            // status named in code: `Code::Aborted`, `codes.Aborted`.
            let named = w.text == "Aborted" && (in_code || before == Some(b'.'));
            if named || zero_count(t, w) || has_no_object(rest) {
                return None;
            }
            Some((3, Kind::Plain))
        }
        "OutOfMemoryError" => {
            // Thrown, where the line starts or logged inside it; not code
            // that names it (`catch (OutOfMemoryError e)`, an import).
            let head = t[..w.start].trim_end();
            let leading = head.bytes().all(|c| is_word_byte(c) || c == b'.');
            let thrown = rest.starts_with(':') || (leading && rest.trim_end().is_empty());
            if (in_code && before != Some(b'.')) || has(head, "catch") || !thrown {
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
            if head.trim_end().ends_with("except") || has(head, "catch") {
                return None; // a handler in code
            }
            // Ruby's `a.rb:3:in 'f': undefined method 'g' (NoMethodError)`
            // and Elixir's `** (RuntimeError) boom`.
            let in_parens = before == Some(b'(') && rest.starts_with(')');
            let handled = words(head).any(|h| matches!(h.text, "raise" | "rescue" | "throw"));
            if in_parens && !handled && (rest[1..].trim().is_empty() || t.starts_with("** (")) {
                return Some((4, Kind::Plain));
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
pub(super) fn is_level(t: &str, w: Word<'_>, first: bool) -> bool {
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
pub(super) fn is_out_of_memory(t: &str) -> bool {
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

/// `TypeError`, `IOException`, `ModuleNotFoundError`, JUnit's
/// `ComparisonFailure`: a class name.
pub(super) fn is_exception_name(w: &str) -> bool {
    let b = w.as_bytes();
    ["Error", "Exception", "Failure"]
        .iter()
        .any(|kind| b.len() > kind.len() && w.ends_with(kind))
        && b[0].is_ascii_uppercase()
        && !w.contains('_')
}

/// The count written just before `w` (`3 errors`), if any: a number of its
/// own, not the end of a time, date, version or another column's value
/// (`10:00:00 ERROR`, `v1.2 failed`, `unreachable=0 failed=1`).
pub(super) fn count_before(t: &str, w: Word<'_>) -> Option<u64> {
    let head = t[..w.start].trim_end_matches(' ');
    let digits_start = head
        .bytes()
        .rposition(|c| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let n = &head[digits_start..];
    let part_of_more = digits_start > 0 && {
        let c = head.as_bytes()[digits_start - 1];
        is_word_byte(c) || matches!(c, b':' | b'.' | b'-' | b'/' | b'=' | b'+')
    };
    if n.is_empty() || part_of_more {
        return None;
    }
    n.parse().ok()
}

/// The count of `w`, written before it (`3 errors`) or after it as its
/// value (`Errors: 3`).
fn count_of(t: &str, w: Word<'_>) -> Option<u64> {
    count_before(t, w).or_else(|| count_after(t, w))
}

/// The count written just after `w` as its value (`Failures: 1`,
/// `errors=3`), if any: the whole number up to a separator, not a time, a
/// version or a code (`Errors: 1.5`, `failed: 10:00`).
pub(super) fn count_after(t: &str, w: Word<'_>) -> Option<u64> {
    let value = t[w.end..].strip_prefix([':', '='])?.trim_start_matches(' ');
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    let next = value.as_bytes().get(digits).copied();
    let ends = match next {
        None | Some(b',' | b' ' | b';' | b')' | b']' | b'\t') => true,
        // A sentence's full stop, not a decimal point.
        Some(b'.') => !value
            .as_bytes()
            .get(digits + 1)
            .is_some_and(u8::is_ascii_digit),
        _ => false,
    };
    if digits == 0 || !ends {
        return None;
    }
    value[..digits].parse().ok()
}

/// `0 errors`, `no errors`, `without error`, `errors: 0`, `Failures: 0.`, `error=None`,
/// `"errors": []`, `failed: 0`, `error: null`.
pub(super) fn zero_count(t: &str, w: Word<'_>) -> bool {
    if count_before(t, w) == Some(0) || count_after(t, w) == Some(0) {
        return true;
    }
    let head = t[..w.start].trim_end();
    // Compared ignoring case, with no lower-case copy (one per warning).
    let previous = head.rsplit(' ').next().unwrap_or("");
    if ["no", "without", "zero"]
        .iter()
        .any(|z| previous.eq_ignore_ascii_case(z))
    {
        return true;
    }
    let rest = t[w.end..].trim_start_matches(['"', '\'']).trim_start();
    let Some(value) = rest.strip_prefix([':', '=']) else {
        return false;
    };
    is_zero_value(value)
}

/// Whether what follows a verb is a count of none and its noun (`Killed 0
/// processes`, `Evicted no pods`), not a column of a table (`Evicted  0  3h`).
fn has_no_object(rest: &str) -> bool {
    let Some(object) = rest.strip_prefix(' ') else {
        return false;
    };
    ["0 ", "no "]
        .iter()
        .filter_map(|none| object.strip_prefix(none))
        .any(|noun| noun.bytes().next().is_some_and(|c| c.is_ascii_alphabetic()))
}

/// `0`, `[]`, `null`, `None`, `false` and the like start `value`.
pub(super) fn is_zero_value(value: &str) -> bool {
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
pub(super) fn exit_is_nonzero(t: &Line<'_>) -> bool {
    if t.has("non-zero exit") {
        return true;
    }
    // Most lines have no `exit`: they cost a search, not a copy.
    if !t.has_ignoring_case("exit") {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    for (i, _) in lower.match_indices("exit") {
        let mut rest = &lower[i + 4..];
        // Docker's status of a container: `Exited (137) 2 minutes ago`.
        if let Some(code) = rest.strip_prefix("ed (").and_then(|r| r.split_once(')')) {
            if code.0.parse::<u32>().is_ok_and(|n| n != 0) {
                return true;
            }
            continue;
        }
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
pub(super) fn is_eslint_error(t: &str) -> bool {
    let Some((pos, rest)) = t.split_once(char::is_whitespace) else {
        return false;
    };
    let position = pos.split_once(':').is_some_and(|(l, c)| {
        !l.is_empty() && !c.is_empty() && l.bytes().chain(c.bytes()).all(|b| b.is_ascii_digit())
    });
    position && rest.trim_start().starts_with("error ")
}

/// `tests/test_io.py:42: AssertionError`.
pub(super) fn is_pytest_location(t: &str) -> bool {
    let Some(i) = find(t, ".py:") else {
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
pub(super) fn is_access_log_5xx(line: &str) -> bool {
    let Some(http) = find(line, "HTTP/") else {
        return false;
    };
    // Each `"` that starts `" 5` (no two such overlap).
    let b = &line.as_bytes()[http..];
    let mut quoted_5 = memchr::memchr_iter(b'"', b).filter(|&i| b[i..].starts_with(b"\" 5"));
    quoted_5.any(|i| {
        let status = &b[i + 2..];
        status.len() >= 3
            && status[..3].iter().all(u8::is_ascii_digit)
            && status.get(3).is_none_or(|c| !c.is_ascii_digit())
    })
}

/// `test x ... ok`, `PASSED`, `✓`, `3 passed`: a line reporting success.
pub(super) fn says_passed(t: &Line<'_>) -> bool {
    let end = t.trim_end();
    end.ends_with(" ok")
        || end.ends_with(" ... ok")
        || end.starts_with("PASS ")
        || end.starts_with("ok ")
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
        .any(|p| t.has(p))
}

pub(super) fn is_warning(t: &str) -> bool {
    let b = t.as_bytes();
    b.get(..4)
        .is_some_and(|head| head.eq_ignore_ascii_case(b"warn"))
        || t.starts_with("W/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn score(line: &str) -> u8 {
        classify(line).map_or(0, |(s, _)| s)
    }

    proptest::proptest! {
        /// `has`, `has_lowercased` and `has_ignoring_case` answer as
        /// `str::contains` does (of the needle or line lowered), and
        /// `find` as `str::find`, on needles taken from the line, near
        /// them, in any case.
        #[test]
        fn has_is_contains(
            line in "[aAbB é\\-]{0,40}",
            from in 0usize..40,
            len in 0usize..6,
            other in "[aAbBé]{0,4}",
        ) {
            let from = line.floor_char_boundary(from.min(line.len()));
            let to = line.floor_char_boundary((from + len).min(line.len()));
            for needle in [&line[from..to], other.as_str(), line.as_str()] {
                proptest::prop_assert_eq!(has(&line, needle), line.contains(needle));
                proptest::prop_assert_eq!(find(&line, needle), line.find(needle));
                proptest::prop_assert_eq!(
                    has_lowercased(&line, needle),
                    line.contains(&needle.to_ascii_lowercase())
                );
                let lower = needle.to_ascii_lowercase();
                proptest::prop_assert_eq!(
                    has_ignoring_case(&line, &lower),
                    line.to_ascii_lowercase().contains(&lower)
                );
            }
        }
    }

    /// Every string literal of the rules above: the phrases lines are
    /// searched for, and the forms they start with.
    fn rule_literals() -> Vec<String> {
        let rules = include_str!("classify.rs");
        let rules = &rules[..rules.find("#[cfg(test)]").unwrap_or(rules.len())];
        rules
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|l| !l.is_empty() && !l.contains('\\'))
            .map(str::to_string)
            .collect()
    }

    /// Lines made of the rules' phrases, whole, cut or with a byte changed,
    /// of every failure example, and of words between them; some longer
    /// than a line [`Pairs`] rules anything out of.
    fn phrase_line() -> impl Strategy<Value = String> {
        let mut pool = rule_literals();
        pool.extend(DEFINITIVE.iter().chain(NOTABLE).map(|l| l.to_string()));
        pool.extend(ANCHORS.iter().chain(&RARE_SIGNS).map(|l| l.to_string()));
        let piece = (
            proptest::sample::select(pool),
            0usize..3,
            any::<u8>(),
            0usize..64,
        )
            .prop_map(|(phrase, change, byte, at)| {
                let at = phrase.floor_char_boundary(at % (phrase.len() + 1));
                match change {
                    0 => phrase,
                    1 => phrase[..at].to_string(), // cut
                    _ => {
                        let changed = char::from(b' ' + byte % 95);
                        let after = phrase[at..].chars().skip(1).collect::<String>();
                        format!("{}{changed}{after}", &phrase[..at])
                    }
                }
            });
        let glue = proptest::sample::select(vec![
            "", "", " ", ": ", "  ", "[", "]", "=", "\"", " 1 ", "x",
        ]);
        (proptest::collection::vec((glue, piece), 1..6), 0usize..300).prop_map(|(pieces, pad)| {
            // Glue before each piece: lines end on a phrase.
            let mut line = String::new();
            for (i, (glue, piece)) in pieces.into_iter().enumerate() {
                line.push_str(glue);
                line.push_str(&piece);
                if i == 0 && pad > 250 {
                    line.push_str(&" y".repeat(pad)); // longer than what is paired
                }
            }
            line
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2048))]

        /// Ruling phrases out by the line's pairs changes no line's class:
        /// every line is classified as if every phrase were searched for.
        #[test]
        fn pairs_rule_out_only_what_a_search_would(line in phrase_line()) {
            proptest::prop_assert_eq!(classify(&line), classify_searching_every_phrase(&line), "{:?}", line);
        }
    }

    proptest::proptest! {
        /// `words_named` finds the words `words` does that are the name or
        /// its plural, where they are.
        #[test]
        fn words_named_are_the_words_of_that_name(
            line in "(error|errors|errorss|s|_|x|warning|: |0 |-)*",
            name in proptest::sample::select(vec!["error", "warning", "s"]),
        ) {
            let plural = format!("{name}s");
            let expected: Vec<_> = words(&line)
                .filter(|w| w.text == name || w.text == plural)
                .map(|w| (w.text, w.start, w.end))
                .collect();
            let found: Vec<_> = words_named(&line, name).map(|w| (w.text, w.start, w.end)).collect();
            proptest::prop_assert_eq!(found, expected);
        }
    }

    /// Every piece of a line of repeated phrases is found where `str::find`
    /// finds it, and what the line does not hold is not.
    #[test]
    fn find_is_str_find_for_every_piece_of_a_line() {
        let line = "x --- FAIL: a (core dumped) --- FAIL: Traceback (most recent call \
                    last) 2026-11-30T12:00:01Z exit code 1 EACCES  --- FAIL: ";
        for from in 0..line.len() {
            for to in from..=line.len().min(from + 14) {
                let needle = &line[from..to];
                assert_eq!(find(line, needle), line.find(needle), "{needle:?}");
                let missing = format!("{needle}#");
                assert_eq!(find(line, &missing), None, "{missing:?}");
            }
        }
    }

    /// Failure lines of common tools: definitive.
    const DEFINITIVE: &[&str] = &[
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
        "::error file=src/app.js,line=3,col=5::'x' is not defined",
        "::error::Process failed",
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
        "./build.sh: line 42: protoc: command not found",
        "bash: jq: command not found",
        "zsh: command not found: protoc",
        "sh: 1: protoc: not found",
        "Aborted (core dumped)",
        "Illegal instruction (core dumped)",
        "Out of memory: Killed process 812 (java) total-vm:8388608kB",
        "timeout: the monitored command dumped core",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "E: Unable to locate package libfoo-dev",
        "E: Package 'python3-foo' has no installation candidate",
        "cp: error writing 'out.bin': No space left on device",
        "CONFLICT (content): Merge conflict in src/app.py",
        "ld: symbol(s) not found for architecture arm64",
        "./main.go:5:2: undefined: fmt.Printl",
        "./main.go:7:2: declared and not used: x",
        "main.go:4:2: \"os\" imported and not used",
        " ! [rejected]        main -> main (non-fast-forward)",
        " ! [remote rejected] main -> main (pre-receive hook declined)",
        "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "[   12.345678] BUG: KASAN: use-after-free in tcp_close+0x1c/0x40",
        "==1234== Invalid read of size 4",
        "==88== Invalid free() / delete / delete[] / realloc()",
        "app.rb:3:in `foo': undefined method `bar' for nil (NoMethodError)",
        "** (RuntimeError) boom",
        "** (CompileError) lib/a.ex:3: undefined function foo/0",
        "     Failure/Error: expect(x).to eq(3)",
        "CMake Error at CMakeLists.txt:5 (find_package):",
        "zsh: segmentation fault  ./a.out",
        "not ok 3 - should add",
        " ERR_PNPM_NO_MATCHING_VERSION  No matching version found for foo@^9.0.0",
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
        "TypeError [ERR_INVALID_ARG_TYPE]: The \"path\" argument must be of type string",
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /app/a.js",
        "e: file:///app/src/main/kotlin/Main.kt:12:5 Unresolved reference: fooBar",
        "e: file:///C:/app/build.gradle.kts:3:1 Unresolved reference: android",
        "e: /app/src/main/kotlin/Main.kt: (12, 5): Unresolved reference: fooBar",
        "[ 1234.5678] app[4321]: segfault at 0 ip 000055d0 sp 00007ffd error 4 in app",
        "Segfault in worker 3",
        "  \u{d7} No solution found when resolving dependencies:",
        "/usr/bin/ld: main.o: in function `main': main.c:(.text+0x1e): undefined reference to `foo'",
        "./deploy.sh: line 12: HOME_DIR: unbound variable",
        "web1                       : ok=3    changed=1    unreachable=0    failed=1    skipped=0",
        "web2                       : ok=0    changed=0    unreachable=1    failed=0    skipped=0",
        "nginx.service: Main process exited, code=exited, status=1/FAILURE",
        "org.junit.ComparisonFailure: expected:<[1]> but was:<[2]>",
        "Tests: 5, Assertions: 7, Failures: 1.",
        "make[1]: *** No rule to make target 'x.o', needed by 'app'.  Stop.",
        "mingw32-make: *** [Makefile:3: all] Error 2",
        "*** stack smashing detected ***: terminated",
        "'protoc' is not recognized as an internal or external command,",
        "protoc : The term 'protoc' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        // Coloured, as tools write to a terminal or under FORCE_COLOR.
        "\x1b[1;31merror\x1b[0m\x1b[1m: linking with `cc` failed: exit status: 1\x1b[0m",
        "\x1b[0m\x1b[7m\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m\x1b[27m\x1b[0m src/cart.test.ts",
    ];

    #[test]
    fn failures_of_common_tools_are_definitive() {
        for line in DEFINITIVE {
            assert_eq!(score(line), 4, "{line}");
        }
    }

    /// Log levels, summaries and other failures: notable.
    const NOTABLE: &[&str] = &[
        "2024-05-01T12:00:00Z ERROR worker-3 request timed out",
        "/bin/sh: line 1:  4242 Killed                  python train.py",
        "npm ERR! code ELIFECYCLE",
        "npm error code 1",
        "Tests: 2 failed, 10 passed, 12 total",
        "error: could not compile `app` (bin \"app\") due to 2 previous errors",
        "Process finished with exit code 137",
        "Build failed in 3s",
        "level=error msg=\"connection refused\"",
        "4 errors generated.",
        "cat: /etc/app/config.yaml: No such file or directory",
        "mv: cannot stat 'dist/app.js': No such file or directory",
        "curl: (28) Operation timed out after 30001 milliseconds with 0 bytes received",
        "ssh: connect to host 10.0.0.5 port 22: Connection refused",
        "ssh: connect to host 10.0.0.5 port 22: Connection timed out",
        "psql: error: connection to server at \"db\" (10.0.0.7), port 5432 failed: Connection refused",
        "curl: (6) Could not resolve host: api.example.internal",
        "fatal: unable to access 'https://x/': Could not resolve host: x",
        "getaddrinfo ENOTFOUND registry.npmjs.org",
        "npm error getaddrinfo EAI_AGAIN registry.npmjs.org",
        "connect ECONNREFUSED 127.0.0.1:5432",
        "SSL certificate problem: unable to get local issuer certificate",
        "tls: failed to verify certificate: x509: certificate signed by unknown authority",
        "HTTP/1.1 503 Service Unavailable",
        "< HTTP/2 502",
        "E       assert 3 == 4",
        "E   KeyError: 'name'",
        "The command '/bin/sh -c npm ci' returned a non-zero code: 1",
        "error: process exited with non-zero status 2",
        "2026/11/30 10:00:00 [emerg] 1#1: unknown directive \"servr\" in /etc/nginx/nginx.conf:12",
        "2026/11/30 10:00:00 [alert] 7#7: worker process 42 exited on signal 9",
        "level=alert msg=\"disk almost full\"",
        "docker: Error response from daemon: Conflict. The container name \"/web\" is in use.",
        "tar: Error is not recoverable: exiting now",
        "context deadline exceeded",
        "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'",
        "Could not find gem 'sinatra (~> 4.0)' in locally installed gems.",
        "Could not resolve all files for configuration ':app:debugRuntimeClasspath'.",
        "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock.",
        "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
        "Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout",
        "2026-11-30T10:00:00.000Z 1b2c Task timed out after 3.00 seconds",
        // A time's last digits before the word are no count of it.
        "2026-11-30 10:00:00 ERROR 404: Not Found.",
        "[2026-11-30 10:00:00] deploy failed",
        "Tests run: 12, Errors: 2",
        "wget: unable to resolve host address 'files.example.com'",
        "listen tcp :8080: bind: address already in use",
        "Error: listen EADDRINUSE: address already in use :::3000",
        "thread 'main' panicked at src/main.rs:9:5: Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }",
        "zsh: killed     python train.py",
        "exec: signal: killed",
        "<html><head><title>502 Bad Gateway</title></head>",
        "Status: 504 Gateway Time-out",
        "upstream answered 504 Gateway Timeout after 60 s",
        "HTTP 429 Too Many Requests",
        "WARNING: DATA RACE",
        "ld: library not found for -lssl",
        "touch: cannot touch '/etc/x': Read-only file system",
        "OSError: [Errno 30] Read-only file system: '/x'",
        "read tcp 10.0.0.2:5432->10.0.0.1:443: read: connection reset by peer",
        "remote: Repository not found.",
        "/usr/lib/ruby/3.2.0/bundler/definition.rb:540:in `materialize': Could not find rake-13.0.6 in locally installed gems (Bundler::GemNotFound)",
        "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint \"users_pkey\"",
        "requests.exceptions.ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes read)', IncompleteRead(0 bytes read))",
        "Error: EPERM: operation not permitted, unlink 'C:\\app\\x.lock'",
        "'20261301' is not recognized as a valid date",
        "\x1b[33m2026-11-30 10:00:00\x1b[0m \x1b[31mERROR\x1b[0m request failed",
        "accept tcp [::]:8080: accept4: too many open files",
        "OSError: [Errno 24] Too many open files: 'data.csv'",
        "bash: fork: Cannot allocate memory",
        "rm: cannot remove '/mnt/data': Device or resource busy",
        "cp: cannot create regular file '/usr/local/bin/app': Text file busy",
        "write /dev/stdout: resource temporarily unavailable",
        "./check.sh: line 4: [: too many arguments",
        "Aborted",
        "./run.sh: line 3:  4242 Aborted                 ./a.out",
        "<html><head><title>503 Service Unavailable</title></head>",
        "ORA-00942: table or view does not exist",
        "SQL> ERROR at line 1: ORA-01017: invalid username/password; logon denied",
        "Access to the path 'C:\\app\\log.txt' is denied.",
        "ActionView::Template::Error (undefined method `name' for nil:NilClass):",
        "NoMethodError (undefined method `each' for nil):",
        "The job exceeded the maximum time limit for jobs, and has been terminated.",
        "The job running on runner gh-1 has exceeded the maximum execution time of 360 minutes.",
        "web-1   Exited (137) 2 minutes ago",
    ];

    #[test]
    fn log_levels_and_summaries_are_notable() {
        for line in NOTABLE {
            assert!(score(line) >= 3, "{line}: {}", score(line));
        }
        assert_eq!(
            score("10.0.0.1 - - [01/May/2024] \"GET /api HTTP/1.1\" 502 173"),
            2
        );
    }

    /// Lines only a word of theirs makes notable, one for each first letter
    /// [`word_signal`] reads words of (its first check rules out the rest).
    #[test]
    fn each_first_letter_of_a_signal_word_is_read() {
        for (line, expected) in [
            ("the sync job failed after 3 retries", 3),
            ("kernel panic - not syncing", 3),
            ("level=alert msg=\"disk almost full\"", 3),
            ("level=crit msg=\"disk full\"", 3),
            ("level=emerg msg=\"raid degraded\"", 3),
            ("app[42]: segfault at 0 ip 00007f3a", 4),
            ("unhandled exception in worker 3", 3),
            ("the pod was Evicted by the kubelet", 3),
            ("worker 3: ValueError: bad input", 3),
        ] {
            assert_eq!(score(line), expected, "{line}");
        }
    }

    /// A rule here only sees lines that an anchor or rare sign lets
    /// through: every example of a failure passes both prefilters (the
    /// anchors' searches of the whole-text scan, and the automaton of the
    /// one-pass preview).
    #[test]
    fn every_failure_example_passes_the_prefilters() {
        let patterns = super::super::scan::Patterns::new(&[]);
        let kubernetes = [
            "web-1  0/1  ErrImagePull  0  1m",
            "web-1  0/1  InvalidImageName  0  1m",
            "web-2  0/1  Evicted  0  3h",
            "worker exited on signal SIGSEGV",
        ];
        // Lines of words that no anchor matches, around each example.
        let noise: String = (0..400)
            .map(|i| format!("{i:04} fetch layer {} into cache\n", i * 7919 % 10007))
            .collect();
        for line in DEFINITIVE.iter().chain(NOTABLE).chain(&kubernetes) {
            assert!(score(line) >= 3, "{line}");
            assert!(patterns.may_be_notable(line), "automaton: {line}");
            let text = format!("{noise}{line}\n{noise}");
            let at = noise.len();
            assert!(
                patterns
                    .occurrences(&text)
                    .any(|o| o >= at && o < at + line.len()),
                "automaton over the whole text: {line}"
            );
            let found = super::super::scan::scan(&text, 0, text.len(), &patterns, 8);
            assert!(found.iter().any(|c| c.start == at), "anchors: {line}");
        }
    }

    /// Every example above, alone in the middle of a long log where 130
    /// alike `ERROR ... retrying` lines and 260 `WARN` lines compete with
    /// it, is kept by the default cut: what a failure of a tool whose
    /// output nobody tuned on looks like to the preview.
    #[test]
    fn each_failure_is_kept_in_a_noisy_log() {
        use crate::{Budget, CapError, Capper, RefScheme, SpillStore};
        struct Nowhere;
        impl SpillStore for Nowhere {
            fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
                Ok(())
            }
        }
        let capper = Capper::new(RefScheme::new("/spill", "t", vec![7; 32]).unwrap());
        // 13,000 lines: over a MiB of middle, which the automaton searches.
        let log: Vec<String> = (0..13_000)
            .map(|i| match i {
                i if i % 97 == 3 => format!(
                    "2026-11-30T10:00:{:02}Z ERROR worker-{} request {i} failed: upstream \
                     timeout, retrying (attempt 2 of 5)",
                    i % 60,
                    i % 8
                ),
                i if i % 50 == 7 => format!(
                    "2026-11-30T10:00:{:02}Z WARN worker-{} slow query took {} ms",
                    i % 60,
                    i % 8,
                    1000 + i % 900
                ),
                i => format!(
                    "2026-11-30T10:00:{:02}Z INFO worker-{} processed batch {i} in {} ms",
                    i % 60,
                    i % 8,
                    i * 7 % 500
                ),
            })
            .collect();
        for line in DEFINITIVE.iter().chain(NOTABLE) {
            let mut lines = log.clone();
            lines.insert(6_500, (*line).to_owned());
            let text = lines.join("\n");
            let capped = capper
                .cap(&text, &Budget::default(), "call", &mut Nowhere)
                .unwrap();
            assert!(capped.text.contains(line.trim()), "{line}");
        }
    }

    /// A count after its word is a whole number standing alone.
    #[test]
    fn counts_after_a_word_are_whole_numbers() {
        for (line, count) in [
            ("Failures: 1.", Some(1)),
            ("Failures: 12, Errors: 0", Some(12)),
            ("failed=3", Some(3)),
            ("Failures:  2)", Some(2)),
            ("Failures: 1.5", None),
            ("Failures: 10:00", None),
            ("Failures: 3x", None),
            ("Failures: none", None),
            ("Failures", None),
            ("Failures 3", None),
        ] {
            let w = words(line).next().unwrap();
            assert_eq!(count_after(line, w), count, "{line}");
        }
    }

    #[test]
    fn look_alikes_are_not_failures() {
        for line in [
            "0 errors, 0 warnings",
            "Found 0 errors.",
            "Killed 0 processes",
            "reaper: Killed no processes",
            "Evicted 0 pods from node-3",
            "Evicted: 0",
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
            "Cache not found for input keys: node-cache-Linux-x64",
            "heap dumped to /tmp/java_pid42.hprof",
            "test_read_timed_out PASSED",
            "Request refused by policy: dry run",
            "command not found handler installed",
            "TYPE: application/json",
            "console.log(x) // x is undefined: fine",
            "the variable was declared and not used until later",
            "HTTP/1.1 200 OK",
            "< HTTP/2 404",
            "GET /api HTTP/1.1 503",
            "HTTP/1.1 5000 bytes",
            " ! [new branch]      main -> main",
            "BUG: 42 (the tracker's number)",
            "==1234== Using Valgrind-3.22.0 and LibVEX; rerun with -h for copyright info",
            "E   ",
            "E: ",
            "certificate.pem written",
            "ok 3 - should add",
            "non-zero codes are listed below",
            "rescue (ArgumentError) in the handler",
            "    raise (ValueError)",
            "call the emergency number",
            "alert('saved');",
            "the alert fired twice",
            "sending alerts to #ops",
            "e: 2.718281828",
            "e: file:///notes/todo.txt saved",
            "a 1920 \u{d7} 1080 screen",
            "see the docs: Error handling in depth",
            "Note: Error handling is covered below",
            "--segfault-handler=off",
            "==123== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)",
            "web1                       : ok=3    changed=1    unreachable=0    failed=0    skipped=0",
            "nginx.service: Main process exited, code=exited, status=0/SUCCESS",
            "the build exceeded expectations",
            "we could not reproduce it",
            "See: Could not find the page you asked for",
            "the undefined reference count is 0",
            "Warnings: 0, Errors: 0",
            "Tests: 10, Failures: 0.",
            "the address already in use check passed",
            "*** Settings ***",
            "make: Nothing to be done for 'all'.",
            "cmake: *** is how the banner starts",
            "tasks: killed 3 idle workers",
            "Bad Gateway pages are cached for 502 responses",
            "the API Gateway stage was deployed",
            "see errors.UniqueViolation in the docs",
            "loaded the settings (Config::Defaults)",
            "mounted as a read-only file system for the build",
            "the connection reset by peer counter is exported",
            "library not found? try brew install",
            "HTTPError handling for Too Many Requests is retried",
            "signal: killed_by_user is a label",
            "\x1b[32m✓\x1b[0m handles error responses",
            "the function takes too many arguments",
            "raise the limit when a server has too many open files",
            "a device or resource busy answer is retried",
            "Aborted 0 jobs",
            "if status.Code() == codes.Aborted {",
            "    Code::Aborted => retry(),",
            "the ORA-00942 page explains it",
            "CORA-12345: a catalogue number",
            "Service Unavailable pages are cached",
            "Cannot be empty",
            "a busy week: such hosts are rare",
            "Access to the path is logged",
            "web-1   Exited (0) 2 minutes ago",
            "on_exited (callback) registered",
            "see ActionView::Template::Error (the docs):",
            "    raise Foo::Error (x):",
        ] {
            assert_eq!(score(line), 0, "{line}");
        }
        // A warning is only a warning: the second tier.
        assert_eq!(score("warning: unused variable: `error`"), WARNING_SCORE);
    }
}
