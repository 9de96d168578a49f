//! The tool-output-cap component: WIT glue over `toolcap-core`, plus spill
//! I/O through `wasi:filesystem` (not `std::fs`: its open flags include
//! `mutate-directory`, which jco's preview2-shim refuses).
//!
//! Build: `cargo build --profile guest --target wasm32-wasip2 -p toolcap-guest`

// Generated glue is the only unsafe code: it implements the canonical ABI.
#[allow(unsafe_code)]
mod bindings {
    wit_bindgen::generate!({ path: "../wit", world: "tool-output-cap" });
    use super::Component;
    export!(Component);
}
mod convert;
mod files;
mod fs_error;
mod listing;
mod mcp_stream;
mod session;
mod session_state;
mod spill_dir;
mod store;
mod stream;

use bindings::exports::toolcap::tool_output_cap::{capper, errors};
use bindings::toolcap::tool_output_cap::types;

/// The exported component.
struct Component;

impl capper::Guest for Component {
    type Session = session::Session;
    type CapStream = stream::Stream;
    type McpStream = mcp_stream::Streamed;
    type SpillStore = store::Store;
}

impl errors::Guest for Component {
    fn classify(status: u16, body: String) -> Option<types::Overflow> {
        toolcap_core::classify::classify(status, &body).map(convert::overflow)
    }
}
