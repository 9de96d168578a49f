//! Fuzz checks for `toolcap-core` (STYLE.md point 9).
//!
//! Each check takes the raw bytes a fuzzer hands over, shapes them into an
//! input with [`arbitrary`], calls the core and asserts its invariants by
//! panicking. The cargo-fuzz targets in `fuzz_targets/` call these functions on
//! nightly; each module's `#[test] fn smoke()` calls them on stable with
//! random bytes, so the checks build and run in every `cargo test`.
//!
//! Each check returns which path of the code under test the input reached, so
//! the smoke tests can prove that their random inputs reach every path rather
//! than bouncing off the input format.

pub mod cap;
pub mod classify;
pub mod find_refs;
pub mod json_document;
pub mod mcp_stream;
pub mod notable_classify;
pub mod notable_walk;
pub mod pieces;
pub mod read_tool;
pub mod readback;
#[cfg(test)]
mod smoke;
pub mod stream;

pub use cap::check_cap;
pub use classify::check_classify;
pub use find_refs::check_find_refs;
pub use json_document::check_json_document;
pub use mcp_stream::check_mcp_stream;
pub use notable_classify::check_notable_classify;
pub use notable_walk::check_notable_walk;
pub use read_tool::check_read_tool;
pub use readback::check_readback;
pub use stream::check_stream;
