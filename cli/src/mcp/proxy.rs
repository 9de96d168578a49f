//! The router: every message from the client and the server, in arrival
//! order, on one thread. Lines pass byte for byte; only `tools/call`
//! answers (capped), `tools/list` pages (no `outputSchema` on capped tools;
//! the read tool added to the first), the resources answers that gain the
//! spills (`resources.rs`) and the proxy's own answers are written anew.

use std::process::{Child, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

use super::answers::{
    self, BAD_ANSWER, INVALID_REQUEST, SERVER_GONE, STOPPING, TIMED_OUT, TOO_LARGE, TOO_MANY,
};
use super::capper::{Capper, Capping};
use super::lifted::Lifted;
use super::lines::{Credit, Event, Line, Outgoing};
use super::message::{self, Envelope, Malformed, Message, NoToolList, Params};
use super::pending::{MAX_PENDING, Pending, Request};
use super::remote::RemoteServer;
use super::resources::Resources;
use crate::log;
use crate::signals::{self, Signal};

/// How often the router looks at the server process and the deadlines
/// when no message arrives.
const TICK: Duration = Duration::from_millis(50);
/// How long an exited server's last output may take to arrive, and how
/// long a server that closed its stdout may take to exit.
const SERVER_GRACE: Duration = Duration::from_secs(1);
/// After the client closed its input (and the server's stdin was closed),
/// how long the server has to exit on its own before the requests still
/// pending are given up and its process group is stopped.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// Bytes of a bad line shown in the log.
const EXCERPT_BYTES: usize = 200;

/// The server as the router sees it: where its messages go, and what it is.
pub struct Server {
    pub to_server: Option<Sender<Outgoing>>,
    pub upstream: Upstream,
}

pub enum Upstream {
    /// A process the proxy started, speaking over its stdio.
    Process {
        child: Child,
        /// The last line the server wrote on stderr.
        last_stderr: Arc<Mutex<Option<String>>>,
        /// Hears when the server's stderr has ended (all of it forwarded).
        stderr_ended: Receiver<()>,
    },
    /// A remote server over Streamable HTTP.
    Remote(RemoteServer),
}

pub struct Proxy {
    pub events: Receiver<Event>,
    pub to_client: Sender<Outgoing>,
    pub client_writer: JoinHandle<()>,
    pub server: Server,
    pub capper: Capper,
    pub pending: Pending,
    /// The read tool's `tools/list` entry (JSON) and name.
    pub read_tool_entry: String,
    pub read_tool_name: String,
    /// The longest message passed on, in bytes.
    pub max_message: u64,
}

/// What the router knows of the two sides' life.
#[derive(Default)]
struct Lifecycle {
    exit: Option<(ExitStatus, Instant)>,
    stdout_closed: Option<Instant>,
    /// Why the server cannot answer any more, once it cannot.
    gone: Option<String>,
    /// When the client closed its input.
    client_closed: Option<Instant>,
    /// The signal that stops the proxy.
    signal: Option<Signal>,
}

/// Where a message from the server goes.
enum Route {
    /// The line as it came.
    Forward,
    /// Another line in its place.
    Replace(Vec<u8>),
    Drop,
}

impl Proxy {
    /// Runs until the client closes its stdin and the server is done, or a
    /// signal stops it; the exit status.
    pub fn serve(self) -> u8 {
        let mut router = Router {
            proxy: self,
            life: Lifecycle::default(),
            read_tool_shadowed: false,
            result_type: false,
            resources: Resources::default(),
        };
        router.run();
        router.shut_down()
    }
}

struct Router {
    proxy: Proxy,
    life: Lifecycle,
    /// The server has a tool of the read tool's name: calls go to it.
    read_tool_shadowed: bool,
    /// The client and server agreed on a protocol version with `resultType`.
    result_type: bool,
    /// The spills as resources.
    resources: Resources,
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
                Ok(Event::Signal(signal)) => {
                    self.life.signal = Some(signal);
                    return;
                }
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

    fn on_client_line(&mut self, line: Line) {
        let Line {
            bytes,
            too_long,
            credit,
        } = line;
        if let Some(length) = too_long {
            self.client_too_long(&bytes, length);
            return;
        }
        if bytes.trim_ascii().is_empty() {
            return;
        }
        // A line the proxy cannot read is the server's to judge.
        let Ok(text) = simdutf8::compat::from_utf8(&bytes) else {
            self.to_server(bytes, credit);
            return;
        };
        match message::parse(text) {
            Ok(Message::Object(envelope)) => {
                if let Some(answer) = self.client_message(&envelope) {
                    self.to_client(answer, credit);
                    return;
                }
            }
            // A batch goes on as one message each, so that every answer
            // comes back on its own and is capped as any other.
            Ok(Message::Batch(items)) => {
                let mut out = Vec::new();
                for item in items {
                    let answer = match message::parse(item.get()) {
                        Ok(Message::Object(envelope)) => self.client_message(&envelope),
                        _ => None,
                    };
                    match answer {
                        Some(answer) => self.to_client(answer, Credit::none()),
                        None => out.push(format!("{}\n", item.get()).into_bytes()),
                    }
                }
                for message in out {
                    self.to_server(message, Credit::none());
                }
                drop(credit);
                return;
            }
            _ => {}
        }
        self.to_server(bytes, credit);
    }

    /// What the proxy does with a message from the client: `Some` answer
    /// when it answers it here, `None` when it goes to the server.
    fn client_message(&mut self, envelope: &Envelope) -> Option<Vec<u8>> {
        let params = Params::of(envelope.params);
        match (envelope.id, envelope.method.as_deref()) {
            (Some(id), Some(method)) => self.client_request(id, method, &params),
            (None, Some("notifications/cancelled")) => {
                if let Some(id) = &params.request_id {
                    let raw = serde_json::value::to_raw_value(id).ok()?;
                    self.proxy.pending.cancelled(&message::key_of(&raw));
                }
                None
            }
            _ => None,
        }
    }

    /// Registers a request on its way to the server, or answers it here
    /// (the read tool, a reused id, or a server that is gone).
    fn client_request(&mut self, id: &RawValue, method: &str, params: &Params) -> Option<Vec<u8>> {
        // A client of 2026-07-28 and later states its version in every
        // request and sends no `initialize`.
        let result_type = self.result_type
            || params
                .protocol_version()
                .is_some_and(message::has_result_type);
        let tool = (method == "tools/call")
            .then(|| params.tool_name().map(str::to_owned))
            .flatten();
        // The read tool works even when the server is gone: the files are here.
        if tool.as_deref() == Some(self.proxy.read_tool_name.as_str()) && !self.read_tool_shadowed {
            let arguments = params.arguments.map_or("{}", RawValue::get);
            let output = self.proxy.capper.read_tool(arguments);
            return Some(answers::read_tool_response(id, output, result_type));
        }
        // So do the spills' resources.
        if let Some(answer) =
            self.resources
                .request(&mut self.proxy.capper, id, method, params, result_type)
        {
            return Some(answer);
        }
        if let Some(reason) = &self.life.gone {
            return Some(answers::error_response(id, SERVER_GONE, reason.clone()));
        }
        if self.proxy.pending.len() >= MAX_PENDING {
            return Some(answers::error_response(
                id,
                TOO_MANY,
                format!("toolcap: {MAX_PENDING} requests are already waiting for the server"),
            ));
        }
        let aliases = message::aliases_of(id);
        // Two answers with one id could not be told apart (nor capped each
        // by its own tool's budget): the second request is refused.
        if self.proxy.pending.clashes(&aliases) {
            log::line(&format!(
                "the client reused the id {} of a request still pending: refused",
                log::excerpt(id.get().as_bytes(), EXCERPT_BYTES)
            ));
            return Some(answers::error_response(
                id,
                INVALID_REQUEST,
                "this request's id is the id of a request still pending: ids must be unique"
                    .to_owned(),
            ));
        }
        let search = tool
            .as_deref()
            .and_then(|tool| self.proxy.capper.search_of(tool, params.arguments));
        let request = Request {
            search,
            id: id.to_owned(),
            method: method.to_owned(),
            first_page: matches!(
                method,
                "tools/list" | "resources/list" | "resources/templates/list"
            ) && params
                .cursor
                .as_ref()
                .is_none_or(serde_json::Value::is_null),
            tool,
            progress_token: params.request_progress_token(),
            deadline: None,
            aliases,
            result_type,
        };
        self.proxy.pending.insert(message::key_of(id), request);
        None
    }

    /// A client line longer than the message limit: not passed on. A
    /// request is answered with an error; an answer to the server's
    /// request becomes an error for the server.
    fn client_too_long(&mut self, start: &[u8], length: u64) {
        let limit = self.proxy.max_message;
        log::line(&format!(
            "the client sent a message of {length} bytes, more than the limit of {limit} \
             (--max-message-bytes): not passed on"
        ));
        let text = String::from_utf8_lossy(start);
        let Some(id) = message::salvage_id(&text).and_then(|id| raw(&id)) else {
            return;
        };
        let why = format!(
            "the message is {length} bytes, more than toolcap's limit of {limit} bytes for one \
             message (--max-message-bytes)"
        );
        if text.contains("\"method\"") {
            self.to_client(answers::error_response(&id, TOO_LARGE, why), Credit::none());
        } else {
            self.to_server(answers::error_response(&id, TOO_LARGE, why), Credit::none());
        }
    }

    fn client_closed(&mut self) {
        self.life.client_closed = Some(Instant::now());
        // The server's stdin closes once the writer has sent what it holds:
        // the MCP way to ask a stdio server to exit.
        self.proxy.server.to_server = None;
    }

    // ---- server to client ----

    fn on_server_line(&mut self, line: Line) {
        let Line {
            bytes,
            too_long,
            credit,
        } = line;
        if let Some(length) = too_long {
            if let Some(answer) = self.server_too_long(&bytes, length) {
                self.to_client(answer, credit);
            }
            return;
        }
        if bytes.trim_ascii().is_empty() {
            return;
        }
        // A line without its LF is the last of a server that stopped
        // writing: if it is not a whole message, the server died mid-answer
        // and the exit error (with its status) settles the request.
        let cut_off = bytes.last() != Some(&b'\n');
        let routes = match simdutf8::compat::from_utf8(&bytes) {
            Ok(text) => self.route_line(text, cut_off),
            Err(e) => vec![(None, self.bad_line(&bytes, &e.to_string(), cut_off))],
        };
        // The line's credit goes with the last message it became.
        let mut credit = Some(credit);
        // A line forwarded whole is moved on, not copied (it may be huge).
        let mut bytes = Some(bytes);
        let count = routes.len();
        for (i, (part, route)) in routes.into_iter().enumerate() {
            let credit = if i + 1 == count {
                credit.take().unwrap_or_default()
            } else {
                Credit::none()
            };
            match (route, part) {
                (Route::Forward, None) => {
                    if let Some(line) = bytes.take() {
                        self.to_client(line, credit);
                    }
                }
                (Route::Forward, Some(part)) => self.to_client(part.into_bytes(), credit),
                (Route::Replace(message), _) => self.to_client(message, credit),
                (Route::Drop, _) => {}
            }
        }
    }

    /// The routes of a server line: one for a message, one per element of
    /// a batch (each with its own text, to go on as its own line).
    fn route_line(&mut self, text: &str, cut_off: bool) -> Vec<(Option<String>, Route)> {
        if let Some(route) = self.route_lifted(text) {
            return vec![(None, route)];
        }
        match message::parse(text) {
            Ok(Message::Object(envelope)) => vec![(None, self.route(text, &envelope))],
            Ok(Message::Batch(items)) => items
                .iter()
                .map(|item| {
                    let route = match message::parse(item.get()) {
                        Ok(Message::Object(envelope)) => self.route(item.get(), &envelope),
                        Ok(_) => self.not_a_message(item.get()),
                        Err(why) => self.malformed(item.get(), &why),
                    };
                    (Some(format!("{}\n", item.get())), route)
                })
                .collect(),
            Ok(Message::Other) => vec![(None, self.not_a_message(text))],
            Err(Malformed::NotJson(why)) => {
                vec![(None, self.bad_line(text.as_bytes(), &why, cut_off))]
            }
            Err(why) => vec![(None, self.malformed(text, &why))],
        }
    }

    /// A huge answer to a pending `tools/call`, routed with its text taken
    /// out (see `lifted`): only the small rest is parsed and checked for
    /// members written twice, and the component decodes the text as it
    /// caps it. `None` for every other line, and for an answer this cap
    /// does not settle (the component refused the text, say): those go the
    /// whole way, so each line is routed as [`Self::route`] would route it.
    fn route_lifted(&mut self, text: &str) -> Option<Route> {
        let lifted = Lifted::of(text)?;
        let Ok(Message::Object(envelope)) = message::parse(&lifted.skeleton) else {
            return None;
        };
        // What `route` caps: a result, with no method and no error, whose
        // id is exactly that of a pending `tools/call`.
        let Envelope {
            id: Some(id),
            method: None,
            odd_method: false,
            result: Some(result),
            error: None,
            ..
        } = envelope
        else {
            return None;
        };
        let whole_result = lifted.original(result)?;
        let key = message::key_of(id);
        let request = self.proxy.pending.get(&key)?;
        let tool = request.tool.as_deref().unwrap_or("tool");
        if request.id.get() != id.get()
            || request.method != "tools/call"
            || !self.proxy.capper.caps(tool)
            || message::duplicate_anywhere(result.get()).is_some()
        {
            return None;
        }
        let (call_id, search) = (call_id_of(request, tool), request.search.clone());
        let tool = tool.to_owned();
        let line = match self
            .proxy
            .capper
            .cap_quietly(whole_result, &tool, call_id, search)
        {
            Capping::Unchanged => None,
            Capping::Capped(capped) => {
                let mut line = message::splice_value(lifted.skeleton.trim(), result, &capped)?;
                line.push('\n');
                Some(line)
            }
            Capping::Failed(_) => return None,
        };
        self.proxy.pending.answered(&key)?;
        Some(line.map_or(Route::Forward, |line| Route::Replace(line.into_bytes())))
    }

    fn route(&mut self, text: &str, envelope: &Envelope) -> Route {
        if envelope.method.is_some() || envelope.odd_method {
            if envelope.result.is_some() || envelope.error.is_some() {
                // Clients read it as a request, and one carrying an answer
                // that the proxy would not cap.
                log::line(&format!(
                    "the server wrote a message with both a method and a result or error: \
                     dropped: {}",
                    log::excerpt(text.as_bytes(), EXCERPT_BYTES)
                ));
                return Route::Drop;
            }
            if envelope.method.as_deref() == Some("notifications/progress")
                && let Some(token) = Params::of(envelope.params).progress_token
                && let Ok(token) = serde_json::value::to_raw_value(&token)
            {
                self.proxy.pending.progressed(&message::key_of(&token));
            }
            return Route::Forward;
        }
        let Some(id) = envelope.id else {
            log::line(&format!(
                "the server wrote a message with neither a method nor an id: dropped: {}",
                log::excerpt(text.as_bytes(), EXCERPT_BYTES)
            ));
            return Route::Drop;
        };
        let key = message::key_of(id);
        let (request, exact) = match self.proxy.pending.answered(&key) {
            Some(request) => {
                let exact = request.id.get() == id.get();
                (request, exact)
            }
            None if self.proxy.pending.is_late(&key) => {
                log::line(&format!(
                    "dropped the server's late answer to request {}, already settled",
                    log::excerpt(key.as_bytes(), EXCERPT_BYTES)
                ));
                return Route::Drop;
            }
            None => match self.proxy.pending.answered_as(&message::aliases_of(id)) {
                Some(request) => (request, false),
                None => return self.unsolicited(text, &key, envelope),
            },
        };
        let rewritten = match (envelope.result, envelope.error) {
            (Some(_), Some(_)) => {
                return self.refused(&request, "it has both a `result` and an `error`");
            }
            (None, None) => {
                return self.refused(&request, "it has neither a `result` nor an `error`");
            }
            (None, Some(error)) => {
                if let Some(answer) = self.resources.instead_of_error(
                    &mut self.proxy.capper,
                    &request,
                    error,
                    request.result_type,
                ) {
                    return Route::Replace(answer);
                }
                // An error's message reaches the model too.
                let tool = request.tool.as_deref().unwrap_or("tool");
                if request.method == "tools/call" && !self.proxy.capper.within_budget(tool, text) {
                    return self.refused(
                        &request,
                        &format!(
                            "it is an error of {} bytes, over the budget of `{tool}`",
                            text.len()
                        ),
                    );
                }
                None
            }
            (Some(result), None) => match request.method.as_str() {
                "tools/call" => match self.tool_result(&request, result) {
                    Ok(None) => None,
                    Ok(Some(capped)) => match message::splice_value(text.trim(), result, &capped) {
                        Some(line) => Some(line),
                        None => return self.refused(&request, "its result could not be replaced"),
                    },
                    Err(refusal) => return Route::Replace(refusal),
                },
                "tools/list" => self.tool_list(text, result, request.first_page),
                "initialize" => {
                    self.note_protocol_version(result);
                    self.resources.initialized(text, result)
                }
                // 2026-07-28's handshake: its capabilities as `initialize`'s.
                "server/discover" => self.resources.initialized(text, result),
                "resources/list" => {
                    self.resources
                        .server_list(&mut self.proxy.capper, text, result)
                }
                "resources/templates/list" if request.first_page => {
                    self.resources.server_templates(text, result)
                }
                _ => None,
            },
        };
        // An id a client reads as the request's, but written otherwise
        // (`5.0` for 5, `"5"`): the client gets the request's own text.
        let rewritten = match (exact, rewritten) {
            (true, rewritten) => rewritten,
            (false, Some(line)) => message::replace_member(&line, "id", request.id.get()),
            (false, None) => message::splice_value(text.trim(), id, request.id.get()),
        };
        rewritten.map_or(Route::Forward, |mut line| {
            line.push('\n');
            Route::Replace(line.into_bytes())
        })
    }

    /// A `tools/call` result as the client gets it: `Ok(None)` as it came,
    /// `Ok(Some(result))` capped, or `Err(line)` a whole answer in its
    /// place that says why it was not passed on.
    fn tool_result(
        &mut self,
        request: &Request,
        result: &RawValue,
    ) -> Result<Option<String>, Vec<u8>> {
        let tool = request.tool.as_deref().unwrap_or("tool");
        if !self.proxy.capper.caps(tool) {
            return Ok(None);
        }
        let refuse = |why: String| {
            log::line(&format!(
                "the result of `{tool}` (request {}) was not passed on: {why}",
                log::excerpt(request.id.get().as_bytes(), EXCERPT_BYTES)
            ));
            Err(answers::tool_error_response(
                &request.id,
                format!("[toolcap] The result of `{tool}` was not passed on: {why}."),
                request.result_type,
            ))
        };
        if let Some(path) = message::duplicate_anywhere(result.get()) {
            return refuse(format!(
                "the server's answer writes the member `{path}` twice, which clients read \
                     differently"
            ));
        }
        match self.proxy.capper.cap(
            result.get(),
            tool,
            call_id_of(request, tool),
            request.search.clone(),
        ) {
            Capping::Unchanged => Ok(None),
            Capping::Capped(capped) => Ok(Some(capped)),
            // What keeps the budget anyway may go on as it is.
            Capping::Failed(_) if self.proxy.capper.within_budget(tool, result.get()) => Ok(None),
            Capping::Failed(why) => refuse(format!(
                "it is {} bytes, over the budget, and could not be capped ({why})",
                result.get().len()
            )),
        }
    }

    /// An error answer to `request` in place of the server's, which was not
    /// one every client reads the same way.
    fn refused(&mut self, request: &Request, why: &str) -> Route {
        log::line(&format!(
            "the server's answer to request {} was not passed on: {why}",
            log::excerpt(request.id.get().as_bytes(), EXCERPT_BYTES)
        ));
        Route::Replace(answers::error_response(
            &request.id,
            BAD_ANSWER,
            format!("the MCP server's answer was not passed on: {why}"),
        ))
    }

    /// An answer to no pending request: a result is dropped (no client
    /// asked for it, and none would get it capped); a small error passes
    /// (a server's answer to a line it could not read has the id null).
    fn unsolicited(&mut self, text: &str, key: &str, envelope: &Envelope) -> Route {
        if envelope.result.is_none() && self.proxy.capper.within_default_budget(text) {
            return Route::Forward;
        }
        log::line(&format!(
            "dropped the server's answer to request {}, which no pending request has",
            log::excerpt(key.as_bytes(), EXCERPT_BYTES)
        ));
        Route::Drop
    }

    /// A server line that is valid JSON but not a message.
    fn not_a_message(&mut self, text: &str) -> Route {
        log::line(&format!(
            "the server wrote JSON that is not a JSON-RPC message, skipped: {}",
            log::excerpt(text.as_bytes(), EXCERPT_BYTES)
        ));
        Route::Drop
    }

    /// A server message that clients would read differently (a member
    /// written twice): skipped; the request it answers, if it can be told,
    /// gets an error.
    fn malformed(&mut self, text: &str, why: &Malformed) -> Route {
        log::line(&format!(
            "the server wrote a malformed message ({why}), skipped: {}",
            log::excerpt(text.as_bytes(), EXCERPT_BYTES)
        ));
        match self.salvaged_request(text) {
            Some(request) => self.refused(&request, &why.to_string()),
            None => Route::Drop,
        }
    }

    /// The pending request a line that cannot be read seems to answer.
    fn salvaged_request(&mut self, text: &str) -> Option<Request> {
        if !text.trim_start().starts_with(['{', '[']) {
            return None;
        }
        let id = raw(&message::salvage_id(text)?)?;
        let pending = &mut self.proxy.pending;
        pending
            .answered(&message::key_of(&id))
            .or_else(|| pending.answered_as(&message::aliases_of(&id)))
    }

    /// A server line longer than the message limit: not passed on; the
    /// request it answers (if its start says which) gets an error that
    /// says why: for a `tools/call`, a result marked `isError`.
    fn server_too_long(&mut self, start: &[u8], length: u64) -> Option<Vec<u8>> {
        let limit = self.proxy.max_message;
        log::line(&format!(
            "the server wrote a message of {length} bytes, more than the limit of {limit} \
             (--max-message-bytes): not passed on: {}",
            log::excerpt(start, EXCERPT_BYTES)
        ));
        let request = self.salvaged_request(&String::from_utf8_lossy(start))?;
        let why = format!(
            "the MCP server's answer is {length} bytes, more than toolcap's limit of {limit} \
             bytes for one message (--max-message-bytes)"
        );
        if request.method == "tools/call" {
            let tool = request.tool.as_deref().unwrap_or("tool");
            return Some(answers::tool_error_response(
                &request.id,
                format!("[toolcap] The result of `{tool}` was not passed on: {why}."),
                request.result_type,
            ));
        }
        Some(answers::error_response(&request.id, TOO_LARGE, why))
    }

    /// A `tools/list` page as the client gets it: the tools whose results
    /// may be capped lose their `outputSchema` (a client checks
    /// `structuredContent` against it, and a capped result may have had
    /// its `structuredContent` dropped) and say how big a result the host
    /// may show whole (`_meta["anthropic/maxResultSizeChars"]`, which
    /// Claude Code reads), and the first page gets the read tool at the end.
    fn tool_list(&mut self, line: &str, result: &RawValue, first_page: bool) -> Option<String> {
        let name = self.proxy.read_tool_name.clone();
        let add = first_page.then_some((self.proxy.read_tool_entry.as_str(), name.as_str()));
        let capper = &self.proxy.capper;
        let edited = match message::edit_tool_list(result.get(), add, &|tool| {
            capper.cap_bytes(tool)
        }) {
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
        self.result_type = version.is_some_and(|v| message::has_result_type(&v));
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
        match self.salvaged_request(&String::from_utf8_lossy(line)) {
            Some(request) => {
                let message = format!("the server's response was not valid JSON: {why}");
                Route::Replace(answers::error_response(&request.id, BAD_ANSWER, message))
            }
            None => Route::Drop,
        }
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
            self.to_client(
                answers::error_response(&request.id, TIMED_OUT, message),
                Credit::none(),
            );
            self.cancel(&request, format!("toolcap: no answer within {seconds} s"));
        }
    }

    /// Tells the server to stop working on `request` (MCP: `initialize` is
    /// never cancelled).
    fn cancel(&mut self, request: &Request, reason: String) {
        if request.method != "initialize"
            && let Some(cancel) = answers::cancelled(&request.id, reason)
        {
            self.to_server(cancel, Credit::none());
        }
    }

    fn watch_server(&mut self) {
        let now = Instant::now();
        if self.life.gone.is_some() {
            return;
        }
        let reason = match &mut self.proxy.server.upstream {
            Upstream::Process { child, .. } => {
                if self.life.exit.is_none()
                    && let Ok(Some(status)) = child.try_wait()
                {
                    self.life.exit = Some((status, now));
                }
                match (self.life.exit, self.life.stdout_closed) {
                    (Some((status, _)), Some(_)) => describe(status),
                    (Some((status, at)), None) if now - at >= SERVER_GRACE => describe(status),
                    (None, Some(at)) if now - at >= SERVER_GRACE => "closed its output".to_owned(),
                    _ => return,
                }
            }
            Upstream::Remote(remote) => match self.life.stdout_closed {
                Some(_) if remote.has_ended() => format!("at {} is disconnected", remote.shown),
                _ => return,
            },
        };
        let reason = match self.last_words() {
            Some(line) => format!("the MCP server {reason}; its last stderr line: {line}"),
            None => format!("the MCP server {reason}"),
        };
        if self.life.client_closed.is_none() {
            log::line(&reason);
        }
        self.fail_pending(SERVER_GONE, &reason);
        self.proxy.server.to_server = None;
        self.life.gone = Some(reason);
    }

    /// The last line a server process wrote on stderr, once it all came.
    fn last_words(&self) -> Option<String> {
        let Upstream::Process {
            last_stderr,
            stderr_ended,
            ..
        } = &self.proxy.server.upstream
        else {
            return None;
        };
        let _ = stderr_ended.recv_timeout(SERVER_GRACE / 2);
        last_stderr.lock().ok().and_then(|l| l.clone())
    }

    /// Every pending request answered with the error `code`, `message`.
    fn fail_pending(&mut self, code: rmcp::model::ErrorCode, message: &str) {
        for request in self.proxy.pending.drain() {
            self.to_client(
                answers::error_response(&request.id, code, message.to_owned()),
                Credit::none(),
            );
        }
    }

    fn done(&mut self) -> bool {
        let Some(closed_at) = self.life.client_closed else {
            return false;
        };
        if self.life.gone.is_some() {
            return true;
        }
        // The client is gone and the server has had its time to finish.
        if closed_at.elapsed() >= SHUTDOWN_GRACE {
            let pending = self.proxy.pending.len();
            if pending > 0 {
                log::line(&format!(
                    "the client closed its input: {pending} request{} still pending given up",
                    if pending == 1 { "" } else { "s" }
                ));
            }
            self.fail_pending(SERVER_GONE, "the client closed its input: request given up");
            return true;
        }
        false
    }

    /// Cancels what is pending, stops the server's process group (after it
    /// had a moment to exit on its own), lets the client's last messages go
    /// out, and gives the exit status: 0, or 128 + the signal that stopped it.
    fn shut_down(mut self) -> u8 {
        if let Some(signal) = self.life.signal {
            log::line(&format!("stopping ({})", signal.name()));
            let reason = format!("toolcap was stopped ({})", signal.name());
            for request in self.proxy.pending.drain() {
                self.cancel(&request, reason.clone());
                self.to_client(
                    answers::error_response(&request.id, STOPPING, reason.clone()),
                    Credit::none(),
                );
            }
            // Its stdin closes: the MCP way to ask a stdio server to exit.
            self.proxy.server.to_server = None;
            let deadline = Instant::now() + SERVER_GRACE;
            while let Upstream::Process { child, .. } = &mut self.proxy.server.upstream
                && self.life.exit.is_none()
                && Instant::now() < deadline
            {
                if let Ok(Some(status)) = child.try_wait() {
                    self.life.exit = Some((status, Instant::now()));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let Router { proxy, life, .. } = self;
        let Proxy {
            to_client,
            client_writer,
            mut server,
            ..
        } = proxy;
        drop(server.to_server.take());
        match &mut server.upstream {
            Upstream::Process { child, .. } => {
                if life.exit.is_none() && matches!(child.try_wait(), Ok(None)) {
                    log::line("the MCP server did not exit after its stdin closed: stopping it");
                }
                // Whatever the server left running in its group goes with it.
                signals::stop_group(child, Signal::Terminate);
            }
            // What is still pending is dropped, and the session ended.
            Upstream::Remote(remote) => remote.stop(signals::STOP_GRACE),
        }
        drop(to_client);
        // A client that reads no more does not keep the proxy alive.
        let deadline = Instant::now() + signals::STOP_GRACE;
        while !client_writer.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        life.signal.map_or(0, Signal::exit_code)
    }

    fn to_client(&self, message: Vec<u8>, credit: Credit) {
        let _ = self.proxy.to_client.send((message, credit));
    }

    fn to_server(&self, message: Vec<u8>, credit: Credit) {
        if let Some(to_server) = &self.proxy.server.to_server {
            let _ = to_server.send((message, credit));
        }
    }
}

/// The call id a `tools/call` request's result is capped under: the
/// tool's name and the request's id.
fn call_id_of(request: &Request, tool: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(request.id.get()) {
        Ok(serde_json::Value::String(id)) => format!("{tool}-{id}"),
        _ => format!("{tool}-{}", message::key_of(&request.id)),
    }
}

/// The id text `id` (JSON) as a raw value.
fn raw(id: &str) -> Option<Box<RawValue>> {
    serde_json::from_str(id).ok()
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
