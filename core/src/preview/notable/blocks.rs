//! The whole block of a failure: the lines a model reads to act on it, not
//! only its first line. The preview shows the block of its first (or most
//! severe) failure in place, each line numbered as a notable line is:
//!
//! - a compiler diagnostic (rustc, clang/gcc, javac, tsc's pretty output,
//!   an ESLint code frame): the ` --> ` line, the annotated source lines
//!   (`|`, `^^^ expected u64, found Decimal`), `= note:`/`help:` and
//!   `note:` lines, up to the blank line that ends it;
//! - a Rust panic: its message, an assertion's `left:`/`right:`, its
//!   `note:` and the first frames of a backtrace;
//! - a Python traceback: every frame down to its exception line;
//! - a pytest failure `file.py:N: Error`: its section from the
//!   `____ test_name ____` header down;
//! - a Go `--- FAIL`: its `=== RUN` line and the test's log lines; a Go
//!   `panic:`, `fatal error:` or data race: its first frames;
//! - a Java or JavaScript exception: the first frames of it and of each
//!   `Caused by:` (a Terraform `Error:` box: the box);
//! - a Jest `●` failure: its expectation, code frame and first own frame;
//! - a webpack `ERROR in` and its message lines; pip's resolver conflict
//!   and its `The conflict is caused by:` list; a Terraform plan's `must be
//!   replaced` or `will be destroyed` resource and its changes.
//!
//! [`block`] gives the lines beyond the ones the failure line already brings
//! (its context), best first: when the block's share of the budget runs
//! out, what is shown is still what matters most (a traceback's frames
//! nearest the exception, a pytest section's lines nearest its `E` lines).
//! Work is bounded per block: at most [`SCAN_LINES`] lines are looked at.

use super::context::{Kind, Lines, go_test_name, is_run_line};

/// Lines of a block, at most.
pub const MAX_LINES: usize = 48;

/// Lines looked at around a failure line, at most.
const SCAN_LINES: usize = 400;

/// Lines of a Python traceback looked at, at most (Python itself stops
/// printing a recursion after about a thousand frames).
const TRACEBACK_LINES: usize = 4000;

/// Frames shown of each exception of a chain (`Caused by:`).
const FRAMES: usize = 4;

