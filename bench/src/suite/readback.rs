//! Reading back a 64 MiB spill through the component (WASI reads into the
//! guest) vs the same core functions on `std::fs`. Both sides do what the
//! guest does per call: resolve the path the model wrote, open the file,
//! check it is a regular file, then read with positioned reads.

use std::hint::black_box;

use toolcap_core::readback;

use crate::corpus::{self, KIB, Kind, MIB};
use crate::measure::{self, Plan};
use crate::native::FsFile;
use crate::setup;
use crate::table::Row;

/// The baseline of every row.
const NATIVE: &str = "core native on std::fs, same steps";

/// Size of the spilled file.
const SPILL_BYTES: usize = 64 * MIB;

/// grep, read-lines near the end and a byte page in the middle.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let tool_cap = setup::tool_cap(None);
    let spill = tempfile::tempdir().unwrap();
    let mut session = setup::session(&tool_cap, Some(spill.path()));
    let reference = {
        let text = corpus::text(Kind::Ascii, SPILL_BYTES);
        let budget = setup::host_budget(&setup::cut_budget(SPILL_BYTES));
        let capped = session.cap(&text, &budget, "readback").unwrap();
        capped.report.spill.expect("spilled")
    };
    let capper = setup::capper();
    let scheme = capper.scheme();
    let root = spill.path();
    let path = reference.path.as_str();
    let open = || FsFile::open_ref(root, scheme, path).unwrap();
    let size = Some(SPILL_BYTES);

    let grep_native = readback::grep(&mut open(), "ERROR", 10).unwrap();
    let grep_component = session.grep(path, "ERROR", 10).unwrap();
    assert_eq!(grep_native.total_matches, grep_component.total_matches);
    let mut component = || {
        black_box(session.grep(path, "ERROR", 10)).ok();
    };
    let mut native = || {
        black_box(readback::grep(&mut open(), "ERROR", 10)).ok();
    };
    let m = measure::medians(&mut [&mut component, &mut native], plan);
    let name = format!(
        "grep (10 of {} matches), component",
        grep_native.total_matches
    );
    rows.push(Row::vs(name, size, m[0], NATIVE, m[1]));

    let first = reference.lines - 1000;
    let page = 64 * KIB as u32;
    let lines_native = readback::read_lines(&mut open(), first, 100, page).unwrap();
    let lines_component = session.read_lines(path, first, 100, page).unwrap();
    assert_eq!(lines_native.text, lines_component.text);
    let mut component = || {
        black_box(session.read_lines(path, first, 100, page)).ok();
    };
    let mut native = || {
        black_box(readback::read_lines(&mut open(), first, 100, page)).ok();
    };
    let m = measure::medians(&mut [&mut component, &mut native], plan);
    rows.push(Row::vs(
        "read-lines (100 lines near the end), component",
        size,
        m[0],
        NATIVE,
        m[1],
    ));

    let middle = SPILL_BYTES as u64 / 2;
    let page_native = readback::read_page(&mut open(), middle, page).unwrap();
    assert_eq!(
        page_native.text,
        session.read(path, middle, page).unwrap().text
    );
    let mut component = || {
        black_box(session.read(path, middle, page)).ok();
    };
    let mut native = || {
        black_box(readback::read_page(&mut open(), middle, page)).ok();
    };
    let m = measure::medians(&mut [&mut component, &mut native], plan);
    rows.push(Row::vs(
        "read (64 KiB page at the middle), component",
        size,
        m[0],
        NATIVE,
        m[1],
    ));
}
