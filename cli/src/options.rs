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

/// The end of `--help` of both subcommands: what an installed binary has
/// no README for.
const FILES_HELP: &str = "\
Config file (TOML; every key optional, an unknown key is an error naming it):
  spill_dir, key_file, thread, retention_days, allow_shared_spill_dir,
  redact, redact_spill, redact_literals = [\"own secret\", ...] (file only),
  log_file; for mcp also timeout_seconds, resource_link, passthrough,
  read_tool_name, max_message_bytes, search_keys = [\"pattern\", ...]
  ([] = none), url, [headers] NAME = \"value\"
  (values take ${ENV_VAR}), listen, client_token, allow_origins,
  idle_timeout_seconds;
  [budget] max_bytes, max_lines, max_tokens;
  [tools.NAME] max_bytes, max_lines, max_tokens, passthrough, search (mcp).
  Options win over environment variables, which win over the file. Relative
  paths in the file are taken from the file's folder.
  Found at: --config FILE, else $TOOLCAP_CONFIG, else
  $XDG_CONFIG_HOME/toolcap/config.toml (~/.config/toolcap/config.toml).

Files:
  Saved outputs: <spill dir>/<thread>/<call>-<digest>.txt, owner-only; the
  spill dir defaults to ~/.cache/toolcap/spill. The key file (32 random
  bytes, mode 0600, default ~/.cache/toolcap/key) makes references verify
  across runs; whoever reads it can forge them. `toolcap spills` lists,
  counts, sweeps and shows saved outputs.

Exit status: the command's own (cap), 2 for bad options or files, 130/143
when stopped by SIGINT/SIGTERM.";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Cap standard input, or a command's joined stdout and stderr, to the
    /// budget; the full output is saved and the notice says where.
    #[command(after_long_help = FILES_HELP)]
    Cap(CapArgs),
    /// Run an MCP server over stdio (or reach one over HTTP with --url)
    /// behind a proxy that caps its tool results and adds a tool to read
    /// saved outputs back.
    #[command(after_long_help = FILES_HELP)]
    Mcp(McpArgs),
    /// List, count, sweep or show the saved outputs of a spill directory.
    #[command(after_long_help = FILES_HELP)]
    Spills(SpillsArgs),
}

#[derive(Args, Debug)]
pub struct SpillsArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(subcommand)]
    pub command: SpillsCommand,
}

#[derive(Subcommand, Debug)]
pub enum SpillsCommand {
    /// Every saved output, oldest first per thread: saved at, bytes, lines,
    /// tool, call id, path.
    List {
        /// Only this thread (needed for a thread whose id is not its
        /// folder's name).
        #[arg(long = "for-thread", value_name = "ID")]
        thread: Option<String>,
    },
    /// How many saved outputs, their bytes, the oldest and the newest.
    Stats,
    /// Delete what the retention period (--retention-days) and the limits
    /// below no longer keep, oldest first; never a file before the expiry
    /// its notice promised.
    Sweep {
        /// Delete the oldest until the rest hold at most this many bytes.
        #[arg(long, value_name = "BYTES")]
        max_total_bytes: Option<u64>,
        /// Delete the oldest until at most this many are left.
        #[arg(long, value_name = "N")]
        max_files: Option<u32>,
    },
    /// Write a saved output to stdout, given its reference (a notice, or
    /// its `[toolcap-ref ...]` line); a forged or foreign reference is refused.
    Show {
        /// The text holding the reference.
        #[arg(value_name = "REF")]
        reference: String,
    },
}

