//! The core's tests from outside the crate, one binary: properties of the
//! capper, the one-pass preview, plans, references, `cap-mcp` and the read
//! tool, the redaction corpus, and the 0.1 previews pinned.
//!
//! `cargo test --release -p toolcap-core --test all [module::]`

mod common;

mod cap_properties;
mod mcp_properties;
mod module_graph;
mod plan_properties;
mod preview_0_1;
mod preview_properties;
mod read_tool;
mod redact_corpus;
mod ref_properties;
mod stream_properties;
