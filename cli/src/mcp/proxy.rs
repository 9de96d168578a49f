//! The router: every message from the client and the server, in arrival
//! order, on one thread. Lines pass byte for byte; only `tools/call`
//! answers (capped), `tools/list` pages (no `outputSchema` on capped tools;
//! the read tool added to the first) and the proxy's own answers are
//! written anew.

use std::process::{Child, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

use super::answers::{self, BAD_ANSWER, SERVER_GONE, TIMED_OUT};
use super::capper::Capper;
use super::lines::Event;
use super::message::{self, NoToolList, Params, Peek};
use super::pending::{Pending, Request};
use crate::log;

/// How often the router looks at the server process and the deadlines
/// when no message arrives.
const TICK: Duration = Duration::from_millis(50);
/// How long an exited server's last output may take to arrive, and how
/// long a server that closed its stdout may take to exit.
const SERVER_GRACE: Duration = Duration::from_secs(1);
/// After the client left and nothing is pending, how long the server gets
/// to exit on its own (its stdin is closed) before it is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// Bytes of a bad line shown in the log.
const EXCERPT_BYTES: usize = 200;

/// The server process as the router sees it.
pub struct Server {
    pub child: Child,
    pub to_server: Option<Sender<Vec<u8>>>,
    /// The last line the server wrote on stderr.
    pub last_stderr: Arc<Mutex<Option<String>>>,
    /// Hears when the server's stderr has ended (all of it forwarded).
    pub stderr_ended: Receiver<()>,
}

pub struct Proxy {
    pub events: Receiver<Event>,
    pub to_client: Sender<Vec<u8>>,
    pub client_writer: JoinHandle<()>,
    pub server: Server,
    pub capper: Capper,
    pub pending: Pending,
    /// The read tool's `tools/list` entry (JSON) and name.
    pub read_tool_entry: String,
    pub read_tool_name: String,
}

/// What the router knows of the two sides' life.
#[derive(Default)]
struct Lifecycle {
    exit: Option<(ExitStatus, Instant)>,
    stdout_closed: Option<Instant>,
    /// Why the server cannot answer any more, once it cannot.
    gone: Option<String>,
    client_closed: bool,
    /// Since when the client is gone and nothing is pending.
    idle_since: Option<Instant>,
}

/// Where a message from the server goes.
enum Route {
    Forward,
    Replace(Vec<u8>),
    Drop,
}

impl Proxy {
    /// Runs until the client closes its stdin and the server is done; the exit status.
    pub fn serve(self) -> u8 {
        let mut router = Router {
            proxy: self,
            life: Lifecycle::default(),
            read_tool_shadowed: false,
            result_type: false,
        };
        router.run();
        router.shut_down();
        0
    }
}

struct Router {
    proxy: Proxy,
    life: Lifecycle,
    /// The server has a tool of the read tool's name: calls go to it.
    read_tool_shadowed: bool,
    /// The client and server agreed on a protocol version with `resultType`.
    result_type: bool,
}

impl Router {
    fn run(&mut self) {
        loop {
            let wait = self.proxy.pending.next_deadline().map_or(TICK, |d| {
                d.saturating_duration_since(Instant::now()).min(TICK)
            });
            match self.proxy.events.recv_timeout(wait) {
                Ok(Event::Client(line)) => self.on_client_line(line),
                Ok(Event::ClientClosed) => self.client_closed(),
                Ok(Event::Server(line)) => self.on_server_line(line),
                Ok(Event::ServerClosed) => self.life.stdout_closed = Some(Instant::now()),
                Err(RecvTimeoutError::Timeout) => {}
                // Both readers ended: only the clock and the process are left.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
            }
            self.watch_server();
            self.expire();
            if self.done() {
                return;
            }
        }
    }

    // ---- client to server ----

    fn on_client_line(&mut self, line: Vec<u8>) {
        if line.trim_ascii().is_empty() {
            return;
        }
        // A line the proxy cannot read is the server's to judge.
        let peek = std::str::from_utf8(&line)
            .ok()
            .and_then(|text| serde_json::from_str::<Peek>(text).ok())
            .unwrap_or_default();
        let params = Params::of(peek.params);
        match (peek.id, peek.method.as_deref()) {
            (Some(id), Some(method)) => {
                if let Some(answer) = self.client_request(id, method, &params) {
                    self.to_client(answer);
                    return;
                }
            }
            (None, Some("notifications/cancelled")) => {
                if let Some(id) = &params.request_id {
                    self.proxy.pending.cancelled(&id.to_string());
                }
            }
            _ => {}
        }
        self.to_server(line);
    }

    /// Registers a request on its way to the server, or answers it here
    /// (the read tool, or a server that is gone).
    fn client_request(&mut self, id: &RawValue, method: &str, params: &Params) -> Option<Vec<u8>> {
        let tool = (method == "tools/call")
            .then(|| params.tool_name().map(str::to_owned))
            .flatten();
        // The read tool works even when the server is gone: the files are here.
        if tool.as_deref() == Some(self.proxy.read_tool_name.as_str()) && !self.read_tool_shadowed {
            let arguments = params.arguments.map_or("{}", RawValue::get);
            let output = self.proxy.capper.read_tool(arguments);
            return Some(answers::read_tool_response(id, output, self.result_type));
        }
        if let Some(reason) = &self.life.gone {
            return Some(answers::error_response(id, SERVER_GONE, reason.clone()));
        }
        let request = Request {
            id: id.to_owned(),
            method: method.to_owned(),
            first_tools_page: method == "tools/list"
                && params
                    .cursor
                    .as_ref()
                    .is_none_or(serde_json::Value::is_null),
            tool,
            progress_token: params.request_progress_token(),
            deadline: None,
        };
        self.proxy.pending.insert(message::key_of(id), request);
        None
    }

    fn client_closed(&mut self) {
        self.life.client_closed = true;
        // The server's stdin closes once the writer has sent what it holds:
        // the MCP way to ask a stdio server to exit.
        self.proxy.server.to_server = None;
    }

    // ---- server to client ----

    fn on_server_line(&mut self, line: Vec<u8>) {
        if line.trim_ascii().is_empty() {
            return;
        }
        // A line without its LF is the last of a server that stopped
        // writing: if it is not a whole message, the server died mid-answer
        // and the exit error (with its status) settles the request.
        let cut_off = line.last() != Some(&b'\n');
        let route = match std::str::from_utf8(&line) {
            Ok(text) => self.route(text, cut_off),
            Err(e) => self.bad_line(&line, &e.to_string(), cut_off),
        };
        match route {
            Route::Forward => self.to_client(line),
            Route::Replace(message) => self.to_client(message),
            Route::Drop => {}
        }
    }

    fn route(&mut self, text: &str, cut_off: bool) -> Route {
        let peek = match serde_json::from_str::<Peek>(text) {
            Ok(peek) => peek,
            // Valid JSON of a shape the proxy does not know: not its business.
            Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() => {
                return Route::Forward;
            }
            Err(e) => return self.bad_line(text.as_bytes(), &e.to_string(), cut_off),
        };
        if let Some(method) = &peek.method {
            if method == "notifications/progress"
                && let Some(token) = Params::of(peek.params).progress_token
            {
                self.proxy.pending.progressed(&token.to_string());
            }
            return Route::Forward;
        }
        let Some(id) = peek.id else {
            return Route::Forward;
        };
        let key = message::key_of(id);
        let Some(request) = self.proxy.pending.answered(&key) else {
            if self.proxy.pending.is_late(&key) {
                log::line(&format!(
                    "dropped the server's late answer to request {key}, already settled"
                ));
                return Route::Drop;
            }
            return Route::Forward;
        };
        let Some(result) = peek.result else {
            return Route::Forward;
        };
        let rewritten = match request.method.as_str() {
            "tools/call" => self.capped(text, id, result, &request),
            "tools/list" => self.tool_list(text, result, request.first_tools_page),
            "initialize" => {
                self.note_protocol_version(result);
                None
            }
            _ => None,
        };
        rewritten.map_or(Route::Forward, |mut line| {
            line.push('\n');
            Route::Replace(line.into_bytes())
        })
    }

    /// The answer `line` with its `result` capped, if capping changed it.
    fn capped(
        &mut self,
        line: &str,
        id: &RawValue,
        result: &RawValue,
        request: &Request,
    ) -> Option<String> {
        let tool = request.tool.as_deref().unwrap_or("tool");
        let call_id = match serde_json::from_str::<serde_json::Value>(id.get()) {
            Ok(serde_json::Value::String(id)) => format!("{tool}-{id}"),
            _ => format!("{tool}-{}", id.get()),
        };
        let capped = self.proxy.capper.cap(result.get(), tool, call_id)?;
        message::replace_member(line, "result", &capped)
    }

    /// A `tools/list` page as the client gets it: the tools whose results
    /// may be capped lose their `outputSchema` (a client checks
    /// `structuredContent` against it, and a capped result may have had
    /// its `structuredContent` dropped), and the first page gets the read
    /// tool at the end.
    fn tool_list(&mut self, line: &str, result: &RawValue, first_page: bool) -> Option<String> {
        let name = self.proxy.read_tool_name.clone();
        let add = first_page.then_some((self.proxy.read_tool_entry.as_str(), name.as_str()));
        let capper = &self.proxy.capper;
        let edited = match message::edit_tool_list(result.get(), add, &|tool| capper.caps(tool)) {
            Ok(edited) => edited,
            Err(NoToolList) => {
                log::line("the server's tools/list answer has no `tools` list: passed on as it is");
                return None;
            }
        };
        if edited.name_taken {
            log::line(&format!(
                "the server has its own tool `{name}`: the read tool is not added and calls \
                 go to the server; give the read tool another name with --read-tool-name"
            ));
            self.read_tool_shadowed = true;
        }
        message::replace_member(line, "result", &edited.result?)
    }

    fn note_protocol_version(&mut self, result: &RawValue) {
        #[derive(serde::Deserialize)]
        struct Initialized {
            #[serde(rename = "protocolVersion")]
            protocol_version: Option<String>,
        }
        let version = serde_json::from_str::<Initialized>(result.get())
            .ok()
            .and_then(|i| i.protocol_version);
        // Dated versions compare as text; `resultType` came with 2026-07-28.
        self.result_type = version.is_some_and(|v| v.as_str() >= "2026-07-28");
    }

    /// A server line that is not JSON: said on stderr and skipped; if it
    /// looks like a cut answer to a pending request, that request fails now.
    fn bad_line(&mut self, line: &[u8], why: &str, cut_off: bool) -> Route {
        if cut_off {
            log::line(&format!(
                "the server's output ended in the middle of a message ({why}), skipped: {}",
                log::excerpt(line, EXCERPT_BYTES)
            ));
            return Route::Drop;
        }
        log::line(&format!(
            "the server wrote a line that is not valid JSON ({why}), skipped: {}",
            log::excerpt(line, EXCERPT_BYTES)
        ));
        let text = String::from_utf8_lossy(line);
        if text.trim_start().starts_with(['{', '['])
            && let Some(key) = message::salvage_id(&text)
            && let Some(request) = self.proxy.pending.answered(&key)
        {
            let message = format!("the server's response was not valid JSON: {why}");
            self.to_client(answers::error_response(&request.id, BAD_ANSWER, message));
        }
        Route::Drop
    }

    // ---- time and the server's life ----

    fn expire(&mut self) {
        for request in self.proxy.pending.expired(Instant::now()) {
            let seconds = self.proxy.pending.timeout().map_or(0, |t| t.as_secs());
            let message = format!(
                "the MCP server did not answer `{}` in {seconds} s",
                request.method
            );
            log::line(&format!("request {}: {message}", request.id.get()));
            self.to_client(answers::error_response(&request.id, TIMED_OUT, message));
            // MCP: `initialize` is never cancelled.
            if request.method != "initialize"
                && let Some(cancel) = answers::cancelled(
                    &request.id,
                    format!("toolcap: no answer within {seconds} s"),
                )
            {
                self.to_server(cancel);
            }
        }
    }

    fn watch_server(&mut self) {
        let now = Instant::now();
        if self.life.exit.is_none()
            && let Ok(Some(status)) = self.proxy.server.child.try_wait()
        {
            self.life.exit = Some((status, now));
        }
        if self.life.gone.is_some() {
            return;
        }
        let reason = match (self.life.exit, self.life.stdout_closed) {
            (Some((status, _)), Some(_)) => describe(status),
            (Some((status, at)), None) if now - at >= SERVER_GRACE => describe(status),
            (None, Some(at)) if now - at >= SERVER_GRACE => "closed its output".to_owned(),
            _ => return,
        };
        // Its last words may still be on their way through the stderr pipe.
        let _ = self
            .proxy
            .server
            .stderr_ended
            .recv_timeout(SERVER_GRACE / 2);
        let last_words = self
            .proxy
            .server
            .last_stderr
            .lock()
            .ok()
            .and_then(|l| l.clone());
        let reason = match last_words {
            Some(line) => format!("the MCP server {reason}; its last stderr line: {line}"),
            None => format!("the MCP server {reason}"),
        };
        if !self.life.client_closed {
            log::line(&reason);
        }
        for request in self.proxy.pending.drain() {
            self.to_client(answers::error_response(
                &request.id,
                SERVER_GONE,
                reason.clone(),
            ));
        }
        self.proxy.server.to_server = None;
        self.life.gone = Some(reason);
    }

    fn done(&mut self) -> bool {
        if !self.life.client_closed {
            return false;
        }
        if self.life.gone.is_some() {
            return true;
        }
        if !self.proxy.pending.is_empty() {
            self.life.idle_since = None;
            return false;
        }
        let idle_since = *self.life.idle_since.get_or_insert_with(Instant::now);
        idle_since.elapsed() >= SHUTDOWN_GRACE
    }

    fn shut_down(self) {
        let Router { proxy, life, .. } = self;
        let Proxy {
            to_client,
            client_writer,
            mut server,
            ..
        } = proxy;
        if life.exit.is_none() && matches!(server.child.try_wait(), Ok(None)) {
            log::line("the MCP server did not exit after its stdin closed: stopping it");
            let _ = server.child.kill();
        }
        let _ = server.child.wait();
        drop(to_client);
        let _ = client_writer.join();
    }

    fn to_client(&self, message: Vec<u8>) {
        let _ = self.proxy.to_client.send(message);
    }

    fn to_server(&self, message: Vec<u8>) {
        if let Some(to_server) = &self.proxy.server.to_server {
            let _ = to_server.send(message);
        }
    }
}

/// How the server ended, for error messages.
fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    format!("ended ({status})")
}
