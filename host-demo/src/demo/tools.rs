//! The host's tools: three that return oversized results, and `read_spilled`,
//! which reads a spilled output back through the component.

use anyhow::{Context as _, bail};
use serde_json::Value;

use super::conversation::{Part, ToolCall};
use super::fixtures::{self, BuildLog};
use super::mcp;
use tool_output_cap::{GrepResult, Page, Session};

/// `grep -rn PATTERN PATH`.
pub const GREP: &str = "grep";
/// An MCP server's tool (`tracker` server, `get_issue` tool).
pub const GET_ISSUE: &str = "tracker.get_issue";
/// `cargo build -p PACKAGE`.
pub const BUILD: &str = "cargo_build";
/// Reads a spilled tool output: `{path, grep}` or `{path, first_line, count}`.
pub const READ_SPILLED: &str = "read_spilled";

/// Most matches and bytes `read_spilled` returns: small, it answers a question.
const READ_MAX_MATCHES: u32 = 5;
const READ_MAX_BYTES: u32 = 4096;

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

/// What `read_spilled` got from the component, kept for the demo's checks.
pub enum ReadBack {
    Grep(GrepResult),
    Lines(Page),
}

/// Runs one tool call. `read_spilled` needs a session (the host without the
/// component has none) and reports what it read in `read_backs`.
/// The exit code a tool's command ends with: the build fails as cargo does.
pub fn exit_code(tool: &str) -> Option<i32> {
    (tool == BUILD).then_some(101)
}

pub fn run(
    call: &ToolCall,
    fixtures: &Fixtures,
    session: Option<&mut Session>,
    read_backs: &mut Vec<ReadBack>,
) -> anyhow::Result<ToolOutput> {
    Ok(match call.name.as_str() {
        GREP => ToolOutput::Text(fixtures.bundle_grep.clone()),
        GET_ISSUE => ToolOutput::Parts(mcp::parts_of_call_tool_result(&fixtures.issue)?),
        BUILD => ToolOutput::Text(fixtures.build.text.clone()),
        READ_SPILLED => {
            let session = session.context("read_spilled needs the component")?;
            ToolOutput::Text(read_spilled(&call.arguments, session, read_backs)?)
        }
        other => bail!("unknown tool {other}"),
    })
}

fn read_spilled(
    arguments: &Value,
    session: &mut Session,
    read_backs: &mut Vec<ReadBack>,
) -> anyhow::Result<String> {
    let path = arguments["path"]
        .as_str()
        .context("read_spilled: no path")?;
    if let Some(pattern) = arguments["grep"].as_str() {
        let found = session.grep(path, pattern, READ_MAX_MATCHES)?;
        let mut text = format!("{} matches of {pattern:?} in {path}\n", found.total_matches);
        for hit in &found.matches {
            text.push_str(&format!("line {}: {}\n", hit.line, hit.excerpt));
        }
        read_backs.push(ReadBack::Grep(found));
        return Ok(text);
    }
    let first_line = arguments["first_line"]
        .as_u64()
        .context("read_spilled: no first_line")?;
    let count = arguments["count"]
        .as_u64()
        .context("read_spilled: no count")?;
    let page = session.read_lines(path, first_line, count.try_into()?, READ_MAX_BYTES)?;
    let text = format!("lines {first_line}.. of {path}:\n{}", page.text);
    read_backs.push(ReadBack::Lines(page));
    Ok(text)
}
