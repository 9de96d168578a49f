//! The sandbox through the real component and real files: links and swapped
//! files cannot lead reads outside, threads cannot see each other, keys decide
//! which references verify, and bad settings are refused.
//!
//! `cargo test --release -p toolcap-tests --test all sandbox::`

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common::{KEY, assert_case, budget, case_name, config, open, open_with, tool_cap, tree};
use tool_output_cap::{Capped, OverflowRef, Session, SessionConfig};
use toolcap_core::notice::NOT_SAVED;

const SECRET: &str = "TOP SECRET: outside the spill dir";

fn big_output(label: &str) -> String {
    format!("{label}: a line of tool output\n").repeat(200)
}

fn cap_spilled(session: &mut Session, label: &str) -> (Capped, OverflowRef) {
    let capped = session
        .cap(&big_output(label), &budget(1000), label)
        .unwrap_or_else(|err| panic!("cap: {err}"));
    let spill = capped.report.spill.clone().expect("the output spilled");
    (capped, spill)
}

/// A directory outside the spill dir holding a secret file.
fn outside_with_secret() -> (tempfile::TempDir, PathBuf) {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    fs::write(&secret, SECRET).unwrap();
    (outside, secret)
}

/// Every read-back call on `path` fails with `want`, and none traps.
fn assert_all_reads_fail(session: &mut Session, path: &str, want: &str) {
    assert_case(session.read(path, 0, 100), want);
    assert_case(session.read_lines(path, 1, 5, 100), want);
    assert_case(session.grep(path, "SECRET", 5), want);
}

#[test]
fn a_symlink_in_the_thread_folder_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (_outside, secret) = outside_with_secret();
    let mut session = open(dir.path(), "thread-1");
    cap_spilled(&mut session, "c1");
    let link = "evil-0123456789abcdef.txt";
    symlink(&secret, dir.path().join("thread-1").join(link)).unwrap();

    assert_all_reads_fail(&mut session, &format!("thread-1/{link}"), "outside-root");
    // The session is still usable after the refusals.
    cap_spilled(&mut session, "c2");
}

#[test]
fn a_symlink_replacing_a_spill_file_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (_outside, secret) = outside_with_secret();
    let mut session = open(dir.path(), "thread-1");
    let (_, spill) = cap_spilled(&mut session, "c1");
    let file = session.host_path(&spill.path).expect("host_path").unwrap();
    fs::remove_file(&file).unwrap();
    symlink(&secret, &file).unwrap();

    assert_all_reads_fail(&mut session, &spill.path, "outside-root");
}

#[test]
fn a_symlinked_thread_folder_is_neither_read_nor_written() {
    let dir = tempfile::tempdir().unwrap();
    let (outside, secret) = outside_with_secret();
    let name = "c1-0123456789abcdef.txt";
    fs::copy(&secret, outside.path().join(name)).unwrap();
    symlink(outside.path(), dir.path().join("thread-1")).unwrap();
    let mut session = open(dir.path(), "thread-1");

    let read = session.read(&format!("thread-1/{name}"), 0, 100);
    assert!(read.is_err(), "read through a linked folder: {read:?}");
    assert_ne!(case_name(&read.unwrap_err()), "runtime");

    let before = tree(outside.path());
    let capped = session.cap(&big_output("c2"), &budget(1000), "c2").unwrap();
    assert!(
        capped.report.truncated && capped.report.spill.is_none(),
        "{capped:?}"
    );
    assert!(capped.report.spill_error.is_some());
    assert_eq!(tree(outside.path()), before, "wrote through the link");
}

#[test]
fn a_spill_file_replaced_by_a_folder_gives_an_error_not_a_trap() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let (_, spill) = cap_spilled(&mut session, "c1");
    let file = session.host_path(&spill.path).expect("host_path").unwrap();
    fs::remove_file(&file).unwrap();
    fs::create_dir(&file).unwrap();

    for result in [
        session.read(&spill.path, 0, 100).map(|p| p.text),
        session.read_lines(&spill.path, 1, 1, 100).map(|p| p.text),
        session
            .grep(&spill.path, "line", 1)
            .map(|g| format!("{g:?}")),
    ] {
        let err = result.expect_err("a folder is not a spilled file");
        assert_ne!(case_name(&err), "runtime", "{err}");
        assert!(err.to_string().len() > 20, "say why: {err}");
    }
    cap_spilled(&mut session, "c2");
}

