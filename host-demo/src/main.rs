//! `cargo run --release -p host-demo [-- --spill-dir DIR]`
//!
//! A scripted agent task run twice against a simulated provider: once with
//! raw tool results (the request is refused), once with every result going
//! through the tool-output-cap component (every request fits; the build's
//! output is streamed in as it runs; the model digs the build error out of
//! the spilled log with the component's read tool; the thread's catalog
//! holds every pruned reference); then one turn of parallel tool calls that
//! each fit their budget but overflow the request together, sent capped one
//! by one (refused) and planned with `cap-batch` (fits); then a retention
//! sweep that keeps this run's spills. Exits non-zero if any invariant breaks.

mod demo;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use demo::agent::{self, Host, TASK};
use demo::checks::{self, Checks};
use demo::provider::{CONTEXT_TOKENS, MAX_BODY_BYTES, estimated_tokens};
use demo::report::print_summary;
use demo::run::{Outcome, RunReport};
use demo::text::{kind_name, size, wrap};
use demo::tools::{Fixtures, READ_TOOL};
use demo::{read_tool, retention};
use tool_output_cap::{Budget, SessionConfig, ToolCap};

/// The conversation thread of run 2; its spill folder is named after it.
const THREAD: &str = "demo-thread";
/// Run 2's budget for each tool result.
const MAX_RESULT_BYTES: u32 = 16 * 1024;
const MAX_RESULT_LINES: u32 = 200;
/// Requests of run 2: grep, the tracker, the build, then the answer, read
/// from the build's preview.
const PREVIEW_REQUESTS: usize = 4;

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(broken) => {
            eprintln!("demo failed: {broken} invariant(s) broken (see Checks above)");
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("demo failed: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs both runs and the checks; returns how many invariants broke.
fn run() -> anyhow::Result<usize> {
    let chosen_dir = spill_dir_argument()?;
    let temp_dir;
    let spill_dir = match &chosen_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            dir.clone()
        }
        None => {
            temp_dir = tempfile::Builder::new().prefix("toolcap-demo-").tempdir()?;
            temp_dir.path().to_owned()
        }
    };

    println!("tool-output-cap demo: one agent task, run without and with the component");
    println!(
        "provider: a proxy refusing bodies over {} (413, HTML) before a model with a {}k-token",
        size(MAX_BODY_BYTES as u64),
        CONTEXT_TOKENS / 1000
    );
    println!("          window (400 context_length_exceeded); tokens are estimated as bytes / 4");
    for (i, line) in wrap(TASK, 84).iter().enumerate() {
        println!("{} {line}", if i == 0 { "task:" } else { "     " });
    }

    let fixtures = Fixtures::build();
    let tool_cap = ToolCap::new()?;
    let mut checks = Checks::default();

    println!("\nRun 1: tool results go to the model as they are");
    let raw = agent::run(
        "1 without the component",
        Host::Raw,
        &fixtures,
        &tool_cap,
        &mut checks,
    )?;
    check_raw_run_rejected(&raw, &mut checks);

    let budget = Budget {
        max_lines: Some(MAX_RESULT_LINES),
        ..Budget::new(MAX_RESULT_BYTES)
    };
    println!(
        "\nRun 2: tool results go through tool-output-cap ({}, {} lines, head and tail)",
        size(MAX_RESULT_BYTES.into()),
        MAX_RESULT_LINES
    );
    // The agent has no shell: notices point at the read tool only, by name,
    // and say how long the full output is kept.
    let config = SessionConfig {
        read_tool: Some(READ_TOOL.to_owned()),
        shell_hints: false,
        retention_seconds: Some(retention::RETENTION_SECONDS),
        ..SessionConfig::new(THREAD, &spill_dir)
    };
    let mut session = tool_cap.open_session(config)?;
    println!("  <spill> = {}", session.display_root());
    let leftover = session.purge()?;
    if leftover > 0 {
        println!("  purged {} left by an earlier run", size(leftover));
    }
    let host = Host::Capped {
        session: &mut session,
        budget,
    };
    let capped = agent::run(
        "2 with the component",
        host,
        &fixtures,
        &tool_cap,
        &mut checks,
    )?;
    read_tool::check_error_line_recovered(
        capped.answer.as_deref(),
        &capped.read_backs,
        &fixtures.build,
        &mut session,
        &mut checks,
    )?;
    let from_preview = capped.requests == PREVIEW_REQUESTS && capped.read_backs.is_empty();
    checks.record(checks::ANSWERED_FROM_PREVIEW, from_preview, || {
        format!(
            "{} requests and {} read-backs",
            capped.requests,
            capped.read_backs.len()
        )
    });
    retention::check_catalog(&mut session, &capped.pruned_refs, &mut checks)?;
    println!(
        "  largest request: {} of {}, about {}k of {}k tokens",
        size(capped.largest_request),
        size(MAX_BODY_BYTES as u64),
        estimated_tokens(capped.largest_request as usize).div_ceil(1000),
        CONTEXT_TOKENS / 1000
    );

    println!("\nRun 3: a turn of parallel tool calls, planned as a whole with cap-batch");
    demo::parallel::run(&tool_cap, &mut session, &mut checks)?;

    println!("\nRetention: the spill directory swept with the 7 days the notices state");
    retention::sweep(&tool_cap, &spill_dir, &mut session, &mut checks)?;

    println!("\nChecks");
    let broken = checks.print();
    println!();
    print_summary(&[raw, capped]);
    match chosen_dir {
        Some(dir) => println!("\nspill files kept in {}", dir.display()),
        None => println!(
            "\nspill files were in {} (deleted now; --spill-dir DIR keeps them)",
            spill_dir.display()
        ),
    }
    Ok(broken)
}

fn check_raw_run_rejected(report: &RunReport, checks: &mut Checks) {
    let ok = matches!(report.outcome, Outcome::Rejected { kind: Some(_), .. });
    checks.record(checks::RAW_RUN_REJECTED, ok, || match &report.outcome {
        Outcome::Rejected { status, kind: None } => {
            format!("classify did not recognise the {status} rejection")
        }
        Outcome::Rejected {
            kind: Some(kind), ..
        } => kind_name(*kind).to_owned(),
        Outcome::Answered | Outcome::NoAnswer => "the raw run was not rejected".to_owned(),
    });
}

/// `--spill-dir DIR`, if given.
fn spill_dir_argument() -> anyhow::Result<Option<PathBuf>> {
    let mut args = std::env::args_os().skip(1);
    match (args.next(), args.next(), args.next()) {
        (None, _, _) => Ok(None),
        (Some(flag), Some(dir), None) if flag == "--spill-dir" => Ok(Some(PathBuf::from(dir))),
        _ => bail!("usage: host-demo [--spill-dir DIR]"),
    }
}
