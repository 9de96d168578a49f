//! Where retention meets dedupe, other processes and shared folders: a
//! notice's promise is kept by every sweep (whatever its policy), reuse of
//! an identical output renews it, a file replaced behind its reference is
//! refused by the read tool, and the Rust host refuses a spill directory or
//! thread folder that others can write.
//!
//! `cargo test --release -p toolcap-tests --test all promises::`

use std::fs;
use std::os::unix::fs::{PermissionsExt as _, chown};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::{budget, config, open_with, tool_cap};
use serde_json::{Value, json};
use tool_output_cap::{Session, SessionConfig, types::RetentionPolicy};

const DAY: u64 = 86_400;
const HOUR_NS: u64 = 3_600 * 1_000_000_000;
const DAY_NS: u64 = DAY * 1_000_000_000;

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// A session of thread `t` in `dir` whose notices promise `days`.
fn promising(dir: &Path, days: u64) -> Session {
    open_with(SessionConfig {
        retention_seconds: Some(days * DAY),
        ..config(dir, "t")
    })
}

/// Log lines about `bytes` long, different for each `label`.
fn output(label: &str, bytes: usize) -> String {
    let line = format!("{label}: step done, nothing notable\n");
    line.repeat(bytes / line.len() + 1)
}

/// The catalog note beside spill `relative` (`t/<name>`).
fn note_path(dir: &Path, relative: &str) -> PathBuf {
    let (thread, name) = relative.split_once('/').unwrap();
    dir.join(thread).join(format!(".{name}.meta"))
}

fn read_note(dir: &Path, relative: &str) -> Value {
    serde_json::from_slice(&fs::read(note_path(dir, relative)).unwrap()).unwrap()
}

/// Rewrites the note of `relative` as if it was saved `created_ago` ago
/// with a promise ending at `expires` (`None`: a note of a version before
/// 0.3, with no promise), and dates the file the same.
fn age_note(dir: &Path, relative: &str, created_ago: u64, expires: Option<u64>) {
    let mut note = read_note(dir, relative);
    note["created_ns"] = json!(now_ns() - created_ago);
    match expires {
        Some(at) => note["expires_ns"] = json!(at),
        None => {
            note.as_object_mut().unwrap().remove("expires_ns");
        }
    }
    fs::write(note_path(dir, relative), note.to_string()).unwrap();
    let file = fs::File::options()
        .write(true)
        .open(dir.join(relative))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_nanos(created_ago))
        .unwrap();
}

fn sweep_by_age(dir: &Path, days: u64) -> tool_output_cap::types::SweepReport {
    let policy = RetentionPolicy {
        max_age_seconds: Some(days * DAY),
        max_total_bytes: None,
        max_files: None,
    };
    tool_cap()
        .open_spill_store(dir)
        .unwrap()
        .sweep(&policy)
        .unwrap()
}

/// Identical output capped again names the old file and renews its
/// promise: the file was saved 7 days and 1 hour ago (its promise lapsed an
/// hour ago), and the new notice says "kept for 7 days", so a 7-day sweep
/// right after must keep it. The same sweep deletes a lapsed file that was
/// not named again.
#[test]
fn reuse_renews_the_promise_so_the_next_sweep_keeps_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = promising(dir.path(), 7);
    let text = output("reused", 40_000);
    let first = session.cap(&text, &budget(2048), "c1").unwrap();
    let spill = first.report.spill.expect("saved");
    let other = session
        .cap(&output("not reused", 40_000), &budget(2048), "c2")
        .unwrap()
        .report
        .spill
        .expect("saved");
    let note = read_note(dir.path(), &spill.relative_path);
    let expires = note["expires_ns"]
        .as_u64()
        .expect("the note states the promise");
    let created = note["created_ns"].as_u64().unwrap();
    assert_eq!(expires, created + 7 * DAY_NS, "{note}");
    let lapsed = now_ns() - HOUR_NS;
    for relative in [&spill.relative_path, &other.relative_path] {
        age_note(dir.path(), relative, 7 * DAY_NS + HOUR_NS, Some(lapsed));
    }

    let again = session.cap(&text, &budget(2048), "c3").unwrap();
    assert_eq!(again.report.spill.as_ref(), Some(&spill), "deduped");
    assert!(again.text.contains("(kept for 7 days)"));
    let renewed = read_note(dir.path(), &spill.relative_path)["expires_ns"]
        .as_u64()
        .unwrap();
    assert!(renewed > now_ns() + 6 * DAY_NS, "renewed to {renewed}");

    let report = sweep_by_age(dir.path(), 7);
    let deleted: Vec<_> = report.deleted.iter().map(|d| &d.relative_path).collect();
    assert_eq!(deleted, [&other.relative_path], "{report:?}");
    assert!(dir.path().join(&spill.relative_path).is_file());
    let out = session
        .run_read_tool(&json!({ "path": spill.path }).to_string())
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
}