/// The lines of the block of the failure line `start..end` of `kind` inside
/// `from..to`, other than itself, best first (at most [`MAX_LINES`]);
/// empty when its kind has no block.
pub fn block(
    b: &[u8],
    start: usize,
    end: usize,
    kind: Kind,
    from: usize,
    to: usize,
) -> Vec<(usize, usize)> {
    let lines = Lines { b, from, to };
    let text = |l: (usize, usize)| -> &[u8] { b[l.0..l.1].trim_ascii_end() };
    let blank = |l: (usize, usize)| text(l).trim_ascii().is_empty();
    let indented = |l: (usize, usize)| matches!(b[l.0..l.1].first(), Some(b' ' | b'\t'));
    let own = text((start, end));
    let mut out = Vec::new();
    match kind {
        Kind::Compiler => {
            for (i, l) in lines.after(end, MAX_LINES).enumerate() {
                if blank(l) {
                    // tsc's pretty output puts a blank line before the frame.
                    let frame_next = i == 0
                        && lines
                            .after(l.1, 1)
                            .next()
                            .is_some_and(|n| is_code_frame(text(n)));
                    if frame_next {
                        out.push(l);
                        continue;
                    }
                    break;
                }
                let t = text(l);
                let trimmed = t.trim_ascii_start();
                // A source line is known by the caret line under it.
                let above_caret = || {
                    lines.after(l.1, 1).next().is_some_and(|n| {
                        let n = text(n).trim_ascii_start();
                        n.starts_with(b"^") || n.starts_with(b"~")
                    })
                };
                // rustc's `= note: expected type `u64`` goes on, aligned
                // under its text, with `found struct `Decimal``.
                let note_goes_on = out.last().is_some_and(|&p| {
                    let p = text(p);
                    let p_indent = p.len() - p.trim_ascii_start().len();
                    p.trim_ascii_start().starts_with(b"= ")
                        && t.len() - trimmed.len() > p_indent + 2
                });
                let part = is_code_frame(t)
                    || note_goes_on
                    || ["-->", "|", "= ", "^", "~", "note:", "help:", "symbol:", "location:"]
                        .iter()
                        .any(|m| trimmed.starts_with(m.as_bytes()))
                    || contains(t, b": note: ")
                    || t.starts_with(b"In file included from")
                    // tsc's elaboration, indented under its error.
                    || (indented(l) && contains(own, b" error TS"))
                    || (indented(l) && above_caret());
                if !part {
                    break;
                }
                out.push(l);
            }
        }
        Kind::Panic => {
            // The message, an assertion's sides, the note, the first frames.
            let part = |t: &[u8]| {
                let t = t.trim_ascii_start();
                ["left:", "right:", "note:", "stack backtrace:", "at "]
                    .iter()
                    .any(|m| t.starts_with(m.as_bytes()))
                    || t.split(|&c| c == b':')
                        .next()
                        .is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit))
            };
            for (i, l) in lines.after(end, 16).enumerate() {
                if blank(l) || (i > 0 && !part(text(l))) {
                    break;
                }
                out.push(l);
            }
        }
        Kind::Traceback => {
            // Frames after whatever prefixes the header line, then the
            // exception line; the frames nearest it first.
            let prefix = memchr::memmem::find(own, b"Traceback").unwrap_or(0);
            let framed = |l: (usize, usize)| {
                let rest = &b[(l.0 + prefix).min(l.1)..l.1];
                matches!(rest.first(), Some(b' ' | b'\t'))
            };
            // Only the last frames are kept: a deep recursion prints a
            // thousand.
            let mut frames = std::collections::VecDeque::new();
            for l in lines.after(end, TRACEBACK_LINES) {
                if framed(l) {
                    if frames.len() == MAX_LINES {
                        frames.pop_front();
                    }
                    frames.push_back(l);
                    continue;
                }
                out.push(l);
                break;
            }
            if out.is_empty() {
                return Vec::new(); // no exception line: not a whole block
            }
            // Nearest frame first, each frame's `File` line before its code
            // lines: a code line cut off from its location says little.
            let file = |l: (usize, usize)| text(l).trim_ascii_start().starts_with(b"File ");
            let mut end = frames.len();
            for i in (0..frames.len()).rev() {
                if file(frames[i]) || i == 0 {
                    out.extend(frames.iter().skip(i).take(end - i));
                    end = i;
                }
            }
        }
        Kind::PytestLocation => {
            // The section above, nearest first, up to its `____ name ____`
            // header (or the start of the failures).
            for l in lines.before(start, SCAN_LINES.min(120)) {
                let t = text(l);
                if t.starts_with(b"___") || t.starts_with(b"====") || t.starts_with(b"----") {
                    if t.starts_with(b"_") && t.ends_with(b"_") && t.len() > 8 {
                        out.push(l);
                    }
                    break;
                }
                out.push(l);
            }
        }
        Kind::GoFail => {
            // Indented log lines after it (`go test` without -v), then
            // those before it up to its `=== RUN` line.
            out.extend(lines.after(end, 20).take_while(|&l| indented(l)));
            let name = go_test_name(own);
            for l in lines.before(start, 60) {
                let t = text(l);
                if indented(l) && !t.trim_ascii().starts_with(b"--- ") {
                    out.push(l);
                    continue;
                }
                if name.is_some_and(|n| is_run_line(t, n)) {
                    out.push(l);
                }
                break;
            }
        }
        Kind::GoStack => {
            for l in lines.after(end, 30) {
                let t = text(l);
                if t.starts_with(b"=====")
                    || t.starts_with(b"FAIL")
                    || t.starts_with(b"exit status")
                {
                    break;
                }
                out.push(l);
            }
        }
        Kind::Exception => {
            let mut frames = 0;
            for l in lines.after(end, SCAN_LINES) {
                let t = text(l).trim_ascii_start();
                if t.starts_with(b"Caused by:") || t.starts_with(b"Suppressed:") {
                    frames = 0;
                    out.push(l);
                } else if t.starts_with(b"at ") {
                    frames += 1;
                    if frames <= FRAMES {
                        out.push(l);
                    }
                } else if t.starts_with(b"... ") && t.ends_with(b" more") {
                    continue;
                } else if own.trim_ascii_start().starts_with("│".as_bytes())
                    && (t.starts_with("│".as_bytes()) || t.starts_with("╵".as_bytes()))
                {
                    out.push(l);
                    if t.starts_with("╵".as_bytes()) {
                        break;
                    }
                } else {
                    break;
                }
                if out.len() >= MAX_LINES {
                    break;
                }
            }
        }
        Kind::Jest => {
            for l in lines.after(end, 60) {
                let t = text(l).trim_ascii_start();
                if t.starts_with("●".as_bytes()) || (!blank(l) && !indented(l)) {
                    break;
                }
                out.push(l);
                if t.starts_with(b"at ") && !contains(t, b"node_modules") {
                    break;
                }
            }
            // Trailing blank lines say nothing.
            while out.last().is_some_and(|&l| blank(l)) {
                out.pop();
            }
        }
        Kind::Paragraph => {
            // Its lines up to a blank line; then, where the next paragraph
            // opens with a heading that ends in `:` (pip's `The conflict is
            // caused by:`), that paragraph too.
            let mut after = lines.after(end, 40).peekable();
            out.extend(after.by_ref().take_while(|&l| !blank(l)));
            while after.next_if(|&l| blank(l)).is_some() {}
            if after.peek().is_some_and(|&l| text(l).ends_with(b":")) {
                out.extend(after.take_while(|&l| !blank(l)));
            }
        }
        Kind::Plain | Kind::Eslint => {}
    }
    out.truncate(MAX_LINES);
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// `12   x = "a";`, `  > 12 |   foo()`, `   3 |     ^`: a line of a code
/// frame, numbered.
fn is_code_frame(t: &[u8]) -> bool {
    let t = t.trim_ascii_start();
    let t = t.strip_prefix(b">").map_or(t, <[u8]>::trim_ascii_start);
    let n = t.iter().take_while(|c| c.is_ascii_digit()).count();
    n > 0 && matches!(t.get(n), Some(b' ' | b'|' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::super::{Patterns, Room, WARNING_SCORE, classify, scan, select};
    use super::{FRAMES, Kind, block};

    /// `lines` of filler, then `middle`, then `lines` more: the middle's
    /// failures are what the scan finds.
    fn around(middle: &str, lines: usize) -> String {
        let filler: String = (0..lines)
            .map(|i| format!("   Compiling dep-{i:04} v0.1.{i}\n"))
            .collect();
        format!("{filler}{middle}{filler}")
    }

    /// The lines a selection with `bytes` of room shows, trimmed.
    fn shown(text: &str, bytes: usize) -> Vec<String> {
        let room = Room {
            bytes,
            lines: usize::MAX - 1,
            max_line: Some(2000),
            line_digits: 4,
        };
        let found = scan(text, 0, text.len(), &Patterns::new(&[]), 64);
        select(text, &found, 0, text.len(), room)
            .lines
            .iter()
            .map(|s| text[s.start..s.start + s.keep].trim_end().to_owned())
            .collect()
    }

    fn block_lines(block: &str) -> Vec<String> {
        block.lines().map(|l| l.trim_end().to_owned()).collect()
    }

    const RUSTC: &str = "error[E0308]: mismatched types\n\
        \x20   --> src/billing/invoice.rs:4711:17\n\
        \x20    |\n\
        4711 |     let total: u64 = invoice.total_cents();\n\
        \x20    |                ---   ^^^^^^^^^^^^^^^^^^^^^ expected `u64`, found `i64`\n\
        \x20    |                |\n\
        \x20    |                expected due to this\n\
        \x20    |\n\
        \x20    = note: expected type `u64`\n\
        \x20               found type `i64`\n\
        \x20    = note: `i64` cannot be converted to `u64` without loss\n\
        help: you can convert an `i64` to a `u64` and panic if it does not fit\n\
        \x20    |\n\
        4711 |     let total: u64 = invoice.total_cents().try_into().unwrap();\n\
        \x20    |                                           ++++++++++++++++++++\n";

    #[test]
    fn a_rustc_error_comes_whole_with_its_notes() {
        let second = "error[E0425]: cannot find value `rate` in this scope\n  --> src/tax.rs:9:5\n   |\n9  |     rate * 2\n   |     ^^^^ not found in this scope\n\n";
        let text = around(&format!("{RUSTC}\n{second}"), 400);
        let lines = shown(&text, 4096);
        let first = block_lines(RUSTC);
        assert_eq!(&lines[..first.len()], &first[..], "{lines:#?}");
        // The next error keeps its one-line treatment: line, location, spot.
        assert_eq!(
            &lines[first.len()..],
            [
                "error[E0425]: cannot find value `rate` in this scope",
                "  --> src/tax.rs:9:5",
                "   |     ^^^^ not found in this scope",
            ]
        );
    }

    #[test]
    fn an_error_without_annotation_keeps_its_one_line() {
        // Indented lines after it that are not a diagnostic's are not its.
        let text = around("error[E0308]: mismatched types at src/lib.rs:42\n", 300);
        assert_eq!(
            shown(&text, 4096),
            ["error[E0308]: mismatched types at src/lib.rs:42"]
        );
    }

    #[test]
    fn a_clang_error_comes_with_its_source_caret_and_notes() {
        let clang = "src/net.c:42:17: error: incompatible pointer types passing 'int *' to parameter of type 'long *'\n\
            \x20  42 |     read_len(fd, &len);\n\
            \x20     |                  ^~~~\n\
            src/net.h:7:27: note: passing argument to parameter 'out' here\n\
            \x20   7 | int read_len(int fd, long *out);\n\
            \x20     |                            ^\n";
        let text = around(
            &format!("{clang}make: *** [Makefile:12: net.o] Error 1\n"),
            300,
        );
        let lines = shown(&text, 4096);
        assert_eq!(&lines[..6], &block_lines(clang)[..], "{lines:#?}");
    }

    #[test]
    fn a_traceback_comes_whole_to_its_exception_line() {
        let tb = "Traceback (most recent call last):\n\
            \x20 File \"/app/train.py\", line 88, in <module>\n\
            \x20   main()\n\
            \x20 File \"/app/train.py\", line 61, in main\n\
            \x20   loss = step(model, batch)\n\
            \x20 File \"/usr/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1511, in _wrapped_call_impl\n\
            \x20   return self._call_impl(*args, **kwargs)\n\
            RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
        let text = around(tb, 400);
        assert_eq!(shown(&text, 4096), block_lines(tb));
    }

    #[test]
    fn a_long_traceback_keeps_its_end_within_the_share() {
        let mut tb = String::from("Traceback (most recent call last):\n");
        for i in 0..300 {
            tb.push_str(&format!(
                "  File \"/app/deep.py\", line {i}, in recurse\n    return recurse(n - 1)\n"
            ));
        }
        tb.push_str("RecursionError: maximum recursion depth exceeded\n");
        let text = around(&tb, 400);
        let lines = shown(&text, 2048);
        assert_eq!(lines[0], "Traceback (most recent call last):");
        assert_eq!(
            lines.last().unwrap(),
            "RecursionError: maximum recursion depth exceeded"
        );
        assert!(lines.len() > 6 && lines.len() < 60, "{lines:#?}");
        // The frames shown are the last ones, one after another.
        assert!(lines.contains(&"  File \"/app/deep.py\", line 299, in recurse".to_owned()));
        assert!(!lines.contains(&"  File \"/app/deep.py\", line 0, in recurse".to_owned()));
    }

    #[test]
    fn a_frame_of_a_traceback_cut_short_keeps_its_file_line_before_its_code() {
        let tb = "Traceback (most recent call last):\n\
            \x20 File \"/usr/lib/python3.11/site-packages/celery/app/trace.py\", line 451, in trace_task\n\
            \x20   R = retval = fun(*args, **kwargs)\n\
            \x20 File \"/srv/app/worker/tasks.py\", line 88, in sync_inventory\n\
            \x20   items = fetch_items(client, since=cursor)\n\
            \x20           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\
            \x20 File \"/srv/app/worker/fetch.py\", line 41, in fetch_items\n\
            \x20   return [Item(**row) for row in page['results']]\n\
            KeyError: 'results'\n";
        let lines: Vec<&str> = tb.lines().collect();
        let text = around(tb, 400);
        let start = text.find("Traceback").unwrap();
        let end = start + lines[0].len() + 1;
        let lines_of_block = block(text.as_bytes(), start, end, Kind::Traceback, 0, text.len());
        let got: Vec<&str> = lines_of_block
            .iter()
            .map(|&(a, e)| text[a..e].trim_end())
            .collect();
        // The exception, then the frames from the nearest, each from its
        // `File` line down.
        let want = [8, 6, 7, 3, 4, 5, 1, 2].map(|i| lines[i]);
        assert_eq!(got, want);
    }

    #[test]
    fn a_pytest_failure_comes_with_its_section() {
        let section = "_____________________ test_refund_partial_capture[eur] ______________________\n\
            \n\
            client = <django.test.client.Client object at 0x7f3a2c1d9e50>\n\
            \n\
            \x20   def test_refund_partial_capture(client, order):\n\
            \x20       resp = client.post(\"/api/refunds\", {\"amount\": \"42.50\"})\n\
            >       assert resp.status_code == 200\n\
            E       assert 402 == 200\n\
            E        +  where 402 = <HttpResponse status_code=402>.status_code\n\
            \n\
            tests/payments/test_refunds.py:188: AssertionError\n";
        let text = around(
            &format!(
                "=================================== FAILURES ===================================\n{section}"
            ),
            300,
        );
        let lines = shown(&text, 4096);
        // The section header is a notable line of its own.
        assert!(lines[0].contains("FAILURES"), "{lines:#?}");
        assert_eq!(lines[1..], block_lines(section));
    }

    #[test]
    fn a_go_test_failure_comes_with_its_run_line_and_log() {
        let go = "=== RUN   TestCharge\n\
            \x20   charge_test.go:41: charge(42) = 40, want 42\n\
            \x20   charge_test.go:42: rounding lost 2 cents\n\
            --- FAIL: TestCharge (0.00s)\n";
        let text = around(
            &format!("{go}=== RUN   TestRefund\n--- PASS: TestRefund (0.00s)\n"),
            300,
        );
        assert_eq!(shown(&text, 4096), block_lines(go));
    }

    #[test]
    fn a_java_exception_comes_with_its_causes_and_first_frames() {
        let mut java = String::from(
            "Exception in thread \"main\" java.lang.IllegalStateException: order 917 has no invoice\n",
        );
        for i in 0..8 {
            java.push_str(&format!(
                "\tat com.acme.orders.Service.step{i}(Service.java:{})\n",
                10 + i
            ));
        }
        java.push_str("Caused by: java.sql.SQLException: connection refused\n");
        for i in 0..8 {
            java.push_str(&format!(
                "\tat org.postgresql.Driver.connect{i}(Driver.java:{})\n",
                20 + i
            ));
        }
        java.push_str("\t... 12 more\n");
        let text = around(&java, 300);
        let lines = shown(&text, 4096);
        assert_eq!(lines.len(), 2 + 2 * FRAMES, "{lines:#?}");
        assert!(lines[0].starts_with("Exception in thread"));
        assert_eq!(
            lines[1],
            "\tat com.acme.orders.Service.step0(Service.java:10)"
        );
        assert_eq!(
            lines[1 + FRAMES],
            "Caused by: java.sql.SQLException: connection refused"
        );
        assert_eq!(
            lines[2 + FRAMES],
            "\tat org.postgresql.Driver.connect0(Driver.java:20)"
        );
    }

    #[test]
    fn a_jest_failure_and_a_tsc_error_come_with_their_code_frames() {
        let jest = "  ● cart › applies the coupon once\n\
            \n\
            \x20   expect(received).toBe(expected) // Object.is equality\n\
            \n\
            \x20   Expected: 90\n\
            \x20   Received: 80\n\
            \n\
            \x20     12 |   cart.apply(\"SAVE10\");\n\
            \x20   > 13 |   expect(cart.total()).toBe(90);\n\
            \x20        |                        ^\n\
            \n\
            \x20     at Object.<anonymous> (src/cart.test.ts:13:24)\n";
        let text = around(jest, 300);
        assert_eq!(shown(&text, 4096), block_lines(jest));
        let tsc = "src/cart.ts:13:5 - error TS2322: Type 'string' is not assignable to type 'number'.\n\
            \n\
            13     total = \"0\";\n\
            \x20      ~~~~~\n";
        let text = around(&format!("{tsc}\nFound 1 error in src/cart.ts:13\n"), 300);
        let lines = shown(&text, 4096);
        assert_eq!(&lines[..4], &block_lines(tsc)[..], "{lines:#?}");
    }

    #[test]
    fn warnings_are_a_second_tier_shown_only_with_room() {
        for warning in [
            "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.",
            "WARNING: Retrying (Retry(total=4)) after connection broken: '/simple/torch/'",
            "/app/train.py:40: UserWarning: The given NumPy array is not writable",
            "  warnings.warn(RuntimeWarning: invalid value encountered in divide)",
            "warning: unused variable: `rate`",
            "src/io.c:9:5: warning: implicit declaration of function 'foo'",
            "2024-03-11 12:00:01 WARN  [pool] connection slow: 812ms",
        ] {
            assert_eq!(
                classify(warning).map(|c| c.0),
                Some(WARNING_SCORE),
                "{warning}"
            );
        }
        assert_eq!(classify("3 warnings generated."), None);
        assert_eq!(classify("warning: 0 errors in module billing"), None);
        assert_eq!(classify("build finished with no warnings"), None);
        let warning =
            "npm WARN deprecated rimraf@3.0.2: Rimraf versions prior to v4 are no longer supported";
        let failure = "npm ERR! code ERESOLVE";
        let text = around(&format!("{warning}\n{failure}\n"), 300);
        // Room for one line: the failure. Room for more: the warning too.
        let one = shown(&text, 40);
        assert_eq!(one, [failure]);
        let both = shown(&text, 4096);
        assert_eq!(both, [warning, failure]);
    }

    #[test]
    fn permission_errors_of_file_tools_are_failures() {
        for line in [
            "find: '/proc/1/fd': Permission denied",
            "cp: cannot create regular file '/etc/hosts': Permission denied",
            "Error: EACCES: permission denied, open '/usr/lib/node_modules/x'",
            "rm: cannot remove '/sys/x': Operation not permitted",
            "Access is denied.",
            "rsync: opendir \"/root\" failed: Permission denied (13)",
        ] {
            assert!(classify(line).is_some_and(|c| c.0 >= 3), "{line}");
        }
    }

    #[test]
    fn a_failed_test_comes_with_the_line_that_started_it() {
        // Not the first failure (no block): still its start line.
        let mut text = around(RUSTC, 50);
        text.push_str("=== RUN   TestLimits\n");
        for i in 0..30 {
            text.push_str(&format!("    limits_test.go:{i}: checked {i}\n"));
        }
        text.push_str("--- FAIL: TestLimits (0.02s)\n");
        text.push_str("---- tests::rounding stdout ----\nthread 'tests::rounding' panicked at src/lib.rs:9:5:\nassertion failed: x\n");
        let filler = around("", 100);
        text.push_str(&filler);
        let lines = shown(&text, 8192);
        for start in ["=== RUN   TestLimits", "---- tests::rounding stdout ----"] {
            assert!(lines.iter().any(|l| l == start), "{start} in {lines:#?}");
        }
    }

    #[test]
    fn a_psql_error_comes_with_its_line_detail_and_hint() {
        let psql = "ERROR:  column \"totl\" does not exist\n\
            LINE 1: select totl from orders;\n\
            \x20              ^\n\
            HINT:  Perhaps you meant to reference the column \"orders.total\".\n";
        let text = around(psql, 300);
        assert_eq!(shown(&text, 4096), block_lines(psql));
    }

    #[test]
    fn a_pip_conflict_comes_with_what_caused_it() {
        let pip = "ERROR: Cannot install -r requirements.txt (line 12) and urllib3==2.2.1 because these package versions have conflicting dependencies.\n\
            \n\
            The conflict is caused by:\n\
            \x20   The user requested urllib3==2.2.1\n\
            \x20   botocore 1.29.165 depends on urllib3<1.27 and >=1.25.4\n\
            \n\
            To fix this you could try to:\n\
            1. loosen the range of package versions you've specified\n\
            \n";
        let text = around(pip, 300);
        let want: Vec<String> = block_lines(pip)
            .into_iter()
            .take(5)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(shown(&text, 4096), want);
    }

    #[test]
    fn a_plan_that_replaces_a_database_shows_why() {
        let plan = "  # aws_db_instance.orders must be replaced\n\
            -/+ resource \"aws_db_instance\" \"orders\" {\n\
            \x20     ~ arn            = \"arn:aws:rds:eu-west-1:1:db:orders\" -> (known after apply)\n\
            \x20     ~ engine_version = \"14.10\" -> \"15.5\" # forces replacement\n\
            \x20       # (41 unchanged attributes hidden)\n\
            \x20   }\n\
            \n";
        let text = around(plan, 300);
        let want: Vec<String> = block_lines(plan)
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(shown(&text, 4096), want);
        // A resource updated in place is not notable, nor is prose.
        for line in [
            "  # aws_s3_bucket.logs will be updated in-place",
            "the old key will be replaced by the new one",
        ] {
            assert_eq!(super::super::classify(line), None, "{line}");
        }
    }
}
