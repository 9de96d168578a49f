//! The host's own tools: three that return oversized results. The fourth,
//! the read tool, is the component's (see `read_tool.rs`).

use anyhow::bail;
use serde_json::{Value, json};

use super::conversation::{Part, ToolCall, ToolSpec};
use super::fixtures::{self, BuildLog};
use super::mcp;

/// `grep -rn PATTERN PATH`.
pub const GREP: &str = "grep";
/// An MCP server's tool (`tracker` server, `get_issue` tool).
pub const GET_ISSUE: &str = "tracker.get_issue";
/// `cargo build -p PACKAGE`.
pub const BUILD: &str = "cargo_build";
/// The name the host gives the component's read tool (`SessionConfig::read_tool`):
/// the notices name it, and `read_tool` registers it under it.
pub const READ_TOOL: &str = "read_spilled_output";

/// The tool results, built once and shared by both runs.
pub struct Fixtures {
    pub bundle_grep: String,
    pub issue: Value,
    pub build: BuildLog,
}

impl Fixtures {
    pub fn build() -> Self {
        Self {
            bundle_grep: fixtures::bundle_grep_output(),
            issue: fixtures::issue_call_tool_result(),
            build: fixtures::build_log(),
        }
    }
}

/// A raw tool result, before any capping.
pub enum ToolOutput {
    /// Plain text (a shell command's stdout).
    Text(String),
    /// An MCP `CallToolResult`'s content parts.
    Parts(Vec<Part>),
}

/// The host's own tools as the model is told of them.
pub fn specs() -> Vec<ToolSpec> {
    let spec = |name: &str, description: &str, schema: Value| ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: schema,
    };
    let strings = |fields: &[&str]| {
        let properties: serde_json::Map<String, Value> = fields
            .iter()
            .map(|&field| (field.to_owned(), json!({ "type": "string" })))
            .collect();
        json!({ "type": "object", "properties": properties, "required": fields })
    };
    vec![
        spec(
            GREP,
            "Search files for a literal text, like grep -rn.",
            strings(&["pattern", "path"]),
        ),
        spec(
            GET_ISSUE,
            "Read an issue of the tracker, with its comments (MCP).",
            json!({ "type": "object", "properties": { "issue": { "type": "integer" } },
                    "required": ["issue"] }),
        ),
        spec(BUILD, "Build a package with cargo.", strings(&["package"])),
    ]
}

/// The exit code a tool's command ends with: the build fails as cargo does.
pub fn exit_code(tool: &str) -> Option<i32> {
    (tool == BUILD).then_some(101)
}

/// Whether the host receives a tool's output while its command runs, in
/// chunks (the build), rather than as one finished result.
pub fn streams(tool: &str) -> bool {
    tool == BUILD
}

/// Runs one of the host's own tools.
pub fn run(call: &ToolCall, fixtures: &Fixtures) -> anyhow::Result<ToolOutput> {
    Ok(match call.name.as_str() {
        GREP => ToolOutput::Text(fixtures.bundle_grep.clone()),
        GET_ISSUE => ToolOutput::Parts(mcp::parts_of_call_tool_result(&fixtures.issue)?),
        BUILD => ToolOutput::Text(fixtures.build.text.clone()),
        other => bail!("unknown tool {other}"),
    })
}
