//! `cargo test --release -p toolcap-tests --test all host_tiers::`: the
//! component's code from Winch (the baseline) and from Cranelift (the
//! optimized code) answer alike, to the byte and on disk; a session moves
//! from one to the other after a call, keeping its references, and a
//! stream open at that moment finishes where it started; the baseline
//! keeps the call deadline and the memory limit.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use tool_output_cap::{
    Budget, Limits, RuntimeOptions, Session, SessionConfig, Start, ToolCap,
    limits::LimitExceeded,
    types::{ContentPart, McpOptions},
};

use crate::common::{DISPLAY_ROOT, KEY, budget};

const MIB: usize = 1 << 20;

fn runtime(start: Start) -> ToolCap {
    let options = RuntimeOptions {
        start,
        ..RuntimeOptions::default()
    };
    ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options).expect("compiles")
}

/// Winch's code only: nothing here calls `optimize` on it.
fn baseline() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| runtime(Start::Baseline))
}

fn optimized() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| runtime(Start::Optimized))
}

fn open(tool_cap: &ToolCap, dir: &Path) -> Session {
    let config = SessionConfig {
        thread_id: "tiers".into(),
        spill_dir: Some(dir.to_owned()),
        display_root: Some(DISPLAY_ROOT.to_owned()),
        key: KEY.to_vec(),
        ..SessionConfig::default()
    };
    tool_cap.open_session(config).expect("opens")
}

/// A build log of about `bytes`, with a failure in its middle.
fn build_log(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 128);
    let mut n = 0;
    while text.len() < bytes {
        n += 1;
        text.push_str(&format!(
            "2026-12-01T02:{:02}:{:02}Z   Compiling crate-{n} v0.{n}.1 (/src/c{n})\n",
            n / 60 % 60,
            n % 60
        ));
        if n == 20_000 {
            text.push_str("error[E0425]: cannot find value `needle` in this scope\n");
        }
    }
    text
}

/// A JSON reply of `items` objects, a few of them failures.
fn json_reply(items: usize) -> String {
    let items: Vec<String> = (0..items)
        .map(|i| {
            let status = if i % 997 == 500 { "failure" } else { "success" };
            format!(r#"{{"id":{i},"name":"job-{i}","status":"{status}","note":"ünïcode ☃ {i}"}}"#)
        })
        .collect();
    format!(
        r#"{{"runs":[{}],"total":{}}}"#,
        items.join(","),
        items.len()
    )
}

/// Every file under `dir`, relative, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![];
    for thread in std::fs::read_dir(dir).unwrap() {
        let thread = thread.unwrap().path();
        for file in std::fs::read_dir(&thread).unwrap() {
            let file = file.unwrap().path();
            let name = file
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((name, std::fs::read(&file).unwrap()));
        }
    }
    out.sort();
    out
}

