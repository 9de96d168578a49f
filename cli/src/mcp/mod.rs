//! `toolcap mcp`: starts an MCP server over stdio (or reaches a remote one
//! over Streamable HTTP) and stands between it and the client, capping tool
//! results and adding the read tool.

mod answers;
mod capper;
mod duplicates;
mod lifted;
mod lines;
mod listen;
mod message;
mod pending;
mod proxy;
mod remote;
mod resources;
mod spill_uri;

use crate::headers::HeaderSpec;

use std::ffi::OsString;
use std::io;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use tool_output_cap::{Limits, RuntimeOptions};

use self::capper::{Capper, Policy};
use self::lines::{Event, Flow};
use self::pending::Pending;
use self::proxy::{Proxy, Server, Upstream};
use self::remote::Remote;
use crate::config::ToolTable;
use crate::events::EventLog;
use crate::failure::Failure;
use crate::log;
use crate::options::McpArgs;
use crate::settings::Common;
use crate::signals::{self, Signal};

/// Default name of the added read tool.
const DEFAULT_READ_TOOL: &str = "read_spilled_output";
/// The component's memory limit in the proxy: a `tools/call` result of
/// 100 MiB and more must cap, not fail (the default 256 MiB is sized for
/// a 64 MiB input). Memory a large call used is given back afterwards.
const MEMORY_LIMIT_BYTES: usize = 1 << 30;
/// Exit status when the server cannot be started.
const SERVER_NOT_STARTED: u8 = 1;
/// Default longest message passed on either way: a `tools/call` result of
/// 100 MiB and more is capped; a longer one would cost the proxy more
/// memory than capping it is worth, and gets an error result instead.
const DEFAULT_MAX_MESSAGE_BYTES: u64 = 256 << 20;
/// Bytes read from one side and not yet written to the other before the
/// proxy stops reading that side (beyond the one message being moved).
const IN_FLIGHT_BYTES: usize = 8 << 20;
/// Bytes of one server stderr line passed on to ours; the rest is counted.
const STDERR_LINE_BYTES: usize = 8 << 10;

pub fn run(args: McpArgs) -> Result<u8, Failure> {
    let common = Common::resolve(&args.common)?;
    let file = &common.file;
    let remote = remote_of(&args, file)?;
    let thread = common.thread.clone().unwrap_or_else(|| match &remote {
        Some(remote) => remote_thread(remote),
        None => default_thread(&args.server),
    });
    let read_tool_name = args
        .read_tool_name
        .clone()
        .or_else(|| file.read_tool_name.clone())
        .unwrap_or_else(|| DEFAULT_READ_TOOL.to_owned());
    let timeout = timeout(args.timeout, file.timeout_seconds);
    let max_message = args
        .max_message_bytes
        .or(file.max_message_bytes)
        .unwrap_or(DEFAULT_MAX_MESSAGE_BYTES);
    if max_message == 0 {
        return Err(Failure::usage("--max-message-bytes must be at least 1"));
    }
    let listen = listen::options(&args, file)?;
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
        redact: common.redaction.is_some(),
        search_keys: search_keys(&args, file),
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
    let config = tool_output_cap::SessionConfig {
        read_tool: Some(read_tool_name.clone()),
        ..common.session_config(thread, key)
    };
    let program = match &remote {
        Some(remote) => remote.url.host_str().map(str::to_owned),
        None => crate::cap_command::command_name(&args.server),
    };
    let events = EventLog::open(common.log_file.as_deref(), "mcp", program)?;
    let mut setup = Setup {
        tool_cap,
        config,
        policy,
        events,
        read_tool_name,
        read_tool_entry: String::new(),
        timeout,
        max_message,
        upstream: match remote {
            Some(remote) => UpstreamSpec::Remote(remote),
            None => UpstreamSpec::Command(args.server.clone()),
        },
    };
    let thread = setup.config.thread_id.clone();
    let mut capper = setup.capper(&thread)?;
    // The session creates the directory; one it could not be granted is
    // said once, and not swept.
    if capper.has_spill_dir() {
        crate::sweep::at_start(&setup.tool_cap, &common);
    } else {
        common.warn_spill_dir_not_granted();
    }
    capper.check_budgets().map_err(Failure::usage)?;
    setup.read_tool_entry = capper.read_tool_entry().map_err(Failure::failed)?;
    match listen {
        Some(listen) => listen::serve(setup, listen),
        None => serve_stdio(&setup, capper),
    }
}

/// The argument keys calls give their search from: `--search-key`, else
/// the file's `search_keys`, else the default ones; none with `--no-search`.
fn search_keys(args: &McpArgs, file: &crate::config::FileConfig) -> Vec<String> {
    if args.no_search {
        return Vec::new();
    }
    if !args.search_keys.is_empty() {
        return args.search_keys.clone();
    }
    file.search_keys.clone().unwrap_or_else(|| {
        crate::search::arguments::DEFAULT_KEYS
            .iter()
            .map(|key| (*key).to_owned())
            .collect()
    })
}

