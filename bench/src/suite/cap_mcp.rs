//! Where does the proxy's time on a big result go? The component's own
//! work, in this process with no pipes: `Session::cap_mcp` of the exact
//! `CallToolResult` JSON the fixture server sends for 4 MiB (what
//! `toolcap mcp` calls per result), against `Session::cap` of the same
//! 4 MiB text, with `toolcap`'s default budget, a fresh call id every call
//! (a new spill file each time) and the files removed between samples,
//! untimed. Subtracted from the proxy's row, it leaves the proxy's own
//! share: reading, parsing and writing the lines.

use std::hint::black_box;

use tool_output_cap::{
    Budget, Call,
    budget::{DEFAULT_HEAD_PERCENT, DEFAULT_MAX_LINE_BYTES},
    types::{Keep, McpOptions},
};

use crate::corpus::{self, Kind, MIB};
use crate::mcp_fixture::{self, SIZED_TOOL};
use crate::measure::{self, Plan};
use crate::native;
use crate::setup::{self, CallIds, THREAD};
use crate::suite::toolcap_cap::DEFAULT_MAX_BYTES;
use crate::table::Row;

/// The result size, as in the proxy's 4 MiB row.
const SIZE: usize = 4 * MIB;

/// The budget `toolcap` uses when none is given (cli-spec).
pub fn toolcap_default_budget() -> Budget {
    Budget {
        max_bytes: DEFAULT_MAX_BYTES as u32,
        max_lines: None,
        max_line_bytes: Some(DEFAULT_MAX_LINE_BYTES),
        keep: Keep::HeadAndTail,
        head_percent: DEFAULT_HEAD_PERCENT,
        max_tokens: None,
    }
}

/// Rows: `cap_mcp` of the 4 MiB result against `cap` of its text.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let tool_cap = setup::tool_cap(None);
    let spill = tempfile::tempdir().unwrap();
    let thread_dir = spill.path().join(THREAD);
    let mut session = setup::session(&tool_cap, Some(spill.path()));
    let budget = toolcap_default_budget();
    let text = corpus::text(Kind::Ascii, SIZE);
    let result = mcp_fixture::result_json(&text);
    let options = McpOptions {
        resource_link: false,
    };

    // Checked before timing: both cut, and cap-mcp keeps the budget.
    let capped = session
        .cap_mcp(&result, &budget, call("check"), &options)
        .expect("cap-mcp runs");
    assert!(capped.report.truncated, "cap-mcp did not cut 4 MiB");
    assert!(capped.result.len() < result.len() / 16);
    native::remove_files(&thread_dir);

    let (mut mcp_ids, mut text_ids) = (CallIds::default(), CallIds::default());
    let mut mcp = || {
        let id = format!("mcp-{}", mcp_ids.next_id());
        black_box(session.cap_mcp(black_box(&result), &budget, call(&id), &options)).ok();
    };
    let mut text_session = setup::session(&tool_cap, Some(spill.path()));
    let mut plain = || {
        let id = format!("text-{}", text_ids.next_id());
        black_box(text_session.cap(black_box(&text), &budget, &id)).ok();
    };
    let m = measure::medians_between(&mut [&mut mcp, &mut plain], plan, &mut || {
        native::remove_files(&thread_dir)
    });
    native::remove_files(&thread_dir);
    rows.push(Row::vs(
        "cap-mcp of the 4 MiB result JSON, component in process (capped + spilled)",
        Some(SIZE),
        m[0],
        "cap of its 4 MiB text",
        m[1],
    ));
}

/// A call of the sized tool, as the proxy makes it.
fn call(id: &str) -> Call {
    Call {
        tool: Some(SIZED_TOOL.to_owned()),
        ..Call::new(id)
    }
}
