//! `cargo test --release -p toolcap-tests --test all host_limits::`: memory limits and call
//! deadlines through the real component. A limit hit before the call leaves
//! the session usable; one hit inside the component poisons only that session.

use std::sync::OnceLock;
use std::time::Duration;

use tool_output_cap::{
    Budget, Error, Limits, RuntimeOptions, Session, SessionConfig, Start, ToolCap,
    limits::{DEFAULT_CALL_DEADLINE, DEFAULT_MEMORY_LIMIT, LimitExceeded, Recycling},
    types::ContentPart,
};

const MIB: usize = 1 << 20;

/// A runtime whose sessions may grow to 32 MiB of linear memory.
fn small_memory_tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| {
        let options = RuntimeOptions {
            limits: Limits {
                memory_bytes: Some(32 * MIB),
                ..Limits::default()
            },
            ..RuntimeOptions::default()
        };
        ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options).expect("compiles")
    })
}

fn default_tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| ToolCap::new().expect("compiles"))
}

/// The default limits, but sessions keep their instance however large it
/// grows, so a test can see what one call used (and start on the optimized
/// code: moving to it would replace the instance too).
fn keeping_tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| {
        let options = RuntimeOptions {
            recycling: Recycling::Never,
            start: Start::Optimized,
            ..RuntimeOptions::default()
        };
        ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options).expect("compiles")
    })
}

/// `bytes` of log-like text.
fn output_of(bytes: usize) -> String {
    let line = "2025-01-01T00:00:00Z build step finished without errors\n";
    let mut text = line.repeat(bytes / line.len() + 1);
    text.truncate(bytes);
    text
}

fn small_budget() -> Budget {
    Budget {
        max_lines: Some(50),
        ..Budget::new(4096)
    }
}

fn open(tool_cap: &ToolCap, dir: &std::path::Path, thread: &str) -> Session {
    tool_cap
        .open_session(SessionConfig::new(thread, dir))
        .unwrap_or_else(|err| panic!("open_session: {err}"))
}

/// A small cut result that must spill, to show a session still works.
fn assert_works(session: &mut Session) {
    let capped = session
        .cap(&output_of(20_000), &small_budget(), "after")
        .unwrap_or_else(|err| panic!("the session should work: {err}"));
    assert!(
        capped.report.truncated && capped.report.spill.is_some(),
        "{capped:?}"
    );
}

#[test]
fn defaults_are_256_mib_and_30_s_and_hold_a_64_mib_cap() {
    assert_eq!(
        Limits::default(),
        Limits {
            memory_bytes: Some(256 * MIB),
            call_deadline: Some(Duration::from_secs(30)),
        }
    );
    assert_eq!(DEFAULT_MEMORY_LIMIT, 256 * MIB);
    assert_eq!(DEFAULT_CALL_DEADLINE, Duration::from_secs(30));
    assert_eq!(default_tool_cap().limits(), Limits::default());

    let dir = tempfile::tempdir().unwrap();
    let mut session = open(keeping_tool_cap(), dir.path(), "t");
    assert_eq!(session.limits(), Limits::default());
    let before = session.memory_size();
    let input = output_of(64 * MIB);
    let capped = session.cap(&input, &small_budget(), "big").unwrap();
    let reference = capped.report.spill.expect("spilled");
    assert_eq!(reference.bytes, input.len() as u64);
    // The component copies the input once: its memory grows by about 64 MiB.
    let grown = session.memory_size() - before;
    assert!(
        (64 * MIB..80 * MIB).contains(&grown),
        "grew by {grown} bytes"
    );
    assert!(session.memory_size() < DEFAULT_MEMORY_LIMIT);
}