/// What the server is: a command to start, or a remote URL.
enum UpstreamSpec {
    Command(Vec<OsString>),
    Remote(Remote),
}

/// Everything a proxy session needs, the same for each client.
struct Setup {
    tool_cap: tool_output_cap::ToolCap,
    /// The session settings; each session has its own thread folder.
    config: tool_output_cap::SessionConfig,
    policy: Policy,
    events: EventLog,
    read_tool_name: String,
    read_tool_entry: String,
    timeout: Option<Duration>,
    max_message: u64,
    upstream: UpstreamSpec,
}

impl Setup {
    fn max_line(&self) -> usize {
        usize::try_from(self.max_message).unwrap_or(usize::MAX)
    }

    /// A component session whose spills go to the thread folder `thread`.
    fn capper(&self, thread: &str) -> Result<Capper, Failure> {
        let config = tool_output_cap::SessionConfig {
            thread_id: thread.to_owned(),
            ..self.config.clone()
        };
        let events = self.events.try_clone()?;
        Capper::open(self.tool_cap.clone(), config, self.policy.clone(), events)
            .map_err(crate::failure::session_failure)
    }

    /// Starts the server (or connects to it); its messages arrive on `events`.
    fn start_server(&self, events: &mpsc::Sender<Event>) -> Result<Server, Failure> {
        match &self.upstream {
            UpstreamSpec::Remote(remote) => {
                let (to_server, connection) =
                    remote::connect(remote, events.clone(), IN_FLIGHT_BYTES, self.max_line())?;
                Ok(Server {
                    to_server: Some(to_server),
                    upstream: Upstream::Remote(connection),
                })
            }
            UpstreamSpec::Command(command) => {
                start_server(command, events.clone(), self.max_line())
            }
        }
    }

    /// The proxy between a client and a server, ready to serve.
    fn proxy(
        &self,
        capper: Capper,
        server: Server,
        received: mpsc::Receiver<Event>,
        to_client: mpsc::Sender<lines::Outgoing>,
        client_writer: thread::JoinHandle<()>,
    ) -> Proxy {
        Proxy {
            events: received,
            to_client,
            client_writer,
            server,
            capper,
            pending: Pending::new(self.timeout),
            read_tool_entry: self.read_tool_entry.clone(),
            read_tool_name: self.read_tool_name.clone(),
            max_message: self.max_message,
        }
    }
}

/// One client on stdio.
fn serve_stdio(setup: &Setup, capper: Capper) -> Result<u8, Failure> {
    let (events, received) = mpsc::channel();
    // Heard before the server starts, so that no signal leaves it behind.
    let server_pid = watch_signals(events.clone());
    let server = setup.start_server(&events)?;
    if let Upstream::Process { child, .. } = &server.upstream {
        server_pid.store(child.id(), Ordering::SeqCst);
    }
    lines::read_lines(
        io::stdin(),
        events,
        Flow::new(IN_FLIGHT_BYTES),
        setup.max_line(),
        Event::Client,
        Event::ClientClosed,
    );
    let (to_client, client_writer) = lines::write_lines("client (stdout)", io::stdout());
    Ok(setup
        .proxy(capper, server, received, to_client, client_writer)
        .serve())
}

/// How long the server has to answer a request: the option's seconds, else
/// the file's; no limit unless asked (or 0), so a long tool call works as it
/// does without the proxy.
fn timeout(option: Option<u64>, file: Option<u64>) -> Option<Duration> {
    option
        .or(file)
        .filter(|&seconds| seconds > 0)
        .map(Duration::from_secs)
}

/// The first SIGINT, SIGTERM or SIGHUP goes to the router, which stops
/// cleanly; a second one, if the router is busy, stops the server's group
/// (its pid is set in the returned cell once it runs) and the proxy at once.
fn watch_signals(events: mpsc::Sender<Event>) -> Arc<AtomicU32> {
    let server = Arc::new(AtomicU32::new(0));
    let pid = Arc::clone(&server);
    let heard = AtomicBool::new(false);
    signals::watch(move |signal: Signal| {
        if !heard.swap(true, Ordering::SeqCst) {
            let _ = events.send(Event::Signal(signal));
            return;
        }
        log::line(&format!("stopping at once ({})", signal.name()));
        let pid = pid.load(Ordering::SeqCst);
        if pid != 0 {
            signals::kill_group_of(pid);
        }
        std::process::exit(i32::from(signal.exit_code()));
    });
    server
}

