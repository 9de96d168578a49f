//! Runs every shared vector in `tests/vectors/*.json` through the real
//! component, one test per file, plus checks that the runner itself rejects
//! bad vectors and catches wrong expectations.
//!
//! `cargo test --release -p toolcap-tests --test vectors`; add part of a
//! file name to run only the matching files (`-- vector::keep-`). After an
//! intended change of wording, `BLESS=1` with the same command rewrites the
//! exact expectations of the files it runs; then review the diff.
//!
//! The same trials run in the JavaScript and Python packages, through their
//! adapters (`tests/vectors/ADAPTERS.md`), when `TOOLCAP_VECTOR_HOSTS` names
//! them (`js`, `python`, comma-separated): `js::vector::<file>`,
//! `python::vector::<file>`. `make js-test` and `make py-test` set it, once
//! each package is built.

#[path = "../common/mod.rs"]
mod common;
#[path = "../vectors_support/mod.rs"]
mod vectors_support;

use std::collections::BTreeSet;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use vectors_support::format::{self, Step, Vector};
use vectors_support::host::{Adapter, Host, Local};
use vectors_support::run::run_vector;
use vectors_support::{file_label, vector_files};

/// Fewer files than this means the folder was not found or was emptied.
const MIN_VECTOR_FILES: usize = 25;

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = vector_files()
        .into_iter()
        .map(|path| {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let name = format!("vector::{stem}");
            Trial::test(name, move || {
                vector_passes(&mut Local::default(), &path, bless_requested())
            })
        })
        .collect();
    for host in adapter_hosts() {
        trials.extend(vector_files().into_iter().map(|path| {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let name = format!("{host}::vector::{stem}");
            Trial::test(name, move || {
                with_adapter(host, |a| vector_passes(a, &path, false))
            })
        }));
        trials.push(Trial::test(
            format!("{host}::runner::base_vector_passes"),
            move || with_adapter(host, |a| no_panic(|| base_vector_passes_in(a))),
        ));
        trials.push(Trial::test(
            format!("{host}::runner::wrong_expectations_fail_with_file_and_step"),
            move || with_adapter(host, |a| no_panic(|| wrong_expectations_fail_in(a))),
        ));
    }
    let runner_checks: [(&str, fn()); 8] = [
        ("enough_vector_files", enough_vector_files),
        ("vectors_cover_every_op", vectors_cover_every_op),
        ("base_vector_passes", base_vector_passes),
        (
            "wrong_expectations_fail_with_file_and_step",
            wrong_expectations_fail_with_file_and_step,
        ),
        (
            "strict_parsing_rejects_unknown_fields_ops_and_shapes",
            strict_parsing_rejects_unknown_fields_ops_and_shapes,
        ),
        (
            "bless_rewrites_exact_expectations_and_nothing_else",
            bless_rewrites_exact_expectations_and_nothing_else,
        ),
        (
            "invariants_catch_broken_results",
            invariants_catch_broken_results,
        ),
        ("a_broken_adapter_is_reported", a_broken_adapter_is_reported),
    ];
    trials.extend(
        runner_checks
            .into_iter()
            .map(|(name, check)| Trial::test(format!("runner::{name}"), move || no_panic(check))),
    );
    libtest_mimic::run(&args, trials).exit();
}

/// A check written with `assert!`, as a trial: its panic message is the failure.
fn no_panic(check: impl FnOnce()) -> Result<(), Failed> {
    panic::catch_unwind(AssertUnwindSafe(check)).map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "panicked".to_owned());
        Failed::from(message)
    })
}

/// The adapters `TOOLCAP_VECTOR_HOSTS` names, in a fixed order.
fn adapter_hosts() -> Vec<&'static str> {
    let named = std::env::var("TOOLCAP_VECTOR_HOSTS").unwrap_or_default();
    let named: Vec<&str> = named.split(',').map(str::trim).collect();
    ["js", "python"]
        .into_iter()
        .filter(|host| named.contains(host))
        .collect()
}

/// How each adapter starts: Node from the PATH; the Python of
/// `TOOLCAP_VECTOR_PYTHON` (the venv of the lowest wasmtime-py, say), else
/// python/.venv's.
fn adapter_command(host: &str) -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match host {
        "js" => ("node".into(), vec![root.join("js/test/vector-adapter.mjs")]),
        _ => (
            std::env::var_os("TOOLCAP_VECTOR_PYTHON")
                .map_or_else(|| root.join("python/.venv/bin/python"), PathBuf::from),
            vec![root.join("python/tests/vector_adapter.py")],
        ),
    }
}