#[test]
fn an_input_larger_than_the_memory_limit_is_refused_before_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(small_memory_tool_cap(), dir.path(), "t");
    let input = output_of(64 * MIB);
    let err = session.cap(&input, &small_budget(), "huge").unwrap_err();
    assert!(matches!(err, Error::LimitExceeded(_)), "{err:?}");
    let own = session.memory_size() as u64;
    // The component's memory as the limiter last saw it grow: at most what
    // it holds now.
    assert!(
        matches!(
            err.limit_exceeded(),
            Some(&LimitExceeded::InputTooLarge { input_bytes, own_bytes, limit_bytes })
                if input_bytes == (input.len() + "huge".len()) as u64
                    && own_bytes > 0
                    && own_bytes <= own
                    && limit_bytes == 32 * MIB as u64
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("input of 64.0 MiB exceeds this session's 32.0 MiB memory limit"),
        "{message}"
    );
    // Nothing ran: no file, no growth, and the session carries on.
    assert!(!session.is_poisoned());
    assert_eq!(session.memory_size() as u64, own);
    // No file: only the thread folder the host created when it opened.
    assert_eq!(
        crate::common::tree(dir.path()),
        [std::path::PathBuf::from("t")]
    );
    assert_works(&mut session);

    // The same check guards the other functions that take large inputs.
    let parts = [
        ContentPart::Text(output_of(20 * MIB)),
        ContentPart::Text(output_of(20 * MIB)),
    ];
    let err = session.cap_parts(&parts, &small_budget(), "p").unwrap_err();
    assert!(matches!(
        err.limit_exceeded(),
        Some(LimitExceeded::InputTooLarge { .. })
    ));
    let err = session.find_refs(&input).unwrap_err();
    assert!(matches!(
        err.limit_exceeded(),
        Some(LimitExceeded::InputTooLarge { .. })
    ));
    assert!(!session.is_poisoned());
    assert_works(&mut session);
}

#[test]
fn growing_past_the_memory_limit_poisons_only_that_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut bystander = open(small_memory_tool_cap(), dir.path(), "bystander");
    let mut session = open(small_memory_tool_cap(), dir.path(), "t");
    // 24 MiB of parts pass the up-front check, but the component joins the
    // texts into one more 24 MiB string: 49 MiB in all.
    let parts = [
        ContentPart::Text(output_of(12 * MIB)),
        ContentPart::Text(output_of(12 * MIB)),
    ];
    let err = session.cap_parts(&parts, &small_budget(), "p").unwrap_err();
    match err.limit_exceeded() {
        Some(&LimitExceeded::Memory {
            requested_bytes,
            limit_bytes,
        }) => {
            assert_eq!(limit_bytes, 32 * MIB as u64);
            assert!(requested_bytes > limit_bytes, "{err}");
        }
        other => panic!("expected a memory limit, got {other:?}: {err}"),
    }
    assert!(
        err.to_string()
            .contains("needed more than this session's 32.0 MiB memory limit"),
        "{err}"
    );
    assert!(session.memory_size() <= 32 * MIB);

    // The instance is unusable now; every call says so and why.
    assert!(session.is_poisoned());
    let again = session.cap("short", &small_budget(), "next").unwrap_err();
    assert!(matches!(again, Error::Poisoned { .. }));
    let message = again.to_string();
    assert!(
        message.contains("can no longer be used") && message.contains("32.0 MiB memory limit"),
        "{message}"
    );
    assert!(session.find_refs("text").is_err());
    drop(session);

    // Other sessions, old and new, are not affected.
    assert_works(&mut bystander);
    let mut fresh = open(small_memory_tool_cap(), dir.path(), "t");
    assert_works(&mut fresh);
}

#[test]
fn a_call_past_its_deadline_is_interrupted_and_poisons_the_session() {
    // No spill folder: the call is pure computation (hashing 64 MiB takes
    // hundreds of milliseconds), so the deadline can only end it in wasm.
    let config = SessionConfig {
        thread_id: "t".into(),
        ..SessionConfig::default()
    };
    let mut session = default_tool_cap().open_session(config.clone()).unwrap();
    let deadline = Duration::from_millis(1);
    session.set_limits(Limits {
        call_deadline: Some(deadline),
        ..Limits::default()
    });
    let err = session
        .cap(&output_of(64 * MIB), &small_budget(), "slow")
        .unwrap_err();
    assert_eq!(
        err.limit_exceeded(),
        Some(&LimitExceeded::Deadline { deadline }),
        "{err}"
    );
    assert!(err.to_string().contains("deadline"), "{err}");
    assert!(session.is_poisoned());
    assert!(session.cap("short", &small_budget(), "next").is_err());

    // A new session has the runtime's limits again and works.
    let mut fresh = default_tool_cap().open_session(config).unwrap();
    assert_eq!(fresh.limits(), Limits::default());
    let capped = fresh
        .cap(&output_of(20_000), &small_budget(), "ok")
        .unwrap();
    assert!(capped.report.truncated && capped.report.spill_error.is_some());
}