/// Options of both subcommands.
#[derive(Args, Debug)]
pub struct CommonArgs {
    /// TOML config file (its keys: see the end of `--help`); options given
    /// here win. Without it: the file TOOLCAP_CONFIG names, else
    /// $XDG_CONFIG_HOME/toolcap/config.toml (~/.config/toolcap/config.toml)
    /// when it exists.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Append one JSON line per capped result to FILE: time, server (mcp) or
    /// command, tool, original and sent bytes and tokens, spill path, and
    /// how many secrets of each kind were redacted (counts only).
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Most bytes of a result's text, notice included (default 24576; 0 = no cap).
    #[arg(long, global = true, value_name = "N")]
    pub max_bytes: Option<u32>,
    /// Most lines of a result's text, notice included (default: no limit).
    #[arg(long, global = true, value_name = "N")]
    pub max_lines: Option<u32>,
    /// Most estimated tokens of a result's text (default: no limit).
    #[arg(long, global = true, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Where full outputs are saved (default: <cache dir>/toolcap/spill).
    #[arg(long, global = true, value_name = "DIR", env = "TOOLCAP_SPILL_DIR")]
    pub spill_dir: Option<PathBuf>,
    /// The session key, so references verify across runs (default:
    /// <cache dir>/toolcap/key, created with 32 random bytes if missing).
    #[arg(long, global = true, value_name = "FILE", env = "TOOLCAP_KEY_FILE")]
    pub key_file: Option<PathBuf>,
    /// The thread folder id inside the spill directory.
    #[arg(long, global = true, value_name = "ID")]
    pub thread: Option<String>,
    /// How long saved outputs are kept, in days (default 7; 0 = forever).
    #[arg(long, global = true, value_name = "N")]
    pub retention_days: Option<u64>,
    /// Redact secrets (tokens, keys, passwords...) in everything the model
    /// is shown: previews, read-tool answers, structured content, metadata.
    /// The saved file keeps the output as it was unless --redact-spill.
    #[arg(long, global = true)]
    pub redact: bool,
    /// Redact the saved files too (implies --redact).
    #[arg(long, global = true)]
    pub redact_spill: bool,
    /// Use a spill directory (or thread folder) that another user owns or
    /// that its group or others can write. Refused by default: whoever can
    /// write there can read saved outputs and replace them.
    #[arg(long, global = true)]
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
    /// What the output was searched for: literal text whose first hits a
    /// cut preview shows (repeatable, one alternative each; at most 16 of
    /// at most 256 bytes). Without it, taken from a grep, egrep, fgrep, rg,
    /// git grep, ag or ack command line (also in a simple `sh -c` script);
    /// `--search ''` takes none.
    #[arg(long = "search", value_name = "TEXT")]
    pub search: Vec<String>,
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
    /// Seconds the server has to answer a request; an unanswered request
    /// then gets an error and the server a cancellation (default: no limit,
    /// as without the proxy).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Also add a `resource_link` block pointing at a saved output: its
    /// `toolcap://spill/` resource, which the proxy serves.
    #[arg(long)]
    pub resource_link: bool,
    /// A `tools/call` argument whose string value (or array of strings) is
    /// what the tool searched for, so that a cut preview shows its first
    /// hits (repeatable; replaces the default keys pattern, query, search,
    /// regex, grep, q).
    #[arg(long = "search-key", value_name = "KEY")]
    pub search_keys: Vec<String>,
    /// Take no search from the calls' arguments.
    #[arg(long, conflicts_with = "search_keys")]
    pub no_search: bool,
    /// Name of the added read tool (default read_spilled_output).
    #[arg(long, value_name = "NAME")]
    pub read_tool_name: Option<String>,
    /// Longest message passed on either way, in bytes (default 268435456,
    /// 256 MiB); a longer one is answered with an error that says so.
    #[arg(long, value_name = "BYTES")]
    pub max_message_bytes: Option<u64>,
    /// A remote MCP server's endpoint (Streamable HTTP), instead of a
    /// command: `--url https://host/mcp`.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// A header sent with every request to the --url server (repeatable):
    /// `--header 'Authorization: Bearer ${TOKEN}'`. `${NAME}` is taken from
    /// the environment, so the token stays out of argv; values are never
    /// logged nor written in notices.
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = crate::headers::parse_header)]
    pub headers: Vec<crate::headers::HeaderSpec>,
    /// Serve clients over Streamable HTTP at http://ADDR/mcp instead of
    /// stdio (ADDR: a port on 127.0.0.1, or IP:PORT). Each client session
    /// gets its own server process (or remote session) and spill folder.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// With --listen: clients must send `Authorization: Bearer TOKEN`
    /// (`${NAME}` is taken from the environment). Needed to listen on an
    /// address other than loopback.
    #[arg(long, value_name = "TOKEN")]
    pub client_token: Option<String>,
    /// With --listen: an Origin allowed besides localhost (repeatable);
    /// requests from other origins are refused (DNS rebinding).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// With --listen: a session with no request and no open stream for
    /// SECS is ended with its server (default 3600).
    #[arg(long, value_name = "SECS")]
    pub idle_timeout: Option<u64>,
    /// The MCP server's command and arguments, after `--` (or --url).
    #[arg(last = true, value_name = "SERVER")]
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