/// What a session answers to a round of calls that run every per-byte path:
/// cuts of a log, a JSON reply and CJK text, a result that fits, an MCP
/// result in pieces, a stream, references found, read back and grepped,
/// token estimates, pruning.
fn answers(session: &mut Session) -> Vec<String> {
    let mut out = vec![];
    let log = build_log(3 * MIB);
    let capped = session.cap(&log, &Budget::new(16 * 1024), "log").unwrap();
    let reference = capped.report.spill.clone().expect("spilled");
    out.push(format!("{capped:?}"));
    let json = session
        .cap(&json_reply(20_000), &budget(8 * 1024), "json")
        .unwrap();
    out.push(format!("{json:?}"));
    let cjk = "日本語のテキストと中文文本，以及한국어 문장。\n".repeat(40_000);
    out.push(format!(
        "{:?}",
        session.cap(&cjk, &budget(4096), "cjk").unwrap()
    ));
    let fits = "short output\n".repeat(3_000);
    out.push(format!(
        "{:?}",
        session.cap(&fits, &budget(64 * 1024), "fits").unwrap()
    ));
    let text = serde_json::to_string(&build_log(2 * MIB)).unwrap();
    let result = format!(r#"{{"content":[{{"type":"text","text":{text}}}],"isError":false}}"#);
    let mcp = session
        .cap_mcp(
            &result,
            &Budget::new(8 * 1024),
            "mcp",
            &McpOptions {
                resource_link: true,
            },
        )
        .unwrap();
    out.push(format!("{mcp:?}"));
    let mut stream = session.stream(&Budget::new(8 * 1024), "stream").unwrap();
    for chunk in build_log(2 * MIB).as_bytes().chunks(100_003) {
        stream.write(chunk).unwrap();
    }
    out.push(format!("{:?}", stream.finish().unwrap()));
    out.push(format!("{:?}", session.find_refs(&capped.text).unwrap()));
    out.push(format!(
        "{:?}",
        session
            .read_lines(&reference.path, 19_990, 20, 4096)
            .unwrap()
    ));
    out.push(format!(
        "{:?}",
        session.grep(&reference.path, "needle", 5).unwrap()
    ));
    out.push(format!("{}", session.estimate_tokens(&log).unwrap()));
    out.push(format!("{}", session.estimate_tokens(&cjk).unwrap()));
    let messages = [capped.text.clone(), json.text.clone(), "recent".to_owned()];
    let policy = tool_output_cap::types::PrunePolicy {
        keep_last: Some(1),
        max_total_bytes: None,
        max_total_tokens: None,
    };
    out.push(format!("{:?}", session.prune(&messages, &policy).unwrap()));
    out
}

#[test]
fn the_baseline_code_answers_as_the_optimized_code_to_the_byte() {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut on_baseline = open(baseline(), dir_a.path());
    let mut on_optimized = open(optimized(), dir_b.path());
    assert!(!on_baseline.is_optimized() && on_optimized.is_optimized());
    let (a, b) = (answers(&mut on_baseline), answers(&mut on_optimized));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y);
    }
    // Still on the baseline: nothing moved it.
    assert!(!on_baseline.is_optimized());
    let (files_a, files_b) = (files(dir_a.path()), files(dir_b.path()));
    // Each spill and its metadata; the stream is the MCP result's text
    // again, which dedupe refers to.
    let spills: Vec<&str> = files_a
        .iter()
        .filter_map(|(name, _)| name.strip_prefix("tiers/")?.split('-').next())
        .collect();
    assert_eq!(
        spills,
        [".cjk", ".json", ".log", ".mcp", "cjk", "json", "log", "mcp"]
    );
    for ((name, a), (_, b)) in files_a.iter().zip(&files_b) {
        if name.ends_with(".meta") {
            // The same record but for when it was written.
            let record = |bytes: &[u8]| {
                let mut record: serde_json::Value = serde_json::from_slice(bytes).unwrap();
                record
                    .as_object_mut()
                    .unwrap()
                    .remove("created_ns")
                    .expect("a time");
                record
            };
            assert_eq!(record(a), record(b), "{name}");
        } else {
            assert!(a == b, "{name} differs");
        }
    }
    assert_eq!(
        baseline()
            .classify(413, "Request Entity Too Large")
            .unwrap(),
        optimized()
            .classify(413, "Request Entity Too Large")
            .unwrap()
    );
}

#[test]
fn a_session_moves_to_the_optimized_code_after_its_next_call_and_keeps_its_references() {
    let tool_cap = runtime(Start::Baseline);
    assert!(!tool_cap.is_optimized());
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(&tool_cap, dir.path());
    let log = build_log(MIB);
    let capped = session.cap(&log, &Budget::new(8 * 1024), "before").unwrap();
    let reference = capped.report.spill.clone().expect("spilled");
    assert!(!session.is_optimized());

    tool_cap.optimize().unwrap();
    assert!(tool_cap.is_optimized());
    // The session has not called since: it still holds the baseline.
    assert!(!session.is_optimized());
    assert_eq!(
        session.find_refs(&capped.text).unwrap(),
        vec![reference.clone()]
    );
    assert!(session.is_optimized());
    // A move is no recycling, and the new instance has the same key and
    // thread: the reference issued before reads back.
    assert_eq!(session.recycled(), 0);
    let page = session.read_lines(&reference.path, 1, 1, 4096).unwrap();
    assert_eq!(page.text, log.lines().next().unwrap().to_owned() + "\n");
    let again = session.cap(&log, &Budget::new(8 * 1024), "after").unwrap();
    assert_eq!(
        again.text.replace("after", "before"),
        capped.text.replace("after", "before")
    );

    // Sessions opened from now on start on the optimized code, and a second
    // `optimize` has nothing left to do.
    let other = tempfile::tempdir().unwrap();
    assert!(open(&tool_cap, other.path()).is_optimized());
    tool_cap.optimize().unwrap();
}

#[test]
fn a_stream_open_when_the_optimized_code_arrives_finishes_on_its_instance() {
    let tool_cap = runtime(Start::Baseline);
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(&tool_cap, dir.path());
    let log = build_log(2 * MIB);
    let half = log.len() / 2;
    let mut stream = session.stream(&Budget::new(8 * 1024), "s").unwrap();
    stream.write(&log.as_bytes()[..half]).unwrap();
    tool_cap.optimize().unwrap();
    stream.write(&log.as_bytes()[half..]).unwrap();
    let capped = stream.finish().unwrap();
    let reference = capped.report.spill.clone().expect("spilled");
    assert_eq!(reference.bytes, log.len() as u64);
    let path = session.host_path(&reference.path).unwrap().expect("a file");
    assert_eq!(std::fs::read(path).unwrap(), log.as_bytes());
    // The stream released, the session moved; the reference stays genuine.
    assert!(session.is_optimized());
    assert_eq!(session.find_refs(&capped.text).unwrap(), vec![reference]);
}

