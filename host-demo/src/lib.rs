//! Embed tool-output-cap in a Rust agent host: cap every tool result before
//! it reaches the model, spill the full output into a directory you grant,
//! read it back, prune stale outputs, and recognise a provider's "request too
//! large" errors. All of it runs in the sandboxed WebAssembly component
//! embedded in this crate, through wasmtime; the component sees only the
//! spill directory.
//!
//! ```
//! use host_demo::{Budget, PrunePolicy, SessionConfig, ToolCap, budget};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let spill = tempfile::tempdir()?;
//! # let spill_dir = spill.path();
//! let tool_cap = ToolCap::new()?; // compile once (~60 ms); clone it into every thread
//! let mut session = tool_cap.open_session(SessionConfig::new("thread-42", spill_dir))?;
//!
//! // Every tool result goes through `cap` before it joins the conversation.
//! let output = "a line of tool output\n".repeat(100_000);
//! let budget = Budget { max_lines: Some(200), ..budget(16 * 1024) };
//! let capped = session.cap(&output, &budget, "call-1")?;
//! assert!(capped.truncated && capped.text.len() <= 16 * 1024);
//!
//! // Its notice names the spill file; a "read spilled output" tool reads it back.
//! let reference = capped.spill.clone().expect("saved");
//! let hits = session.grep(&reference.path, "tool output", 3)?;
//! assert_eq!(hits.total_matches, 100_000);
//!
//! // Later, stale outputs shrink to placeholders that keep the reference.
//! let policy = PrunePolicy { keep_last: Some(0), max_total_bytes: None };
//! let pruned = session.prune(&[capped.text], &policy)?;
//! assert_eq!(session.find_refs(&pruned.messages[0])?.len(), 1);
//!
//! // And when a provider refuses a request anyway, `classify` says whether it was its size.
//! let kind = tool_cap.classify(413, "<html><title>413 Request Entity Too Large</title></html>")?;
//! assert!(kind.is_some());
//! # Ok(())
//! # }
//! ```
//!
//! The binary `host-demo` (`cargo run --release -p host-demo`) runs a scripted
//! agent against a simulated provider, without and with the component.

mod bindings;
mod budget;
mod error;
mod runtime;
mod sandbox;
mod session;

pub use bindings::types::{
    Budget, CapError, Capped, CappedParts, ContentPart, EmbeddedResource, GrepMatch, GrepResult,
    Keep, Media, OverflowKind, OverflowRef, Page, PrunePolicy, Pruned, SessionSettings,
};
pub use budget::{DEFAULT_HEAD_PERCENT, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_LINES, budget};
pub use error::Error;
pub use runtime::{RuntimeOptions, ToolCap};
pub use sandbox::SPILL_GUEST_PATH;
pub use session::{Session, SessionConfig};

// The README's Rust example runs as a doc test, so it cannot go stale.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The tool-output-cap component (`toolcap_guest.wasm`), built by `build.rs`.
pub const COMPONENT_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/toolcap_guest.wasm"));

// Hosts share one `ToolCap` across threads and move sessions between them.
const _: () = {
    const fn shareable<T: Send + Sync + Clone>() {}
    const fn movable<T: Send>() {}
    shareable::<ToolCap>();
    movable::<Session>();
};
