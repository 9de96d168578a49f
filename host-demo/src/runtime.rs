//! The shared, compiled-once part: engine, component, linker and pre-instance.

use std::sync::Arc;

use wasmtime::component::{Component, Linker};
use wasmtime::error::Context as _;
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};

use crate::bindings::{ToolOutputCap, ToolOutputCapPre};
use crate::sandbox::Sandbox;
use crate::session::{Session, SessionConfig};
use crate::{COMPONENT_WASM, Error, OverflowKind};

/// How the runtime allocates instances.
#[derive(Clone, Debug, Default)]
pub struct RuntimeOptions {
    /// Preallocate this many instance slots with wasmtime's pooling allocator:
    /// faster instantiation (about 12 us instead of 20 us) for at most this many
    /// live sessions (and `classify` calls) at once; one more fails to open.
    /// `None` (the default) allocates on demand, with no such limit.
    pub pooled_instances: Option<u32>,
}

/// The tool-output-cap component, compiled once and ready to instantiate.
///
/// Cheap to clone (an `Arc`), `Send` and `Sync`: share one across threads and
/// open a [`Session`] per conversation.
#[derive(Clone)]
pub struct ToolCap {
    inner: Arc<Runtime>,
}

struct Runtime {
    engine: Engine,
    pre: ToolOutputCapPre<Sandbox>,
}

impl ToolCap {
    /// Compiles the component embedded in this crate (about 60 ms; do it once).
    pub fn new() -> Result<Self, Error> {
        Self::from_bytes(COMPONENT_WASM)
    }

    /// Compiles a component from its bytes, for a host that ships its own `.wasm`.
    pub fn from_bytes(wasm: &[u8]) -> Result<Self, Error> {
        Self::with_options(wasm, &RuntimeOptions::default())
    }

    /// Compiles a component from its bytes with explicit runtime options.
    pub fn with_options(wasm: &[u8], options: &RuntimeOptions) -> Result<Self, Error> {
        let engine = Engine::new(&engine_config(options))?;
        let component =
            Component::new(&engine, wasm).context("compiling the tool-output-cap component")?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        let instance_pre = linker
            .instantiate_pre(&component)
            .context("the component imports something this host does not provide")?;
        let pre = ToolOutputCapPre::new(instance_pre)
            .context("the component does not export the tool-output-cap world")?;
        Ok(Self {
            inner: Arc::new(Runtime { engine, pre }),
        })
    }

    /// Opens a session for one conversation thread, in its own store and
    /// sandbox: the component sees only `config.spill_dir`, as `/spill`.
    pub fn open_session(&self, config: SessionConfig) -> Result<Session, Error> {
        Session::open(self, config)
    }

    /// Whether an HTTP error response means "the request was too large", and
    /// how. Runs in a short-lived store with no preopen.
    pub fn classify(&self, status: u16, body: &str) -> Result<Option<OverflowKind>, Error> {
        let (mut store, exports) = self.instantiate(Sandbox::new(None)?)?;
        Ok(exports
            .toolcap_tool_output_cap_errors()
            .call_classify(&mut store, status, body)?)
    }

    /// A fresh store around `sandbox`, and the component instantiated in it.
    pub(crate) fn instantiate(
        &self,
        sandbox: Sandbox,
    ) -> Result<(Store<Sandbox>, ToolOutputCap), Error> {
        let mut store = Store::new(&self.inner.engine, sandbox);
        let exports = self.inner.pre.instantiate(&mut store)?;
        Ok((store, exports))
    }
}

fn engine_config(options: &RuntimeOptions) -> Config {
    let mut config = Config::new();
    if let Some(slots) = options.pooled_instances {
        let mut pool = PoolingAllocationConfig::default();
        // One component instance holds a few core instances and one memory.
        pool.total_component_instances(slots)
            .total_core_instances(slots.saturating_mul(8))
            .total_memories(slots.saturating_mul(2))
            .total_tables(slots.saturating_mul(8));
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}
