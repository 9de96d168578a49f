//! Spilling through the real component into real temp dirs: where files land,
//! what they hold, what is left behind, and cuts of multibyte text at every
//! budget.
//!
//! `cargo test --release -p toolcap-tests --test all spill::`

use std::fs;
use std::path::Path;

use crate::common::{
    DISPLAY_ROOT, assert_case, budget, count_lines, multibyte_corpus, open, temp_files, tree,
};
use tool_output_cap::{Budget, Capped, Session, types::Keep};
use toolcap_core::naming::content_digest;
use toolcap_core::notice::NOT_SAVED;

/// 5000 bytes of mixed scripts, CRLF, a lone CR and NUL bytes.
fn awkward_output() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 5000 {
        s.push_str(&format!("{i}: ok ж中😀\r\nprogress 10%\r20%\0end\n"));
        i += 1;
    }
    s
}

fn cap_ok(session: &mut Session, input: &str, budget: &Budget, call: &str) -> Capped {
    session
        .cap(input, budget, call)
        .unwrap_or_else(|err| panic!("cap {call}: {err}"))
}

#[test]
fn spill_lands_at_thread_call_digest_with_the_exact_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-7");
    let input = awkward_output();
    let capped = cap_ok(&mut session, &input, &budget(1000), "call-1");

    let digest = content_digest(input.as_bytes());
    let name = format!("call-1-{digest}.txt");
    let spill = capped.report.spill.expect("a cut result spills");
    assert_eq!(spill.path, format!("{DISPLAY_ROOT}/thread-7/{name}"));
    assert_eq!(spill.digest, digest);
    assert_eq!(
        (spill.bytes, spill.lines),
        (input.len() as u64, count_lines(&input))
    );
    assert_eq!(
        tree(dir.path()),
        ["thread-7".into(), Path::new("thread-7").join(&name)]
    );
    let on_disk = fs::read(dir.path().join("thread-7").join(&name)).unwrap();
    assert!(
        on_disk == input.as_bytes(),
        "spilled bytes differ from the input"
    );
}

#[test]
fn output_that_fits_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let input = "ж".repeat(500);
    let capped = cap_ok(&mut session, &input, &budget(1000), "c1");
    assert!(!capped.report.truncated && capped.report.spill.is_none() && capped.text == input);
    // Only the (empty) thread folder the host created when it opened.
    assert_eq!(tree(dir.path()), [std::path::PathBuf::from("thread-1")]);
}

#[test]
fn no_temp_file_is_left_after_a_success() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    for call in ["c1", "c2", "c3"] {
        // Distinct outputs: one output is saved once.
        let output = format!("{call}\n{}", awkward_output());
        let capped = cap_ok(&mut session, &output, &budget(1000), call);
        assert!(capped.report.spill.is_some());
    }
    assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
    assert_eq!(tree(dir.path()).len(), 4, "{:?}", tree(dir.path()));
}

#[test]
fn a_failed_write_leaves_no_temp_file_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let input = awkward_output();
    // A non-empty folder under the final name makes the rename fail after
    // the temporary file was written.
    let blocker = dir
        .path()
        .join("thread-1")
        .join(format!("c1-{}.txt", content_digest(input.as_bytes())));
    fs::create_dir_all(blocker.join("keep")).unwrap();

    let capped = cap_ok(&mut session, &input, &budget(1000), "c1");
    assert!(capped.report.truncated && capped.report.spill.is_none());
    let why = capped.report.spill_error.expect("the failure is reported");
    assert!(capped.text.contains(NOT_SAVED), "{}", capped.text);
    assert!(capped.text.len() <= 1000);
    assert!(!why.is_empty());
    assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
    assert!(blocker.join("keep").is_dir(), "the blocker was disturbed");
}

#[test]
fn same_call_id_with_other_content_makes_a_second_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let first = "first run\n".repeat(200);
    let second = "second run\n".repeat(200);
    let a = cap_ok(&mut session, &first, &budget(1000), "call-1")
        .report
        .spill
        .unwrap();
    let b = cap_ok(&mut session, &second, &budget(1000), "call-1")
        .report
        .spill
        .unwrap();
    assert_ne!(a.path, b.path);
    // The same content again names the same file: no third one.
    let again = cap_ok(&mut session, &first, &budget(1000), "call-1")
        .report
        .spill
        .unwrap();
    assert_eq!(again.path, a.path);
    assert_eq!(tree(dir.path()).len(), 3, "{:?}", tree(dir.path()));
    for (reference, content) in [(&a, &first), (&b, &second)] {
        let on_disk = fs::read_to_string(
            session
                .host_path(&reference.path)
                .expect("host_path")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(&on_disk, content);
        let page = session.read(&reference.path, 0, 64).unwrap();
        assert!(content.starts_with(&page.text));
    }
}

