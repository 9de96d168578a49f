//! What does start-up cost? Compiling the component, loading a serialized
//! one, instantiating it from an `InstancePre`, and opening a session through
//! the embedding API, with and without the pooling allocator; and a whole
//! second process started with and without wasmtime's compiled-code cache
//! ([`RuntimeOptions::compiled_code_cache`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use wasmtime::component::{Component, InstancePre, Linker, ResourceTable};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use tool_output_cap::{COMPONENT_WASM, RuntimeOptions, Start, ToolCap};

use crate::corpus::{self, KIB, Kind};
use crate::measure::{self, Plan};
use crate::setup::{self, CALL_ID};
use crate::table::Row;

/// Pool slots of the pooling engines here and in the sessions benchmarked.
pub const POOL_SLOTS: u32 = 16;

/// Compile, deserialize, instantiate and open, interleaved in one group.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let wasm = COMPONENT_WASM;
    let engine = Engine::new(&Config::new()).unwrap();
    // The API's engine checks call deadlines by epochs, which Cranelift
    // compiles into every function and loop.
    let mut with_epochs = Config::new();
    with_epochs.epoch_interruption(true);
    let epoch_engine = Engine::new(&with_epochs).unwrap();
    // What a tiered start compiles first (tool_output_cap::Start).
    let mut baseline = with_epochs.clone();
    baseline.strategy(wasmtime::Strategy::Winch);
    let baseline_engine = Engine::new(&baseline).unwrap();
    let serialized = Component::new(&engine, wasm).unwrap().serialize().unwrap();
    let on_demand = Instantiator::new(Config::new(), wasm);
    let pooled = Instantiator::new(pooling_config(), wasm);
    let api_on_demand = setup::tool_cap(None);
    let api_pooled = setup::tool_cap(Some(POOL_SLOTS));
    let spill = tempfile::tempdir().unwrap();
    // What a session runs until a tiered start's optimized code is ready.
    let baseline_only = RuntimeOptions {
        start: Start::Baseline,
        ..RuntimeOptions::default()
    };
    let api_baseline = ToolCap::with_options(wasm, &baseline_only).unwrap();
    let mut on_baseline = setup::session(&api_baseline, None);
    let mut on_optimized = setup::session(&api_on_demand, None);
    assert!(!on_baseline.is_optimized() && on_optimized.is_optimized());
    let log = corpus::text(Kind::Ascii, 4 * corpus::MIB);
    let cut = setup::host_budget(&setup::cut_budget(log.len()));

    let mut compile = || {
        black_box(Component::new(&engine, wasm).unwrap());
    };
    let mut compile_with_epochs = || {
        black_box(Component::new(&epoch_engine, wasm).unwrap());
    };
    let mut compile_baseline = || {
        black_box(Component::new(&baseline_engine, wasm).unwrap());
    };
    let mut cap_baseline = || {
        black_box(on_baseline.cap(&log, &cut, CALL_ID).unwrap());
    };
    let mut cap_optimized = || {
        black_box(on_optimized.cap(&log, &cut, CALL_ID).unwrap());
    };
    let mut deserialize = || {
        black_box(deserialize(&engine, &serialized));
    };
    let mut instantiate = || on_demand.instantiate();
    let mut instantiate_pooled = || pooled.instantiate();
    let mut open = || {
        black_box(setup::session(&api_on_demand, Some(spill.path())));
    };
    let mut open_pooled = || {
        black_box(setup::session(&api_pooled, Some(spill.path())));
    };
    let m = measure::medians(
        &mut [
            &mut compile,
            &mut deserialize,
            &mut instantiate,
            &mut instantiate_pooled,
            &mut open,
            &mut open_pooled,
            &mut compile_with_epochs,
            &mut compile_baseline,
            &mut cap_baseline,
            &mut cap_optimized,
        ],
        plan,
    );
    // The component's size is in the report's header; no throughput here.
    let size = None;
    rows.push(Row::alone("compile component (Cranelift)", size, m[0]));
    rows.push(Row::vs(
        "compile component, with the API's epoch checks",
        size,
        m[6],
        "compile",
        m[0],
    ));
    rows.push(Row::vs(
        "compile component (Winch: a tiered start's first), epoch checks",
        size,
        m[7],
        "compile with epoch checks",
        m[6],
    ));
    rows.push(Row::vs(
        "cap 4 MiB log, no spill dir, on Winch's code",
        Some(log.len()),
        m[8],
        "on Cranelift's",
        m[9],
    ));
    rows.push(Row::vs(
        "load serialized component",
        size,
        m[1],
        "compile",
        m[0],
    ));
    rows.push(Row::vs(
        "instantiate (InstancePre), on demand",
        None,
        m[2],
        "load serialized",
        m[1],
    ));
    rows.push(Row::vs(
        "instantiate (InstancePre), pooling",
        None,
        m[3],
        "instantiate on demand",
        m[2],
    ));
    rows.push(Row::vs(
        "open session (API), on demand",
        None,
        m[4],
        "instantiate on demand",
        m[2],
    ));
    rows.push(Row::vs(
        "open session (API), pooling",
        None,
        m[5],
        "open session on demand",
        m[4],
    ));
    second_process(plan, rows);
}

