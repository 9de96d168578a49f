//! The life of a spill file after the cap: streams whose spill cannot be
//! completed, sweeps (of files read back later, racing caps, meeting planted
//! symbolic links), the owner-only folders the Rust host creates, and the
//! catalog `list` returns.
//!
//! `cargo test --release -p toolcap-tests --test all spill_life::`

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use crate::child_process::{child_dir, report, reports_under_file_size_limit};
use crate::common::{
    DISPLAY_ROOT, KEY, budget, case_name, config, open, open_with, temp_files, tool_cap, tree,
};
use serde_json::json;
use tool_output_cap::{
    Budget, Call, CapError, Capped, Error, Session, SessionConfig, types::RetentionPolicy,
};
use toolcap_core::naming::content_digest;
use toolcap_core::notice::NOT_SAVED;

/// The notable line planted in the middle of every streamed output.
const PLANTED: &str = "error[E0425]: planted in the middle: cannot find value `needle`";
const MIB: usize = 1 << 20;

/// Log lines, different for each `label`, about `bytes` long.
fn output(label: &str, bytes: usize) -> String {
    let line = format!("{label}: compiling module, nothing notable yet\n");
    line.repeat(bytes / line.len() + 1)
}

/// Chunk `i` of a streamed log: 1 MiB of whole lines (the last one padded
/// to end the chunk), the planted notable line first in chunk `planted_at`.
fn log_chunk(i: usize, planted_at: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(MIB);
    if i == planted_at {
        out.extend_from_slice(PLANTED.as_bytes());
        out.push(b'\n');
    }
    for k in 0.. {
        let line = format!("   Compiling crate-{i}-{k} v0.1.{k} (/src/c{i})\n");
        if out.len() + line.len() + 8 > MIB {
            break;
        }
        out.extend_from_slice(line.as_bytes());
    }
    out.resize(MIB - 1, b'.');
    out.push(b'\n');
    out
}

/// Streams `chunks` chunks of [`log_chunk`] with a 16 KiB budget.
fn stream_log(session: &mut Session, call: &str, chunks: usize) -> Capped {
    let mut stream = session
        .stream(&Budget::new(16 * 1024), call)
        .unwrap_or_else(|err| panic!("stream {call}: {err}"));
    for i in 0..chunks {
        stream.write(&log_chunk(i, chunks / 2)).unwrap();
    }
    assert_eq!(stream.bytes_written().unwrap(), (chunks * MIB) as u64);
    stream
        .finish()
        .unwrap_or_else(|err| panic!("finish {call}: {err}"))
}

/// A cut result of a streamed log that could not be saved: no reference, a
/// spill error holding `why`, and a preview still whole: within the budget,
/// the log's first line, the planted notable line, and the notice.
#[track_caller]
fn assert_stream_not_saved(capped: &Capped, chunks: usize, why: &str) {
    assert!(capped.report.truncated);
    assert_eq!(capped.report.spill, None);
    let error = capped.report.spill_error.as_deref().expect("a spill error");
    assert!(error.contains(why), "spill error {error:?} lacks {why:?}");
    assert!(capped.text.len() <= 16 * 1024);
    assert_eq!(capped.report.original_bytes as usize, chunks * MIB);
    let first = String::from_utf8(log_chunk(0, chunks / 2)).unwrap();
    let first = first.lines().next().unwrap();
    assert!(capped.text.starts_with(first), "head lost");
    assert!(capped.text.contains(PLANTED), "planted line lost");
    assert!(capped.report.notable_lines >= 1);
    let notice = &capped.text[capped.text.rfind("[toolcap]").expect("a notice")..];
    assert!(
        notice.contains(NOT_SAVED) && notice.contains(why),
        "the notice does not say why: {notice}"
    );
}

/// Entries of `dir` that are spill files (not notes, not temporaries).
fn spill_files(dir: &Path) -> Vec<PathBuf> {
    tree(dir)
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "txt")
                && !p.file_name().unwrap().to_string_lossy().starts_with('.')
        })
        .collect()
}

