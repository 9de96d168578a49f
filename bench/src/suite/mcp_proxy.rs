//! What does `toolcap mcp` add to a `tools/call`, and what memory does it
//! hold on a huge result? The fixture server (`crate::mcp_fixture`, rmcp's
//! server side, run as `report --mcp-fixture-server`) is started twice: once
//! as the client's own child (direct), once behind
//! `toolcap mcp -- <report> --mcp-fixture-server` with the default budget and
//! a spill directory and key file in a temporary folder. The same raw client
//! (`crate::mcp_client`) calls both in interleaved rounds, and each call
//! counts from writing the request line to parsing its response.
//!
//! - a small result (about 200 bytes): fits, so the proxy forwards it
//!   unchanged; the difference of the medians is what the proxy adds;
//! - a 4 MiB result: through the proxy it is capped and spilled (a new file
//!   per call, removed between samples, untimed), against the client taking
//!   the whole 4 MiB from the server directly;
//! - a 100 MiB result, on a fresh proxy: its peak resident memory (`VmHWM`
//!   of the live `toolcap` process after the calls), and the call's time.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::corpus::MIB;
use crate::mcp_client::McpChild;
use crate::mcp_fixture::{SERVER_ARG, SIZED_TOOL, SMALL_TEXT, SMALL_TOOL};
use crate::measure::{self, Plan};
use crate::process::{self, StderrLog};
use crate::suite::toolcap_cap::DEFAULT_MAX_BYTES;
use crate::table::{self, Row};

/// The large result of the latency comparison.
const LARGE: usize = 4 * MIB;
/// The result whose memory is measured.
const HUGE: usize = 100 * MIB;
/// Most time one request may take before its child is killed.
const REQUEST_LIMIT: Duration = Duration::from_secs(120);

/// What the report's text states, filled by [`run`].
static FINDINGS: Mutex<Option<Findings>> = Mutex::new(None);

/// Medians and memory of one run.
#[derive(Debug, Clone, Copy)]
pub struct Findings {
    /// Small result: direct, through the proxy.
    pub small: (Duration, Duration),
    /// 4 MiB result: direct, through the proxy (capped).
    pub large: (Duration, Duration),
    /// The proxy's peak resident memory after the handshake, bytes.
    pub proxy_idle_rss: u64,
    /// The proxy's peak resident memory after the huge result, bytes.
    pub proxy_rss: u64,
    /// The fixture server's own peak behind that proxy, bytes (if read).
    pub server_rss: Option<u64>,
}

