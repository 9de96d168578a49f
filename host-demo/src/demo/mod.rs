//! The demo's parts: tool results, a simulated provider and model, the agent
//! loop, its checks and its report.

pub mod agent;
pub mod checks;
pub mod conversation;
pub mod fixtures;
pub mod mcp;
pub mod model;
pub mod parallel;
pub mod provider;
pub mod pruning;
pub mod read_tool;
pub mod report;
pub mod results;
pub mod retention;
pub mod tools;

use tool_output_cap::OverflowKind;

/// The WIT name of an overflow kind.
pub fn kind_name(kind: OverflowKind) -> &'static str {
    match kind {
        OverflowKind::RequestTooLarge => "request-too-large",
        OverflowKind::ContextLengthExceeded => "context-length-exceeded",
    }
}