/// A 30-day promise holds against a 7-day sweep of another process: the
/// file is kept and the report says why. Files without a promise (a note of
/// an older version, or no note at all) go by the policy, from the note's
/// time or else the file's.
#[test]
fn a_longer_promise_outlives_a_shorter_policy() {
    let dir = tempfile::tempdir().unwrap();
    let mut long = promising(dir.path(), 30);
    let promised = long
        .cap(&output("promised", 40_000), &budget(2048), "long")
        .unwrap()
        .report
        .spill
        .unwrap();
    let old_note = long
        .cap(&output("old note", 40_000), &budget(2048), "old")
        .unwrap()
        .report
        .spill
        .unwrap();
    let no_note = long
        .cap(&output("no note", 40_000), &budget(2048), "none")
        .unwrap()
        .report
        .spill
        .unwrap();
    let ten_days = 10 * DAY_NS;
    age_note(
        dir.path(),
        &promised.relative_path,
        ten_days,
        Some(now_ns() + 20 * DAY_NS),
    );
    age_note(dir.path(), &old_note.relative_path, ten_days, None);
    age_note(dir.path(), &no_note.relative_path, ten_days, None);
    fs::remove_file(note_path(dir.path(), &no_note.relative_path)).unwrap();

    let report = sweep_by_age(dir.path(), 7);
    let mut deleted: Vec<_> = report
        .deleted
        .iter()
        .map(|d| d.relative_path.clone())
        .collect();
    deleted.sort();
    let mut want = vec![
        old_note.relative_path.clone(),
        no_note.relative_path.clone(),
    ];
    want.sort();
    assert_eq!(deleted, want, "{report:?}");
    assert_eq!(report.kept_files, 1);
    let why = report
        .skipped
        .iter()
        .find(|s| s.starts_with(&promised.relative_path))
        .unwrap_or_else(|| panic!("the kept file is not reported: {report:?}"));
    assert!(why.contains("as its notice promised"), "{why}");
    assert!(why.contains("max-age-seconds"), "{why}");
    assert!(dir.path().join(&promised.relative_path).is_file());
}

/// The read tool checks a file against its reference before serving it:
/// a file replaced by other bytes of the same size, or cut short, is
/// refused with a sentence, never shown as the saved output.
#[test]
fn the_read_tool_refuses_a_file_replaced_behind_its_reference() {
    let dir = tempfile::tempdir().unwrap();
    let text = output("genuine", 40_000);
    let mut session = open_with(config(dir.path(), "t"));
    let capped = session.cap(&text, &budget(2048), "c1").unwrap();
    let spill = capped.report.spill.unwrap();
    let file = dir.path().join(&spill.relative_path);
    let forged = text.replace("genuine", "forged!");
    assert_eq!(forged.len(), text.len());
    fs::write(&file, &forged).unwrap();
    // A session that has not read it yet: by path, and by the notice.
    for path in [json!(spill.path), json!(capped.text)] {
        let mut fresh = open_with(config(dir.path(), "t"));
        let out = fresh
            .run_read_tool(&json!({ "path": path }).to_string())
            .unwrap();
        assert!(out.is_error, "{}", out.text);
        assert!(
            out.text.contains("no longer holds the output"),
            "{}",
            out.text
        );
        assert!(!out.text.contains("forged!"), "{}", out.text);
    }
    fs::write(&file, &text[..100]).unwrap();
    let out = session
        .run_read_tool(&json!({ "path": capped.text }).to_string())
        .unwrap();
    assert!(
        out.is_error && out.text.contains("has 100 bytes"),
        "{}",
        out.text
    );
    fs::write(&file, &text).unwrap();
    let out = session
        .run_read_tool(&json!({ "path": spill.path, "grep": "genuine" }).to_string())
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
}

/// A spill directory or thread folder others can write, or another user's,
/// is refused unless the host allows it explicitly.
#[test]
fn a_shared_spill_dir_or_thread_folder_is_refused_unless_allowed() {
    let refused = |config: SessionConfig| match tool_cap().open_session(config) {
        Ok(_) => panic!("a shared folder was accepted"),
        Err(err) => err.to_string(),
    };
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let why = refused(config(dir.path(), "t"));
    assert!(why.contains("every user") && why.contains("0777"), "{why}");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o770)).unwrap();
    assert!(refused(config(dir.path(), "t")).contains("its group"));
    open_with(SessionConfig {
        allow_shared_spill_dir: true,
        ..config(dir.path(), "t")
    });

    // Private, but another user owns it (the tests run as root, who may
    // hand a folder to uid 4242).
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
    chown(dir.path(), Some(4242), None).unwrap();
    assert!(refused(config(dir.path(), "t")).contains("another user"));
    chown(dir.path(), Some(own_uid()), None).unwrap();

    // The spill directory is private, the thread folder is not.
    open_with(config(dir.path(), "t"));
    fs::set_permissions(dir.path().join("t"), fs::Permissions::from_mode(0o777)).unwrap();
    assert!(refused(config(dir.path(), "t")).contains("every user"));
    open_with(config(dir.path(), "u"));
}

/// This process's user id, as the owner of a file it just made.
fn own_uid() -> u32 {
    use std::os::unix::fs::MetadataExt as _;
    let probe = tempfile::tempfile().unwrap();
    probe.metadata().unwrap().uid()
}
