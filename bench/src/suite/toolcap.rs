//! The `toolcap` command, as a user runs it: `toolcap cap` on a huge pipe
//! (`toolcap_cap`), and `toolcap mcp` in front of an MCP server
//! (`mcp_proxy`), and the component's share of the proxy's time on a big
//! result (`cap_mcp`, in process). The binary is `TOOLCAP_BIN`, else `toolcap` next to the
//! report binary; without one, the suite says so and adds no rows.

use std::fmt::Write as _;
use std::sync::Mutex;

use crate::corpus::MIB;
use crate::measure::Plan;
use crate::process;
use crate::suite::{cap_mcp, mcp_http, mcp_proxy, toolcap_cap};
use crate::table::{self, Row};

/// Why the suite did not run, if it did not.
static NOT_RUN: Mutex<Option<String>> = Mutex::new(None);

/// Rows of both parts, or none and the reason for the report.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let bin = match process::toolcap_bin() {
        Ok(bin) => bin,
        Err(why) => {
            eprintln!("toolcap: not measured: {why}");
            *NOT_RUN.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
            return;
        }
    };
    eprintln!("toolcap: measuring {}", bin.display());
    toolcap_cap::run(&bin, plan, rows);
    mcp_proxy::run(&bin, plan, rows);
    mcp_http::run(&bin, plan, rows);
    cap_mcp::run(plan, rows);
}

/// The report's text after the table: the targets and the peak memory.
pub fn report() -> String {
    if let Some(why) = NOT_RUN.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        return format!("toolcap suite not measured: {why}\n");
    }
    let mut out = String::new();
    let proxy = mcp_proxy::findings();
    if let Some(f) = &proxy {
        out.push_str(&mcp_proxy::report(f));
        out.push('\n');
    }
    if let Some((direct, http)) = mcp_http::findings() {
        out.push_str(&mcp_http::report(direct, http));
        out.push('\n');
    }
    out.push_str(
        "| process | input | peak resident memory | of the input | read from |\n\
         |---|---:|---:|---:|---|\n",
    );
    if let Some(p) = toolcap_cap::peak() {
        let _ = writeln!(
            out,
            "| toolcap cap, log lines on stdin | {} | {} | {} | wait4 ru_maxrss, under --peak-of |",
            table::bytes(p.piped),
            mib(p.rss),
            share(p.rss, p.piped)
        );
    }
    if let Some(f) = proxy {
        let huge = 100 * MIB;
        let _ = writeln!(
            out,
            "| toolcap mcp, after initialize | - | {} | - | VmHWM |",
            mib(f.proxy_idle_rss)
        );
        let _ = writeln!(
            out,
            "| toolcap mcp, after tools/call results of 100 MiB | {} | {} | {} | VmHWM |",
            table::bytes(huge),
            mib(f.proxy_rss),
            share(f.proxy_rss, huge)
        );
        if let Some(server) = f.server_rss {
            let _ = writeln!(
                out,
                "| the fixture server behind it (rmcp), same calls | {} | {} | {} | VmHWM |",
                table::bytes(huge),
                mib(server),
                share(server, huge)
            );
        }
    }
    out
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB as f64)
}

fn share(bytes: u64, of: usize) -> String {
    format!("{:.3}x", bytes as f64 / of as f64)
}
