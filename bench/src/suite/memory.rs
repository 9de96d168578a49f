//! How much linear memory does a session keep after a call? Wasm memory
//! never shrinks, so without recycling a session holds the high-water mark of
//! its largest call; with it (the default), an instance left above 16 MiB is
//! replaced after the call. Sizes, not times: both sessions make the same
//! calls, and nothing here is a baseline.

use std::fmt::Write as _;

use tool_output_cap::{RuntimeOptions, Session, SessionConfig, limits::Recycling};

use crate::corpus::{self, KIB, Kind, MIB};
use crate::setup::{self, CALL_ID};
use crate::table;

/// The memory section of the report: a session's linear memory after each
/// call of a growing sequence, with recycling off and with the default.
pub fn report() -> String {
    let spill = tempfile::tempdir().unwrap();
    let open = |recycling| {
        let tool_cap = setup::tool_cap_with(RuntimeOptions {
            recycling,
            ..RuntimeOptions::default()
        });
        let config = SessionConfig::new(setup::THREAD, spill.path());
        tool_cap.open_session(config).unwrap()
    };
    let mut kept = open(Recycling::Never);
    let mut recycled = open(Recycling::default());
    let mut out = String::from(
        "| after | linear memory, recycling off | with the default (recycle above 16 MiB) |\n\
         |---|---:|---:|\n",
    );
    let mut line = |what: &str, kept: &Session, recycled: &Session| {
        let _ = writeln!(
            out,
            "| {what} | {} | {} (recycled {}x) |",
            mib(kept.memory_size()),
            mib(recycled.memory_size()),
            recycled.recycled()
        );
    };
    line("opening the session", &kept, &recycled);
    let fits = setup::host_budget(&setup::roomy_budget());
    for size in [KIB, 64 * KIB] {
        let text = corpus::text(Kind::Ascii, size);
        for session in [&mut kept, &mut recycled] {
            session.cap(&text, &fits, CALL_ID).unwrap();
        }
        line(
            &format!("cap of {} (fits)", table::bytes(size)),
            &kept,
            &recycled,
        );
    }
    for size in [4 * MIB, 16 * MIB, 64 * MIB] {
        let text = corpus::text(Kind::Ascii, size);
        let budget = setup::host_budget(&setup::cut_budget(size));
        for session in [&mut kept, &mut recycled] {
            session.cap(&text, &budget, CALL_ID).unwrap();
        }
        line(
            &format!("cap + spill of {}", table::bytes(size)),
            &kept,
            &recycled,
        );
    }
    out
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB as f64)
}