#[test]
fn hostile_thread_and_call_ids_stay_inside_the_spill_dir() {
    let parent = tempfile::tempdir().unwrap();
    let spill_dir = parent.path().join("spill");
    fs::create_dir(&spill_dir).unwrap();
    let threads = [
        "../x",
        "a/b",
        "..",
        ".",
        "/etc",
        "x\0y",
        "../../../../tmp/evil",
        "ж/😀",
    ];
    let calls = ["../../passwd", "/abs", "a/b", "..", "", "c:\\win"];
    for thread in threads {
        let mut session = open(&spill_dir, thread);
        for call in calls {
            // Distinct outputs: one output is saved once per thread.
            let output = format!("{call}\n{}", awkward_output());
            let capped = cap_ok(&mut session, &output, &budget(1000), call);
            let spill = capped
                .report
                .spill
                .unwrap_or_else(|| panic!("{thread:?} {call:?}"));
            assert!(!spill.path.contains("/../"), "{}", spill.path);
            let file = session.host_path(&spill.path).expect("host_path").unwrap();
            let real = file.canonicalize().unwrap();
            assert!(
                real.starts_with(spill_dir.canonicalize().unwrap()),
                "{thread:?}/{call:?} spilled to {}",
                real.display()
            );
            assert!(session.read(&spill.path, 0, 16).is_ok());
        }
    }
    // Nothing escaped next to the spill dir, and distinct ids stay distinct.
    assert_eq!(tree(parent.path())[0], Path::new("spill"));
    let outside: Vec<_> = tree(parent.path())
        .into_iter()
        .filter(|p| !p.starts_with("spill"))
        .collect();
    assert!(outside.is_empty(), "{outside:?}");
    let folders = fs::read_dir(&spill_dir).unwrap().count();
    assert_eq!(folders, threads.len());
    let files = tree(&spill_dir).len() - folders;
    assert_eq!(files, threads.len() * calls.len());
}

#[test]
fn a_deleted_thread_folder_is_recreated_by_the_next_cap() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let first = cap_ok(&mut session, &awkward_output(), &budget(1000), "c1");
    fs::remove_dir_all(dir.path().join("thread-1")).unwrap();
    assert_case(
        session.read(&first.report.spill.unwrap().path, 0, 16),
        "not-found",
    );

    let input = "after the folder was deleted\n".repeat(100);
    let second = cap_ok(&mut session, &input, &budget(1000), "c2");
    let spill = second.report.spill.expect("spilled again");
    assert_eq!(
        fs::read_to_string(session.host_path(&spill.path).expect("host_path").unwrap()).unwrap(),
        input
    );
}

#[test]
fn four_mib_single_line_is_cut_spilled_and_searchable() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let needle = "__NEEDLE__";
    let half = "function f(a){return a+1};".repeat(81_000);
    let input = format!("{half}{needle}{half}");
    assert!(input.len() > 4 << 20);
    let budget = Budget {
        max_lines: Some(40),
        max_line_bytes: Some(200),
        ..budget(2000)
    };
    let capped = cap_ok(&mut session, &input, &budget, "bundle");
    assert!(capped.report.truncated && capped.text.len() <= 2000);
    assert!(!capped.text.contains(needle));
    assert_eq!(
        (
            capped.report.original_bytes as usize,
            capped.report.original_lines
        ),
        (input.len(), 1)
    );
    let spill = capped.report.spill.unwrap();
    assert!(
        fs::read(session.host_path(&spill.path).expect("host_path").unwrap()).unwrap()
            == input.as_bytes()
    );

    let found = session.grep(&spill.path, needle, 3).unwrap();
    assert_eq!(found.total_matches, 1);
    assert_eq!(
        (found.matches[0].line, found.matches[0].offset),
        (1, half.len() as u64)
    );
    assert!(found.matches[0].excerpt.contains(needle));
    assert!(
        found.matches[0].excerpt.len() < 600,
        "the excerpt is bounded"
    );
    let page = session
        .read(&spill.path, half.len() as u64, needle.len() as u32)
        .unwrap();
    assert_eq!(page.text, needle);
}

/// The preview of a cut text: head, gap marker range, tail (notice removed).
struct Preview<'a> {
    head: &'a str,
    gap: (usize, usize),
    tail: &'a str,
}

fn split_preview(text: &str) -> Preview<'_> {
    // Full and compact notices both start with this, on a line of their own.
    let notice = text.rfind("\n[toolcap] ").map(|i| i + 1).expect("a notice");
    let preview = &text[..notice];
    let marker = preview
        .match_indices("[... ")
        .map(|(i, _)| i)
        .find(|&i| {
            (i == 0 || preview.as_bytes()[i - 1] == b'\n')
                && preview[i..].contains(" bytes omitted here (bytes ")
        })
        .expect("a gap marker");
    let line_end = marker
        + preview[marker..]
            .find('\n')
            .expect("the marker ends its line");
    let marker_line = &preview[marker..line_end];
    let range = marker_line
        .split("(bytes ")
        .nth(1)
        .and_then(|r| r.split(" of the").next())
        .expect("a byte range");
    let (from, to) = range.split_once("..").expect("from..to");
    Preview {
        head: &preview[..marker],
        gap: (from.parse().unwrap(), to.parse().unwrap()),
        tail: &preview[line_end + 1..],
    }
}

