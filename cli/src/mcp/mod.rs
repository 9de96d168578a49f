//! `toolcap mcp`: starts an MCP server over stdio and stands between it and
//! the client, capping tool results and adding the read tool.

mod answers;
mod capper;
mod lines;
mod message;
mod pending;
mod proxy;

use std::ffi::OsString;
use std::io::{self, BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use tool_output_cap::{Limits, RuntimeOptions};

use self::capper::{Capper, Policy};
use self::lines::Event;
use self::pending::Pending;
use self::proxy::{Proxy, Server};
use crate::config::ToolTable;
use crate::failure::Failure;
use crate::log;
use crate::options::McpArgs;
use crate::settings::Common;

/// Default seconds the server has to answer a request.
const DEFAULT_TIMEOUT_SECONDS: u64 = 300;
/// Default name of the added read tool.
const DEFAULT_READ_TOOL: &str = "read_spilled_output";
/// The component's memory limit in the proxy: a `tools/call` result of
/// 100 MiB and more must cap, not fail (the default 256 MiB is sized for
/// a 64 MiB input). Memory a large call used is given back afterwards.
const MEMORY_LIMIT_BYTES: usize = 1 << 30;
/// Exit status when the server cannot be started.
const SERVER_NOT_STARTED: u8 = 1;

pub fn run(args: McpArgs) -> Result<u8, Failure> {
    let common = Common::resolve(&args.common)?;
    let file = &common.file;
    let thread = common
        .thread
        .clone()
        .unwrap_or_else(|| format!("mcp-{}", command_line(&args.server)));
    let read_tool_name = args
        .read_tool_name
        .clone()
        .or_else(|| file.read_tool_name.clone())
        .unwrap_or_else(|| DEFAULT_READ_TOOL.to_owned());
    let timeout = args
        .timeout
        .or(file.timeout_seconds)
        .unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    let mut tools = file.tools.clone();
    for (tool, bytes) in &args.tool_budgets {
        tools
            .entry(tool.clone())
            .or_insert_with(ToolTable::default)
            .max_bytes = Some(*bytes);
    }
    let policy = Policy {
        default_budget: common.budget,
        default_table: common.budget_table,
        tools,
        passthrough: args.passthrough || file.passthrough.unwrap_or(false),
        resource_link: args.resource_link || file.resource_link.unwrap_or(false),
    };

    common.check_spill_dir()?;
    let key = common.key()?;
    let options = RuntimeOptions {
        limits: Limits {
            memory_bytes: Some(MEMORY_LIMIT_BYTES),
            ..Limits::default()
        },
        ..RuntimeOptions::default()
    };
    let tool_cap = crate::runtime::tool_cap(&options)?;
    crate::sweep::at_start(&tool_cap, &common);
    let config = tool_output_cap::SessionConfig {
        read_tool: Some(read_tool_name.clone()),
        ..common.session_config(thread, key)
    };
    let mut capper = Capper::open(tool_cap, config, policy)
        .map_err(|e| Failure::failed(format!("cannot open a session: {e}")))?;
    capper.check_budgets().map_err(Failure::usage)?;
    let read_tool_entry = capper.read_tool_entry().map_err(Failure::failed)?;

    let (events, received) = mpsc::channel();
    let server = start_server(&args.server, events.clone())?;
    lines::read_lines(io::stdin(), events, Event::Client, Event::ClientClosed);
    let (to_client, client_writer) = lines::write_lines("client (stdout)", io::stdout());
    let proxy = Proxy {
        events: received,
        to_client,
        client_writer,
        server,
        capper,
        pending: Pending::new((timeout > 0).then(|| Duration::from_secs(timeout))),
        read_tool_entry,
        read_tool_name,
    };
    Ok(proxy.serve())
}

/// Starts the server with piped stdio, and the threads that move its lines.
fn start_server(command: &[OsString], events: mpsc::Sender<Event>) -> Result<Server, Failure> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| Failure::usage("no MCP server command after `--`"))?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure {
            code: SERVER_NOT_STARTED,
            message: format!(
                "cannot start the MCP server `{}`: {e}",
                command_line(command)
            ),
        })?;
    let (stdin, stdout, stderr) = (
        child.stdin.take().expect("piped"),
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    let (to_server, _writer) = lines::write_lines("server's stdin", stdin);
    lines::read_lines(stdout, events, Event::Server, Event::ServerClosed);
    let last_stderr = Arc::new(Mutex::new(None));
    let stderr_ended = forward_stderr(stderr, Arc::clone(&last_stderr));
    Ok(Server {
        child,
        to_server: Some(to_server),
        last_stderr,
        stderr_ended,
    })
}

/// Passes the server's stderr on to ours, a line at a time, prefixed, and
/// keeps the last line for the error message if the server dies. The
/// receiver hears when stderr has ended.
fn forward_stderr(
    stderr: impl io::Read + Send + 'static,
    last: Arc<Mutex<Option<String>>>,
) -> mpsc::Receiver<()> {
    let (ended, stderr_ended) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).split(b'\n') {
            let Ok(line) = line else { break };
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches('\r');
            log::line(&format!("server: {text}"));
            if !text.trim().is_empty()
                && let Ok(mut last) = last.lock()
            {
                *last = Some(text.to_owned());
            }
        }
        let _ = ended.send(());
    });
    stderr_ended
}

/// The command line as one string (lossy), for the thread id and messages.
fn command_line(command: &[OsString]) -> String {
    command
        .iter()
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