/// Runs `run` with the host's adapter: one process per host, shared by its
/// trials one at a time, started again if it died.
fn with_adapter(
    host: &'static str,
    run: impl FnOnce(&mut dyn Host) -> Result<(), Failed>,
) -> Result<(), Failed> {
    static JS: OnceLock<Mutex<Option<Adapter>>> = OnceLock::new();
    static PYTHON: OnceLock<Mutex<Option<Adapter>>> = OnceLock::new();
    let slot = if host == "js" { &JS } else { &PYTHON };
    let mut adapter = slot
        .get_or_init(|| Mutex::new(None))
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !adapter.as_mut().is_some_and(Adapter::is_alive) {
        let (program, args) = adapter_command(host);
        *adapter = Some(Adapter::start(host, &program, &args)?);
    }
    run(adapter.as_mut().expect("started above"))
}

fn bless_requested() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// One vector file: it parses, its name is its file name, every step passes
/// (or, with `BLESS=1`, its exact expectations are rewritten).
fn vector_passes(host: &mut dyn Host, path: &PathBuf, bless: bool) -> Result<(), Failed> {
    let label = file_label(path);
    let text = fs::read_to_string(path).map_err(|err| format!("{label}: {err}"))?;
    let mut vector =
        format::parse(&text).map_err(|err| format!("{label}: does not parse: {err}"))?;
    let mut failures = Vec::new();
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    if vector.name != stem {
        failures.push(format!(
            "{label}: name {:?} is not the file name",
            vector.name
        ));
    }
    let report = run_vector(host, &label, &mut vector, bless);
    failures.extend(report.failures);
    if report.blessed {
        fs::write(path, format::render(&vector)).expect("writing a blessed vector");
        eprintln!("BLESS rewrote {label}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} check(s) failed:\n{}",
            failures.len(),
            failures.join("\n")
        )
        .into())
    }
}

fn enough_vector_files() {
    let files = vector_files();
    assert!(
        files.len() >= MIN_VECTOR_FILES,
        "only {} vector files",
        files.len()
    );
}

fn all_vectors() -> Vec<Vector> {
    vector_files()
        .iter()
        .filter_map(|p| format::parse(&fs::read_to_string(p).ok()?).ok())
        .collect()
}

fn vectors_cover_every_op() {
    let used: BTreeSet<&str> = all_vectors()
        .iter()
        .flat_map(|v| v.steps.iter().map(Step::op).collect::<Vec<_>>())
        .collect();
    let all = [
        "cap",
        "cap-parts",
        "find-refs",
        "pruned-placeholder",
        "read",
        "read-lines",
        "grep",
        "prune",
        "purge",
        "classify",
        "host-path",
        "estimate-tokens",
        "calibrate",
        "plan",
        "cap-batch",
    ];
    let missing: Vec<&str> = all.into_iter().filter(|op| !used.contains(op)).collect();
    assert!(missing.is_empty(), "no vector uses {missing:?}");
}

/// A small valid vector that the checks below break one field at a time; the
/// JS and Python runners' self-tests break the same file.
const BASE: &str = include_str!("../../vectors-selftest/base.json");

fn run_text(json: &str, bless: bool) -> (Vector, Vec<String>, bool) {
    run_text_in(&mut Local::default(), json, bless)
}

fn run_text_in(host: &mut dyn Host, json: &str, bless: bool) -> (Vector, Vec<String>, bool) {
    let mut vector = format::parse(json).expect("the test vector parses");
    let report = run_vector(host, "inline.json", &mut vector, bless);
    (vector, report.failures, report.blessed)
}

fn base_vector_passes() {
    base_vector_passes_in(&mut Local::default());
}

fn base_vector_passes_in(host: &mut dyn Host) {
    let (_, failures, _) = run_text_in(host, BASE, false);
    assert!(failures.is_empty(), "{failures:#?}");
}

fn wrong_expectations_fail_with_file_and_step() {
    wrong_expectations_fail_in(&mut Local::default());
}