/// Bytes of `input` that `shown` stands for: a preview side may end with a
/// LF the input does not have there.
fn shown_len(shown: &str, fits: impl Fn(&str) -> bool) -> usize {
    if fits(shown) {
        shown.len()
    } else {
        let trimmed = shown.strip_suffix('\n').expect("only an added LF differs");
        assert!(fits(trimmed), "not part of the input: {trimmed:?}");
        trimmed.len()
    }
}

/// The least `max_bytes` the session accepts: one less is invalid-budget.
fn least_budget(session: &mut Session) -> u32 {
    let probe = "x\n".repeat(10_000);
    let room = (600..2000)
        .find(|&b| session.cap(&probe, &budget(b), "probe").is_ok())
        .expect("some budget under 2000 leaves room for the notice");
    assert_case(
        session.cap(&probe, &budget(room - 1), "probe"),
        "invalid-budget",
    );
    room
}

/// Checks one cut of `input` against the naive oracle: within budget, the
/// head a prefix, the tail a suffix, the gap marker and `omitted_bytes` exact.
fn check_cut(input: &str, budget: &Budget, capped: &Capped, at: &str) {
    if input.len() <= budget.max_bytes as usize {
        assert!(!capped.report.truncated && capped.text == input, "{at}");
        return;
    }
    assert!(capped.report.truncated, "{at}");
    assert!(capped.text.len() <= budget.max_bytes as usize, "{at}");
    let p = split_preview(&capped.text);
    let head = shown_len(p.head, |s| input.starts_with(s));
    let tail = shown_len(p.tail, |s| input.ends_with(s));
    assert_eq!(p.gap, (head, input.len() - tail), "{at}");
    assert_eq!(
        capped.report.omitted_bytes as usize,
        input.len() - head - tail,
        "{at}"
    );
    assert!(budget.keep != Keep::Head || tail == 0, "{at}");
    assert!(budget.keep != Keep::Tail || head == 0, "{at}");
}

#[test]
fn multibyte_text_cut_at_every_budget_keeps_a_prefix_and_a_suffix() {
    // Every budget, so the cut moves through every byte of every character.
    // Without a preopen: a spill costs about 1 ms of disk on this machine.
    let mut session = crate::common::open_with(tool_output_cap::SessionConfig {
        spill_dir: None,
        ..crate::common::config(Path::new("/unused"), "thread-1")
    });
    let room = least_budget(&mut session);
    let mut calls = 0;
    for (script, input) in multibyte_corpus() {
        for keep in [Keep::Head, Keep::Tail, Keep::HeadAndTail] {
            for max_bytes in room..=input.len() as u32 + 1 {
                let b = Budget {
                    keep,
                    ..budget(max_bytes)
                };
                let capped = cap_ok(&mut session, &input, &b, script);
                check_cut(
                    &input,
                    &b,
                    &capped,
                    &format!("{script} {keep:?} {max_bytes}"),
                );
                calls += 1;
            }
        }
    }
    assert!(calls > 10_000, "{calls}");
}

#[test]
fn multibyte_cuts_spill_the_exact_input() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = open(dir.path(), "thread-1");
    let room = least_budget(&mut session);
    for (script, input) in multibyte_corpus() {
        for keep in [Keep::Head, Keep::Tail, Keep::HeadAndTail] {
            for max_bytes in (room..input.len() as u32).step_by(97) {
                let b = Budget {
                    keep,
                    ..budget(max_bytes)
                };
                let capped = cap_ok(&mut session, &input, &b, script);
                check_cut(
                    &input,
                    &b,
                    &capped,
                    &format!("{script} {keep:?} {max_bytes}"),
                );
                let spill = capped.report.spill.expect("spilled");
                let on_disk =
                    fs::read(session.host_path(&spill.path).expect("host_path").unwrap()).unwrap();
                assert!(on_disk == input.as_bytes(), "{script}: spill differs");
                let refs = session.find_refs(&capped.text).unwrap();
                assert_eq!(refs.last().map(|r| &r.path), Some(&spill.path));
            }
        }
    }
    assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
}

#[test]
fn a_display_root_with_a_trailing_slash_still_maps_to_the_host_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = crate::common::open_with(tool_output_cap::SessionConfig {
        display_root: Some(format!("{DISPLAY_ROOT}/")),
        ..crate::common::config(dir.path(), "thread-1")
    });
    let input = awkward_output();
    let spill = cap_ok(&mut session, &input, &budget(1000), "c1")
        .report
        .spill
        .unwrap();
    assert!(
        spill
            .path
            .starts_with(&format!("{DISPLAY_ROOT}/thread-1/c1-")),
        "{}",
        spill.path
    );
    let file = session
        .host_path(&spill.path)
        .expect("host_path")
        .expect("host_path maps the component's path (it trims the trailing /)");
    assert!(fs::read(file).unwrap() == input.as_bytes());
}
