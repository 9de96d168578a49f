//! Tiered start: the component's code from two compilers.
//!
//! Cranelift, wasmtime's optimizing compiler, takes about a second to
//! compile the component on a 2-core machine; Winch, its baseline compiler
//! (tier 1 on x86_64 in wasmtime 48), about a sixth of that, and its code
//! runs a 4 MiB cap 1.5-1.8x slower (bench/README.md, `startup`). So a
//! runtime can start on Winch's code and compile Cranelift's once, on a
//! thread of its own or when the host asks ([`Start`]); a session then moves
//! to the optimized code at its next call, the way it recycles its
//! instance, and the baseline's code is freed once no store runs it.
//! Elsewhere than x86_64 there is no baseline: every start compiles with
//! Cranelift at once.

use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use wasmtime::component::{Component, Linker};
use wasmtime::error::Context as _;
use wasmtime::{Config, Engine};

use crate::Error;
use crate::bindings::ToolOutputCapPre;
use crate::deadline::Ticker;
use crate::sandbox::Sandbox;

/// How [`ToolCap::with_options`](crate::ToolCap::with_options) compiles the
/// component.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Start {
    /// Winch's code first, Cranelift's on a thread of its own, which new
    /// sessions use once it is ready and open sessions move to at their
    /// next call. The first session opens in a fraction of the optimizing
    /// compile's time; the CPU of both compiles is spent.
    #[default]
    Tiered,
    /// Cranelift's code before `with_options` returns, as 0.2 did: one
    /// compile, the longest start. For a short-lived process that has a
    /// warm [compiled-code cache](crate::RuntimeOptions::compiled_code_cache).
    Optimized,
    /// Winch's code only, until [`ToolCap::optimize`](crate::ToolCap::optimize):
    /// the shortest start and the least CPU, for a process that caps a few
    /// outputs and exits.
    Baseline,
}

/// One compiler's code of the component: what a store of its engine
/// instantiates, and that engine's deadline ticker.
pub(crate) struct Tier {
    pub(crate) engine: Engine,
    pub(crate) pre: ToolOutputCapPre<Sandbox>,
    pub(crate) ticker: Ticker,
}

impl Tier {
    fn compile(wasm: &[u8], config: &Config) -> Result<Tier, Error> {
        let engine = Engine::new(config)?;
        let component =
            Component::new(&engine, wasm).context("compiling the tool-output-cap component")?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        let instance_pre = linker
            .instantiate_pre(&component)
            .context("the component imports something this host does not provide")?;
        let pre = ToolOutputCapPre::new(instance_pre)
            .context("the component does not export the tool-output-cap world")?;
        Ok(Tier {
            ticker: Ticker::new(&engine),
            engine,
            pre,
        })
    }
}

/// The code a runtime has, and the optimized code it may compile later.
pub(crate) struct Tiers {
    /// What the start compiled: Winch's code, or Cranelift's when there is
    /// no later tier. Winch's is let go once the optimized tier is ready:
    /// the stores still on it keep it (each holds its tier) until they
    /// move, and then its code is freed (3-4 MiB of `toolcap mcp`'s peak).
    first: Mutex<Option<Arc<Tier>>>,
    later: Option<Arc<Later>>,
    /// Winch's tier, without keeping it (for [`Tiers::baseline_loaded`]).
    baseline: Weak<Tier>,
}

/// The optimized tier of a runtime that started on the baseline.
struct Later {
    /// The component and the optimizing engine's settings, until compiled.
    source: Mutex<Option<(Box<[u8]>, Config)>>,
    /// The outcome, set once: the tier, or why it could not be compiled.
    tier: OnceLock<Result<Arc<Tier>, String>>,
}

impl Later {
    /// The optimized tier, compiled here unless another thread did or is
    /// doing it (then this waits for it).
    fn get(&self) -> &Result<Arc<Tier>, String> {
        self.tier.get_or_init(|| {
            let source = self.source.lock().unwrap_or_else(PoisonError::into_inner);
            let (wasm, config) = source.as_ref().expect("taken only after the tier is set");
            Tier::compile(wasm, config)
                .map(Arc::new)
                .map_err(|err| format!("{err:#}"))
        });
        self.source
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.tier.get().expect("just set")
    }

    /// The optimized tier when it is compiled.
    fn ready(&self) -> Option<&Arc<Tier>> {
        self.tier.get()?.as_ref().ok()
    }
}

impl Tiers {
    /// Compiles `wasm` as `start` says, with `config`'s settings.
    pub(crate) fn start(wasm: &[u8], config: Config, start: Start) -> Result<Tiers, Error> {
        if start == Start::Optimized || !cfg!(target_arch = "x86_64") {
            return Ok(Tiers::optimized_only(Tier::compile(wasm, &config)?));
        }
        let mut baseline = config.clone();
        baseline.strategy(wasmtime::Strategy::Winch);
        // Winch's SIMD needs more of the processor than Cranelift's (AVX2):
        // where it cannot compile the component, start optimized.
        let Ok(first) = Tier::compile(wasm, &baseline) else {
            return Ok(Tiers::optimized_only(Tier::compile(wasm, &config)?));
        };
        let later = Arc::new(Later {
            source: Mutex::new(Some((wasm.into(), config))),
            tier: OnceLock::new(),
        });
        if start == Start::Tiered {
            let compiling = Arc::clone(&later);
            // If no thread can be had, `optimize` still compiles it.
            let _ = std::thread::Builder::new()
                .name("toolcap-optimize".into())
                .spawn(move || {
                    compiling.get();
                });
        }
        let first = Arc::new(first);
        Ok(Tiers {
            baseline: Arc::downgrade(&first),
            first: Mutex::new(Some(first)),
            later: Some(later),
        })
    }

    fn optimized_only(tier: Tier) -> Tiers {
        Tiers {
            first: Mutex::new(Some(Arc::new(tier))),
            later: None,
            baseline: Weak::new(),
        }
    }

    /// The code new instances get: the optimized tier once it is ready
    /// (the baseline is then let go), else the first.
    pub(crate) fn best(&self) -> Arc<Tier> {
        let mut first = self.first.lock().unwrap_or_else(PoisonError::into_inner);
        match self.later.as_deref().and_then(Later::ready) {
            Some(tier) => {
                *first = None;
                Arc::clone(tier)
            }
            None => Arc::clone(
                first
                    .as_ref()
                    .expect("kept until the optimized tier is ready"),
            ),
        }
    }

    /// Whether a store of `engine` runs the best code there is: false on
    /// the baseline once the optimized tier is ready. Asked at every call,
    /// so it takes no lock: until then, every store runs the first tier.
    pub(crate) fn is_best(&self, engine: &Engine) -> bool {
        self.later
            .as_deref()
            .and_then(Later::ready)
            .is_none_or(|tier| Engine::same(engine, &tier.engine))
    }

    /// Whether Winch's code is still loaded: until the optimized tier is
    /// ready and no store runs it.
    pub(crate) fn baseline_loaded(&self) -> bool {
        self.baseline.strong_count() > 0
    }

    /// Whether the optimized tier is ready.
    pub(crate) fn optimized(&self) -> bool {
        self.later
            .as_deref()
            .is_none_or(|later| later.ready().is_some())
    }

    /// Compiles the optimized tier now, or waits for the compile under way.
    pub(crate) fn optimize(&self) -> Result<(), Error> {
        match self.later.as_deref().map(Later::get) {
            None | Some(Ok(_)) => Ok(()),
            Some(Err(why)) => Err(Error::runtime(anyhow::anyhow!(
                "the optimized code could not be compiled (the baseline code goes on): {why}"
            ))),
        }
    }
}
