//! How fast does a huge output stream through the component, and what
//! memory does it keep? 1 GiB written to `Session::stream` in 1 MiB chunks
//! with a 16 KiB budget (the one-pass mode: the spill is written as chunks
//! arrive), against `Session::cap` of a 64 MiB text in one call, in
//! interleaved rounds. The stream's time is given per 64 MiB so the ratio
//! compares time per byte. The linear memory each session holds afterwards
//! is printed in a table of its own: sizes, not times.

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Mutex;

use tool_output_cap::{RuntimeOptions, Session, limits::Recycling};

use crate::corpus::{self, Kind, MIB};
use crate::measure::{self, Plan};
use crate::native;
use crate::setup::{self, CallIds, THREAD};
use crate::table::{self, Row};

/// The streamed output: 1 GiB, or 128 MiB in a quick run.
fn stream_bytes(plan: Plan) -> usize {
    if plan.max_rounds <= Plan::QUICK.max_rounds {
        128 * MIB
    } else {
        1024 * MIB
    }
}

/// Size of one `write`.
const CHUNK: usize = MIB;
/// The text capped in one call.
const WHOLE: usize = 64 * MIB;

/// What the memory table prints, filled by [`run`].
static MEMORY: Mutex<Option<Memory>> = Mutex::new(None);

#[derive(Debug, Clone, Copy)]
struct Memory {
    streamed: usize,
    after_stream: usize,
    after_cap: usize,
}

/// Rows: the stream per 64 MiB against the 64 MiB cap.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let total = stream_bytes(plan);
    // Recycling off: the memory read after a call is what the call used.
    let tool_cap = setup::tool_cap_with(RuntimeOptions {
        recycling: Recycling::Never,
        ..RuntimeOptions::default()
    });
    let spill = tempfile::tempdir().unwrap();
    let thread_dir = spill.path().join(THREAD);
    let mut streaming = setup::session(&tool_cap, Some(spill.path()));
    let mut whole = setup::session(&tool_cap, Some(spill.path()));
    let budget = setup::host_budget(&setup::cut_budget(WHOLE));
    let chunk = corpus::text(Kind::Ascii, CHUNK);
    let text = corpus::text(Kind::Ascii, WHOLE);

    // Checked before timing: the stream saves the whole output.
    let capped = stream(&mut streaming, chunk.as_bytes(), total, &budget, "check");
    let saved = capped.report.spill.expect("the stream saved its output");
    assert_eq!(saved.bytes, total as u64);
    assert!(capped.report.truncated && capped.text.len() <= budget.max_bytes as usize);
    let on_disk = std::fs::metadata(spill.path().join(&saved.relative_path)).unwrap();
    assert_eq!(on_disk.len(), total as u64);
    native::remove_files(&thread_dir);

    let (mut stream_ids, mut cap_ids) = (CallIds::default(), CallIds::default());
    let mut streamed = || {
        let id = stream_ids.next_id();
        black_box(stream(
            &mut streaming,
            chunk.as_bytes(),
            total,
            &budget,
            &id,
        ));
    };
    let mut capped_whole = || {
        let id = cap_ids.next_id();
        black_box(whole.cap(black_box(&text), &budget, &id)).ok();
    };
    // Each call takes seconds: a few rounds, no calibration.
    let rounds = if total < 1024 * MIB { 1 } else { 3 };
    let m =
        measure::medians_of_rounds(&mut [&mut streamed, &mut capped_whole], rounds, &mut || {
            native::remove_files(&thread_dir)
        });
    let per_whole = m[0].mul_f64(WHOLE as f64 / total as f64);
    rows.push(Row::vs(
        format!(
            "stream {} in 1 MiB chunks, component (time per 64 MiB)",
            table::bytes(total)
        ),
        Some(WHOLE),
        per_whole,
        "cap 64 MiB in one call, component",
        m[1],
    ));
    *MEMORY.lock().unwrap() = Some(Memory {
        streamed: total,
        after_stream: streaming.memory_size(),
        after_cap: whole.memory_size(),
    });
    native::remove_files(&thread_dir);
}

/// Streams `total` bytes of `chunk` repeated, with call id `id`.
fn stream(
    session: &mut Session,
    chunk: &[u8],
    total: usize,
    budget: &tool_output_cap::Budget,
    id: &str,
) -> tool_output_cap::Capped {
    let mut s = session.stream(budget, id).expect("the stream starts");
    for _ in 0..total / chunk.len() {
        s.write(chunk).expect("the write is taken");
    }
    s.finish().expect("the stream finishes")
}

/// The memory section: linear memory after the stream and after the cap.
pub fn report() -> String {
    let Some(m) = *MEMORY.lock().unwrap() else {
        return String::new();
    };
    let mut out =
        String::from("| session's linear memory after | size | bound |\n|---|---:|---|\n");
    let mib = |b: usize| format!("{:.1} MiB", b as f64 / MIB as f64);
    let _ = writeln!(
        out,
        "| stream of {} in 1 MiB chunks, 16 KiB budget | {} | {} |",
        table::bytes(m.streamed),
        mib(m.after_stream),
        if m.after_stream < 16 * MIB {
            "under 16 MiB: met"
        } else {
            "under 16 MiB: NOT met"
        }
    );
    let _ = writeln!(
        out,
        "| cap of 64 MiB in one call | {} | about the input's size |",
        mib(m.after_cap)
    );
    out
}
