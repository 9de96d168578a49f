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
//! the first [`crate::preview::search::HITS_PER_TERM`] hits of each alternative in
//! the omitted middle come first, above the host's patterns: every
//! alternative's first hit before any second one. A hit's line shows whole
//! when it is short enough; otherwise a window of a few hundred bytes
//! ([`crate::preview::search::window_bytes`], within `max-line-bytes`) around the
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
//! family (`similar::Sketch`: at least 60% of their words in common, any word with
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
//!
//! # Where each part lives
//!
//! - `scan`: the searches over the middle, and the candidates kept;
//! - `walk`: the automaton of every search walked where no SIMD searcher
//!   of aho-corasick's runs ahead of it (wasm): over the lines where
//!   `fingerprint` finds a search, or over parts of a text at
//!   once;
//! - `classify`: the rules for each tool's failure lines, warnings and
//!   look-alikes (a new tool's failure line is taught there);
//! - `escapes`: terminal colours taken out of a line before it is classified;
//! - `context`: the lines a notable line brings along, by its [`Kind`];
//! - `similar`: families of alike lines, and the key that folds repeats;
//! - `select`: the choice within the room, and the markers;
//! - [`blocks`]: the first failure's block.

pub(crate) mod blocks;
mod classify;
mod context;
mod escapes;
mod fingerprint;
mod pairs;
mod scan;
mod select;
mod similar;
mod split;
mod walk;

#[cfg(any(test, feature = "test-support"))]
pub use classify::classify_searching_every_phrase;
pub use classify::{WARNING_SCORE, classify};
pub use context::Kind;
pub(crate) use context::context_lines;
#[cfg(any(test, feature = "test-support"))]
pub use scan::WalkOracle;
pub use scan::{Candidate, HOST_SCORE, Patterns, SHARE_PERCENT, scan};
pub use select::{
    BLOCK_PERCENT, Hits, Room, Selection, Shown, marker_overhead, select, select_with_hits,
};
pub use similar::dedupe_key;

#[cfg(test)]
mod tests {
    use super::*;
    use super::{context::*, scan::*, select::*};

    fn score(line: &str) -> u8 {
        classify(line).map_or(0, |(s, _)| s)
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
        crate::preview::render::render_items(text.as_str(), &items, &mut out);
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
