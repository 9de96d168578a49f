//! The shared, compiled-once part: engine, component, linker and pre-instance.

use std::path::PathBuf;
use std::sync::Arc;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};

use crate::bindings::ToolOutputCap;
use crate::deadline::Running;
use crate::limits::Limits;
use crate::recycle::Recycling;
use crate::sandbox::Sandbox;
use crate::session::{Session, SessionConfig};
use crate::tiers::{Start, Tiers};
use crate::{COMPONENT_WASM, Error, types::Overflow};

/// How the runtime allocates instances, and what each may use.
#[derive(Clone, Debug, Default)]
pub struct RuntimeOptions {
    /// Preallocate this many instance slots with wasmtime's pooling allocator:
    /// faster instantiation (bench/README.md, startup rows) for at most this many
    /// live sessions (and `classify` calls) at once; one more fails to open.
    /// `None` (the default) allocates on demand, with no such limit. A
    /// pooled runtime starts with the optimized code ([`Start::Optimized`]),
    /// whatever [`Self::start`] says: each compiler's code would need a pool.
    pub pooled_instances: Option<u32>,
    /// Memory limit and call deadline of every session this runtime opens,
    /// and of `classify`; [`Session::set_limits`] changes one session's.
    /// Default: [`Limits::default`] (256 MiB, 30 s).
    pub limits: Limits,
    /// When a session swaps its instance for a fresh one to give back the
    /// linear memory a large call left. Default: above 16 MiB
    /// ([`DEFAULT_RECYCLE_ABOVE`](crate::limits::DEFAULT_RECYCLE_ABOVE)).
    pub recycling: Recycling,
    /// A directory for wasmtime's cache of compiled code: the first process
    /// compiles the component and stores the result there, later processes
    /// load it instead of compiling again. Needs the crate's `cache` feature;
    /// without it, a directory here makes [`ToolCap::with_options`] fail.
    /// `None` (the default) compiles in every process. Entries are never
    /// recompressed: wasmtime's default recompresses one at zstd level 20
    /// on its 256th load, which cost the process doing it about 175 MB.
    pub compiled_code_cache: Option<PathBuf>,
    /// Which compiler's code the runtime starts with, and when it gets
    /// the optimizing compiler's. Default: [`Start::Tiered`].
    pub start: Start,
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
    tiers: Tiers,
    limits: Limits,
    recycling: Recycling,
}

impl ToolCap {
    /// Compiles the component embedded in this crate, with the default
    /// [`RuntimeOptions`]: a tiered start. Do it once per process and clone
    /// the result, or use [`RuntimeOptions::compiled_code_cache`].
    pub fn new() -> Result<Self, Error> {
        Self::from_bytes(COMPONENT_WASM)
    }

    /// Compiles a component from its bytes, for a host that ships its own `.wasm`.
    pub fn from_bytes(wasm: &[u8]) -> Result<Self, Error> {
        Self::with_options(wasm, &RuntimeOptions::default())
    }

    /// Compiles a component from its bytes with explicit runtime options.
    pub fn with_options(wasm: &[u8], options: &RuntimeOptions) -> Result<Self, Error> {
        // A pool's slots belong to one engine: a pooled runtime starts
        // optimized, so that its limit of live sessions holds.
        let start = match options.pooled_instances {
            Some(_) => Start::Optimized,
            None => options.start,
        };
        let tiers = Tiers::start(wasm, engine_config(options)?, start)?;
        Ok(Self {
            inner: Arc::new(Runtime {
                tiers,
                limits: options.limits,
                recycling: options.recycling,
            }),
        })
    }

    /// Whether the optimizing compiler's code is ready: always after a
    /// [`Start::Optimized`] start, or once [`Self::optimize`] returned.
    pub fn is_optimized(&self) -> bool {
        self.inner.tiers.optimized()
    }

    /// Returns once the optimizing compiler's code is ready: compiles it on
    /// this thread after a [`Start::Baseline`] start, waits for the compile
    /// under way after a [`Start::Tiered`] one. Sessions open on it from
    /// then on, and open ones move to it at their next call. An error
    /// says why it could not be compiled; the baseline code goes on serving.
    pub fn optimize(&self) -> Result<(), Error> {
        self.inner.tiers.optimize()
    }

    /// Whether the baseline compiler's code is still in memory: after a
    /// tiered or baseline start, until the optimized code is ready and
    /// every session has moved to it (for tests of that).
    #[doc(hidden)]
    pub fn baseline_loaded(&self) -> bool {
        self.inner.tiers.baseline_loaded()
    }

    /// Opens a session for one conversation thread, in its own store and
    /// sandbox: the component sees only `config.spill_dir`, as `/spill`.
    pub fn open_session(&self, config: SessionConfig) -> Result<Session, Error> {
        Session::open(self, config)
    }

    /// The limits new sessions start with (see [`RuntimeOptions::limits`]).
    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// When sessions of this runtime recycle their instance (see [`RuntimeOptions::recycling`]).
    pub fn recycling(&self) -> Recycling {
        self.inner.recycling
    }