/// The `not-found` message of `result`.
#[track_caller]
fn not_found<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    match result {
        Err(Error::Cap(CapError::NotFound(message))) => message,
        other => panic!("expected not-found, got {other:?}"),
    }
}

const QUOTA_TEST: &str =
    "spill_life::a_stream_over_the_file_size_limit_saves_nothing_and_keeps_its_preview";
/// 8 MiB under dash (512-byte blocks), 16 MiB under bash: the stream fails
/// part of the way through its 40 MiB.
const QUOTA_BLOCKS: u32 = 16 * 1024;
const QUOTA_CHUNKS: usize = 40;

/// A full disk in the middle of a stream, as a file-size limit in a child
/// process (the tests run as root here, so permissions cannot refuse a
/// write): the first MiBs are written to the temporary file, then a write
/// fails. The result says why, its preview is whole, the temporary file is
/// gone, and the next stream in the same session is saved.
#[test]
fn a_stream_over_the_file_size_limit_saves_nothing_and_keeps_its_preview() {
    if let Some(dir) = child_dir() {
        let mut session = open(&dir, "q");
        let big = stream_log(&mut session, "big", QUOTA_CHUNKS);
        report(&json!({"spill": big.report.spill.as_ref().map(|r| &r.path),
            "spill_error": big.report.spill_error}));
        assert_stream_not_saved(&big, QUOTA_CHUNKS, "file too large");
        let mut stream = session.stream(&budget(2048), "small").unwrap();
        let small = output("small", 200 * 1024);
        for piece in small.as_bytes().chunks(7777) {
            stream.write(piece).unwrap();
        }
        let capped = stream.finish().unwrap();
        report(
            &json!({"spill": capped.report.spill.map(|r| r.relative_path),
            "spill_error": capped.report.spill_error}),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let reports = reports_under_file_size_limit(QUOTA_TEST, dir.path(), QUOTA_BLOCKS);
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert_eq!(reports[0]["spill"], json!(null), "{}", reports[0]);
    let error = reports[0]["spill_error"].as_str().expect("a spill error");
    assert!(error.contains("file too large"), "{error}");

    let small = &reports[1];
    assert_eq!(small["spill_error"], json!(null), "{small}");
    let relative = small["spill"].as_str().expect("the small one is saved");
    let on_disk = fs::read(dir.path().join(relative)).unwrap();
    assert!(on_disk == output("small", 200 * 1024).as_bytes());
    // Nothing of the big one is left: no temporary file, no partial spill.
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
    assert_eq!(spill_files(dir.path()), [PathBuf::from(relative)]);
}

const BEHIND_TEST: &str = "spill_life::a_stream_whose_write_behind_fails_saves_nothing";

/// The file-size limit this process runs under, found by writing a probe
/// file until a write fails (the shell's blocks are 512 or 1024 bytes).
fn probed_file_size_limit(dir: &Path) -> usize {
    use std::io::Write as _;
    let path = dir.join("probe");
    let mut file = fs::File::create(&path).unwrap();
    let block = [b'p'; 4096];
    let mut written = 0;
    while let Ok(n) = file.write(&block) {
        written += n;
        assert!(n > 0 && written <= 64 * MIB, "no limit");
    }
    fs::remove_file(&path).unwrap();
    written
}

/// A stream's last bytes are written behind (the host writes them while the
/// stream reads on). When such a write fails, the next write or the finish
/// finds out: here the limit falls in the last write, which only the finish
/// waits for, and in a second stream in a write behind mid-stream. Each
/// result says why, keeps its preview, and leaves no temporary file; a
/// stream after them is saved.
#[test]
fn a_stream_whose_write_behind_fails_saves_nothing() {
    if let Some(dir) = child_dir() {
        let limit = probed_file_size_limit(&dir);
        let mut session = open(&dir, "w");
        // One large chunk ends 1000 bytes under the limit; the last 3000
        // bytes wait in the stream's buffer until the finish writes them.
        let text = output("last", limit + 2000);
        let mut stream = session.stream(&budget(2048), "last").unwrap();
        stream.write(&text.as_bytes()[..limit - 1000]).unwrap();
        stream.write(&text.as_bytes()[limit - 1000..]).unwrap();
        let last = stream.finish().unwrap();
        // Chunks under the buffer's size: every write to the file is one
        // buffer, written behind.
        let text = output("middle", limit + 300 * 1024);
        let mut stream = session.stream(&budget(2048), "middle").unwrap();
        for piece in text.as_bytes().chunks(7777) {
            stream.write(piece).unwrap();
        }
        let middle = stream.finish().unwrap();
        let mut stream = session.stream(&budget(2048), "after").unwrap();
        stream
            .write(output("after", 200 * 1024).as_bytes())
            .unwrap();
        let after = stream.finish().unwrap();
        for capped in [&last, &middle, &after] {
            report(
                &json!({"spill": capped.report.spill.as_ref().map(|r| &r.relative_path),
                "spill_error": capped.report.spill_error,
                "truncated": capped.report.truncated,
                "preview": capped.text.len(),
                "original": capped.report.original_bytes}),
            );
        }
        report(&json!({"limit": limit}));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let reports = reports_under_file_size_limit(BEHIND_TEST, dir.path(), QUOTA_BLOCKS);
    assert_eq!(reports.len(), 4, "{reports:?}");
    let limit = reports[3]["limit"].as_u64().expect("the limit") as usize;
    for (r, extra) in [(&reports[0], 2000), (&reports[1], 300 * 1024)] {
        assert_eq!(r["spill"], json!(null), "{r}");
        let error = r["spill_error"].as_str().expect("a spill error");
        assert!(error.contains("file too large"), "{error}");
        assert_eq!(r["truncated"], json!(true), "{r}");
        assert!(r["preview"].as_u64().unwrap() <= 2048, "{r}");
        assert!(
            r["original"].as_u64().unwrap() as usize > limit + extra - 100,
            "{r}"
        );
    }
    let after = &reports[2];
    assert_eq!(after["spill_error"], json!(null), "{after}");
    let relative = after["spill"].as_str().expect("the last one is saved");
    let on_disk = fs::read(dir.path().join(relative)).unwrap();
    assert!(on_disk == output("after", 200 * 1024).as_bytes());
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
    assert_eq!(spill_files(dir.path()), [PathBuf::from(relative)]);
}

/// The thread folder deleted while a large stream is writing into it: the
/// writes go on into the unlinked file, the rename at the end fails, and
/// the result says so with its preview whole. Nothing is left behind, and
/// the next stream recreates the folder and is saved.
#[test]
fn a_thread_folder_deleted_mid_stream_fails_the_spill_not_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "t");
    let folder = dir.path().join(session.thread_folder().unwrap());
    let chunks = 12;
    let mut stream = session.stream(&Budget::new(16 * 1024), "doomed").unwrap();
    for i in 0..chunks {
        stream.write(&log_chunk(i, chunks / 2)).unwrap();
        if i == 6 {
            // Over 4 MiB: the stream writes its temporary file by now.
            let temps = temp_files(dir.path());
            assert_eq!(temps.len(), 1, "{temps:?}");
            fs::remove_dir_all(&folder).unwrap();
        }
    }
    let capped = stream.finish().unwrap();
    assert_stream_not_saved(&capped, chunks, "no such file or directory");
    assert_eq!(tree(dir.path()), Vec::<PathBuf>::new(), "left behind");

    let again = stream_log(&mut session, "again", 6);
    let spill = again.report.spill.expect("saved");
    let on_disk = fs::read(dir.path().join(&spill.relative_path)).unwrap();
    assert_eq!(on_disk.len(), 6 * MIB);
    assert_eq!(content_digest(&on_disk), spill.digest);
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
}

/// A command's exit code, known only after its output: given to a large
/// stream (past the one-pass threshold) once the output has ended, it is
/// stated first in the notice, as `cap` states it with the code in the
/// call, and the last code given counts. The file holds the output exactly.
#[test]
fn an_exit_code_given_after_a_large_streams_output_is_stated_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "t");
    let chunks = 6;
    let call = Call {
        search: None,
        id: "build".into(),
        tool: Some("cargo".into()),
        exit_code: None,
        is_error: false,
    };
    let mut stream = session
        .stream(&Budget::new(16 * 1024), call.clone())
        .unwrap();
    let mut log = Vec::new();
    for i in 0..chunks {
        if i == 2 {
            stream.set_exit_code(7).unwrap();
        }
        let chunk = log_chunk(i, chunks / 2);
        stream.write(&chunk).unwrap();
        log.extend_from_slice(&chunk);
    }
    stream.set_exit_code(101).unwrap();
    let capped = stream.finish().unwrap();

    let notice = &capped.text[capped.text.rfind("[toolcap]").expect("a notice")..];
    assert!(
        notice.starts_with("[toolcap] The tool `cargo` failed (exit code 101)."),
        "{notice}"
    );
    let log = String::from_utf8(log).unwrap();
    let ended = Call {
        exit_code: Some(101),
        ..call
    };
    let whole = session.cap(&log, &Budget::new(16 * 1024), ended).unwrap();
    assert_eq!(capped, whole);
    let spill = capped.report.spill.expect("saved");
    let on_disk = fs::read(dir.path().join(&spill.relative_path)).unwrap();
    assert!(on_disk == log.as_bytes(), "the file is not the output");
}

