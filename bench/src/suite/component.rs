//! What does going through wasmtime cost, for a result that fits (call
//! overhead) and for one that is cut and spilled (copies, BLAKE3 in wasm,
//! WASI writes)? Each baseline does the component's work natively: the same
//! core call, the same file steps (`native::FsSpill`), the same call ids.

use std::fs;
use std::hint::black_box;

use tool_output_cap::{Limits, RuntimeOptions};

use crate::corpus::{self, KIB, Kind, MIB};
use crate::measure::{self, Plan, Routine};
use crate::native::{self, Discard, FsSpill, NoSpillDir};
use crate::setup::{self, CALL_ID, CallIds, THREAD};
use crate::table::Row;

/// A fitting result through the component vs the same core function natively.
pub fn run_call_overhead(plan: Plan, rows: &mut Vec<Row>) {
    let tool_cap = setup::tool_cap(None);
    let spill = tempfile::tempdir().unwrap();
    let mut session = setup::session(&tool_cap, Some(spill.path()));
    // The deadline's cost per call: arming the epoch ticker.
    let no_deadline_cap = setup::tool_cap_with(RuntimeOptions {
        limits: Limits {
            call_deadline: None,
            ..Limits::default()
        },
        ..RuntimeOptions::default()
    });
    let mut no_deadline = setup::session(&no_deadline_cap, Some(spill.path()));
    let capper = setup::capper();
    let budget = setup::roomy_budget();
    let host_budget = setup::host_budget(&budget);
    for size in [KIB, 64 * KIB] {
        let text = corpus::text(Kind::Ascii, size);
        assert!(
            !session
                .cap(&text, &host_budget, CALL_ID)
                .unwrap()
                .report
                .truncated
        );
        let mut component = || {
            black_box(session.cap(black_box(&text), &host_budget, CALL_ID)).ok();
        };
        let mut native = || {
            black_box(capper.cap(black_box(&text), &budget, CALL_ID, &mut Discard)).ok();
        };
        let mut undeadlined = || {
            black_box(no_deadline.cap(black_box(&text), &host_budget, CALL_ID)).ok();
        };
        let m = measure::medians(&mut [&mut component, &mut native, &mut undeadlined], plan);
        rows.push(Row::vs(
            "cap fits, component",
            Some(size),
            m[0],
            "core native",
            m[1],
        ));
        if size == KIB {
            rows.push(Row::vs(
                "cap fits, component, no call deadline",
                Some(size),
                m[2],
                "with the 30 s deadline",
                m[0],
            ));
        }
    }
}

/// A corpus text of the given size.
type TextOf = fn(usize) -> String;

/// The log of the spill rows.
fn ascii_log(size: usize) -> String {
    corpus::text(Kind::Ascii, size)
}

/// The Chinese and Japanese text of the spill rows.
fn cjk_text(size: usize) -> String {
    corpus::text(Kind::Cjk, size)
}

/// Django's Python files, real code: `error` and `fail` on many lines.
fn python_source(size: usize) -> String {
    corpus::source(corpus::Source::Python, size).unwrap_or_else(|why| panic!("{why}"))
}

