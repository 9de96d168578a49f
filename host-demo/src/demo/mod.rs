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
pub mod run;
pub mod text;
pub mod tools;
