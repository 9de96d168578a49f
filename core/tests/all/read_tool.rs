//! The read tool from outside the crate, over a host's own [`SpillFiles`]:
//! a cut output's notice leads the model to the full output, whose pages
//! reassemble it; expired files and random input give sentences, never panics.
//!
//! `cargo test -p toolcap-core --test all read_tool::`

use crate::common;

use std::collections::HashMap;

use common::MemStore;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolcap_core::read_tool::{self, DEFAULT_MAX_BYTES, SpillFiles, max_text_bytes, run, spec};
use toolcap_core::readback::MemFile;
use toolcap_core::test_support::SplitMix;
use toolcap_core::{Budget, Call, CapError, Capper, RefScheme};

const ROOT: &str = "/home/me/.spill";
const THREAD: &str = "thread-9";

fn scheme() -> RefScheme {
    RefScheme::new(ROOT, THREAD, vec![42; 32]).unwrap()
}

/// A host's spill folder as a map of `<thread>/<file>` to bytes, whose
/// missing files have expired.
struct Folder {
    scheme: RefScheme,
    files: HashMap<String, Vec<u8>>,
}

impl SpillFiles for Folder {
    type File = MemFile;

    fn scheme(&self) -> &RefScheme {
        &self.scheme
    }

    fn open(&mut self, path: &str) -> Result<MemFile, CapError> {
        let name = self.scheme.resolve(path)?;
        let key = format!("{}/{name}", self.scheme.thread_dir());
        self.files
            .get(&key)
            .map(|bytes| MemFile(bytes.clone()))
            .ok_or_else(|| CapError::NotFound("expired: spills are kept for 7 days".to_owned()))
    }
}

/// A build log of `n` lines with one compiler error in the middle.
fn build_log(n: usize) -> String {
    (1..=n)
        .map(|i| {
            if i == n / 2 {
                "error[E0308]: mismatched types at src/lib.rs:12:5\n".to_owned()
            } else {
                format!("   Compiling dep-{i} v0.1.{i} (ünïcode 中文 😀)\n")
            }
        })
        .collect()
}

/// Cap `log` in a session and hand its spill folder to the read tool.
fn capped(log: &str) -> (String, Folder) {
    let capper = Capper::new(scheme());
    let mut store = MemStore::default();
    let call = Call {
        exit_code: Some(101),
        ..Call::new("call-1")
    };
    let out = capper
        .cap_call(log, &Budget::default(), &call, &mut store)
        .unwrap();
    assert!(out.truncated);
    let folder = Folder {
        scheme: scheme(),
        files: store.files,
    };
    (out.text, folder)
}

/// The file bytes of a line or byte page, numbering stripped, and its cursor.
fn page_bytes(text: &str) -> (String, Option<Value>) {
    let mut shown = Vec::new();
    let mut breaks_last = true;
    let mut next = None;
    for line in text.split('\n').skip(1) {
        if let Some(cursor) = line.strip_prefix("More: call again with ") {
            next = Some(serde_json::from_str(cursor).unwrap());
        } else if line.starts_with("[line ") || line.starts_with("End of file (no line break") {
            breaks_last = false;
        } else if let Some((number, rest)) = line.split_once('\t') {
            assert!(number.trim_start().parse::<u64>().is_ok(), "{line:?}");
            shown.push(rest);
        }
    }
    let mut bytes = shown.join("\n");
    if breaks_last && !shown.is_empty() {
        bytes.push('\n');
    }
    (bytes, next)
}

