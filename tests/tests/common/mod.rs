//! Helpers shared by the integration test binaries: one compiled component per
//! binary, sessions in temp dirs, naive oracles and file-tree listings.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tool_output_cap::{Budget, Error, Session, SessionConfig, ToolCap, types::Keep};

/// Display root of the sessions opened here: deliberately not the host path,
/// so tests see that notices show what the host chose.
pub const DISPLAY_ROOT: &str = "/spill-host";

/// A fixed 32-byte key, so two sessions can share it on purpose.
pub const KEY: [u8; 32] = *b"toolcap-tests-fixed-key-32-bytes";

/// The component, compiled once per test binary (about 60 ms each time).
pub fn tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| ToolCap::new().expect("the embedded component compiles"))
}

/// A read-write session of `thread` spilling into `dir`, with [`KEY`].
pub fn config(dir: &Path, thread: &str) -> SessionConfig {
    SessionConfig {
        thread_id: thread.to_owned(),
        spill_dir: Some(dir.to_owned()),
        read_only: false,
        display_root: Some(DISPLAY_ROOT.to_owned()),
        key: KEY.to_vec(),
        ..SessionConfig::default()
    }
}

/// Opens [`config`]`(dir, thread)`.
pub fn open(dir: &Path, thread: &str) -> Session {
    open_with(config(dir, thread))
}

/// Opens a session, panicking with the component's reason if it refuses.
pub fn open_with(config: SessionConfig) -> Session {
    tool_cap()
        .open_session(config)
        .unwrap_or_else(|err| panic!("open_session: {err}"))
}

/// A budget of `max_bytes` with no line limits, head and tail half each.
pub fn budget(max_bytes: u32) -> Budget {
    Budget {
        max_bytes,
        max_lines: None,
        max_line_bytes: None,
        keep: Keep::HeadAndTail,
        head_percent: 50,
        max_tokens: None,
    }
}

/// Naive line count, as the WIT defines it: lines end at LF, a last line
/// without LF still counts.
pub fn count_lines(text: &str) -> u64 {
    text.split_inclusive('\n').count() as u64
}

/// The WIT case name of an error, or the host's own case: `limit-exceeded`,
/// `poisoned`, `runtime` (a trap or host failure).
pub fn case_name(err: &Error) -> &'static str {
    match err {
        Error::Cap(cap) => cap.case(),
        Error::LimitExceeded(_) => "limit-exceeded",
        Error::Poisoned { .. } => "poisoned",
        _ => "runtime",
    }
}

/// Asserts that `result` failed with the `cap-error` case `want`.
#[track_caller]
pub fn assert_case<T: std::fmt::Debug>(result: Result<T, Error>, want: &str) {
    match result {
        Ok(value) => panic!("expected {want}, got Ok({value:?})"),
        Err(err) => assert_eq!(case_name(&err), want, "wrong error: {err}"),
    }
}

/// Every entry below `root` (files, folders, links; links not followed),
/// relative to it, sorted; the component's bookkeeping beside spills (the
/// catalog notes `.<file>.meta` and a thread's `.expired` note) left out.
pub fn tree(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let note = toolcap_core::catalog::is_note_name(&name);
            if note && entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            out.push(path.strip_prefix(root).expect("below root").to_owned());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Entries below `root` whose name marks an unfinished write.
pub fn temp_files(root: &Path) -> Vec<PathBuf> {
    tree(root)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".tmp"))
        })
        .collect()
}

/// Texts in several scripts, for cuts that must not split a character.
pub fn multibyte_corpus() -> Vec<(&'static str, String)> {
    let line = |i: usize| match i % 4 {
        0 => format!("строка {i}: ошибка сборки\n"),
        1 => format!("第{i}行：编译错误，未找到符号\n"),
        2 => format!("line {i} 😀🚀🎉 done\n"),
        _ => format!("mixed {i} aé中😀ж\r\n"),
    };
    vec![
        ("cyrillic", "Привет, мир! ".repeat(120)),
        ("cjk", "日本語のテキスト、".repeat(90)),
        ("emoji", "🦀🔥👍🏽🇺🇦".repeat(80)),
        ("mixed lines", (0..60).map(line).collect()),
    ]
}
