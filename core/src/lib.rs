//! Pure core of tool-output-cap: every decision (budget, cut, notice,
//! references, prune, classify, read-back paging), no wasm and no I/O. The
//! guest wires it to WIT and WASI; tests and benches call it directly.

pub mod budget;
pub mod call;
pub mod cap;
pub mod classify;
pub mod cut;
pub mod error;
pub mod json_preview;
pub mod naming;
pub mod notice;
pub mod parts;
pub mod prune;
pub mod readback;
pub mod refs;
pub mod text;

pub use budget::{Budget, Keep, NoticeRoom};
pub use call::Call;
pub use cap::{Capped, Capper, PreviewFeatures, PreviewSettings, SpillStore};
pub use error::CapError;
pub use notice::{NoticeForm, NoticeStyle};
pub use parts::{CappedParts, Media, Part, Resource, cap_parts};
pub use prune::{PrunePolicy, Pruned, prune};
pub use refs::{OverflowRef, RefScheme};
