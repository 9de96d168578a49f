//! Embed tool-output-cap in a Rust agent host: cap every tool result before
//! it reaches the model, spill the full output into a directory you grant,
//! read it back, prune stale outputs, and recognise a provider's "request too
//! large" errors. All of it runs in the sandboxed WebAssembly component
//! embedded in this crate, through wasmtime; the component sees only the
//! spill directory.
//!
//! ```
//! use tool_output_cap::{Budget, SessionConfig, ToolCap, types::PrunePolicy};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let spill = tempfile::tempdir()?;
//! # let spill_dir = spill.path();
//! let tool_cap = ToolCap::new()?; // compile once per process; clone it into every thread
//! let mut session = tool_cap.open_session(SessionConfig::new("thread-42", spill_dir))?;
//!
//! // Every tool result goes through `cap` before it joins the conversation.
//! let output = "a line of tool output\n".repeat(100_000);
//! let budget = Budget { max_lines: Some(200), ..Budget::new(16 * 1024) };
//! let capped = session.cap(&output, &budget, "call-1")?;
//! assert!(capped.report.truncated && capped.text.len() <= 16 * 1024);
//!
//! // Its notice names the spill file; a "read spilled output" tool reads it back.
//! let reference = capped.report.spill.clone().expect("saved");
//! let hits = session.grep(&reference.path, "tool output", 3)?;
//! assert_eq!(hits.total_matches, 100_000);
//!
//! // Later, stale outputs shrink to placeholders that keep the reference.
//! let policy = PrunePolicy { keep_last: Some(0), max_total_bytes: None, max_total_tokens: None };
//! let pruned = session.prune(&[capped.text], &policy)?;
//! assert_eq!(session.find_refs(&pruned.messages[0])?.len(), 1);
//!
//! // And when a provider refuses a request anyway, `classify` says whether it was its size.
//! let overflow = tool_cap.classify(413, "<html><title>413 Request Entity Too Large</title></html>")?;
//! assert!(overflow.is_some());
//! # Ok(())
//! # }
//! ```
//!
//! ## Limits
//!
//! Every session runs under [`Limits`], set for all sessions of a runtime with
//! [`RuntimeOptions::limits`] and for one session with [`Session::set_limits`]:
//!
//! - **Memory**: the component's linear memory may grow to 256 MiB
//!   ([`DEFAULT_MEMORY_LIMIT`]). A `cap` needs about the output's size plus
//!   1 MiB, `cap_parts` and `prune` twice the size; [`Session::memory_size`]
//!   shows what a session has used. An input that cannot fit is refused
//!   before the component sees it, and the session stays usable.
//! - **Memory given back**: wasm memory never shrinks, so after a call that
//!   leaves the instance above 16 MiB ([`DEFAULT_RECYCLE_ABOVE`]) a session
//!   swaps in a fresh instance, opened with the same settings and key:
//!   references stay valid. [`RuntimeOptions::recycling`] sets the threshold
//!   or turns it off; [`Session::recycled`] counts the swaps.
//! - **Time**: each call may run 30 s ([`DEFAULT_CALL_DEADLINE`]), enforced by
//!   epoch interruption: one ticker thread per runtime, started by the first
//!   call, advances the epoch every 10 ms while calls run and sleeps otherwise.
//!   Time spent in host file operations counts, but only code in the component
//!   is interrupted.
//!
//! A call stopped inside the component traps. [`Error::LimitExceeded`] names
//! the limit, and the session is poisoned ([`Session::is_poisoned`]): every
//! later call fails at once with [`Error::Poisoned`], which says why. Drop it and open a new one; other
//! sessions of the same runtime are not affected.
//!
//! ```
//! use tool_output_cap::{Budget, Error, Limits, RuntimeOptions, SessionConfig, ToolCap, limits::LimitExceeded};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let spill = tempfile::tempdir()?;
//! let options = RuntimeOptions {
//!     limits: Limits { memory_bytes: Some(32 << 20), ..Limits::default() },
//!     ..RuntimeOptions::default()
//! };
//! let tool_cap = ToolCap::with_options(tool_output_cap::COMPONENT_WASM, &options)?;
//! let config = SessionConfig::new("thread-42", spill.path());
//! let mut session = tool_cap.open_session(config.clone())?;
//!
//! let huge = "a line of a huge tool output\n".repeat(2_000_000); // 58 MiB
//! let text = match session.cap(&huge, &Budget::new(16 * 1024), "call-7") {
//!     Ok(capped) => capped.text,
//!     Err(Error::LimitExceeded(limit)) => {
//!         if session.is_poisoned() {
//!             session = tool_cap.open_session(config)?;
//!         }
//!         // Too large for the component: the host cuts it some other way.
//!         assert!(matches!(limit, LimitExceeded::InputTooLarge { .. }));
//!         format!("[{} bytes of output dropped: {limit}]", huge.len())
//!     }
//!     Err(err) => return Err(err.into()),
//! };
//! assert!(text.contains("exceeds this session's 32.0 MiB memory limit"));
//! assert!(!session.is_poisoned()); // refused up front: nothing ran
//! # Ok(())
//! # }
//! ```
//!
//! ## The component
//!
//! [`COMPONENT_WASM`] is embedded at build time: from `TOOLCAP_WASM` if set,
//! else the `tool_output_cap.wasm` packaged in this crate, else (in the
//! repository's checkout) the guest crate built into `OUT_DIR`. The
//! `cache` feature adds [`RuntimeOptions::compiled_code_cache`], wasmtime's
//! own on-disk cache of compiled code, which saves the compile in every
//! process after the first.

