//! Questions 2 and 3: what does going through wasmtime cost, for a result
//! that fits (call overhead) and for one that is cut and spilled (copies,
//! BLAKE3 in wasm, WASI writes)?

use std::hint::black_box;

use host_demo::{Limits, RuntimeOptions};

use crate::corpus::{self, KIB, Kind, MIB};
use crate::measure::{self, Plan};
use crate::native::{Discard, FsSpill};
use crate::setup::{self, CALL_ID};
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
        assert!(!session.cap(&text, &host_budget, CALL_ID).unwrap().truncated);
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

/// Cut and spill through the component vs native core + `std::fs`; and the
/// same without the write, to tell compute from I/O.
pub fn run_spill(plan: Plan, rows: &mut Vec<Row>) {
    let tool_cap = setup::tool_cap(None);
    let component_dir = tempfile::tempdir().unwrap();
    let native_dir = tempfile::tempdir().unwrap();
    let mut spilling = setup::session(&tool_cap, Some(component_dir.path()));
    let mut no_dir = setup::session(&tool_cap, None);
    let capper = setup::capper();
    for size in [4 * MIB, 64 * MIB] {
        let text = corpus::text(Kind::Ascii, size);
        let budget = setup::cut_budget(size);
        let host_budget = setup::host_budget(&budget);
        let first = spilling.cap(&text, &host_budget, CALL_ID).unwrap();
        assert!(first.spill.is_some(), "{first:?}");
        let mut store = FsSpill::new(native_dir.path());
        let mut component = || {
            black_box(spilling.cap(black_box(&text), &host_budget, CALL_ID)).ok();
        };
        let mut native = || {
            black_box(capper.cap(black_box(&text), &budget, CALL_ID, &mut store)).ok();
        };
        let mut component_no_write = || {
            black_box(no_dir.cap(black_box(&text), &host_budget, CALL_ID)).ok();
        };
        let mut native_no_write = || {
            black_box(capper.cap(black_box(&text), &budget, CALL_ID, &mut Discard)).ok();
        };
        let m = measure::medians(
            &mut [
                &mut component,
                &mut native,
                &mut component_no_write,
                &mut native_no_write,
            ],
            plan,
        );
        rows.push(Row::vs(
            "cap + spill, component",
            Some(size),
            m[0],
            "core native + std::fs::write",
            m[1],
        ));
        rows.push(Row::vs(
            "cap, component, no preopen (no write)",
            Some(size),
            m[2],
            "core native, no write",
            m[3],
        ));
    }
}