/// The findings of the last [`run`], if it ran.
pub fn findings() -> Option<Findings> {
    *FINDINGS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Paths of one run: the server command, the proxy's files, the logs.
struct Setup {
    bin: std::path::PathBuf,
    server: std::path::PathBuf,
    dir: tempfile::TempDir,
}

impl Setup {
    fn spill(&self) -> std::path::PathBuf {
        self.dir.path().join("spill")
    }

    fn log(&self, name: &str) -> StderrLog {
        StderrLog::create(self.dir.path().join(name)).expect("the stderr log is created")
    }

    /// The fixture server as the client's own child.
    fn direct(&self) -> McpChild {
        McpChild::start(
            "fixture server",
            &self.server,
            &[SERVER_ARG.into()],
            self.log("direct.stderr"),
            REQUEST_LIMIT,
        )
    }

    /// The fixture server behind `toolcap mcp`.
    fn proxied(&self, log: &str) -> McpChild {
        let args: Vec<OsString> = vec![
            "mcp".into(),
            "--spill-dir".into(),
            self.spill().into(),
            "--key-file".into(),
            self.dir.path().join("key").into(),
            "--".into(),
            self.server.clone().into(),
            SERVER_ARG.into(),
        ];
        McpChild::start(
            "toolcap mcp",
            &self.bin,
            &args,
            self.log(log),
            REQUEST_LIMIT,
        )
    }
}

/// Rows: per-call time direct and through the proxy, small and 4 MiB; the
/// 100 MiB call; memory for the report's text.
pub fn run(bin: &Path, plan: Plan, rows: &mut Vec<Row>) {
    let setup = Setup {
        bin: bin.to_owned(),
        // The real path: the proxy runs it as its server.
        server: std::env::current_exe().expect("the report binary's path"),
        dir: tempfile::tempdir().unwrap(),
    };
    let spill = setup.spill();
    let mut direct = setup.direct();
    let mut proxied = setup.proxied("proxy.stderr");
    check_tools(&mut direct, &mut proxied);
    let large_args = json!({ "bytes": LARGE });
    check_small(&mut direct, &mut proxied);
    check_large(&mut direct, &mut proxied, &large_args, &spill);
    process::remove_files_below(&spill);

    let no_args = json!({});
    let mut small_direct = || {
        black_box(direct.call_tool(SMALL_TOOL, &no_args));
    };
    let mut small_proxied = || {
        black_box(proxied.call_tool(SMALL_TOOL, &no_args));
    };
    let small = measure::medians(&mut [&mut small_direct, &mut small_proxied], plan);
    rows.push(Row::alone(
        "tools/call, small result (~200 B), direct",
        None,
        small[0],
    ));
    rows.push(Row::vs(
        "tools/call, small result, through toolcap mcp (fits: unchanged)",
        None,
        small[1],
        "direct",
        small[0],
    ));

    let mut large_direct = || {
        black_box(direct.call_tool(SIZED_TOOL, &large_args));
    };
    let mut large_proxied = || {
        black_box(proxied.call_tool(SIZED_TOOL, &large_args));
    };
    let large = measure::medians_between(
        &mut [&mut large_direct, &mut large_proxied],
        plan,
        &mut || process::remove_files_below(&spill),
    );
    process::remove_files_below(&spill);
    rows.push(Row::alone(
        "tools/call, 4 MiB result, direct (client takes it all)",
        Some(LARGE),
        large[0],
    ));
    rows.push(Row::vs(
        "tools/call, 4 MiB result, through toolcap mcp (capped + spilled)",
        Some(LARGE),
        large[1],
        "direct",
        large[0],
    ));
    assert!(
        proxied.close().success(),
        "toolcap mcp exited with an error"
    );

    let huge = huge_result(&setup, &mut direct, plan, rows);
    assert!(
        direct.close().success(),
        "the fixture server exited with an error"
    );
    *FINDINGS.lock().unwrap_or_else(|p| p.into_inner()) = Some(Findings {
        small: (small[0], small[1]),
        large: (large[0], large[1]),
        ..huge
    });
}

/// The 100 MiB result on a fresh proxy: its memory before and after, and
/// the call's time against the same call direct.
fn huge_result(setup: &Setup, direct: &mut McpChild, plan: Plan, rows: &mut Vec<Row>) -> Findings {
    let spill = setup.spill();
    let mut proxied = setup.proxied("proxy-huge.stderr");
    let pid = proxied.pid();
    let proxy_idle_rss = process::peak_rss_live(pid).expect("the proxy's VmHWM");
    let server = process::children_of(pid).first().copied();
    let huge_args = json!({ "bytes": HUGE });
    let mut first = true;
    let mut huge_direct = || {
        let result = direct.call_tool(SIZED_TOOL, &huge_args);
        assert_eq!(text_bytes(&result), HUGE, "the direct 100 MiB result");
    };
    let mut huge_proxied = || {
        let result = proxied.call_tool(SIZED_TOOL, &huge_args);
        if first {
            assert_capped(&result, &spill, HUGE);
            first = false;
        }
    };
    // Seconds per call: a few rounds, no calibration.
    let rounds = if plan.max_rounds <= Plan::QUICK.max_rounds {
        1
    } else {
        3
    };
    let m = measure::medians_of_rounds(
        &mut [&mut huge_direct, &mut huge_proxied],
        rounds,
        &mut || process::remove_files_below(&spill),
    );
    process::remove_files_below(&spill);
    let proxy_rss = process::peak_rss_live(pid).expect("the proxy's VmHWM");
    let server_rss = server.and_then(|s| process::peak_rss_live(s).ok());
    assert!(
        proxied.close().success(),
        "toolcap mcp exited with an error"
    );
    rows.push(Row::alone(
        "tools/call, 100 MiB result, direct (client takes it all)",
        Some(HUGE),
        m[0],
    ));
    rows.push(Row::vs(
        "tools/call, 100 MiB result, through toolcap mcp (capped + spilled)",
        Some(HUGE),
        m[1],
        "direct",
        m[0],
    ));
    Findings {
        small: Default::default(),
        large: Default::default(),
        proxy_idle_rss,
        proxy_rss,
        server_rss,
    }
}

/// The proxy lists the server's tools and one more (its read tool).
fn check_tools(direct: &mut McpChild, proxied: &mut McpChild) {
    let theirs = direct.tool_names();
    let through = proxied.tool_names();
    assert!(
        theirs.iter().any(|t| t == SMALL_TOOL) && theirs.iter().any(|t| t == SIZED_TOOL),
        "the fixture lists {theirs:?}"
    );
    assert!(
        through.len() == theirs.len() + 1 && theirs.iter().all(|t| through.contains(t)),
        "through toolcap mcp the tools are {through:?}, directly {theirs:?}: \
         expected the same and one read tool"
    );
}

/// A small result comes through unchanged.
fn check_small(direct: &mut McpChild, proxied: &mut McpChild) {
    let theirs = direct.call_tool(SMALL_TOOL, &json!({}));
    let through = proxied.call_tool(SMALL_TOOL, &json!({}));
    assert_eq!(theirs["content"][0]["text"], SMALL_TEXT);
    assert_eq!(through, theirs, "the proxy changed a small result");
}

/// The 4 MiB result arrives whole directly, capped and spilled through the
/// proxy.
fn check_large(direct: &mut McpChild, proxied: &mut McpChild, args: &Value, spill: &Path) {
    let theirs = direct.call_tool(SIZED_TOOL, args);
    assert_eq!(text_bytes(&theirs), LARGE, "the direct 4 MiB result");
    let through = proxied.call_tool(SIZED_TOOL, args);
    assert_capped(&through, spill, LARGE);
}

/// `result` is a capped one: its text within the default budget, and a
/// spill file of at least the output's size below `spill`, whose name the
/// text gives.
fn assert_capped(result: &Value, spill: &Path, size: usize) {
    let texts = texts(result);
    let shown: usize = texts.iter().map(|t| t.len()).sum();
    assert!(
        shown <= DEFAULT_MAX_BYTES,
        "through toolcap mcp a {} result has {shown} bytes of text, over the default budget",
        table::bytes(size)
    );
    let names = process::file_names_below(spill, size as u64);
    assert!(
        names
            .iter()
            .any(|n| texts.iter().any(|t| t.contains(n.as_str()))),
        "no notice names a spill file of {} or more (files: {names:?}); texts:\n{}",
        table::bytes(size),
        texts.join("\n---\n")
    );
}

/// The text blocks of a `CallToolResult`.
fn texts(result: &Value) -> Vec<&str> {
    result["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default()
}

fn text_bytes(result: &Value) -> usize {
    texts(result).iter().map(|t| t.len()).sum()
}

/// The report's text: the targets and the memory.
pub fn report(f: &Findings) -> String {
    let mut out = String::new();
    let added = f.small.1.saturating_sub(f.small.0);
    let _ = writeln!(
        out,
        "- toolcap mcp adds {} per tools/call with a small result ({} through it, {} direct): \
         target under 1 ms: {}.",
        table::time(added),
        table::time(f.small.1),
        table::time(f.small.0),
        met(added < Duration::from_millis(1))
    );
    let ratio = f.large.1.as_secs_f64() / f.large.0.as_secs_f64();
    let _ = writeln!(
        out,
        "- A 4 MiB result capped and spilled through toolcap mcp takes {} against {} for the \
         server's own transfer of it ({ratio:.2}x): target no slower: {}.",
        table::time(f.large.1),
        table::time(f.large.0),
        met(f.large.1 <= f.large.0)
    );
    out
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "NOT met" }
}
