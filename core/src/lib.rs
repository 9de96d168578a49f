//! Pure core of tool-output-cap: every decision (budget, cut, notice,
//! references, prune, classify, read-back paging), no wasm and no I/O. The
//! guest wires it to WIT and WASI; tests and benches call it directly.
//!
//! ```
//! use toolcap_core::{Budget, Call, CapError, Capper, RefScheme, SpillStore};
//!
//! /// Where the guest writes through WASI, a test keeps the spill in memory.
//! #[derive(Default)]
//! struct Memory(Vec<(String, Vec<u8>)>);
//!
//! impl SpillStore for Memory {
//!     fn save(&mut self, dir: &str, name: &str, content: &[u8]) -> Result<(), CapError> {
//!         self.0.push((format!("{dir}/{name}"), content.to_vec()));
//!         Ok(())
//!     }
//! }
//!
//! let scheme = RefScheme::new("/home/me/spill", "thread-42", vec![7; 32])?;
//! let capper = Capper::new(scheme);
//! let log = "   Compiling dep v0.1.0\n".repeat(5_000);
//! let call = Call { exit_code: Some(101), ..Call::new("call-1") };
//! let mut store = Memory::default();
//! let capped = capper.cap_call(&log, &Budget::default(), &call, &mut store)?;
//!
//! assert!(capped.truncated && capped.text.len() <= 16 * 1024);
//! assert!(capped.text.contains("failed (exit code 101)"));
//! // The full output is saved byte for byte, and the notice names it.
//! assert_eq!(store.0[0].1, log.as_bytes());
//! let reference = capped.spill.expect("saved");
//! assert_eq!(capper.scheme().find_refs(&capped.text).last(), Some(&reference));
//! # Ok::<(), CapError>(())
//! ```

pub mod batch;
pub mod bisect;
pub mod budget;
pub mod call;
pub mod cap;
pub mod capper;
pub mod catalog;
pub mod classify;
pub mod error;
pub mod mcp;
pub mod naming;
pub mod notice;
pub mod order;
pub mod parts;
pub mod plan;
pub mod preview;
pub mod prune;
mod raw_json;
pub mod read_tool;
pub mod readback;
pub mod redact;
pub mod refs;
pub mod retention;
mod room;
pub mod settings;
pub mod stream;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
pub mod text;
pub mod token_sample;
pub mod tokens;

pub use budget::{Budget, Keep, NoticeRoom};
pub use call::Call;
pub use capper::{Capped, Capper, SpillStore};
pub use error::CapError;
pub use mcp::{CappedMcp, McpOptions, McpStream, cap_mcp};
pub use notice::{NoticeForm, NoticeStyle};
pub use parts::{CappedParts, Media, Part, Resource, cap_parts};
pub use prune::{PrunePolicy, Pruned, prune};
pub use redact::{Redactions, Redactor};
pub use refs::{OverflowRef, RefScheme};
pub use settings::{PreviewFeatures, PreviewSettings};
pub use stream::{CapStream, SpillWriter};