    /// Whether an HTTP error response means "the request was too large", and
    /// how much (the limit and the requested amount, when the body says). Runs in a short-lived store with no preopen, under [`Self::limits`].
    pub fn classify(&self, status: u16, body: &str) -> Result<Option<Overflow>, Error> {
        let limits = self.inner.limits;
        let (mut store, exports) = self.instantiate(Sandbox::new(None)?, &limits)?;
        store.data().memory.check_input(body.len() as u64)?;
        let running = self.arm(&mut store, &limits)?;
        let kind = exports
            .toolcap_tool_output_cap_errors()
            .call_classify(&mut store, status, body);
        drop(running);
        kind.map_err(|err| store.data().memory.explain(err, &limits))
    }

    /// A fresh store around `sandbox` under `limits`, and the component
    /// instantiated in it.
    pub(crate) fn instantiate(
        &self,
        mut sandbox: Sandbox,
        limits: &Limits,
    ) -> Result<(Store<Sandbox>, ToolOutputCap), Error> {
        sandbox.memory.set_limit(limits.memory_bytes);
        let tier = self.inner.tiers.best();
        sandbox.tier = Some(Arc::clone(&tier));
        let mut store = Store::new(&tier.engine, sandbox);
        store.limiter(|sandbox| &mut sandbox.memory);
        let running = self.arm(&mut store, limits)?;
        let exports = tier.pre.instantiate(&mut store);
        drop(running);
        let exports = exports.map_err(|err| store.data().memory.explain(err, limits))?;
        Ok((store, exports))
    }

    /// Whether instances of `engine` run the best code this runtime has.
    pub(crate) fn is_best(&self, engine: &Engine) -> bool {
        self.inner.tiers.is_best(engine)
    }

    /// Prepares `store` for one call under `limits`: its deadline starts now,
    /// and memory refusals of earlier calls are forgotten. The deadline is
    /// enforced while the returned guard lives.
    pub(crate) fn arm(
        &self,
        store: &mut Store<Sandbox>,
        limits: &Limits,
    ) -> Result<Running, Error> {
        let tier = store.data().tier.clone().expect("an instantiated store");
        let running = tier.ticker.arm(store, limits.call_deadline)?;
        store.data_mut().memory.begin_call();
        Ok(running)
    }
}

fn engine_config(options: &RuntimeOptions) -> Result<Config, Error> {
    let mut config = Config::new();
    if let Some(dir) = &options.compiled_code_cache {
        compiled_code_cache(&mut config, dir)?;
    }
    // Call deadlines by epochs, not fuel: they cost nothing measurable on a
    // cap (bench/README.md) and measure wall-clock time, which a host
    // reasons in.
    config.epoch_interruption(true);
    if let Some(slots) = options.pooled_instances {
        let mut pool = PoolingAllocationConfig::default();
        // One component instance holds a few core instances and one memory.
        pool.total_component_instances(slots)
            .total_core_instances(slots.saturating_mul(8))
            .total_memories(slots.saturating_mul(2))
            .total_tables(slots.saturating_mul(8));
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    Ok(config)
}

/// Turns on wasmtime's own cache of compiled code, kept in `dir`.
#[cfg(feature = "cache")]
fn compiled_code_cache(config: &mut Config, dir: &std::path::Path) -> Result<(), Error> {
    let cache = wasmtime::Cache::new(cache_config(dir)).map_err(Error::from)?;
    config.cache(Some(cache));
    Ok(())
}

/// zstd level of the cache's entries: wasmtime's default for new ones.
#[cfg(feature = "cache")]
const CACHE_COMPRESSION_LEVEL: i32 = 3;

/// The cache in `dir`, whose entries stay at the level they were written
/// with. By default wasmtime recompresses an entry at zstd level 20 on its
/// 256th load, on a thread of whichever process loads it then: a `toolcap
/// cap` doing it peaked at 199 MB resident instead of 24 MB and spent 1.6 s
/// of CPU, for an entry 16% smaller (`toolcap mcp` and other hosts alike).
#[cfg(feature = "cache")]
fn cache_config(dir: &std::path::Path) -> wasmtime::CacheConfig {
    let mut cache_config = wasmtime::CacheConfig::new();
    cache_config
        .with_directory(dir)
        .with_baseline_compression_level(CACHE_COMPRESSION_LEVEL)
        .with_optimized_compression_level(CACHE_COMPRESSION_LEVEL);
    cache_config
}

#[cfg(not(feature = "cache"))]
fn compiled_code_cache(_: &mut Config, dir: &std::path::Path) -> Result<(), Error> {
    Err(Error::runtime(anyhow::anyhow!(
        "a compiled-code cache ({}) needs tool-output-cap's `cache` feature",
        dir.display()
    )))
}

#[cfg(all(test, feature = "cache"))]
mod tests {
    use super::*;

    /// wasmtime recompresses an entry only when its level is under the
    /// optimized one: equal levels mean never.
    #[test]
    fn the_cache_never_recompresses_an_entry() {
        let dir = tempfile::tempdir().unwrap();
        let config = cache_config(dir.path());
        assert_eq!(
            config.optimized_compression_level(),
            config.baseline_compression_level()
        );
        assert_eq!(config.directory(), Some(&dir.path().to_path_buf()));
        wasmtime::Cache::new(config).expect("wasmtime takes the cache configuration");
    }
}
