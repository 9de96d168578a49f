//! `cargo run --release -p toolcap-bench --bin report [SUITE...]` (or `make bench`):
//! runs every comparison (or the named suites: core, call, spill, stream, startup,
//! refs, readback, hosts, memory, recall, tokens, toolcap) and prints one Markdown table for
//! the README.
//! `TOOLCAP_BENCH_QUICK=1` makes a rough smoke run. bench/README.md says what
//! each row measures and holds the numbers of the last full run.

use std::process::Command;
use std::time::Instant;

use toolcap_bench::measure::Plan;
use toolcap_bench::{mcp_fixture, process, suite, table};

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    if wanted.first().map(String::as_str) == Some(suite::startup::PROBE_ARG) {
        suite::startup::probe(&wanted[1..]);
        return;
    }
    if wanted.first().map(String::as_str) == Some(process::PEAK_ARG) {
        process::measure_peak(&wanted[1..]);
    }
    if wanted.first().map(String::as_str) == Some(mcp_fixture::SERVER_ARG) {
        if let Err(why) = mcp_fixture::serve() {
            eprintln!("{}: {why}", mcp_fixture::SERVER_ARG);
            std::process::exit(1);
        }
        return;
    }
    let runs = |name: &str| wanted.is_empty() || wanted.iter().any(|w| w == name);
    if ["tokens", "core", "spill"].into_iter().any(runs)
        && let Err(why) = suite::tokens::real::texts()
    {
        // Before the other suites' minutes, not after. The real sources
        // of the core and spill suites come from the same packages.
        eprintln!("tokens, core and spill: {why}");
        std::process::exit(2);
    }
    let plan = Plan::from_env();
    let started = Instant::now();
    println!("{}", machine());
    let mut rows = Vec::new();
    for s in suite::ALL.iter().filter(|s| runs(s.name)) {
        eprintln!("running {} ...", s.name);
        (s.run)(plan, &mut rows);
    }
    println!("{}", table::render(&rows));
    if runs("memory") {
        println!("{}", suite::memory::report());
    }
    if runs("stream") {
        println!("{}", suite::stream::report());
    }
    if runs("recall") {
        println!("{}", suite::recall::report());
    }
    if runs("tokens") {
        match suite::tokens::report() {
            Ok(report) => println!("{report}"),
            Err(why) => {
                eprintln!("tokens: {why}");
                std::process::exit(2);
            }
        }
    }
    if runs("toolcap") {
        println!("{}", suite::toolcap::report());
    }
    eprintln!("done in {:.0?}", started.elapsed());
}

/// The machine and build, for the README next to the table.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or_else(|_| std::env::consts::OS.to_owned(), |k| k.trim().to_owned());
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let wasm = tool_output_cap::COMPONENT_WASM;
    let digest = toolcap_core::naming::content_digest(wasm);
    format!(
        "Machine: {cpu}, {cores} cores, Linux {kernel}; {rustc}; wasmtime {}; \
         component {} bytes (BLAKE3 {digest}). Medians; each ratio is to a baseline \
         measured in the same run.\n",
        locked_version("wasmtime"),
        wasm.len(),
    )
}

/// The version of `package` in the workspace's Cargo.lock, as built.
fn locked_version(package: &str) -> String {
    let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock");
    let wanted = format!("name = \"{package}\"");
    std::fs::read_to_string(lock)
        .ok()
        .and_then(|lock| {
            let mut lines = lock.lines();
            lines.find(|l| *l == wanted)?;
            let version = lines.next()?.strip_prefix("version = ")?;
            Some(version.trim_matches('"').to_owned())
        })
        .unwrap_or_else(|| "(version unknown)".to_owned())
}