/// A file a sweep deleted reads as expired, through `read` and the read
/// tool; a name that never existed reads as unknown. Both are `not-found`.
#[test]
fn a_swept_file_reads_as_expired_not_as_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "t");
    let capped = session
        .cap(&output("swept", 50_000), &budget(2048), "c1")
        .unwrap();
    let spill = capped.report.spill.expect("saved");
    assert!(session.read(&spill.path, 0, 64).is_ok());

    let mut store = tool_cap().open_spill_store(dir.path()).unwrap();
    let policy = RetentionPolicy {
        max_age_seconds: None,
        max_total_bytes: None,
        max_files: Some(0),
    };
    let swept = store.sweep(&policy).unwrap();
    assert_eq!(swept.deleted.len(), 1, "{swept:?}");
    assert_eq!(swept.deleted[0].relative_path, spill.relative_path);
    assert_eq!((swept.kept_files, swept.kept_bytes), (0, 0));
    assert_eq!(spill_files(dir.path()), Vec::<PathBuf>::new());

    let never = format!("{DISPLAY_ROOT}/t/c9-0123456789abcdef.txt");
    let expired = not_found(session.read(&spill.path, 0, 64));
    let unknown = not_found(session.read(&never, 0, 64));
    assert!(expired.contains("expired"), "{expired}");
    assert!(expired.contains(&spill.path), "{expired}");
    assert!(!unknown.contains("expired"), "{unknown}");
    assert!(unknown.contains("none ever did"), "{unknown}");
    for result in [
        session.read_lines(&spill.path, 1, 3, 100).map(|p| p.text),
        session
            .grep(&spill.path, "swept", 1)
            .map(|g| format!("{g:?}")),
    ] {
        assert!(not_found(result).contains("expired"));
    }

    // The read tool: an error the model can act on, saying which.
    for (path, says, never_says) in [
        (&spill.path, "expired", "none ever did"),
        (&never, "none ever did", "expired"),
    ] {
        let out = session
            .run_read_tool(&json!({ "path": path }).to_string())
            .unwrap();
        assert!(out.is_error, "{}", out.text);
        assert!(out.text.contains(says), "{}", out.text);
        assert!(!out.text.contains(never_says), "{}", out.text);
    }
    // Given the notice itself as the path, too.
    let out = session
        .run_read_tool(&json!({ "path": capped.text }).to_string())
        .unwrap();
    assert!(out.is_error && out.text.contains("expired"), "{}", out.text);

    // The same output capped again is saved again and reads normally.
    let again = session
        .cap(&output("swept", 50_000), &budget(2048), "c1")
        .unwrap();
    assert_eq!(again.report.spill.as_ref(), Some(&spill));
    assert!(session.read(&spill.path, 0, 64).is_ok());
}

