//! The same two calls from JavaScript (jco in Node) and Python
//! (wasmtime-py), against the Rust host. Each foreign host runs its own
//! script (`js/bench/bench.mjs`, `python/bench/bench.py`) on the same input
//! files, the same session identity and the same budgets, and prints its
//! medians as one JSON line. The Rust medians are taken before and after the
//! scripts run, and their mean is the baseline, so a change in the machine's
//! load during the run shows up on both sides. All three hosts use one call
//! id for every call, as the scripts do, so each 4 MiB spill replaces the
//! file the last one wrote: the same work on every side, but not the
//! new-file-per-call work of the `spill` suite, whose rows are the ones to
//! compare with native code.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tool_output_cap::ToolCap;

use crate::corpus::{self, KIB, Kind, MIB};
use crate::measure::{self, Plan};
use crate::setup::{self, CALL_ID};
use crate::table::Row;

/// Input sizes of the two calls: a result that fits, and one that is cut and spilled.
const SMALL: usize = KIB;
const LARGE: usize = 4 * MIB;

/// A foreign host: how to start its benchmark script from the repository root.
struct Host {
    label: &'static str,
    /// Program and its first arguments, relative to the repository root.
    command: [&'static str; 2],
    /// What to run first when the program is missing.
    setup: &'static str,
}

const HOSTS: [Host; 2] = [
    Host {
        label: "JS (jco, Node)",
        command: ["node", "js/bench/bench.mjs"],
        setup: "make js-setup",
    },
    Host {
        label: "Python (wasmtime-py)",
        command: ["python/.venv/bin/python", "python/bench/bench.py"],
        setup: "make py-setup",
    },
];

/// Medians of one host for the two calls.
#[derive(Debug, Clone, Copy)]
struct Medians {
    small: Duration,
    large: Duration,
}

pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let inputs = tempfile::tempdir().unwrap();
    let small_file = inputs.path().join("small.txt");
    let large_file = inputs.path().join("large.txt");
    let small = corpus::text(Kind::Ascii, SMALL);
    let large = corpus::text(Kind::Ascii, LARGE);
    std::fs::write(&small_file, &small).unwrap();
    std::fs::write(&large_file, &large).unwrap();

    let tool_cap = setup::tool_cap(None);
    let before = rust_medians(&tool_cap, &small, &large, plan);
    let foreign: Vec<(&Host, Result<Medians, String>)> = HOSTS
        .iter()
        .map(|host| (host, run_script(host, &small_file, &large_file, plan)))
        .collect();
    let after = rust_medians(&tool_cap, &small, &large, plan);
    let rust = Medians {
        small: (before.small + after.small) / 2,
        large: (before.large + after.large) / 2,
    };

    rows.push(Row::alone(
        "cap fits, Rust host (wasmtime)",
        Some(SMALL),
        rust.small,
    ));
    rows.push(Row::alone(
        "cap + spill (replaces one file), Rust host (wasmtime)",
        Some(LARGE),
        rust.large,
    ));
    for (host, result) in foreign {
        match result {
            Ok(m) => {
                rows.push(Row::vs(
                    format!("cap fits, {}", host.label),
                    Some(SMALL),
                    m.small,
                    "Rust host",
                    rust.small,
                ));
                rows.push(Row::vs(
                    format!("cap + spill (replaces one file), {}", host.label),
                    Some(LARGE),
                    m.large,
                    "Rust host",
                    rust.large,
                ));
            }
            Err(why) => eprintln!("{}: not measured: {why}", host.label),
        }
    }
}

/// The Rust host's medians for the two calls the scripts make, on the same texts.
fn rust_medians(tool_cap: &ToolCap, small: &str, large: &str, plan: Plan) -> Medians {
    let spill = tempfile::tempdir().unwrap();
    let mut session = setup::session(tool_cap, Some(spill.path()));
    let roomy = setup::host_budget(&setup::roomy_budget());
    let cut = setup::host_budget(&setup::cut_budget(LARGE));
    assert!(
        !session
            .cap(small, &roomy, CALL_ID)
            .unwrap()
            .report
            .truncated
    );
    assert!(
        session
            .cap(large, &cut, CALL_ID)
            .unwrap()
            .report
            .spill
            .is_some()
    );
    let mut fits = || {
        std::hint::black_box(session.cap(small, &roomy, CALL_ID)).ok();
    };
    let small_median = measure::medians(&mut [&mut fits], plan)[0];
    let mut spills = || {
        std::hint::black_box(session.cap(large, &cut, CALL_ID)).ok();
    };
    let large_median = measure::medians(&mut [&mut spills], plan)[0];
    Medians {
        small: small_median,
        large: large_median,
    }
}

/// Runs one host's script on the input files and reads its JSON line.
fn run_script(host: &Host, small: &Path, large: &Path, plan: Plan) -> Result<Medians, String> {
    let root = repository_root();
    let [program, script] = host.command;
    let program_path = if program.contains('/') {
        let path = root.join(program);
        if !path.exists() {
            return Err(format!(
                "{} is missing; run `{}`",
                path.display(),
                host.setup
            ));
        }
        path
    } else {
        PathBuf::from(program)
    };
    let spill = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut command = Command::new(&program_path);
    command
        .current_dir(&root)
        .arg(root.join(script))
        .arg("--small")
        .arg(small)
        .arg("--large")
        .arg(large)
        .arg("--spill-dir")
        .arg(spill.path());
    if plan.budget < Plan::FULL.budget {
        command.arg("--quick");
    }
    let output = command.output().map_err(|e| {
        format!(
            "cannot start {}: {e}; run `{}`",
            program_path.display(),
            host.setup
        )
    })?;
    if !output.status.success() {
        return Err(format!(
            "{} exited with {}: {}",
            script,
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    parse_report(&stdout, SMALL, LARGE)
}

/// The medians of a script's one JSON line, checked against the input sizes
/// it was given (a script that measured other inputs is not comparable).
fn parse_report(stdout: &str, small: usize, large: usize) -> Result<Medians, String> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .ok_or_else(|| format!("no JSON line in {stdout:?}"))?;
    let json: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let field = |name: &str| {
        json.get(name)
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| format!("no number {name:?} in {line}"))
    };
    for (name, want) in [("small_bytes", small), ("large_bytes", large)] {
        if field(name)? as usize != want {
            return Err(format!("{name} is not {want} in {line}"));
        }
    }
    let nanos = |name: &str| field(name).map(|ns| Duration::from_nanos(ns.round() as u64));
    Ok(Medians {
        small: nanos("small_median_ns")?,
        large: nanos("large_median_ns")?,
    })
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ lives in the repository root")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_last_json_line_and_checks_sizes() {
        let out = "warming up\n{\"host\":\"js\",\"small_bytes\":1024,\"small_median_ns\":9000.4,\
                   \"large_bytes\":4194304,\"large_median_ns\":2.5e7}\n";
        let m = parse_report(out, 1024, 4 * MIB).unwrap();
        assert_eq!(m.small, Duration::from_nanos(9000));
        assert_eq!(m.large, Duration::from_millis(25));
        assert!(
            parse_report(out, 2048, 4 * MIB)
                .unwrap_err()
                .contains("small_bytes")
        );
        assert!(parse_report("nothing", 1024, 4 * MIB).is_err());
        let missing = out.replace("\"large_median_ns\":2.5e7", "\"large\":1");
        assert!(
            parse_report(&missing, 1024, 4 * MIB)
                .unwrap_err()
                .contains("large_median_ns")
        );
    }
}