/// The hidden first argument that turns the report binary into one second
/// process of [`second_process`]: `report --startup-probe START SPILL_DIR [CACHE_DIR]`.
pub const PROBE_ARG: &str = "--startup-probe";

/// A whole process start as a host sees it, measured by spawning the report
/// binary itself with [`PROBE_ARG`] (so it runs the code being measured,
/// never a stale binary): each spawn creates a runtime with
/// `ToolCap::with_options` (a tiered start unless it says otherwise), opens
/// a session, caps 1 KiB that fits, and exits. Without the cache every spawn
/// compiles; with it, a first spawn fills an empty cache directory with both
/// compilers' code (it waits for the optimized code) and the measured ones
/// load from it. Checked: the cache holds compiled code after the first
/// spawn, no later spawn rewrites it, and `with_options` (timed inside the
/// child) is faster from it. A tiered spawn that waits for the optimized
/// code says when it was ready.
fn second_process(plan: Plan, rows: &mut Vec<Row>) {
    // This very file, even if a build replaces the binary during the run.
    let proc_exe = Path::new("/proc/self/exe");
    let exe = if proc_exe.exists() {
        proc_exe.to_owned()
    } else {
        std::env::current_exe().expect("the report binary's path")
    };
    let spill = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let spawn = |start: &str, cache: Option<&Path>| -> Probe {
        let mut command = Command::new(&exe);
        command
            .arg(PROBE_ARG)
            .arg(start)
            .arg(spill.path())
            .args(cache);
        let output = command.output().expect("the report binary starts");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{PROBE_ARG} failed ({}): {stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        parse_probe(&stdout).unwrap_or_else(|| panic!("no probe line in {stdout:?}"))
    };
    spawn(WAIT_OPTIMIZED, Some(cache.path()));
    let compiled = cache_entries(cache.path());
    assert!(
        compiled.len() >= 2,
        "wasmtime stored no code of both compilers in {}",
        cache.path().display()
    );

    let inner = RefCell::new([Vec::new(), Vec::new(), Vec::new(), Vec::new()]);
    let mut without = || inner.borrow_mut()[0].push(spawn("tiered", None).with_options);
    let mut with = || inner.borrow_mut()[1].push(spawn("tiered", Some(cache.path())).with_options);
    let mut optimized = || inner.borrow_mut()[2].push(spawn("optimized", None).with_options);
    let mut ready = || {
        let probe = spawn(WAIT_OPTIMIZED, None);
        inner.borrow_mut()[3].push(probe.optimized.expect("it waited"));
    };
    let m = measure::medians(
        &mut [&mut without, &mut with, &mut optimized, &mut ready],
        plan,
    );
    let [inner_without, inner_with, inner_optimized, optimized_at] =
        inner.into_inner().map(measure::median);
    assert_eq!(
        cache_entries(cache.path()),
        compiled,
        "a start with the warm cache compiled and stored the component again"
    );
    assert!(
        inner_with < inner_without / 2,
        "the warm cache did not make ToolCap::with_options faster: \
         {inner_with:?} with it, {inner_without:?} without"
    );
    rows.push(Row::alone(
        "second process: start, with_options, open, cap 1 KiB; no cache",
        None,
        m[0],
    ));
    rows.push(Row::vs(
        "second process, warm compiled-code cache",
        None,
        m[1],
        "no cache",
        m[0],
    ));
    rows.push(Row::vs(
        "second process, Start::Optimized (0.2's start), no cache",
        None,
        m[2],
        "tiered",
        m[0],
    ));
    rows.push(Row::alone(
        "second process: ToolCap::with_options alone, no cache",
        None,
        inner_without,
    ));
    rows.push(Row::vs(
        "second process: ToolCap::with_options, warm cache",
        None,
        inner_with,
        "no cache",
        inner_without,
    ));
    rows.push(Row::vs(
        "second process: ToolCap::with_options, Start::Optimized, no cache",
        None,
        inner_optimized,
        "tiered",
        inner_without,
    ));
    rows.push(Row::vs(
        "second process: optimized code ready after a tiered start",
        None,
        optimized_at,
        "Start::Optimized",
        inner_optimized,
    ));
}

/// The probe's start that also waits for the optimized code before exiting.
const WAIT_OPTIMIZED: &str = "tiered-wait";

/// What one second process measured.
struct Probe {
    with_options: Duration,
    /// From before `with_options` until `optimize` returned, if it waited.
    optimized: Option<Duration>,
}

/// One second process (see [`second_process`]), given the arguments after
/// [`PROBE_ARG`]: `tiered|optimized|tiered-wait SPILL_DIR [CACHE_DIR]`.
/// Prints how long `ToolCap::with_options` took, in nanoseconds, as
/// `with_options_ns=N`, and for `tiered-wait` when the optimized code was
/// ready, as `optimized_ns=N`.
pub fn probe(args: &[String]) {
    let (start_name, spill, cache) = match args {
        [start, spill] => (start.as_str(), Path::new(spill), None),
        [start, spill, cache] => (start.as_str(), Path::new(spill), Some(PathBuf::from(cache))),
        _ => panic!(
            "usage: report {PROBE_ARG} tiered|optimized|{WAIT_OPTIMIZED} SPILL_DIR [CACHE_DIR]"
        ),
    };
    let start = Instant::now();
    let options = RuntimeOptions {
        compiled_code_cache: cache,
        start: match start_name {
            "optimized" => Start::Optimized,
            "tiered" | WAIT_OPTIMIZED => Start::Tiered,
            other => panic!("{PROBE_ARG}: no start {other:?}"),
        },
        ..RuntimeOptions::default()
    };
    let tool_cap = ToolCap::with_options(COMPONENT_WASM, &options).expect("the component loads");
    let with_options = start.elapsed();
    let mut session = setup::session(&tool_cap, Some(spill));
    let text = corpus::text(Kind::Ascii, KIB);
    let budget = setup::host_budget(&setup::roomy_budget());
    let capped = session.cap(&text, &budget, CALL_ID).expect("the cap runs");
    assert!(!capped.report.truncated);
    println!("with_options_ns={}", with_options.as_nanos());
    if start_name == WAIT_OPTIMIZED {
        tool_cap.optimize().expect("the optimized code compiles");
        println!("optimized_ns={}", start.elapsed().as_nanos());
    }
}

fn parse_probe(stdout: &str) -> Option<Probe> {
    let field = |name: &str| -> Option<Duration> {
        let ns = stdout.lines().find_map(|l| l.strip_prefix(name))?;
        Some(Duration::from_nanos(ns.trim().parse().ok()?))
    };
    Some(Probe {
        with_options: field("with_options_ns=")?,
        optimized: field("optimized_ns="),
    })
}

/// The compiled-code files in a wasmtime cache directory (not its `.stats`
/// usage counters), with their size and modification time.
fn cache_entries(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                pending.push(path);
            } else if path.extension().is_none() {
                found.insert(path, (meta.len(), meta.modified().unwrap()));
            }
        }
    }
    found
}

