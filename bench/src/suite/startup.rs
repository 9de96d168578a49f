//! Question 4: what does start-up cost? Compiling the component, loading a
//! cached serialized one, instantiating it from an `InstancePre`, and opening
//! a session through the embedding API, with and without the pooling
//! allocator.

use std::hint::black_box;

use wasmtime::component::{Component, InstancePre, Linker, ResourceTable};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::measure::{self, Plan};
use crate::setup;
use crate::table::Row;

/// Pool slots of the pooling engines here and in the sessions benchmarked.
pub const POOL_SLOTS: u32 = 16;

/// Compile, deserialize, instantiate and open, interleaved in one group.
pub fn run(plan: Plan, rows: &mut Vec<Row>) {
    let wasm = setup::component_wasm();
    let engine = Engine::new(&Config::new()).unwrap();
    let serialized = Component::new(&engine, &wasm).unwrap().serialize().unwrap();
    let on_demand = Instantiator::new(Config::new(), &wasm);
    let pooled = Instantiator::new(pooling_config(), &wasm);
    let api_on_demand = setup::tool_cap(None);
    let api_pooled = setup::tool_cap(Some(POOL_SLOTS));
    let spill = tempfile::tempdir().unwrap();

    let mut compile = || {
        black_box(Component::new(&engine, &wasm).unwrap());
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
        ],
        plan,
    );
    // The component's size is in the report's header; no throughput here.
    let size = None;
    rows.push(Row::alone("compile component (Cranelift)", size, m[0]));
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
}

/// A pooling engine shaped like `host-demo`'s with [`POOL_SLOTS`] slots.
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

/// An engine and a pre-instance: instantiation alone, as `host-demo` does it.
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
