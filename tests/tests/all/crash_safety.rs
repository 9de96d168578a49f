//! A host killed in the middle of a large spill: a child process caps 64 MiB
//! outputs in a loop and reports each reference as `cap` returns it; the test
//! freezes the child while a temporary file is being written, checks that the
//! file is still there, and kills it. No reported reference points at a
//! partial file, the leftover temporary file is never taken for a spill, and
//! `purge` in a new session removes it.
//!
//! `cargo test --release -p toolcap-tests --test all crash_safety::`

use std::fs;
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use crate::child_process::{child, child_dir, parse_report, report};
use crate::common::{DISPLAY_ROOT, KEY, assert_case, budget, open, temp_files};
use serde_json::{Value, json};
use tool_output_cap::OverflowRef;
use toolcap_core::RefScheme;
use toolcap_core::naming::content_digest;
use toolcap_core::refs::SAVED_PREFIX;

const CRASH_TEST: &str =
    "crash_safety::a_host_killed_mid_spill_leaves_no_reference_to_a_partial_file";
const THREAD: &str = "crash";
const SPILL_BYTES: usize = 64 << 20;
/// Spills the child makes if nobody kills it.
const MAX_SPILLS: usize = 40;
/// How long the test waits for a spill to catch mid-write before it gives up
/// (a bound on a hung child, not a measurement).
const GIVE_UP_AFTER: Duration = Duration::from_secs(300);

/// Spill `i`'s output: 64 MiB, different for every `i`.
fn output(i: u64) -> String {
    let line = format!("output {i}: one line of a very large tool result\n");
    let mut text = format!("spill {i} begins\n");
    text.push_str(&line.repeat(SPILL_BYTES / line.len()));
    text
}

/// The child's part: cap one large output after another, reporting each
/// reference as soon as `cap` returns it.
fn crash_child(dir: &Path) {
    let mut session = open(dir, THREAD);
    for i in 0..MAX_SPILLS as u64 {
        let capped = session
            .cap(&output(i), &budget(4096), format!("call-{i}"))
            .unwrap_or_else(|err| panic!("cap {i}: {err}"));
        let spill = capped.report.spill.expect("saved");
        report(&json!({
            "i": i,
            "path": spill.path,
            "relative_path": spill.relative_path,
            "bytes": spill.bytes,
            "lines": spill.lines,
            "digest": spill.digest,
            "tag": spill.tag,
        }));
    }
}

#[test]
fn a_host_killed_mid_spill_leaves_no_reference_to_a_partial_file() {
    if let Some(dir) = child_dir() {
        return crash_child(&dir);
    }
    let dir = tempfile::tempdir().unwrap();
    let thread_dir = dir.path().join(THREAD);
    let mut host = child(CRASH_TEST, dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts the child");
    let stdout = host.stdout.take().unwrap();
    let (sender, received) = mpsc::channel();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(reference) = parse_report(&line) {
                let _ = sender.send(reference);
            }
        }
    });

    let mut reports = Vec::new();
    let leftover = freeze_mid_write(&mut host, &thread_dir, &received, &mut reports);
    host.kill().expect("SIGKILL");
    host.wait().unwrap();
    reader.join().unwrap();
    reports.extend(received.try_iter());
    assert!(!reports.is_empty());

    // Every reference the host got points at a whole file.
    let references: Vec<OverflowRef> = reports.iter().map(reference_of).collect();
    for (report, reference) in reports.iter().zip(&references) {
        let name = reference.path.rsplit('/').next().unwrap();
        let bytes = fs::read(thread_dir.join(name)).unwrap();
        assert_eq!(bytes.len() as u64, reference.bytes, "{name} is partial");
        let digest = content_digest(&bytes);
        assert_eq!(digest, reference.digest, "{name}");
        assert!(name.ends_with(&format!("-{digest}.txt")), "{name}");
        let i = report["i"].as_u64().unwrap();
        assert_eq!(digest, content_digest(output(i).as_bytes()), "{name}");
    }

    // The killed write left its temporary file, which no call accepts.
    let leftover_path = thread_dir.join(&leftover);
    let leftover_bytes = fs::metadata(&leftover_path).expect("the temp file").len();
    let mut session = open(dir.path(), THREAD);
    for path in [
        format!("{DISPLAY_ROOT}/{THREAD}/{leftover}"),
        format!("{THREAD}/{leftover}"),
    ] {
        assert_case(session.read(&path, 0, 100), "outside-root");
        assert_case(session.read_lines(&path, 1, 10, 100), "outside-root");
        assert_case(session.grep(&path, "output", 1), "outside-root");
    }
    // Even a reference with a valid tag is refused for a temporary name,
    // while the same forgery of a real spill's name is accepted.
    let scheme = RefScheme::new(DISPLAY_ROOT, THREAD, KEY.to_vec()).unwrap();
    let real_name = references[0].path.rsplit('/').next().unwrap();
    let tagged = |name: &str| {
        // The digest in the name, as a genuine reference would carry it.
        let digest = &name[name.len() - ".txt".len() - 16..name.len() - ".txt".len()];
        let reference = scheme.make_ref(name, leftover_bytes, 1, digest);
        format!("{SAVED_PREFIX}{}", RefScheme::token(&reference))
    };
    assert_eq!(session.find_refs(&tagged(&leftover)).unwrap(), []);
    assert_eq!(session.find_refs(&tagged(real_name)).unwrap().len(), 1);
    let notices: String = references
        .iter()
        .map(|r| format!("{SAVED_PREFIX}{}\n", RefScheme::token(&core_ref(r))))
        .collect();
    assert_eq!(session.find_refs(&notices).unwrap(), references);

    // Purge clears the thread folder, temporary file included.
    let spilled: u64 = references.iter().map(|r| r.bytes).sum();
    assert_eq!(session.purge().unwrap(), spilled + leftover_bytes);
    assert!(!thread_dir.exists());
    assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
}