/// One thread caps distinct outputs in a loop (now and then a large stream,
/// whose temporary file lives for many writes) while another sweeps
/// everything older than 0 s through its own spill store. Sweeps never fail,
/// never touch a file being written (every cap saves its output), and what
/// they delete are finished spills only.
#[test]
fn sweeps_racing_caps_never_break_a_cap() {
    const CAPS: usize = 150;
    let dir = tempfile::tempdir().unwrap();
    let done = AtomicBool::new(false);
    thread::scope(|scope| {
        let sweeper = scope.spawn(|| {
            let mut store = tool_cap().open_spill_store(dir.path()).unwrap();
            let policy = RetentionPolicy {
                max_age_seconds: Some(0),
                max_total_bytes: None,
                max_files: None,
            };
            let (mut sweeps, mut deleted) = (0, 0);
            let mut failures = Vec::new();
            while !done.load(Ordering::Relaxed) {
                sweeps += 1;
                let report = match store.sweep(&policy) {
                    Ok(report) => report,
                    Err(err) => {
                        failures.push(format!("sweep {sweeps}: {err}"));
                        continue;
                    }
                };
                for file in &report.deleted {
                    let name = file.relative_path.rsplit('/').next().unwrap();
                    assert!(!name.starts_with(".tmp"), "deleted {file:?}");
                }
                deleted += report.deleted.len();
                if let Err(err) = store.stats() {
                    failures.push(format!("stats after sweep {sweeps}: {err}"));
                }
            }
            (sweeps, deleted, failures)
        });
        let mut session = open(dir.path(), "race");
        for i in 0..CAPS {
            let capped = if i % 25 == 7 {
                stream_log(&mut session, &format!("s{i}"), 6)
            } else {
                let text = output(&format!("cap {i}"), 20_000 + 97 * i);
                session.cap(&text, &budget(2048), format!("c{i}")).unwrap()
            };
            assert!(
                capped.report.spill.is_some() && capped.report.spill_error.is_none(),
                "cap {i}: {:?}",
                capped.report.spill_error
            );
        }
        done.store(true, Ordering::Relaxed);
        let (sweeps, deleted, failures) = sweeper.join().expect("the sweeper did not panic");
        eprintln!("{CAPS} caps, {sweeps} sweeps deleting {deleted} files");
        assert!(sweeps > 0 && deleted > 0, "no sweep deleted anything");
        assert!(
            failures.is_empty(),
            "{} of {sweeps} sweeps (or stats) failed, the first: {}",
            failures.len(),
            failures[0]
        );
    });
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
}

