//! `cargo test --release -p toolcap-tests --test all host_recycle::`: a session gives back the
//! linear memory a large call left by replacing its instance, transparently:
//! references issued before stay valid, and calls go on as before.

use std::sync::OnceLock;

use tool_output_cap::{
    Budget, RuntimeOptions, Session, SessionConfig, Start, ToolCap,
    limits::{DEFAULT_RECYCLE_ABOVE, Recycling},
};

const MIB: usize = 1 << 20;

/// Optimized from the start: a session that moved to the optimized code
/// after a call would hold a fresh instance, which these tests measure.
fn runtime(recycling: Recycling, pooled_instances: Option<u32>) -> ToolCap {
    let options = RuntimeOptions {
        recycling,
        pooled_instances,
        start: Start::Optimized,
        ..RuntimeOptions::default()
    };
    ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options).expect("compiles")
}

fn default_tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| ToolCap::new().expect("compiles"))
}

/// Sessions of this runtime recycle above 4 MiB, so tests stay quick.
fn eager_tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| runtime(Recycling::Above(4 * MIB), None))
}

/// `bytes` of log-like text whose line `n` says `step n`.
fn output_of(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    let mut n = 0;
    while text.len() < bytes {
        n += 1;
        text.push_str(&format!("2025-01-01T00:00:00Z build step {n} finished\n"));
    }
    text.truncate(bytes);
    text
}

fn small_budget() -> Budget {
    Budget {
        max_lines: Some(40),
        ..Budget::new(4096)
    }
}

/// A session with no key configured: the key is random, so only a
/// recycle that keeps it keeps old references valid.
fn open(tool_cap: &ToolCap, dir: &std::path::Path) -> Session {
    tool_cap
        .open_session(SessionConfig::new("thread-r", dir))
        .expect("opens")
}

#[test]
fn the_default_threshold_is_16_mib() {
    assert_eq!(DEFAULT_RECYCLE_ABOVE, 16 * MIB);
    assert_eq!(
        RuntimeOptions::default().recycling,
        Recycling::Above(16 * MIB)
    );
    assert_eq!(default_tool_cap().recycling(), Recycling::default());
}

#[test]
fn a_large_call_recycles_and_its_reference_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(default_tool_cap(), dir.path());
    let fresh = session.memory_size();
    let input = output_of(24 * MIB);
    let capped = session.cap(&input, &small_budget(), "big").unwrap();
    let reference = capped.report.spill.clone().expect("spilled");

    // The instance that held the 24 MiB input is gone; a fresh one is as small
    // as a new session's.
    assert_eq!(session.recycled(), 1);
    assert!(session.memory_size() <= fresh, "{}", session.memory_size());

    // The replacement has the same key, thread and root: the notice written
    // before still holds a genuine reference, and the file reads back.
    assert_eq!(
        session.find_refs(&capped.text).unwrap(),
        vec![reference.clone()]
    );
    let placeholder = session.pruned_placeholder(&reference).unwrap();
    assert_eq!(
        session.find_refs(&placeholder).unwrap(),
        vec![reference.clone()]
    );
    let found = session
        .grep(&reference.path, "build step 400000 ", 1)
        .unwrap();
    assert_eq!(found.matches[0].line, 400_000);
    let page = session.read_lines(&reference.path, 7, 1, 1000).unwrap();
    assert_eq!(page.text, "2025-01-01T00:00:00Z build step 7 finished\n");
    let on_disk = std::fs::read(
        session
            .host_path(&reference.path)
            .expect("host_path")
            .unwrap(),
    )
    .unwrap();
    assert_eq!(on_disk, input.as_bytes());

    // Small calls after it neither grow the session much nor recycle it again.
    let small = session
        .cap(&output_of(MIB), &small_budget(), "small")
        .unwrap();
    assert!(small.report.truncated && small.report.spill.is_some());
    assert_eq!(session.recycled(), 1);
}

#[test]
fn calls_under_the_threshold_keep_their_instance() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(eager_tool_cap(), dir.path());
    let capped = session
        .cap(&output_of(2 * MIB), &small_budget(), "c")
        .unwrap();
    assert!(capped.report.spill.is_some());
    assert_eq!(session.recycled(), 0);
    assert!(session.memory_size() > 2 * MIB);
}

#[test]
fn every_function_that_takes_a_large_input_recycles() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(eager_tool_cap(), dir.path());
    let big = output_of(6 * MIB);
    session.find_refs(&big).unwrap();
    assert_eq!(session.recycled(), 1);
    let messages = [big.clone(), "recent".to_owned()];
    let policy = tool_output_cap::types::PrunePolicy {
        keep_last: Some(1),
        max_total_bytes: None,
        max_total_tokens: None,
    };
    let pruned = session.prune(&messages, &policy).unwrap();
    assert_eq!(pruned.replaced, vec![0]);
    assert_eq!(session.recycled(), 2);
    // A `cap-error` answer still recycles: the memory grew all the same.
    let bad = Budget {
        max_bytes: 1,
        ..small_budget()
    };
    assert!(session.cap(&big, &bad, "bad").is_err());
    assert_eq!(session.recycled(), 3);
}

#[test]
fn recycling_never_keeps_the_memory_of_the_largest_call() {
    let tool_cap = runtime(Recycling::Never, None);
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(&tool_cap, dir.path());
    session
        .cap(&output_of(6 * MIB), &small_budget(), "c")
        .unwrap();
    assert_eq!(session.recycled(), 0);
    assert!(session.memory_size() > 6 * MIB);
}

#[test]
fn without_a_free_pool_slot_the_session_keeps_its_instance_and_works() {
    // One slot: the session's own instance fills the pool, so no replacement
    // can be made. The session keeps its (large) instance and carries on.
    let tool_cap = runtime(Recycling::Above(4 * MIB), Some(1));
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(&tool_cap, dir.path());
    let capped = session
        .cap(&output_of(6 * MIB), &small_budget(), "c")
        .unwrap();
    let reference = capped.report.spill.expect("spilled");
    assert_eq!(session.recycled(), 0);
    assert!(session.memory_size() > 6 * MIB);
    assert_eq!(session.find_refs(&capped.text).unwrap(), vec![reference]);
    drop(session);
    // The slot is free again once the session is gone.
    let mut again = open(&tool_cap, dir.path());
    assert!(
        !again
            .cap("short\n", &small_budget(), "s")
            .unwrap()
            .report
            .truncated
    );
}
