//! `cargo test --release -p toolcap-tests --test all host_embedding::`: the
//! embedding API against the real component.

use std::sync::OnceLock;
use std::thread;

use tool_output_cap::{
    Budget, Call, CapError, Error, RuntimeOptions, SessionConfig, ToolCap,
    types::{OverflowKind, SizeUnit},
};
use toolcap_core::notice::NOT_SAVED;

/// Compiling the component is the slow part: do it once for every test.
fn tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| ToolCap::new().expect("the embedded component compiles"))
}

fn big_output() -> String {
    (1..=5_000)
        .map(|i| format!("line {i} of a long tool output\n"))
        .collect()
}

fn small_budget() -> Budget {
    Budget {
        max_lines: Some(50),
        ..Budget::new(4096)
    }
}

#[test]
fn threads_share_one_tool_cap() {
    let spill = tempfile::tempdir().unwrap();
    let output = big_output();
    thread::scope(|scope| {
        for worker in 0..4 {
            let (tool_cap, dir, output) = (tool_cap().clone(), spill.path(), &output);
            scope.spawn(move || {
                let config = SessionConfig::new(format!("thread-{worker}"), dir);
                let mut session = tool_cap.open_session(config).unwrap();
                let capped = session.cap(output, &small_budget(), "call-1").unwrap();
                assert!(capped.report.truncated && capped.text.len() <= 4096);
                let reference = capped.report.spill.expect("spilled");
                let on_disk = std::fs::read(
                    session
                        .host_path(&reference.path)
                        .expect("host_path")
                        .unwrap(),
                )
                .unwrap();
                assert_eq!(on_disk, output.as_bytes());
                let found = session.grep(&reference.path, "line 4321 ", 1).unwrap();
                assert_eq!(found.matches[0].line, 4321);
                assert_eq!(session.find_refs(&capped.text).unwrap().len(), 1);
            });
        }
    });
}

#[test]
fn fitting_output_comes_back_unchanged_without_a_file() {
    let spill = tempfile::tempdir().unwrap();
    let mut session = tool_cap()
        .open_session(SessionConfig::new("t", spill.path()))
        .unwrap();
    let capped = session.cap("short\n", &small_budget(), "call-1").unwrap();
    assert_eq!(capped.text, "short\n");
    assert!(!capped.report.truncated && capped.report.spill.is_none());
    // Only the thread folder, created (owner-only) when the session opened.
    assert_eq!(
        crate::common::tree(spill.path()),
        [std::path::PathBuf::from("t")]
    );
}

#[test]
fn without_a_preopen_the_cut_still_succeeds_and_says_so() {
    let config = SessionConfig {
        thread_id: "t".into(),
        ..SessionConfig::default()
    };
    let mut session = tool_cap().open_session(config).unwrap();
    assert_eq!(session.display_root(), "/spill");
    let capped = session
        .cap(&big_output(), &small_budget(), "call-1")
        .unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_none());
    assert!(capped.report.spill_error.is_some());
}

#[test]
fn an_empty_spill_dir_grants_nothing_not_the_working_directory() {
    let before = std::fs::read_dir(".").unwrap().count();
    let mut session = tool_cap()
        .open_session(SessionConfig::new("t-empty", ""))
        .unwrap();
    assert_eq!(session.spill_dir(), None);
    assert_eq!(session.display_root(), "/spill");
    let capped = session.cap(&big_output(), &small_budget(), "c1").unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_none());
    assert!(capped.text.contains(NOT_SAVED), "{}", capped.text);
    assert!(std::path::Path::new("t-empty").symlink_metadata().is_err());
    assert_eq!(std::fs::read_dir(".").unwrap().count(), before);
}

#[test]
fn a_failed_call_is_stated_first_and_the_read_tool_named() {
    let spill = tempfile::tempdir().unwrap();
    let config = SessionConfig {
        read_tool: Some("read_spilled_output".into()),
        shell_hints: false,
        ..SessionConfig::new("t1", spill.path())
    };
    let mut session = tool_cap().open_session(config).unwrap();
    let call = Call {
        tool: Some("cargo".into()),
        exit_code: Some(101),
        ..Call::new("build-1")
    };
    let capped = session
        .cap(&big_output(), &Budget::new(8192), call)
        .unwrap();
    let notice = &capped.text[capped.text.rfind("\n[toolcap] ").unwrap() + 1..];
    assert!(
        notice.starts_with("[toolcap] The tool `cargo` failed (exit code 101). "),
        "{notice}"
    );
    assert!(notice.contains("the read_spilled_output tool"), "{notice}");
    assert!(!notice.contains("grep -n"), "{notice}");
    let reference = capped.report.spill.expect("saved");
    assert!(reference.relative_path.starts_with("t1/build-1-"));
    assert!(
        reference
            .path
            .ends_with(&format!("/{}", reference.relative_path))
    );
    // A call that succeeded states nothing.
    let ok = Call {
        exit_code: Some(0),
        ..Call::new("build-2")
    };
    let capped = session.cap(&big_output(), &Budget::new(8192), ok).unwrap();
    assert!(!capped.text.contains("failed"));
}