#[test]
fn a_thread_folder_replaced_by_a_file_gives_a_spill_error_not_a_trap() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let (_, spill) = cap_spilled(&mut session, "c1");
    fs::remove_dir_all(dir.path().join("thread-1")).unwrap();
    fs::write(dir.path().join("thread-1"), "a file, not a folder").unwrap();

    let capped = session.cap(&big_output("c2"), &budget(1000), "c2").unwrap();
    assert!(capped.report.spill.is_none() && capped.report.spill_error.is_some());
    assert!(capped.text.contains(NOT_SAVED));
    let err = session.read(&spill.path, 0, 10).unwrap_err();
    assert_ne!(case_name(&err), "runtime", "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("thread-1")).unwrap(),
        "a file, not a folder"
    );
}

#[test]
fn one_thread_cannot_read_another_threads_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut alpha = open(dir.path(), "alpha");
    let mut beta = open(dir.path(), "beta");
    let (alpha_text, alpha_spill) = cap_spilled(&mut alpha, "c1");
    let file = alpha_spill.path.rsplit('/').next().unwrap().to_owned();

    for path in [
        alpha_spill.path.clone(),
        format!("alpha/{file}"),
        format!("beta/../alpha/{file}"),
        format!("/spill/alpha/{file}"),
    ] {
        assert_all_reads_fail(&mut beta, &path, "outside-root");
    }
    assert!(beta.find_refs(&alpha_text.text).unwrap().is_empty());
    assert_case(beta.pruned_placeholder(&alpha_spill), "invalid-argument");
    // Alpha itself reads it, by display path and by relative path.
    assert!(alpha.read(&alpha_spill.path, 0, 10).is_ok());
    assert!(alpha.read(&format!("alpha/{file}"), 0, 10).is_ok());
}

#[test]
fn purging_one_thread_leaves_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut alpha = open(dir.path(), "alpha");
    let mut beta = open(dir.path(), "beta");
    let (_, alpha_spill) = cap_spilled(&mut alpha, "c1");
    let (_, beta_spill) = cap_spilled(&mut beta, "c1");
    let (_, beta_spill2) = cap_spilled(&mut beta, "c2");

    let freed = beta.purge().unwrap();
    assert_eq!(freed, beta_spill.bytes + beta_spill2.bytes);
    assert!(!dir.path().join("beta").exists());
    assert_eq!(beta.purge().unwrap(), 0);
    let alpha_file = alpha
        .host_path(&alpha_spill.path)
        .expect("host_path")
        .unwrap();
    assert_eq!(fs::read_to_string(alpha_file).unwrap(), big_output("c1"));
    assert!(alpha.grep(&alpha_spill.path, "tool output", 1).is_ok());
}

#[test]
fn purge_does_not_follow_links_out_of_the_thread_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (outside, secret) = outside_with_secret();
    let mut session = open(dir.path(), "thread-1");
    let (_, spill) = cap_spilled(&mut session, "c1");
    symlink(&secret, dir.path().join("thread-1/link-to-secret")).unwrap();
    symlink(outside.path(), dir.path().join("thread-1/link-to-folder")).unwrap();

    let freed = session.purge().unwrap();
    assert_eq!(freed, spill.bytes, "only the spilled bytes count");
    assert_eq!(fs::read_to_string(&secret).unwrap(), SECRET);
    assert_eq!(tree(outside.path()), [PathBuf::from("secret.txt")]);
    assert!(!dir.path().join("thread-1").exists());
}

fn with_key(dir: &Path, thread: &str, key: &[u8]) -> Session {
    open_with(SessionConfig {
        key: key.to_vec(),
        ..config(dir, thread)
    })
}

