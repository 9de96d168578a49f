//! The command line (clap). Every option also has a key in the config file;
//! options win over the file.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "toolcap",
    version,
    about = "Cap tool output for AI agents: any command's output, or every result of an MCP server",
    long_about = None
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Cap standard input, or a command's joined stdout and stderr, to the
    /// budget; the full output is saved and the notice says where.
    Cap(CapArgs),
    /// Run an MCP server over stdio behind a proxy that caps its tool
    /// results and adds a tool to read saved outputs back.
    Mcp(McpArgs),
}

/// Options of both subcommands.
#[derive(Args, Debug)]
pub struct CommonArgs {
    /// TOML config file (see cli/README.md); options given here win.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Most bytes of a result's text, notice included (default 24576; 0 = no cap).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<u32>,
    /// Most lines of a result's text, notice included (default: no limit).
    #[arg(long, value_name = "N")]
    pub max_lines: Option<u32>,
    /// Most estimated tokens of a result's text (default: no limit).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Where full outputs are saved (default: <cache dir>/toolcap/spill).
    #[arg(long, value_name = "DIR", env = "TOOLCAP_SPILL_DIR")]
    pub spill_dir: Option<PathBuf>,
    /// The session key, so references verify across runs (default:
    /// <cache dir>/toolcap/key, created with 32 random bytes if missing).
    #[arg(long, value_name = "FILE", env = "TOOLCAP_KEY_FILE")]
    pub key_file: Option<PathBuf>,
    /// The thread folder id inside the spill directory.
    #[arg(long, value_name = "ID")]
    pub thread: Option<String>,
    /// How long saved outputs are kept, in days (default 7; 0 = forever).
    #[arg(long, value_name = "N")]
    pub retention_days: Option<u64>,
    /// Redact secrets (tokens, keys, passwords...) in everything the model
    /// is shown: previews, read-tool answers, structured content, metadata.
    /// The saved file keeps the output as it was unless --redact-spill.
    #[arg(long)]
    pub redact: bool,
    /// Redact the saved files too (implies --redact).
    #[arg(long)]
    pub redact_spill: bool,
    /// Use a spill directory (or thread folder) that another user owns or
    /// that its group or others can write. Refused by default: whoever can
    /// write there can read saved outputs and replace them.
    #[arg(long)]
    pub allow_shared_spill_dir: bool,
}

#[derive(Args, Debug)]
pub struct CapArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The call id that names the saved file (default: the tool name).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The tool name quoted in the notice (default: the command's file name).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// The command to run, after `--`; without one, standard input is capped.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// A tool's own byte budget (repeatable).
    #[arg(long = "tool-budget", value_name = "NAME=BYTES", value_parser = parse_tool_budget)]
    pub tool_budgets: Vec<(String, u32)>,
    /// Forward every result untouched (the read tool is still added).
    #[arg(long)]
    pub passthrough: bool,
    /// Seconds the server has to answer a request (default 300; 0 = no limit).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Also add a `resource_link` block pointing at a saved output.
    #[arg(long)]
    pub resource_link: bool,
    /// Name of the added read tool (default read_spilled_output).
    #[arg(long, value_name = "NAME")]
    pub read_tool_name: Option<String>,
    /// Longest message passed on either way, in bytes (default 268435456,
    /// 256 MiB); a longer one is answered with an error that says so.
    #[arg(long, value_name = "BYTES")]
    pub max_message_bytes: Option<u64>,
    /// The MCP server's command and arguments, after `--`.
    #[arg(last = true, required = true, value_name = "SERVER")]
    pub server: Vec<OsString>,
}

/// `NAME=BYTES` of `--tool-budget`.
fn parse_tool_budget(text: &str) -> Result<(String, u32), String> {
    let (name, bytes) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=BYTES"))?;
    if name.is_empty() {
        return Err(format!("`{text}` has no tool name before `=`"));
    }
    let bytes = bytes
        .parse()
        .map_err(|e| format!("`{bytes}` in `{text}` is not a byte count: {e}"))?;
    Ok((name.to_owned(), bytes))
}
