//! Spill faults through the real component and real files: no preopen, a
//! read-only one, folders deleted or names taken mid-session, a file-size
//! limit. In each case the call returns (never a trap), the cut text says
//! honestly that the full output could not be saved and why, nothing partial
//! is left behind, and the next call works.
//!
//! `cargo test --release -p toolcap-tests --test all faults::`

use std::fs;
use std::path::Path;

use crate::child_process::{child_dir, report, reports_under_file_size_limit};
use crate::common::{budget, config, open, open_with, temp_files, tree};
use serde_json::json;
use tool_output_cap::{Capped, Session, SessionConfig};
use toolcap_core::naming::{content_digest, spill_file_name};
use toolcap_core::notice::NOT_SAVED;

/// Every cut in this file fits this many bytes.
const MAX_BYTES: u32 = 2048;

/// About `bytes` of log lines, different for each `label`.
fn output(label: &str, bytes: usize) -> String {
    let line = format!("{label}: compiling module, no errors so far\n");
    line.repeat(bytes / line.len() + 1)
}

fn cap(session: &mut Session, text: &str, call: &str) -> Capped {
    let capped = session
        .cap(text, &budget(MAX_BYTES), call)
        .unwrap_or_else(|err| panic!("cap {call} must not fail: {err}"));
    assert!(!session.is_poisoned());
    assert!(capped.report.truncated && capped.text.len() <= MAX_BYTES as usize);
    capped
}

/// A cut result that could not be saved: no reference, and a notice that
/// says so and quotes the reason, which contains `why`.
#[track_caller]
fn assert_not_saved(capped: &Capped, why: &str) {
    assert_eq!(capped.report.spill, None);
    let error = capped.report.spill_error.as_deref().expect("a spill error");
    assert!(error.contains(why), "spill error {error:?} lacks {why:?}");
    assert!(
        capped.text.contains(NOT_SAVED) && capped.text.contains(why),
        "the notice does not say why: {}",
        capped.text
    );
    assert!(!capped.text.contains("[full output saved; "));
}

/// Caps `input`, which must be saved byte for byte.
#[track_caller]
fn cap_saved(session: &mut Session, input: &str, call: &str) -> Capped {
    let capped = cap(session, input, call);
    let spill = capped.report.spill.as_ref().expect("saved");
    assert_eq!(capped.report.spill_error, None);
    let on_disk = fs::read(
        session
            .host_path(&spill.path)
            .expect("host_path")
            .expect("under the root"),
    )
    .unwrap();
    assert!(
        on_disk == input.as_bytes(),
        "the spill differs from the input"
    );
    capped
}

/// The session still answers every kind of call.
fn assert_still_answers(session: &mut Session) {
    assert_eq!(session.find_refs("no reference here").unwrap(), []);
    let fits = session.cap("fits\n", &budget(MAX_BYTES), "fits").unwrap();
    assert_eq!(fits.text, "fits\n");
    assert!(!session.is_poisoned());
}

#[test]
fn without_a_preopen_the_notice_says_none_was_granted() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open_with(SessionConfig {
        spill_dir: None,
        ..config(dir.path(), "t")
    });
    let capped = cap(&mut session, &output("a", 20_000), "c1");
    assert_not_saved(&capped, "no preopen");
    // Read-back says there is no spill directory; it does not trap.
    let path = format!(
        "{}/t/c1-{}.txt",
        crate::common::DISPLAY_ROOT,
        "0".repeat(16)
    );
    crate::common::assert_case(session.read(&path, 0, 100), "no-spill-dir");
    assert_not_saved(&cap(&mut session, &output("b", 20_000), "c2"), "no preopen");
    assert_still_answers(&mut session);
}

#[test]
fn a_read_only_preopen_keeps_old_spills_readable_and_says_new_ones_failed() {
    let dir = tempfile::tempdir().unwrap();
    let first = output("first", 20_000);
    let old = cap(&mut open(dir.path(), "t"), &first, "c1");
    let before = tree(dir.path());

    let mut session = open_with(SessionConfig {
        read_only: true,
        ..config(dir.path(), "t")
    });
    // wasmtime checks the grant before it looks for the folder: even an
    // existing thread folder "cannot be created", with permission denied.
    let capped = cap(&mut session, &output("second", 20_000), "c2");
    assert_not_saved(&capped, "permission denied");
    let mut other = open_with(SessionConfig {
        read_only: true,
        ..config(dir.path(), "other")
    });
    let capped = cap(&mut other, &output("third", 20_000), "c3");
    assert_not_saved(
        &capped,
        "cannot create the thread folder: permission denied",
    );
    assert_eq!(tree(dir.path()), before, "a read-only grant changed files");

    let spill = old.report.spill.expect("saved");
    let page = session.read(&spill.path, 0, 64).unwrap();
    assert!(first.starts_with(&page.text));
    assert_still_answers(&mut session);
}