/// Symbolic links planted in the spill directory and in a thread folder,
/// pointing outside it (to a folder holding a spill-shaped file and to a
/// file): `stats` and `sweep` never follow them and report them as skipped,
/// a sweep that deletes everything leaves the outside files alone, and a
/// read through a link is refused.
#[test]
fn sweeps_and_reads_never_follow_planted_links() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let spill_shaped = "c1-0123456789abcdef.txt";
    let secret = outside.path().join("secret.txt");
    fs::write(&secret, "TOP SECRET: outside the spill dir\n").unwrap();
    fs::write(outside.path().join(spill_shaped), "outside, spill-shaped\n").unwrap();

    let mut session = open(dir.path(), "t");
    let capped = session
        .cap(&output("real", 30_000), &budget(2048), "real")
        .unwrap();
    let spill = capped.report.spill.expect("saved");
    let folder = dir.path().join(session.thread_folder().unwrap());
    let links = [
        (dir.path().join("dir-link"), outside.path().to_owned()),
        (dir.path().join("file-link"), secret.clone()),
        (folder.join("dir-link"), outside.path().to_owned()),
        (folder.join("evil-0123456789abcdef.txt"), secret.clone()),
    ];
    for (link, target) in &links {
        symlink(target, link).unwrap();
    }
    let outside_before = tree(outside.path());

    let mut store = tool_cap().open_spill_store(dir.path()).unwrap();
    let stats = store.stats().unwrap();
    assert_eq!((stats.threads, stats.files), (1, 1), "{stats:?}");
    assert_eq!(stats.bytes, spill.bytes);
    let everything = RetentionPolicy {
        max_age_seconds: Some(0),
        max_total_bytes: Some(0),
        max_files: Some(0),
    };
    let swept = store.sweep(&everything).unwrap();
    let deleted: Vec<_> = swept.deleted.iter().map(|f| &f.relative_path).collect();
    assert_eq!(deleted, [&spill.relative_path], "{swept:?}");
    for name in [
        "dir-link".to_owned(),
        "file-link".to_owned(),
        "t/dir-link".to_owned(),
        "t/evil-0123456789abcdef.txt".to_owned(),
    ] {
        assert!(
            swept
                .skipped
                .iter()
                .any(|s| s.starts_with(&format!("{name}:")) && s.contains("symbolic link")),
            "{name} not reported as a skipped link: {:?}",
            swept.skipped
        );
    }
    // A second sweep finds the links again, and still nothing to delete.
    let again = store.sweep(&everything).unwrap();
    assert!(again.deleted.is_empty(), "{again:?}");
    assert_eq!(tree(outside.path()), outside_before, "followed a link");
    assert!(
        fs::read_to_string(&secret)
            .unwrap()
            .starts_with("TOP SECRET")
    );
    for (link, _) in &links {
        assert!(fs::symlink_metadata(link).unwrap().is_symlink());
    }

    for path in [
        "t/evil-0123456789abcdef.txt".to_owned(),
        format!("{DISPLAY_ROOT}/t/evil-0123456789abcdef.txt"),
        format!("t/dir-link/{spill_shaped}"),
        format!("dir-link/{spill_shaped}"),
        format!("{DISPLAY_ROOT}/dir-link/{spill_shaped}"),
    ] {
        let read = session.read(&path, 0, 100);
        let err = read.expect_err(&path);
        assert_eq!(case_name(&err), "outside-root", "{path}: {err}");
        let out = session
            .run_read_tool(&json!({ "path": path }).to_string())
            .unwrap();
        assert!(out.is_error, "{path}: {}", out.text);
        assert!(!out.text.contains("TOP SECRET"), "{}", out.text);
        assert!(!out.text.contains("outside, spill-shaped"), "{}", out.text);
    }
}