/// The default thread id: `mcp-`, the server program's file name, and a
/// hash of the whole command line, so that each server has its own folder
/// and nothing of its arguments (tokens, paths) is written in a notice.
fn default_thread(command: &[OsString]) -> String {
    use sha2::Digest as _;
    let mut hash = sha2::Sha256::new();
    for part in command {
        hash.update(part.as_encoded_bytes());
        hash.update([0]);
    }
    let digest = hash.finalize();
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    let name: String = command
        .first()
        .and_then(|program| std::path::Path::new(program).file_name())
        .map(|name| name.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(24)
        .collect();
    format!("mcp-{name}-{hex}")
}

/// The remote server of `--url` (or the file's `url`), with the headers of
/// the file and `--header` (options win, name by name); `None` for a server
/// command. One of the two, not both.
fn remote_of(args: &McpArgs, file: &crate::config::FileConfig) -> Result<Option<Remote>, Failure> {
    let url = args.url.as_deref().or(file.url.as_deref());
    let url = match (url, args.server.is_empty()) {
        (None, true) => {
            return Err(Failure::usage(
                "no MCP server: give its command after `--`, or its URL with --url",
            ));
        }
        (None, false) => return Ok(None),
        (Some(_), false) if args.url.is_some() => {
            return Err(Failure::usage(
                "--url and a server command after `--` cannot be used together",
            ));
        }
        // The file's URL is for runs without a command.
        (Some(_), false) => return Ok(None),
        (Some(url), true) => remote::parse_url(url).map_err(Failure::usage)?,
    };
    let mut headers: Vec<HeaderSpec> = file
        .headers
        .iter()
        .filter(|(name, _)| {
            !args
                .headers
                .iter()
                .any(|h| h.name.eq_ignore_ascii_case(name))
        })
        .map(|(name, template)| HeaderSpec {
            name: name.clone(),
            template: template.clone(),
        })
        .collect();
    headers.extend(args.headers.iter().cloned());
    Ok(Some(Remote { url, headers }))
}

/// The default thread id of a remote server: `mcp-`, its host, and a hash
/// of its URL and header names (never a header's value, nor the URL's
/// query or user, which may hold tokens, in the folder name).
fn remote_thread(remote: &Remote) -> String {
    let mut parts: Vec<OsString> = vec![remote.url.as_str().into()];
    parts.extend(
        remote
            .headers
            .iter()
            .map(|h| h.name.to_ascii_lowercase().into()),
    );
    let hashed = default_thread(&parts);
    let hex = hashed.rsplit('-').next().unwrap_or_default();
    let host: String = remote
        .url
        .host_str()
        .unwrap_or("remote")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(32)
        .collect();
    format!("mcp-{host}-{hex}")
}

/// Starts the server with piped stdio, in a process group of its own (so
/// that it and all it starts can be stopped together), and the threads
/// that move its lines.
fn start_server(
    command: &[OsString],
    events: mpsc::Sender<Event>,
    max_line: usize,
) -> Result<Server, Failure> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| Failure::usage("no MCP server command after `--`"))?;
    let mut builder = Command::new(program);
    signals::own_group(&mut builder);
    let mut child = builder
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure {
            code: SERVER_NOT_STARTED,
            message: format!(
                "cannot start the MCP server `{}`: {e}",
                program.to_string_lossy()
            ),
        })?;
    let (stdin, stdout, stderr) = (
        child.stdin.take().expect("piped"),
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    let (to_server, _writer) = lines::write_lines("server's stdin", stdin);
    lines::read_lines(
        stdout,
        events,
        Flow::new(IN_FLIGHT_BYTES),
        max_line,
        Event::Server,
        Event::ServerClosed,
    );
    let last_stderr = Arc::new(Mutex::new(None));
    let stderr_ended = forward_stderr(stderr, Arc::clone(&last_stderr));
    Ok(Server {
        to_server: Some(to_server),
        upstream: Upstream::Process {
            child,
            last_stderr,
            stderr_ended,
        },
    })
}

/// Passes the server's stderr on to ours, a line at a time (a line ends at
/// LF or CR), prefixed, at most [`STDERR_LINE_BYTES`] of each, and keeps
/// the last line for the error message if the server dies. The receiver
/// hears when stderr has ended.
fn forward_stderr(
    stderr: impl io::Read + Send + 'static,
    last: Arc<Mutex<Option<String>>>,
) -> mpsc::Receiver<()> {
    let (ended, stderr_ended) = mpsc::channel();
    thread::spawn(move || {
        let _ = lines::read_text_lines(stderr, STDERR_LINE_BYTES, |line, left_out| {
            let text = String::from_utf8_lossy(line);
            if left_out > 0 {
                log::line(&format!("server: {text}... ({left_out} more bytes)"));
            } else {
                log::line(&format!("server: {text}"));
            }
            if !text.trim().is_empty()
                && let Ok(mut last) = last.lock()
            {
                *last = Some(text.into_owned());
            }
        });
        let _ = ended.send(());
    });
    stderr_ended
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_have_no_time_limit_unless_one_is_asked_for() {
        assert_eq!(timeout(None, None), None);
        assert_eq!(timeout(Some(0), Some(60)), None);
        assert_eq!(timeout(None, Some(60)), Some(Duration::from_secs(60)));
        assert_eq!(timeout(Some(5), Some(60)), Some(Duration::from_secs(5)));
    }
}