#[test]
fn the_notice_of_a_cut_output_leads_to_its_error_and_its_pages() {
    let log = build_log(3_000);
    let (cut, mut folder) = capped(&log);
    // The model passes the whole notice as the path and greps for the error.
    let out = run(
        &json!({"path": cut, "grep": "error[E0308]"}).to_string(),
        &mut folder,
    );
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text
            .contains(" — 1 match of \"error[E0308]\" (showing 1-1)\nline 1500: error")
    );
    // Then reads the lines around it.
    let path = out.text.split(" — ").next().unwrap().to_owned();
    let around = run(
        &json!({"path": path, "line": 1498, "lines": 5}).to_string(),
        &mut folder,
    );
    assert!(
        around
            .text
            .contains("\n1500\terror[E0308]: mismatched types")
    );
    assert!(around.text.contains("\"line\": 1503, \"lines\": 5}"));
    // Following the cursors from line 1 gives back the log byte for byte.
    let bound = max_text_bytes(folder.scheme(), DEFAULT_MAX_BYTES);
    let mut whole = String::new();
    let mut next = Some(json!({"path": path}));
    while let Some(arguments) = next.take() {
        let out = run(&arguments.to_string(), &mut folder);
        assert!(!out.is_error && out.text.len() <= bound, "{}", out.text);
        let (bytes, cursor) = page_bytes(&out.text);
        whole.push_str(&bytes);
        next = cursor;
    }
    assert_eq!(whole, log);
}

#[test]
fn an_expired_file_gives_the_hosts_reason() {
    let (cut, mut folder) = capped(&build_log(2_000));
    folder.files.clear();
    let out = run(&json!({"path": cut}).to_string(), &mut folder);
    assert!(out.is_error);
    assert!(
        out.text.starts_with("Expired: spills are kept for 7 days."),
        "{}",
        out.text
    );
}

#[test]
fn the_spec_names_the_tool_and_its_schema_parses() {
    let spec = spec(read_tool::DEFAULT_TOOL_NAME);
    assert_eq!(spec.name, "read_spilled_output");
    let schema: Value = serde_json::from_str(&spec.input_schema).unwrap();
    assert_eq!(schema["properties"]["path"]["type"], "string");
}

/// Fuzz-style smoke test: random bytes, and random edits of a valid call,
/// never panic and always answer within the bound.
#[test]
fn smoke() {
    let (cut, mut folder) = capped(&build_log(1_000));
    let bound = max_text_bytes(folder.scheme(), read_tool::MAX_MAX_BYTES);
    let valid = json!({"path": cut, "line": 3, "max_bytes": 300}).to_string();
    let mut rng = SplitMix::new(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_u64();
    for round in 0..2_000 {
        let mut bytes = if round % 2 == 0 {
            (0..next() % 64).map(|_| next() as u8).collect::<Vec<u8>>()
        } else {
            valid.clone().into_bytes()
        };
        for _ in 0..next() % 4 {
            if bytes.is_empty() {
                break;
            }
            let at = (next() as usize) % bytes.len();
            bytes[at] = b"{}[]\":,0123456789-.e \\lnptrue"[(next() % 29) as usize];
        }
        let arguments = String::from_utf8_lossy(&bytes);
        let out = run(&arguments, &mut folder);
        assert!(
            !out.text.is_empty() && out.text.len() <= bound,
            "{arguments}"
        );
    }
}

proptest! {
    #![proptest_config(common::cases(32))]

    /// Any build log, cut by the capper: following the byte cursors from the
    /// notice's path gives it back byte for byte, every page within its bound.
    #[test]
    fn byte_pages_of_any_cut_log_reassemble_it(
        unit in common::rich_text(40).prop_filter("some text", |t| !t.is_empty()),
        max_bytes in read_tool::MIN_MAX_BYTES..4096,
    ) {
        // Longer than the default budget, so that the capper cuts it.
        let log = unit.repeat(20_000 / unit.len() + 1);
        let (cut, mut folder) = capped(&log);
        let bound = max_text_bytes(folder.scheme(), max_bytes);
        let mut whole = String::new();
        let mut next = Some(json!({"path": cut, "offset": 0, "max_bytes": max_bytes}));
        while let Some(arguments) = next.take() {
            let out = run(&arguments.to_string(), &mut folder);
            prop_assert!(!out.is_error && out.text.len() <= bound, "{}", out.text);
            let (bytes, cursor) = page_bytes(&out.text);
            whole.push_str(&bytes);
            next = cursor;
        }
        prop_assert_eq!(whole, log);
    }
}