/// The Rust host creates a missing spill directory (and its missing
/// parents) and the thread folder, readable by their owner only.
#[cfg(unix)]
#[test]
fn a_missing_spill_dir_and_the_thread_folder_are_created_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("not-yet").join("spill");
    let mut session = open(&dir, "t");
    let folder = dir.join(session.thread_folder().unwrap());
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for p in [parent.path().join("not-yet"), dir.clone(), folder.clone()] {
        assert!(p.is_dir(), "{} missing", p.display());
        assert_eq!(mode(&p), 0o700, "{}", p.display());
    }
    let capped = session
        .cap(&output("private", 20_000), &budget(2048), "c1")
        .unwrap();
    assert!(capped.report.spill.is_some());
    assert_eq!(mode(&folder), 0o700);

    // A spill store on a missing directory creates it the same way.
    let other = parent.path().join("store-only");
    tool_cap().open_spill_store(&other).unwrap();
    assert_eq!(mode(&other), 0o700);
}

/// Two caps of the same output in one thread, under different call ids and
/// tools, write one file; `list` names it once, as the first call's, with
/// its tool; and a session reopened with the same key lists the same
/// genuine reference.
#[test]
fn the_catalog_names_one_file_for_one_output_and_outlives_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let text = output("twice", 40_000);
    let mut session = open(dir.path(), "t");
    let call = |id: &str, tool: &str| Call {
        tool: Some(tool.to_owned()),
        ..Call::new(id)
    };
    let first = session
        .cap(&text, &budget(2048), call("first", "bash"))
        .unwrap();
    let second = session
        .cap(&text, &budget(2048), call("second", "grep"))
        .unwrap();
    let spill = first.report.spill.clone().expect("saved");
    assert_eq!(second.report.spill.as_ref(), Some(&spill));
    assert_eq!(
        spill_files(dir.path()),
        [PathBuf::from(&spill.relative_path)]
    );
    assert!(spill.relative_path.contains("first-"), "{spill:?}");

    let listed = session.list().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].reference, spill);
    assert_eq!(listed[0].call_id, "first");
    assert_eq!(listed[0].tool.as_deref(), Some("bash"));
    let created = listed[0].created_ms;

    drop(session);
    let mut reopened = open(dir.path(), "t");
    let listed = reopened.list().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].reference, spill);
    assert_eq!(
        (listed[0].call_id.as_str(), listed[0].tool.as_deref()),
        ("first", Some("bash"))
    );
    assert_eq!(listed[0].created_ms, created);
    // Genuine for the reopened session: a placeholder is made, the notice's
    // reference is found, and the file reads.
    let placeholder = reopened.pruned_placeholder(&listed[0].reference).unwrap();
    assert_eq!(
        reopened.find_refs(&placeholder).unwrap(),
        std::slice::from_ref(&spill)
    );
    assert_eq!(
        reopened.find_refs(&first.text).unwrap(),
        std::slice::from_ref(&spill)
    );
    assert!(
        reopened
            .read(&spill.path, 0, 64)
            .unwrap()
            .text
            .starts_with("twice")
    );

    // Another key lists the file too, under a reference of its own: the
    // old one does not verify there.
    let mut other_key = open_with(SessionConfig {
        key: KEY.iter().map(|b| b ^ 1).collect(),
        ..config(dir.path(), "t")
    });
    let listed = other_key.list().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].reference.relative_path, spill.relative_path);
    assert_ne!(listed[0].reference.tag, spill.tag);
    assert_eq!(other_key.find_refs(&first.text).unwrap(), []);
}