/// Waits until the child has reported at least one spill and is writing a
/// temporary file, then stops it (SIGSTOP) with that file still in place.
/// Returns the file's name; the child stays stopped.
fn freeze_mid_write(
    host: &mut Child,
    thread_dir: &Path,
    received: &Receiver<Value>,
    reports: &mut Vec<Value>,
) -> String {
    let give_up = Instant::now() + GIVE_UP_AFTER;
    while Instant::now() < give_up {
        reports.extend(received.try_iter());
        if let Some(status) = host.try_wait().unwrap() {
            panic!("the child ended ({status}) before a spill was caught mid-write");
        }
        let writing = temp_names(thread_dir);
        if reports.is_empty() || writing.is_empty() {
            thread::sleep(Duration::from_millis(1));
            continue;
        }
        signal(host, "STOP");
        wait_until_stopped(host.id());
        if let Some(name) = writing
            .into_iter()
            .find(|name| thread_dir.join(name).exists())
        {
            return name;
        }
        // It was renamed just before the stop: catch the next one.
        signal(host, "CONT");
    }
    panic!("no spill caught mid-write within {GIVE_UP_AFTER:?}");
}

/// Names of temporary files in `dir`.
fn temp_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".tmp-"))
        .collect()
}

fn signal(process: &Child, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(process.id().to_string())
        .status()
        .expect("runs kill");
    assert!(status.success(), "kill -{name}");
}

/// Waits until every thread of `pid` is stopped, so no write or rename is
/// still under way.
fn wait_until_stopped(pid: u32) {
    let stopped = || {
        fs::read_dir(format!("/proc/{pid}/task"))
            .expect("Linux /proc")
            .flatten()
            .all(|task| {
                let stat = fs::read_to_string(task.path().join("stat")).unwrap_or_default();
                // The state follows the parenthesised command name.
                let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
                matches!(state, Some(Some('T' | 't')))
            })
    };
    let give_up = Instant::now() + GIVE_UP_AFTER;
    while !stopped() {
        assert!(Instant::now() < give_up, "the child did not stop");
        thread::sleep(Duration::from_millis(1));
    }
}

/// The reference a child reported.
fn reference_of(report: &Value) -> OverflowRef {
    OverflowRef {
        path: report["path"].as_str().unwrap().to_owned(),
        relative_path: report["relative_path"].as_str().unwrap().to_owned(),
        bytes: report["bytes"].as_u64().unwrap(),
        lines: report["lines"].as_u64().unwrap(),
        digest: report["digest"].as_str().unwrap().to_owned(),
        tag: report["tag"].as_str().unwrap().to_owned(),
    }
}

/// The same reference as the core's type, to render its token.
fn core_ref(r: &OverflowRef) -> toolcap_core::OverflowRef {
    toolcap_core::OverflowRef {
        path: r.path.clone(),
        relative_path: r.relative_path.clone(),
        bytes: r.bytes,
        lines: r.lines,
        digest: r.digest.clone(),
        tag: r.tag.clone(),
    }
}
