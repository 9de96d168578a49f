//! What a notable line brings along: the lines that say where or why
//! (a compiler error's location, a traceback's last frame, a failed test's
//! start), found around it by its [`Kind`].

use memchr::{memchr, memrchr};

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

/// Lines longer than this are not taken as notable (minified code, data):
/// no failure line is that long, and it bounds the work per hit.
pub(super) const MAX_LINE: usize = 64 * 1024;

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
            if let Some(name) = go_test_name(&b[start..end]) {
                out.extend(
                    lines
                        .before(start, TEST_START_LINES)
                        .find(|&l| is_run_line(&b[l.0..l.1], name)),
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
pub(super) const TEST_START_LINES: usize = 200;

/// Lines after a Go `panic:` searched for its first own stack frame.
pub(super) const GO_FRAMES_LINES: usize = 40;

/// The path of a Go stack frame's file line (`\t/app/lru.go:77 +0x2d`,
/// indented), or `None` for any other line.
pub(super) fn go_frame_file(line: &[u8]) -> Option<&[u8]> {
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
pub(super) fn is_go_runtime(path: &[u8], function: Option<&[u8]>) -> bool {
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
pub(super) struct Lines<'a> {
    pub(super) b: &'a [u8],
    pub(super) from: usize,
    pub(super) to: usize,
}

impl<'a> Lines<'a> {
    /// Up to `n` lines from `p` (a line start) on.
    pub(super) fn after(self, mut p: usize, n: usize) -> impl Iterator<Item = (usize, usize)> + 'a {
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
    pub(super) fn before(
        self,
        mut p: usize,
        n: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
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

/// The test a Go `--- FAIL: TestX (0.01s)` line names.
pub(super) fn go_test_name(line: &[u8]) -> Option<&[u8]> {
    let i = memchr::memmem::find(line, b"--- FAIL: ")?;
    let rest = &line[i + "--- FAIL: ".len()..];
    let name = rest.split(|&c| c == b' ').next()?;
    (!name.is_empty()).then_some(name)
}

/// `=== RUN   TestX` (or `=== CONT  TestX`) for the test `name`.
pub(super) fn is_run_line(line: &[u8], name: &[u8]) -> bool {
    let t = line.trim_ascii();
    let rest = t
        .strip_prefix(b"=== RUN")
        .or_else(|| t.strip_prefix(b"=== CONT"));
    rest.is_some_and(|r| r.trim_ascii() == name)
}