#[test]
fn a_spill_dir_removed_after_open_is_reported_not_trapped() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("spill");
    fs::create_dir(&dir).unwrap();
    let mut session = open(&dir, "t");
    let input = output("a", 20_000);
    cap_saved(&mut session, &input, "c1");

    fs::remove_dir_all(&dir).unwrap();
    let capped = cap(&mut session, &output("b", 20_000), "c2");
    assert_not_saved(&capped, "no such file or directory");
    assert_still_answers(&mut session);

    // The grant was of the removed folder: a new one at the same path needs
    // a new session, which then works.
    fs::create_dir(&dir).unwrap();
    let mut fresh = open(&dir, "t");
    let input = output("c", 20_000);
    cap_saved(&mut fresh, &input, "c3");
}

#[test]
fn a_thread_folder_deleted_mid_session_is_recreated_by_the_next_cap() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "t");
    let first = output("first", 20_000);
    let old = cap_saved(&mut session, &first, "c1");

    fs::remove_dir_all(dir.path().join("t")).unwrap();
    let gone = old.report.spill.expect("saved");
    crate::common::assert_case(session.read(&gone.path, 0, 100), "not-found");
    crate::common::assert_case(session.grep(&gone.path, "first", 1), "not-found");

    let second = output("second", 20_000);
    let new = cap_saved(&mut session, &second, "c2");
    let name = new
        .report
        .spill
        .as_ref()
        .unwrap()
        .path
        .rsplit('/')
        .next()
        .unwrap();
    assert_eq!(
        tree(dir.path()),
        [Path::new("t").into(), Path::new("t").join(name)]
    );
}

#[test]
fn a_spill_name_taken_by_a_directory_fails_the_rename_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "t");
    let input = output("taken", 20_000);
    let name = spill_file_name("c1", &content_digest(input.as_bytes()));
    let squatter = dir.path().join("t").join(&name);
    fs::create_dir_all(&squatter).unwrap();
    fs::write(squatter.join("keep.txt"), "not the component's").unwrap();
    let before = tree(dir.path());

    let capped = cap(&mut session, &input, "c1");
    assert_not_saved(&capped, "is a directory");
    assert_eq!(tree(dir.path()), before, "no temp file, nothing replaced");
    assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
    // Asking again gives the same honest answer, still no trap.
    assert_not_saved(&cap(&mut session, &input, "c1"), "is a directory");

    let other = output("free", 20_000);
    cap_saved(&mut session, &other, "c2");
}

/// Runs in a child under a file-size limit of 1 MiB (dash) or 2 MiB (bash):
/// a 4 MiB spill cannot be written, a 32 KiB one can. The limit also bounds
/// the memory image wasmtime writes for the component's data at
/// instantiation, which is over 128 KiB, so it cannot be much lower.
const QUOTA_TEST: &str =
    "faults::a_spill_over_the_file_size_limit_fails_honestly_and_the_next_one_works";
const QUOTA_BLOCKS: u32 = 2048;
const QUOTA_CALLS: [(&str, &str, usize); 2] =
    [("big", "huge", 4 << 20), ("small", "tiny", 32 << 10)];

#[test]
fn a_spill_over_the_file_size_limit_fails_honestly_and_the_next_one_works() {
    if let Some(dir) = child_dir() {
        return quota_child(&dir);
    }
    let dir = tempfile::tempdir().unwrap();
    let reports = reports_under_file_size_limit(QUOTA_TEST, dir.path(), QUOTA_BLOCKS);
    assert_eq!(reports.len(), 2, "{reports:?}");

    let big = &reports[0];
    assert_eq!(big["spill"], json!(null), "the big spill was saved: {big}");
    let error = big["spill_error"].as_str().expect("a spill error");
    assert!(error.contains("file too large"), "{error}");
    let text = big["text"].as_str().unwrap();
    assert!(
        text.contains(NOT_SAVED) && text.contains("file too large"),
        "{text}"
    );

    let small = &reports[1];
    assert_eq!(small["spill_error"], json!(null), "{small}");
    let (_, label, bytes) = QUOTA_CALLS[1];
    let input = output(label, bytes);
    let name = spill_file_name("small", &content_digest(input.as_bytes()));
    assert_eq!(
        small["spill"],
        json!(format!("{}/q/{name}", crate::common::DISPLAY_ROOT))
    );
    let on_disk = fs::read(dir.path().join("q").join(&name)).unwrap();
    assert!(
        on_disk == input.as_bytes(),
        "the small spill is not complete"
    );
    // Nothing of the big one is left: no partial file, no temp file.
    assert_eq!(
        tree(dir.path()),
        [Path::new("q").into(), Path::new("q").join(name)]
    );
}

/// The child's part: both caps in one session, reported as they return.
fn quota_child(dir: &Path) {
    let mut session = open(dir, "q");
    for (call, label, bytes) in QUOTA_CALLS {
        let capped = cap(&mut session, &output(label, bytes), call);
        report(&json!({
            "text": capped.text,
            "spill": capped.report.spill.map(|r| r.path),
            "spill_error": capped.report.spill_error,
        }));
    }
}