/// Each wrong expectation is reported, naming the file and step: the host's
/// answers reach the checks.
fn wrong_expectations_fail_in(host: &mut dyn Host) {
    let wrong = [
        (
            r#""original_bytes": 3492"#,
            r#""original_bytes": 3493"#,
            "step 0",
        ),
        (r#""truncated": true"#, r#""truncated": false"#, "step 0"),
        (r#""spilled": true"#, r#""spilled": false"#, "step 0"),
        (r#"["line 400\n"]"#, r#"["line 401\n"]"#, "step 0"),
        (
            r#""text": "line 2\nline 3\n""#,
            r#""text": "line 2\nline 4\n""#,
            "step 1",
        ),
        (r#""next_line": 4"#, r#""next_line": null"#, "step 1"),
        (
            r#""count": 2, "max_bytes": 100,"#,
            r#""count": 0, "max_bytes": 100,"#,
            "step 1",
        ),
        (
            r#""request-too-large""#,
            r#""context-length-exceeded""#,
            "step 2",
        ),
        (
            r#""kind": "request-too-large""#,
            r#""kind": null"#,
            "step 2",
        ),
    ];
    for (from, to, step) in wrong {
        assert!(BASE.contains(from), "{from}");
        let (_, failures, _) = run_text_in(host, &BASE.replace(from, to), false);
        assert!(
            failures
                .iter()
                .any(|f| f.starts_with(&format!("inline.json {step} "))),
            "{to}: {failures:#?}"
        );
    }
    // An expected error that does not happen fails too.
    let expects_error = BASE.replace(
        r#""expect": { "text": "line 2"#,
        r#""expect": { "error": "not-found", "text": "line 2"#,
    );
    let (_, failures, _) = run_text_in(host, &expects_error, false);
    assert!(
        failures.iter().any(|f| f.contains("step 1")),
        "{failures:#?}"
    );
}

fn strict_parsing_rejects_unknown_fields_ops_and_shapes() {
    let broken = [
        BASE.replace(r#""about""#, r#""comment": 1, "about""#),
        BASE.replace(r#""thread_id""#, r#""threadId": "x", "thread_id""#),
        BASE.replace(r#""op": "purge""#, "")
            .replace(r#""op": "classify""#, r#""op": "classify-error""#),
        BASE.replace(r#""call_id": "c1","#, r#""call_id": "c1", "callid": "c1","#),
        BASE.replace(
            r#""truncated": true"#,
            r#""truncated": true, "trunc": true"#,
        ),
        BASE.replace(r#""from": 1,"#, r#""from": 1, "step": 2,"#),
        BASE.replace(r#""keep": "tail""#, r#""keep": "middle""#),
        BASE.replace(r#""preopen""#, "")
            .replace(r#""key_hex""#, r#""preopen": "rw", "key_hex""#),
        BASE.replace(r#""body": """#, r#""body": 7"#),
        BASE.replace(r#""text": "line 2"#, r#""txt": "line 2"#),
    ];
    for json in &broken {
        assert_ne!(json, BASE);
        assert!(format::parse(json).is_err(), "accepted:\n{json}");
    }
    // A generator that mixes both segment kinds parses but cannot be built.
    let mixed = BASE.replace(r#""from": 1,"#, r#""from": 1, "text": "x","#);
    let (_, failures, _) = run_text(&mixed, false);
    assert!(
        failures.iter().any(|f| f.contains("bad vector")),
        "{failures:#?}"
    );
    // A cap step without a call parses (`call_id` or `call` is optional)
    // but cannot run.
    let (_, failures, _) = run_text(&BASE.replace(r#""call_id": "c1","#, ""), false);
    assert!(
        failures
            .iter()
            .any(|f| f.contains("exactly one of `call_id` and `call`")),
        "{failures:#?}"
    );
    // A `$spill:` of an unknown call is an error in the vector, not a pass.
    let (_, failures, _) = run_text(&BASE.replace("$spill:c1", "$spill:c9"), false);
    assert!(
        failures.iter().any(|f| f.contains("$spill:c9")),
        "{failures:#?}"
    );
}

fn bless_rewrites_exact_expectations_and_nothing_else() {
    let stale = BASE
        .replace(r#""original_bytes": 3492"#, r#""original_bytes": 1"#)
        .replace(r#""text": "line 2\nline 3\n""#, r#""text": "old wording""#);
    let (blessed, failures, changed) = run_text(&stale, true);
    assert!(failures.is_empty() && changed, "{failures:#?}");
    let rendered = format::render(&blessed);
    assert!(rendered.contains("\n  \"name\": \"base\",\n"), "{rendered}");
    assert!(rendered.ends_with("}\n"));
    let (_, failures, changed) = run_text(&rendered, false);
    assert!(failures.is_empty() && !changed, "{failures:#?}");
    assert_eq!(format::parse(&rendered).unwrap(), blessed);
    assert!(rendered.contains(r#""original_bytes": 3492"#));
    assert!(rendered.contains(r#""text": "line 2\nline 3\n""#));
    // Decisions are never blessed: a wrong `truncated` or error still fails.
    let (_, failures, _) = run_text(
        &stale.replace(r#""truncated": true"#, r#""truncated": false"#),
        true,
    );
    assert_eq!(failures.len(), 1, "{failures:#?}");
}

/// The universal checks must catch a component that breaks them: each
/// corruption of a genuine result below is reported.
fn invariants_catch_broken_results() {
    use vectors_support::check::Checker;
    use vectors_support::invariants::{CapView, Disk, check_cap};

    let dir = tempfile::tempdir().unwrap();
    let mut session = common::open(dir.path(), "t1");
    let input = "a line of output\n".repeat(500);
    let budget = common::budget(1000);
    let disk = Disk {
        root: Some(dir.path().to_owned()),
        before: Vec::new(),
    };
    let good = CapView::from(session.cap(&input, &budget, "c1").unwrap());
    let mut session = Local::from(session);
    let failures_of = |session: &mut Local, disk: &Disk, view: &CapView, input: &str| {
        let mut failures = Vec::new();
        let mut chk = Checker::new("corrupted".into(), &mut failures, false);
        check_cap(&mut chk, session, disk, input, &budget, view);
        failures
    };
    assert_eq!(
        failures_of(&mut session, &disk, &good, &input),
        Vec::<String>::new()
    );

    type Corruption = fn(&mut CapView);
    let corruptions: [(&str, Corruption); 7] = [
        ("over max_bytes", |v| v.text.push_str(&"x".repeat(900))),
        ("original_bytes", |v| v.original_bytes -= 1),
        ("original_lines", |v| v.original_lines += 1),
        ("truncated", |v| v.truncated = false),
        ("neither spill nor error", |v| v.spill = None),
        ("reference missing from the text", |v| {
            v.text = v.text.replace("full content at", "full content @")
        }),
        ("forged tag", |v| {
            v.spill.as_mut().unwrap().tag = "0".repeat(16);
        }),
    ];
    for (what, corrupt) in corruptions {
        let mut view = good.clone();
        corrupt(&mut view);
        assert!(
            !failures_of(&mut session, &disk, &view, &input).is_empty(),
            "{what} went unnoticed"
        );
    }
    // A fitting input must come back unchanged.
    let disk = Disk {
        root: Some(dir.path().to_owned()),
        before: common::tree(dir.path()),
    };
    let mut fits = CapView::from(session.cap("short", &budget, "c2".into()).unwrap());
    assert_eq!(
        failures_of(&mut session, &disk, &fits, "short"),
        Vec::<String>::new()
    );
    fits.text = "shorT".into();
    assert!(!failures_of(&mut session, &disk, &fits, "short").is_empty());
    // The spill file must hold the input, and no temporary file may linger.
    let file = session
        .host_path(&good.spill.as_ref().unwrap().path)
        .unwrap()
        .unwrap();
    fs::write(&file, "tampered").unwrap();
    assert!(!failures_of(&mut session, &disk, &good, &input).is_empty());
    fs::write(&file, &input).unwrap();
    fs::write(dir.path().join("t1/.tmp-leftover"), "x").unwrap();
    assert!(!failures_of(&mut session, &disk, &good, &input).is_empty());
}

/// An adapter that answers garbage, a wrong shape or nothing is a failure
/// that says so, never a pass or a hang.
fn a_broken_adapter_is_reported() {
    let sh = |script: &str| {
        Adapter::start("broken", Path::new("sh"), &["-c".into(), script.into()]).expect("sh starts")
    };
    // An adapter that exits at once may be gone before the first request
    // is written, or after: either is reported.
    let cases: [(&str, &[&str]); 3] = [
        ("echo not-json; cat >/dev/null", &["not JSON"]),
        ("exit 0", &["exited", "does not read its requests"]),
        (
            r#"while read -r line; do echo '{"ok": {"text": 1}}'; done"#,
            &["wrong shape"],
        ),
    ];
    for (script, says) in cases {
        let mut adapter = sh(script);
        // `open` takes any answer's `ok`: the first cap shows the shape.
        let (_, failures, _) = run_text_in(&mut adapter, BASE, false);
        assert!(
            failures.iter().any(|f| says.iter().any(|s| f.contains(s))),
            "{script}: {failures:#?}"
        );
    }
}
