//! `toolcap cap` and the files it keeps: what a notice promised is kept by
//! any later sweep (whatever its retention), `toolcap cap` sweeps now and
//! then, and a spill directory or key file others could use is refused.
//! `cargo test --release -p toolcap --test promises`

mod common;

use std::fs;
use std::os::unix::fs::{PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::{Sandbox, numbered_lines, run, spill_path, stderr};
use serde_json::{Value, json};

const DAY_NS: u64 = 86_400 * 1_000_000_000;

/// Caps `input` with `args`; the saved file.
fn cap_saved(sandbox: &Sandbox, args: &[&str], input: &str) -> PathBuf {
    let mut command = sandbox.toolcap("cap");
    command.args(["--max-bytes", "2000"]).args(args);
    let output = run(command, input.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    spill_path(&String::from_utf8(output.stdout).unwrap()).expect("saved")
}

fn note_of(file: &Path) -> PathBuf {
    let name = file.file_name().unwrap().to_string_lossy();
    file.with_file_name(format!(".{name}.meta"))
}

/// Moves the save of `file` `days` back (note and file time), keeping
/// the note's promise, or removing it (`keep_promise` false: a note of a
/// version before 0.3).
fn age(file: &Path, days: u64, keep_promise: bool) {
    let mut note: Value = serde_json::from_slice(&fs::read(note_of(file)).unwrap()).unwrap();
    let created = note["created_ns"].as_u64().unwrap();
    note["created_ns"] = json!(created - days * DAY_NS);
    if !keep_promise {
        note.as_object_mut().unwrap().remove("expires_ns");
    }
    fs::write(note_of(file), note.to_string()).unwrap();
    fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
        .unwrap();
}

/// Dates the sweep stamp of `sandbox` `ago` back.
fn stamp_at(sandbox: &Sandbox, ago: Duration) {
    let stamp = sandbox.spill_dir().join(".toolcap-swept");
    fs::File::create(&stamp)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

/// `toolcap cap --retention-days 30` promises 30 days; a default `toolcap
/// cap` (7 days) sweeping the same folder 10 days later keeps that file and
/// deletes one saved as long ago that promised nothing (an older note).
/// It sweeps at most once an hour: with a recent stamp, nothing goes.
#[test]
fn a_30_day_promise_outlives_a_7_day_sweep_of_another_run() {
    let sandbox = Sandbox::new();
    let promised = cap_saved(
        &sandbox,
        &["--retention-days", "30"],
        &numbered_lines(5_000),
    );
    let note: Value = serde_json::from_slice(&fs::read(note_of(&promised)).unwrap()).unwrap();
    assert_eq!(
        note["expires_ns"].as_u64().unwrap() - note["created_ns"].as_u64().unwrap(),
        30 * DAY_NS,
        "{note}"
    );
    let unpromised = cap_saved(&sandbox, &["--id", "older"], &numbered_lines(6_000));
    age(&promised, 10, true);
    age(&unpromised, 10, false);

    // Swept within the hour: the next run does not sweep.
    stamp_at(&sandbox, Duration::from_secs(60));
    cap_saved(&sandbox, &["--id", "third"], &numbered_lines(7_000));
    assert!(unpromised.exists(), "swept although swept a minute ago");

    stamp_at(&sandbox, Duration::from_secs(2 * 3_600));
    let output = run(sandbox.toolcap("cap"), b"small\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!unpromised.exists(), "a lapsed file was not swept");
    assert!(promised.exists(), "a promised file was deleted");
    assert_eq!(
        fs::read_to_string(&promised).unwrap(),
        numbered_lines(5_000)
    );
}

/// The first `toolcap cap` on a folder sweeps it (no stamp yet).
#[test]
fn toolcap_cap_sweeps_a_folder_it_never_swept() {
    let sandbox = Sandbox::new();
    let old = cap_saved(&sandbox, &[], &numbered_lines(5_000));
    age(&old, 8, false);
    let _ = fs::remove_file(sandbox.spill_dir().join(".toolcap-swept"));
    let output = run(sandbox.toolcap("cap"), b"small\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!old.exists());
}

fn refused(command: std::process::Command) -> String {
    let output = run(command, b"hello\n");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    stderr(&output)
}

#[test]
fn a_spill_dir_others_can_write_is_refused_unless_allowed() {
    let sandbox = Sandbox::new();
    fs::create_dir(sandbox.spill_dir()).unwrap();
    fs::set_permissions(sandbox.spill_dir(), fs::Permissions::from_mode(0o777)).unwrap();
    let message = refused(sandbox.toolcap("cap"));
    assert!(
        message.contains("refusing the spill directory")
            && message.contains("0777")
            && message.contains("--allow-shared-spill-dir"),
        "{message}"
    );
    let mut mcp = sandbox.toolcap("mcp");
    mcp.args(["--", "true"]);
    assert!(refused(mcp).contains("refusing the spill directory"));

    // Another user's folder, private or not.
    fs::set_permissions(sandbox.spill_dir(), fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::chown(sandbox.spill_dir(), Some(4242), None).unwrap();
    assert!(refused(sandbox.toolcap("cap")).contains("another user"));

    // Allowed explicitly, by option or by the config file.
    let mut allowed = sandbox.toolcap("cap");
    allowed.args(["--allow-shared-spill-dir", "--max-bytes", "2000"]);
    let output = run(allowed, numbered_lines(5_000).as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(spill_path(&String::from_utf8(output.stdout).unwrap()).is_some());
    fs::write(sandbox.path("c.toml"), "allow_shared_spill_dir = true\n").unwrap();
    let mut by_file = sandbox.toolcap("cap");
    by_file.arg("--config").arg(sandbox.path("c.toml"));
    assert_eq!(run(by_file, b"hi\n").status.code(), Some(0));
}

#[test]
fn a_key_file_others_could_read_or_swap_is_refused() {
    let sandbox = Sandbox::new();
    // Made by the first run, 0600.
    assert_eq!(run(sandbox.toolcap("cap"), b"hi\n").status.code(), Some(0));
    let key = sandbox.key_file();

    fs::set_permissions(&key, fs::Permissions::from_mode(0o644)).unwrap();
    let message = refused(sandbox.toolcap("cap"));
    assert!(
        message.contains("refusing key file") && message.contains("0644"),
        "{message}"
    );
    fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).unwrap();

    std::os::unix::fs::chown(&key, Some(4242), None).unwrap();
    assert!(refused(sandbox.toolcap("cap")).contains("another user"));
    std::os::unix::fs::chown(&key, Some(own_uid()), None).unwrap();

    let link = sandbox.path("link-key");
    symlink(&key, &link).unwrap();
    let command = sandbox.toolcap_with_key("cap", &link);
    assert!(refused(command).contains("symbolic link"));

    // A device is refused before a byte is read (reading /dev/zero would
    // never end); so is a pipe, which would block.
    let command = sandbox.toolcap_with_key("cap", std::path::Path::new("/dev/zero"));
    assert!(refused(command).contains("not a regular file"));
    let fifo = sandbox.path("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let command = sandbox.toolcap_with_key("cap", &fifo);
    assert!(refused(command).contains("not a regular file"));

    // Still usable as it was made.
    assert_eq!(run(sandbox.toolcap("cap"), b"hi\n").status.code(), Some(0));
}

fn own_uid() -> u32 {
    use std::os::unix::fs::MetadataExt as _;
    tempfile::tempfile().unwrap().metadata().unwrap().uid()
}