/// A pooling engine shaped like the `tool-output-cap` crate's (host/src/runtime.rs)
/// with [`POOL_SLOTS`] slots.
pub fn pooling_config() -> Config {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOL_SLOTS)
        .total_core_instances(POOL_SLOTS * 8)
        .total_memories(POOL_SLOTS * 2)
        .total_tables(POOL_SLOTS * 8);
    let mut config = Config::new();
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    config
}

/// Loads a component this process serialized a moment ago.
#[allow(unsafe_code)]
pub fn deserialize(engine: &Engine, bytes: &[u8]) -> Component {
    // SAFETY: `bytes` come from `Component::serialize` with the same engine
    // configuration in this process; wasmtime requires trusted artifacts.
    unsafe { Component::deserialize(engine, bytes).unwrap() }
}

/// A bare WASI store: what instantiation needs, no preopen.
pub struct Bare {
    wasi: WasiCtx,
    table: ResourceTable,
}

impl WasiView for Bare {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// An engine and a pre-instance: instantiation alone, as the `tool-output-cap`
/// crate does it.
pub struct Instantiator {
    engine: Engine,
    pre: InstancePre<Bare>,
}

impl Instantiator {
    /// Compile `wasm` for an engine with `config` and link WASI.
    pub fn new(config: Config, wasm: &[u8]) -> Instantiator {
        let engine = Engine::new(&config).unwrap();
        let component = Component::new(&engine, wasm).unwrap();
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
        let pre = linker.instantiate_pre(&component).unwrap();
        Instantiator { engine, pre }
    }

    /// One fresh store with the component instantiated in it.
    pub fn instantiate(&self) {
        let bare = Bare {
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
        };
        let mut store = Store::new(&self.engine, bare);
        black_box(self.pre.instantiate(&mut store).unwrap());
    }
}
