//! Integration tests of tool-output-cap through the real component and real
//! files, in one binary (one link of wasmtime): the Rust embedding API, its
//! limits and recycling, spills, the sandbox, faults, crash safety,
//! concurrency, properties, the hostile-reference corpus and the component's
//! size limit. The shared vectors run in the `vectors` binary.
//!
//! `cargo test --release -p toolcap-tests --test all` (add a module name,
//! e.g. `spill::`, to run one part).

#[path = "../child_process/mod.rs"]
mod child_process;
#[path = "../common/mod.rs"]
mod common;
#[path = "../hostile_support/mod.rs"]
mod hostile_support;

mod component_size;
mod concurrency;
mod crash_safety;
mod faults;
mod host_deadline_thread;
mod host_embedding;
mod host_limits;
mod host_mcp_stream;
mod host_recycle;
mod host_tiers;
mod hostile_refs;
mod promises;
mod properties;
mod sandbox;
mod spill;
mod spill_life;