#[test]
fn the_baseline_code_keeps_the_call_deadline_and_the_memory_limit() {
    let tool_cap = runtime(Start::Baseline);
    let config = SessionConfig {
        thread_id: "t".into(),
        ..SessionConfig::default()
    };
    let mut session = tool_cap.open_session(config.clone()).unwrap();
    let deadline = Duration::from_millis(1);
    session.set_limits(Limits {
        call_deadline: Some(deadline),
        ..Limits::default()
    });
    let err = session
        .cap(&build_log(64 * MIB), &Budget::new(4096), "slow")
        .unwrap_err();
    assert_eq!(
        err.limit_exceeded(),
        Some(&LimitExceeded::Deadline { deadline }),
        "{err}"
    );
    assert!(session.is_poisoned());

    // 24 MiB of parts pass the up-front check of a 32 MiB limit; joining
    // them needs 24 MiB more, which the baseline's memory.grow is refused.
    let mut small = tool_cap.open_session(config).unwrap();
    small.set_limits(Limits {
        memory_bytes: Some(32 * MIB),
        ..Limits::default()
    });
    let parts = [
        ContentPart::Text(build_log(12 * MIB)),
        ContentPart::Text(build_log(12 * MIB)),
    ];
    let err = small
        .cap_parts(&parts, &Budget::new(4096), "p")
        .unwrap_err();
    assert!(
        matches!(
            err.limit_exceeded(),
            Some(&LimitExceeded::Memory { limit_bytes, .. }) if limit_bytes == 32 * MIB as u64
        ),
        "{err:?}"
    );
    assert!(small.memory_size() <= 32 * MIB && small.is_poisoned());
}

/// Once the optimized code is ready, the runtime lets the baseline go, and
/// its code is freed with the last store on it. A stream started on the
/// baseline finishes there, with the deadline ticker of its own code.
#[test]
fn the_baseline_code_is_freed_when_no_store_runs_it() {
    let tool_cap = runtime(Start::Baseline);
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut idle = open(&tool_cap, dirs[0].path());
    let mut streaming = open(&tool_cap, dirs[1].path());
    let deadline = Duration::from_millis(50);
    streaming.set_limits(Limits {
        call_deadline: Some(deadline),
        ..Limits::default()
    });
    let mut stream = streaming.stream(&Budget::new(4096), "s").unwrap();
    assert!(tool_cap.baseline_loaded());
    tool_cap.optimize().unwrap();
    // A call moves a session first: it runs on the optimized code.
    idle.estimate_tokens("moves before this call").unwrap();
    assert!(idle.is_optimized());
    let third = tempfile::tempdir().unwrap();
    assert!(open(&tool_cap, third.path()).is_optimized());
    // The stream's store alone holds the baseline now, and its ticker
    // still ends a call at the deadline (64 MiB take Winch far longer).
    assert!(tool_cap.baseline_loaded());
    let err = stream.write(build_log(64 * MIB).as_bytes()).unwrap_err();
    assert_eq!(
        err.limit_exceeded(),
        Some(&LimitExceeded::Deadline { deadline }),
        "{err}"
    );
    drop(stream);
    drop(streaming);
    assert!(!tool_cap.baseline_loaded());
    let capped = idle
        .cap(&build_log(MIB), &Budget::new(8 * 1024), "c")
        .unwrap();
    assert!(capped.report.spill.is_some());

    // Started optimized, there never was a baseline.
    assert!(!optimized().baseline_loaded());
}

#[test]
fn a_tiered_start_serves_at_once_and_moves_to_the_optimized_code() {
    let tool_cap = ToolCap::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(&tool_cap, dir.path());
    let capped = session
        .cap(&build_log(MIB), &Budget::new(8 * 1024), "c")
        .unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_some());
    tool_cap.optimize().unwrap();
    assert!(tool_cap.is_optimized());
    session.estimate_tokens("one more call").unwrap();
    assert!(session.is_optimized());
}

#[test]
fn an_optimized_or_pooled_start_has_the_optimized_code_at_once() {
    assert!(optimized().is_optimized());
    let pooled = RuntimeOptions {
        start: Start::Baseline,
        pooled_instances: Some(2),
        ..RuntimeOptions::default()
    };
    let tool_cap = ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &pooled).unwrap();
    assert!(tool_cap.is_optimized());
    let dir = tempfile::tempdir().unwrap();
    assert!(open(&tool_cap, dir.path()).is_optimized());
    assert_eq!(RuntimeOptions::default().start, Start::Tiered);
}