/// Cut and spill through the component vs native core + `std::fs` doing the
/// guest's steps; and the same with no spill directory, to tell compute from
/// I/O. Every call has its own call id on both sides, so each spill creates a
/// new file, as in an agent's conversation; between samples (untimed) the
/// files both sides wrote are removed, so disk use stays at one sample's
/// files and each sample starts from the same folder state.
pub fn run_spill(plan: Plan, rows: &mut Vec<Row>) {
    let tool_cap = setup::tool_cap(None);
    let component_dir = tempfile::tempdir().unwrap();
    let native_dir = tempfile::tempdir().unwrap();
    let component_thread = component_dir.path().join(THREAD);
    let native_thread = native_dir.path().join(THREAD);
    let mut spilling = setup::session(&tool_cap, Some(component_dir.path()));
    let mut no_dir = setup::session(&tool_cap, None);
    let capper = setup::capper();
    let mut store = FsSpill::new(native_dir.path());
    // The log at two sizes; then new-file rows only of a JSON reply (its
    // preview parses the whole document), of Chinese and Japanese text
    // (the notable lines' search walks in the component what no
    // fingerprint excludes), of log lines all alike (the fold's worst
    // case: each side compares up to its reach, and folds nothing) and of
    // real source code (the failure lines' rules judge every line that
    // says `error`).
    let cases: [(&str, usize, TextOf); 6] = [
        ("", 4 * MIB, ascii_log),
        ("", 64 * MIB, ascii_log),
        (", JSON", 4 * MIB, corpus::json),
        (", CJK text", 4 * MIB, cjk_text),
        (", log of alike lines", 4 * MIB, corpus::alike_lines),
        (", Python source (Django)", 4 * MIB, python_source),
    ];
    for (label, size, text_of) in cases {
        let text = text_of(size);
        let log = label.is_empty();
        let budget = setup::cut_budget(size);
        let host_budget = setup::host_budget(&budget);

        // The same work: the same call renders the same text and writes the
        // same bytes under the same name on both sides.
        let component = spilling.cap(&text, &host_budget, "same-work").unwrap();
        let native = capper.cap(&text, &budget, "same-work", &mut store).unwrap();
        assert_eq!(component.text, native.text);
        let spill = component.report.spill.expect("spilled");
        let name = spill.path.rsplit('/').next().unwrap();
        let spilled = fs::read(component_thread.join(name)).unwrap();
        assert!(
            spilled == text.as_bytes(),
            "the component spilled the input"
        );
        assert!(fs::read(native_thread.join(name)).unwrap() == spilled);
        drop(spilled);
        let component = no_dir.cap(&text, &host_budget, CALL_ID).unwrap();
        let native = capper
            .cap(&text, &budget, CALL_ID, &mut NoSpillDir)
            .unwrap();
        assert!(component.report.spill.is_none() && component.report.spill_error.is_some());
        assert_eq!(component.text, native.text);

        let (mut component_ids, mut native_ids) = (CallIds::default(), CallIds::default());
        let mut component = || {
            let id = component_ids.next_id();
            black_box(spilling.cap(black_box(&text), &host_budget, &id)).ok();
        };
        let mut native = || {
            let id = native_ids.next_id();
            black_box(capper.cap(black_box(&text), &budget, &id, &mut store)).ok();
        };
        let mut component_no_write = || {
            black_box(no_dir.cap(black_box(&text), &host_budget, CALL_ID)).ok();
        };
        let mut native_no_write = || {
            black_box(capper.cap(black_box(&text), &budget, CALL_ID, &mut NoSpillDir)).ok();
        };
        let mut remove_spills = || {
            native::remove_files(&component_thread);
            native::remove_files(&native_thread);
        };
        let mut routines: [Routine<'_>; 4] = [
            &mut component,
            &mut native,
            &mut component_no_write,
            &mut native_no_write,
        ];
        // The other texts show the new-file row only: their refusals are
        // not timed.
        let timed = if log { 4 } else { 2 };
        let m = measure::medians_between(&mut routines[..timed], plan, &mut remove_spills);
        rows.push(Row::vs(
            format!("cap + spill (new file), component{label}"),
            Some(size),
            m[0],
            "core native + std::fs, same steps",
            m[1],
        ));
        if !log {
            continue;
        }
        rows.push(Row::vs(
            "cap, component, no spill dir (no write)",
            Some(size),
            m[2],
            "core native, same refusal",
            m[3],
        ));
        if size == 4 * MIB {
            replacing(plan, rows, &text, &mut spilling, &mut store);
        }
    }
    native::remove_files(&component_thread);
    native::remove_files(&native_thread);
}

/// The same spill with one call id for every call, as the `hosts` suite and
/// its scripts do: each rename replaces the file the last call wrote, on both
/// sides. Shown next to the new-file rows because replacing a file by rename
/// costs more than creating one on some file systems (ext4 starts writing the
/// new file back when a rename replaces another), which hides part of the
/// sandbox's cost in the ratio.
fn replacing(
    plan: Plan,
    rows: &mut Vec<Row>,
    text: &str,
    spilling: &mut tool_output_cap::Session,
    store: &mut FsSpill,
) {
    let capper = setup::capper();
    let budget = setup::cut_budget(text.len());
    let host_budget = setup::host_budget(&budget);
    let mut component = || {
        black_box(spilling.cap(black_box(text), &host_budget, CALL_ID)).ok();
    };
    let mut native = || {
        black_box(capper.cap(black_box(text), &budget, CALL_ID, &mut *store)).ok();
    };
    let m = measure::medians(&mut [&mut component, &mut native], plan);
    rows.push(Row::vs(
        "cap + spill (replaces one file), component",
        Some(text.len()),
        m[0],
        "core native + std::fs, same steps, replacing",
        m[1],
    ));
}