mod bindings;
pub mod budget;
mod call;
mod deadline;
pub mod error;
pub mod json_strings;
pub mod limits;
mod mcp_pieces;
mod mcp_stream;
mod memory;
mod private_dir;
mod recycle;
mod runtime;
pub mod sandbox;
mod session;
mod spill_store;
mod stream;
mod tiers;

/// The records, variants and enums of the component's WIT `types`
/// interface, as wasmtime generates them. The few every embedder names are
/// also at the crate root.
pub mod types {
    pub use crate::bindings::types::{
        BatchResult, Budget, Call, CapError, CapReport, Capped, CappedMcp, CappedParts,
        ContentPart, EmbeddedResource, GrepMatch, GrepResult, Keep, McpOptions, Media, Overflow,
        OverflowKind, OverflowRef, Page, PendingResult, PrunePolicy, Pruned, ReadToolOutput,
        ReadToolSpec, RedactionCount, RedactionPolicy, RequestLimits, RetentionPolicy,
        SessionSettings, SizeUnit, SpillEntry, StoreStats, SweepReason, SweepReport, SweptFile,
    };
}

pub use error::Error;
pub use limits::Limits;
pub use mcp_stream::McpStream;
pub use runtime::{RuntimeOptions, ToolCap};
pub use session::{Session, SessionConfig};
pub use spill_store::SpillStore;
pub use stream::CapStream;
pub use tiers::Start;
pub use types::{Budget, Call, CapError, Capped, OverflowRef};

// The READMEs' Rust examples run as doc tests, so they cannot go stale: this
// crate's own (its crates.io page, packaged with it), and the workspace's,
// only in the repository (the packaged crate has no README of the workspace).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
#[cfg(all(doctest, toolcap_readme))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The tool-output-cap component (`tool_output_cap.wasm`), found by `build.rs`.
pub const COMPONENT_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/tool_output_cap.wasm"));

// Hosts share one `ToolCap` across threads and move sessions between them.
const _: () = {
    const fn shareable<T: Send + Sync + Clone>() {}
    const fn movable<T: Send>() {}
    shareable::<ToolCap>();
    movable::<Session>();
};