/// 256 MiB streamed in 1 MiB chunks with a 16 KiB budget: the component's
/// linear memory stays under 16 MiB (so the instance was never recycled),
/// the spill on disk is the whole output with the reference's size and
/// digest, and the preview holds the notable line planted in the middle.
#[test]
fn streaming_256_mib_keeps_the_component_under_16_mib() {
    const CHUNKS: usize = 256;
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "big");
    let capped = stream_log(&mut session, "huge", CHUNKS);
    let memory = session.memory_size();
    eprintln!(
        "linear memory after streaming {CHUNKS} MiB: {:.1} MiB",
        memory as f64 / MIB as f64
    );
    assert_eq!(session.recycled(), 0, "the instance grew past 16 MiB");
    assert!(memory < 16 * MIB, "{memory} bytes of linear memory");

    assert!(capped.report.truncated && capped.text.len() <= 16 * 1024);
    assert!(capped.text.contains(PLANTED), "planted line lost");
    assert!(capped.report.notable_lines >= 1);
    let spill = capped.report.spill.expect("saved");
    assert_eq!(capped.report.spill_error, None);
    assert_eq!(spill.bytes, (CHUNKS * MIB) as u64);
    assert_eq!(u64::from(capped.report.original_bytes), spill.bytes);
    let on_disk = fs::read(dir.path().join(&spill.relative_path)).unwrap();
    assert_eq!(on_disk.len(), CHUNKS * MIB);
    for (i, chunk) in on_disk.chunks(MIB).enumerate() {
        assert!(chunk == log_chunk(i, CHUNKS / 2), "chunk {i} differs");
    }
    let digest = content_digest(&on_disk);
    assert_eq!(spill.digest, digest);
    assert!(spill.relative_path.ends_with(&format!("-{digest}.txt")));
    let lines = on_disk.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(
        spill.lines,
        lines + u64::from(on_disk.last() != Some(&b'\n'))
    );
    assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new());
}