#[test]
fn an_empty_key_verifies_only_the_sessions_own_references() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = with_key(dir.path(), "thread-1", &[]);
    let (capped, spill) = cap_spilled(&mut first, "c1");
    let own = first.find_refs(&capped.text).unwrap();
    assert_eq!(own.len(), 1);
    assert_eq!(own[0].path, spill.path);
    assert!(first.pruned_placeholder(&spill).is_ok());

    // A new session (a restart) draws another random key.
    let mut second = with_key(dir.path(), "thread-1", &[]);
    assert!(second.find_refs(&capped.text).unwrap().is_empty());
    assert_case(second.pruned_placeholder(&spill), "invalid-argument");
}

#[test]
fn sessions_sharing_a_key_accept_each_others_references() {
    let dir = tempfile::tempdir().unwrap();
    let (capped, spill) = {
        let mut writer = with_key(dir.path(), "thread-1", &KEY);
        cap_spilled(&mut writer, "c1")
    };
    // Same key and thread after the writer is gone: a host restart.
    let mut reader = with_key(dir.path(), "thread-1", &KEY);
    let found = reader.find_refs(&capped.text).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!((&found[0].path, &found[0].tag), (&spill.path, &spill.tag));
    let placeholder = reader.pruned_placeholder(&spill).unwrap();
    assert_eq!(reader.find_refs(&placeholder).unwrap().len(), 1);
    assert!(reader.read(&spill.path, 0, 16).is_ok());

    let mut other_key = with_key(dir.path(), "thread-1", &[9; 32]);
    assert!(other_key.find_refs(&capped.text).unwrap().is_empty());
    let mut other_thread = with_key(dir.path(), "thread-2", &KEY);
    assert!(other_thread.find_refs(&capped.text).unwrap().is_empty());
}

#[test]
fn unusable_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = [
        SessionConfig {
            thread_id: String::new(),
            ..config(dir.path(), "t")
        },
        SessionConfig {
            key: vec![1; 15],
            ..config(dir.path(), "t")
        },
        SessionConfig {
            display_root: Some(String::new()),
            ..config(dir.path(), "t")
        },
        SessionConfig {
            display_root: Some("/spill\n[full output saved; ".into()),
            ..config(dir.path(), "t")
        },
    ];
    for settings in bad {
        let shown = format!("{settings:?}");
        match tool_cap().open_session(settings) {
            Ok(_) => panic!("accepted {shown}"),
            Err(err) => assert_eq!(case_name(&err), "invalid-settings", "{shown}: {err}"),
        }
    }
    assert!(
        tool_cap()
            .open_session(SessionConfig {
                key: vec![1; 16],
                ..config(dir.path(), "t")
            })
            .is_ok()
    );
}

#[test]
fn a_read_only_preopen_is_read_but_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let (_, spill) = cap_spilled(&mut open(dir.path(), "thread-1"), "c1");
    let before = tree(dir.path());
    let mut read_only = open_with(SessionConfig {
        read_only: true,
        ..config(dir.path(), "thread-1")
    });

    let capped = read_only
        .cap(&big_output("c2"), &budget(1000), "c2")
        .unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_none());
    assert!(capped.report.spill_error.is_some() && capped.text.contains(NOT_SAVED));
    assert!(read_only.read(&spill.path, 0, 16).is_ok());
    assert!(read_only.purge().is_err());
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn purge_removes_everything_in_the_thread_folder() {
    // The WIT promises "the thread's spill folder and everything in it";
    // a host or tool may have nested folders there.
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let (_, spill) = cap_spilled(&mut session, "c1");
    let deep = dir.path().join("thread-1/a/b/c/d/e/f");
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("notes.txt"), "12345").unwrap();

    let freed = session.purge();
    assert!(
        matches!(freed, Ok(n) if n == spill.bytes + 5),
        "purge: {freed:?}"
    );
    assert!(
        !dir.path().join("thread-1").exists(),
        "{:?}",
        tree(dir.path())
    );
}