#[test]
fn bad_preview_settings_are_refused_at_open() {
    let spill = tempfile::tempdir().unwrap();
    let bad = [
        SessionConfig {
            read_tool: Some("read spilled".into()),
            ..SessionConfig::new("t1", spill.path())
        },
        SessionConfig {
            notable_patterns: vec![String::new()],
            ..SessionConfig::new("t1", spill.path())
        },
        SessionConfig {
            notable_patterns: vec!["two\nlines".into()],
            ..SessionConfig::new("t1", spill.path())
        },
    ];
    for config in bad {
        match tool_cap().open_session(config) {
            Err(Error::Cap(CapError::InvalidSettings(_))) => {}
            other => panic!("expected invalid-settings, got {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn host_path_maps_only_this_threads_spill_files() {
    let spill = tempfile::tempdir().unwrap();
    let config = SessionConfig {
        display_root: Some("/r".into()),
        ..SessionConfig::new("t1", spill.path())
    };
    let mut session = tool_cap().open_session(config).unwrap();
    let capped = session.cap(&big_output(), &small_budget(), "c1").unwrap();
    let reference = capped.report.spill.expect("saved");
    let mapped = session.host_path(&reference.path).unwrap().expect("mapped");
    assert!(mapped.starts_with(session.spill_dir().unwrap()));
    assert_eq!(std::fs::read_to_string(&mapped).unwrap(), big_output());
    let file = reference.path.rsplit('/').next().unwrap();
    for hostile in [
        "/r//etc/passwd".to_owned(),
        "/r/../secret.txt".to_owned(),
        "/r/t1/../../secret.txt".to_owned(),
        format!("/r//t1/{file}"),
        format!("/r/t1/../t1/{file}"),
        format!("t1/{file}"),
    ] {
        assert_eq!(session.host_path(&hostile).unwrap(), None, "{hostile}");
    }
}

#[test]
fn a_read_only_grant_still_caps_and_says_so() {
    let spill = tempfile::tempdir().unwrap();
    let config = SessionConfig {
        read_only: true,
        ..SessionConfig::new("t", spill.path())
    };
    let mut session = tool_cap().open_session(config).unwrap();
    let capped = session
        .cap(&big_output(), &small_budget(), "call-1")
        .unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_none());
    assert!(capped.report.spill_error.is_some());
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
}

#[test]
fn component_errors_are_told_apart_from_runtime_errors() {
    let spill = tempfile::tempdir().unwrap();
    let mut session = tool_cap()
        .open_session(SessionConfig::new("t", spill.path()))
        .unwrap();
    let tiny = Budget::new(10);
    match session.cap(&big_output(), &tiny, "call-1") {
        Err(Error::Cap(CapError::InvalidBudget(_))) => {}
        other => panic!("expected invalid-budget, got {other:?}"),
    }
    match session.read("/etc/passwd", 0, 100) {
        Err(Error::Cap(CapError::OutsideRoot(_))) => {}
        other => panic!("expected outside-root, got {other:?}"),
    }
    // The session stays usable after a cap-error.
    assert!(session.cap("ok", &small_budget(), "call-2").is_ok());
    assert!(matches!(
        ToolCap::from_bytes(b"not wasm"),
        Err(Error::Runtime(_))
    ));
    // A spill directory that cannot be created (a file is in the way) is no
    // error: it is granted as nothing, and cut results say that their full
    // output could not be saved. One that is merely missing is created
    // (spill_life.rs).
    std::fs::write(spill.path().join("a-file"), "in the way").unwrap();
    let missing_dir = spill.path().join("a-file/missing");
    let mut unsaved = tool_cap()
        .open_session(SessionConfig::new("t", &missing_dir))
        .unwrap();
    let capped = unsaved
        .cap(&big_output(), &small_budget(), "call-3")
        .unwrap();
    assert!(
        capped.report.truncated && capped.report.spill.is_none(),
        "{capped:?}"
    );
    assert!(capped.text.contains(NOT_SAVED), "{}", capped.text);
    assert!(
        capped
            .report
            .spill_error
            .unwrap()
            .contains("no spill directory")
    );
    assert!(!missing_dir.exists());
    assert!(unsaved.display_root().ends_with("/a-file/missing"));
    let empty_thread = SessionConfig::new("", spill.path());
    assert!(matches!(
        tool_cap().open_session(empty_thread),
        Err(Error::Cap(CapError::InvalidSettings(_)))
    ));
}

#[test]
fn a_kept_key_verifies_references_across_sessions() {
    let spill = tempfile::tempdir().unwrap();
    let key = b"a host key of at least 16 bytes".to_vec();
    let config = SessionConfig {
        key: key.clone(),
        ..SessionConfig::new("t", spill.path())
    };
    let mut first = tool_cap().open_session(config.clone()).unwrap();
    let text = first
        .cap(&big_output(), &small_budget(), "call-1")
        .unwrap()
        .text;
    drop(first);
    let mut again = tool_cap().open_session(config).unwrap();
    assert_eq!(again.find_refs(&text).unwrap().len(), 1);
    let mut random_key = tool_cap()
        .open_session(SessionConfig::new("t", spill.path()))
        .unwrap();
    assert!(random_key.find_refs(&text).unwrap().is_empty());
    assert!(random_key.purge().unwrap() > 0);
}

#[test]
fn classify_recognises_overflow_rejections() {
    let html = "<html><head><title>413 Request Entity Too Large</title></head></html>";
    let kind = |status, body| tool_cap().classify(status, body).unwrap().map(|o| o.kind);
    assert_eq!(kind(413, html), Some(OverflowKind::RequestTooLarge));
    let openai = r#"{"error":{"code":"context_length_exceeded","message":"too long"}}"#;
    assert_eq!(kind(400, openai), Some(OverflowKind::ContextLengthExceeded));
    assert_eq!(kind(429, "rate limited"), None);
    // The amounts, when the body states them: how much to shed.
    let counted = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 412933 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
    let overflow = tool_cap()
        .classify(400, counted)
        .unwrap()
        .expect("an overflow");
    assert_eq!(
        (overflow.limit, overflow.requested, overflow.unit),
        (Some(128_000), Some(412_933), Some(SizeUnit::Tokens))
    );
}

#[test]
fn a_pooled_runtime_works_within_its_slots() {
    let options = RuntimeOptions {
        pooled_instances: Some(4),
        ..RuntimeOptions::default()
    };
    let pooled = ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options).unwrap();
    let spill = tempfile::tempdir().unwrap();
    let sessions: Vec<_> = (0..4)
        .map(|i| {
            pooled
                .open_session(SessionConfig::new(format!("t{i}"), spill.path()))
                .unwrap()
        })
        .collect();
    assert!(matches!(
        pooled.open_session(SessionConfig::new("t4", spill.path())),
        Err(Error::Runtime(_))
    ));
    drop(sessions);
    assert!(
        pooled
            .open_session(SessionConfig::new("t5", spill.path()))
            .is_ok()
    );
}

#[test]
fn a_search_over_its_limits_is_refused_by_the_component_and_nothing_is_saved() {
    let spill = tempfile::tempdir().unwrap();
    let mut session = tool_cap()
        .open_session(SessionConfig::new("t", spill.path()))
        .unwrap();
    let too_many: String = (0..17).map(|i| format!("term{i}\n")).collect();
    for (search, limit) in [
        (too_many, "at most 16"),
        ("x".repeat(257), "at most 256 bytes"),
    ] {
        let call = Call {
            search: Some(search),
            ..Call::from("call-1")
        };
        match session.cap(&big_output(), &small_budget(), call) {
            Err(Error::Cap(CapError::InvalidArgument(m))) => assert!(m.contains(limit), "{m}"),
            other => panic!("expected invalid-argument, got {other:?}"),
        }
    }
    // No output file was saved (the session's own folder may exist).
    let saved = walk(spill.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .count();
    assert_eq!(saved, 0);
    // A search within its limits shows its hit.
    let mut output = big_output();
    output.insert_str(
        output.len() / 2,
        &format!("{}needle{}\n", "z".repeat(9000), "z".repeat(9000)),
    );
    let call = Call {
        search: Some("needle".into()),
        ..Call::from("call-2")
    };
    // Without max-line-bytes: a hit in the cut part of a line the head
    // shows shortened is not looked for yet.
    let budget = Budget {
        max_line_bytes: None,
        ..Budget::new(8192)
    };
    let capped = session.cap(&output, &budget, call).unwrap();
    assert!(capped.text.contains("needle"), "{}", capped.text);
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
