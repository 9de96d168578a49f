//! The per-store WASI context: one optional preopen and nothing else; and
//! the check of a spill directory that other users could reach
//! ([`shared_dir_problem`]).

use std::path::Path;
use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxView, WasiView};

use crate::Error;
use crate::memory::MemoryLimiter;
use crate::tiers::Tier;

pub use crate::private_dir::shared_dir_problem;

/// Guest path of the spill directory preopen.
pub const SPILL_GUEST_PATH: &str = "/spill";

/// What a component instance may touch: at most the spill directory, and
/// only as much memory as its limiter allows. No environment, arguments,
/// stdin, stdout or network; stderr is inherited so a guest panic explains
/// the trap it causes.
pub(crate) struct Sandbox {
    wasi: WasiCtx,
    table: ResourceTable,
    /// The store's memory limit (unlimited until the runtime sets it).
    pub(crate) memory: MemoryLimiter,
    /// The code the store runs, once instantiated: held here so that the
    /// baseline tier and its deadline ticker live as long as a store on it.
    pub(crate) tier: Option<Arc<Tier>>,
}

impl Sandbox {
    /// A sandbox that grants `spill_dir` (host path, and whether read-only) as
    /// [`SPILL_GUEST_PATH`], or no directory at all.
    pub(crate) fn new(spill_dir: Option<(&Path, FsPerms)>) -> Result<Self, Error> {
        let mut builder = WasiCtx::builder();
        builder
            // The host calls the component synchronously: file I/O may block this
            // thread instead of hopping through tokio's blocking pool.
            .allow_blocking_current_thread(true)
            .inherit_stderr()
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false);
        if let Some((dir, perms)) = spill_dir {
            builder
                .preopened_dir(dir, SPILL_GUEST_PATH, perms)
                .map_err(|err| {
                    Error::runtime(
                        err.context(format!("granting {} to the component", dir.display())),
                    )
                })?;
        }
        Ok(Self {
            wasi: builder.build(),
            table: ResourceTable::new(),
            memory: MemoryLimiter::default(),
            tier: None,
        })
    }

    /// `len` bytes from the same secure random source the component's
    /// `wasi:random` reads: a session key the host keeps, so that a recycled
    /// instance verifies the references of the one it replaced.
    pub(crate) fn random_bytes(&mut self, len: u64) -> Result<Vec<u8>, Error> {
        use wasmtime_wasi::p2::bindings::random::random::Host as _;
        Ok(self.wasi.random().get_random_bytes(len)?)
    }
}

impl WasiView for Sandbox {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