#[test]
fn without_limits_a_session_grows_as_it_needs() {
    let options = RuntimeOptions {
        limits: Limits {
            memory_bytes: None,
            call_deadline: None,
        },
        recycling: Recycling::Never,
        start: Start::Optimized,
        ..RuntimeOptions::default()
    };
    let tool_cap = ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(&tool_cap, dir.path(), "t");
    let parts = [
        ContentPart::Text(output_of(12 * MIB)),
        ContentPart::Text(output_of(12 * MIB)),
    ];
    let capped = session.cap_parts(&parts, &small_budget(), "p").unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_some());
    assert!(session.memory_size() > 32 * MIB);
    assert!(tool_cap.classify(413, "too large").unwrap().is_some());
}

#[test]
fn classify_runs_under_the_runtime_limits() {
    let body = "x".repeat(40 * MIB);
    let err = small_memory_tool_cap().classify(400, &body).unwrap_err();
    assert!(matches!(
        err.limit_exceeded(),
        Some(LimitExceeded::InputTooLarge { .. })
    ));
    assert!(small_memory_tool_cap().classify(413, "").unwrap().is_some());
}

/// An MCP result whose texts are "before" and `text` (a log with quotes,
/// backslashes and non-ASCII, so its JSON has escapes), with an image
/// between them and a small structured content.
fn mcp_result_with(text: &str) -> String {
    serde_json::json!({
        "content": [
            {"type": "text", "text": "before"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///build.log", "text": text}},
        ],
        "structuredContent": {"status": "failed"},
        "isError": true,
    })
    .to_string()
}

/// `result` capped to [`small_budget`], without resource links.
fn cap_mcp(session: &mut Session, result: &str, call: &str) -> tool_output_cap::types::CappedMcp {
    let options = tool_output_cap::types::McpOptions {
        resource_link: false,
    };
    session
        .cap_mcp(result, &small_budget(), call, &options)
        .unwrap_or_else(|err| panic!("cap_mcp: {err}"))
}

fn log_with_escapes(bytes: usize) -> String {
    let line = "2025-01-01 step \"build\" in C:\\src — ok ✓\n";
    let mut text = line.repeat(bytes / line.len() + 1);
    text.push_str("error: the last step failed\n");
    text
}

/// The component takes an MCP result's huge text in pieces: a 96 MiB
/// result is capped by a session whose memory may not pass 32 MiB, the
/// texts are saved byte for byte, and the other blocks keep their place.
#[test]
fn an_mcp_result_larger_than_the_memory_limit_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(small_memory_tool_cap(), dir.path(), "t");
    let text = log_with_escapes(96 * MIB);
    let result = mcp_result_with(&text);
    let capped = cap_mcp(&mut session, &result, "huge");
    assert!(capped.report.truncated && !capped.structured_dropped);
    let reference = capped.report.spill.expect("spilled");
    let path = session.host_path(&reference.path).unwrap().expect("a file");
    let saved = std::fs::read(path).unwrap();
    assert!(
        saved == format!("before\n{text}").as_bytes(),
        "the texts, joined"
    );
    let out: serde_json::Value = serde_json::from_str(&capped.result).expect("valid JSON");
    let blocks = out["content"].as_array().unwrap();
    let types: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "text", "image"], "notice, preview, image");
    assert!(
        blocks[1]["text"]
            .as_str()
            .unwrap()
            .contains("the last step failed")
    );
    assert_eq!(out["structuredContent"]["status"], "failed");
    assert_eq!(out["isError"], true);
    assert!(
        capped.result.len() <= 4096 + 1024,
        "{}",
        capped.result.len()
    );
    assert_works(&mut session);
}

/// In pieces, the component's memory grows by what the preview needs, not
/// by the result: 64 MiB capped, it grows by less than 16 MiB.
#[test]
fn a_huge_mcp_text_is_not_held_by_the_component() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(keeping_tool_cap(), dir.path(), "t");
    let before = session.memory_size();
    let result = mcp_result_with(&log_with_escapes(64 * MIB));
    let options = tool_output_cap::types::McpOptions {
        resource_link: true,
    };
    let capped = session
        .cap_mcp(&result, &small_budget(), "huge", &options)
        .unwrap();
    assert!(capped.report.truncated);
    let grown = session.memory_size() - before;
    assert!(grown < 16 * MIB, "grew by {grown} bytes");
}

