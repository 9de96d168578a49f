//! `cargo test --release -p toolcap-tests --test all host_deadline_thread::`: the deadline
//! ticker thread starts with the first call and ends with its runtime. The
//! checks run in a child process of their own, so no other test's runtime
//! owns a ticker meanwhile.

use std::thread;
use std::time::{Duration, Instant};

use tool_output_cap::{Budget, SessionConfig, ToolCap};

use crate::child_process::{child, child_dir};

const TICKER_TEST: &str =
    "host_deadline_thread::one_ticker_per_runtime_from_the_first_call_until_the_last_session_goes";

const THREAD_NAME: &str = "toolcap-epoch";

/// Threads of this process named like the ticker (Linux: `/proc/self/task`).
fn ticker_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux /proc")
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.trim_end() == THREAD_NAME)
        })
        .count()
}

/// Polls until `done`, for at most 10 s (a bound, not a measurement).
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let give_up = Instant::now() + Duration::from_secs(10);
    while Instant::now() < give_up {
        if done() {
            return true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    done()
}

#[test]
fn one_ticker_per_runtime_from_the_first_call_until_the_last_session_goes() {
    if child_dir().is_some() {
        return ticker_checks();
    }
    let dir = tempfile::tempdir().unwrap();
    let out = child(TICKER_TEST, dir.path())
        .output()
        .expect("the test binary runs as a child");
    assert!(
        out.status.success(),
        "the ticker checks failed in the child:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The checks, alone in a child process.
fn ticker_checks() {
    let dir = tempfile::tempdir().unwrap();
    let tool_cap = ToolCap::new().unwrap();
    assert_eq!(ticker_threads(), 0, "compiling starts no thread");

    let mut sessions: Vec<_> = (0..3)
        .map(|i| {
            tool_cap
                .open_session(SessionConfig::new(format!("t{i}"), dir.path()))
                .unwrap()
        })
        .collect();
    for session in &mut sessions {
        session.cap("fits", &Budget::new(1024), "c").unwrap();
    }
    // The thread names itself once it first runs: wait for that.
    assert!(
        eventually(|| ticker_threads() == 1),
        "one ticker for the whole engine, found {}",
        ticker_threads()
    );

    // Sessions keep the runtime, and so its ticker, alive.
    let mut last = sessions.pop().unwrap();
    drop(sessions);
    drop(tool_cap);
    assert!(last.cap("still fits", &Budget::new(1024), "c2").is_ok());
    assert_eq!(ticker_threads(), 1);

    drop(last);
    assert!(
        eventually(|| ticker_threads() == 0),
        "the ticker outlived its runtime"
    );
}