/// A text under the one-pass preview's threshold is kept whole for the
/// whole-text preview: in one piece of the size the stream was told, not in
/// blocks joined at the end, so the memory grows by less than two copies
/// of it (5.8 MiB for 3.5 MiB; 11.4 MiB when the blocks were joined).
#[test]
fn a_large_mcp_text_is_held_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(keeping_tool_cap(), dir.path(), "t");
    let before = session.memory_size();
    let text = log_with_escapes(7 * MIB / 2);
    let result = mcp_result_with(&text);
    let capped = cap_mcp(&mut session, &result, "large");
    assert!(capped.report.truncated);
    // The file holds the texts joined: the text block's, then this one.
    let spill = capped.report.spill.expect("saved");
    assert_eq!(spill.bytes, ("before\n".len() + text.len()) as u64);
    let grown = session.memory_size() - before;
    eprintln!(
        "memory grown by a 3.5 MiB text: {:.1} MiB",
        grown as f64 / MIB as f64
    );
    assert!(grown < 2 * text.len(), "grew by {grown} bytes");
}

/// A session that redacts, its spills too when `spill`.
fn redacting(dir: &std::path::Path, spill: bool) -> Session {
    let mut config = SessionConfig::new("t", dir);
    config.redaction = Some(tool_output_cap::types::RedactionPolicy {
        literals: vec!["hunter2-corp-literal".into()],
        spill,
    });
    default_tool_cap().open_session(config).unwrap()
}

/// Redaction meets the pieces: secrets in a huge text are redacted in the
/// preview (and in the file when the policy says so), as in a small one.
#[test]
fn a_huge_mcp_text_in_pieces_is_redacted() {
    let secret = "GITHUB_TOKEN=ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f";
    let mut text = format!("{secret}\npassword=hunter2-corp-literal\n");
    text.push_str(&log_with_escapes(8 * MIB));
    text.push_str(&format!("error: {secret} was refused\n"));
    let result = mcp_result_with(&text);
    for spill in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut session = redacting(dir.path(), spill);
        let options = tool_output_cap::types::McpOptions {
            resource_link: false,
        };
        let capped = session
            .cap_mcp(&result, &small_budget(), "secret", &options)
            .unwrap();
        assert!(capped.report.truncated);
        assert!(!capped.result.contains("ghp_FAKE") && !capped.result.contains("hunter2"));
        assert!(capped.result.contains("[redacted: "), "{}", capped.result);
        let reference = capped.report.spill.expect("spilled");
        let saved = std::fs::read(session.host_path(&reference.path).unwrap().unwrap()).unwrap();
        let saved = String::from_utf8(saved).unwrap();
        assert_eq!(saved.contains("ghp_FAKE"), !spill, "spill: {spill}");
        assert_eq!(saved.len() as u64, reference.bytes);
    }
}

/// A huge text made of a host's secret fits once redacted: the skeleton
/// could not tell, and the whole result settles it, as `cap-mcp` of it does.
#[test]
fn a_huge_text_that_fits_once_redacted_is_kept_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let literal = format!("hunter2-{}", "q".repeat(480));
    let mut config = SessionConfig::new("t", dir.path());
    config.redaction = Some(tool_output_cap::types::RedactionPolicy {
        literals: vec![literal.clone()],
        spill: false,
    });
    let mut session = default_tool_cap().open_session(config).unwrap();
    // 2,200 lines of 489 bytes: 1 MiB, and 20 bytes a line once redacted.
    let text = format!("{literal}\n").repeat(2_200);
    let result = mcp_result_with(&text);
    let budget = Budget {
        max_lines: None,
        ..Budget::new(100_000)
    };
    let options = tool_output_cap::types::McpOptions {
        resource_link: false,
    };
    let capped = session
        .cap_mcp(&result, &budget, "literals", &options)
        .unwrap();
    assert!(!capped.report.truncated, "{:.600}", capped.result);
    assert!(!capped.result.contains("hunter2"));
    assert_eq!(capped.result.matches("[redacted: literal]").count(), 2_200);
}
