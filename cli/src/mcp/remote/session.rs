//! One MCP session with a remote server over Streamable HTTP (MCP
//! 2025-03-26 and later): each message is POSTed; its answer comes as JSON
//! or as an SSE stream, which is resumed with `Last-Event-ID` if it drops
//! before the answer; server-initiated messages come on a GET stream. The
//! session id and the agreed protocol version go with every request after
//! `initialize`. A request of a client of MCP 2026-07-28 goes alone, with no
//! session and the headers that version asks for (`Mcp-Param-*` too, from
//! the marks of the tools the server listed). What goes wrong at the
//! HTTP level becomes a JSON-RPC error to the request that met it, saying
//! what happened.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt as _;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Response, StatusCode, Url};
use sse_stream::SseStream;

use super::inbox::{EventSize, Inbox};
use super::param_headers::ParamHeaders;
use super::peek::{Modern, Peek};
use crate::log;
use crate::mcp::answers::{self, HTTP_ERROR, SERVER_GONE, TOO_LARGE};
use crate::mcp::lines::TOO_LONG_START_BYTES;
use crate::mcp::message;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const METHOD: &str = "mcp-method";
const NAME: &str = "mcp-name";
const LAST_EVENT_ID: &str = "last-event-id";
/// Times a dropped answer stream is resumed before the request fails.
const RESUME_ATTEMPTS: u32 = 3;
/// The wait before reconnecting a dropped stream when the server set no
/// `retry`, and the most any wait grows to.
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MOST: Duration = Duration::from_secs(30);
/// Bytes of an HTTP error's body quoted in the error message.
const ERROR_BODY_BYTES: usize = 300;

pub struct Session {
    client: reqwest::Client,
    url: Url,
    /// The URL as messages show it: no user, password or query.
    pub shown: String,
    headers: HeaderMap,
    state: Mutex<State>,
    /// Held while a new session is opened, so it happens once.
    reopening: tokio::sync::Mutex<()>,
    inbox: Inbox,
}

#[derive(Default)]
struct State {
    session_id: Option<HeaderValue>,
    protocol_version: Option<HeaderValue>,
    /// The client's `initialize` and `notifications/initialized`, to open
    /// a new session when the server has ended this one.
    initialize: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
    /// Bumped each time a new session is opened.
    generation: u64,
    /// The tools' arguments a 2026-07-28 `tools/call` repeats in headers.
    param_headers: ParamHeaders,
    listening: bool,
}

/// How reading an answer stream ended.
struct StreamEnd {
    answered: bool,
    /// An event was longer than the message limit: reading stopped there.
    too_long: bool,
    last_event_id: Option<String>,
    retry: Option<Duration>,
    failure: Option<String>,
}

impl Session {
    pub fn new(client: reqwest::Client, url: Url, headers: HeaderMap, inbox: Inbox) -> Self {
        Self {
            client,
            shown: shown_url(&url),
            url,
            headers,
            state: Mutex::new(State::default()),
            reopening: tokio::sync::Mutex::new(()),
            inbox,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends one message from the client and passes on what comes back.
    pub async fn send(self: Arc<Self>, message: Vec<u8>) {
        let peek = Peek::of(&message);
        if let Some(modern) = peek.modern() {
            return self.send_modern(&peek, &message, &modern).await;
        }
        if peek.method_is("initialize") {
            let mut state = self.state();
            state.initialize = Some(message.clone());
            state.session_id = None;
            state.protocol_version = None;
        } else if peek.method_is("notifications/initialized") {
            self.state().initialized = Some(message.clone());
        }
        let generation = self.state().generation;
        let had_session = self.state().session_id.is_some();
        let mut response = match self.post(&message).await {
            Ok(response) => response,
            Err(why) => return self.fail(&peek, SERVER_GONE, why).await,
        };
        if response.status() == StatusCode::NOT_FOUND
            && had_session
            && !peek.method_is("initialize")
        {
            // The server ended the session (restarted, or expired it): open
            // a new one as the client did, and send this message once more.
            if let Err(why) = self.reopen(generation).await {
                let why = format!(
                    "the MCP server at {} ended the session (HTTP 404) and a new one could not \
                     be opened: {why}",
                    self.shown
                );
                return self.fail(&peek, HTTP_ERROR, why).await;
            }
            // The new session gets its stream of server messages too.
            Arc::clone(&self).start_listening();
            response = match self.post(&message).await {
                Ok(response) => response,
                Err(why) => return self.fail(&peek, SERVER_GONE, why).await,
            };
        }
        self.answer(&peek, response).await;
        if peek.method_is("notifications/initialized") {
            self.start_listening();
        }
    }

    /// A message of a 2026-07-28 client: one exchange, no session, its
    /// version, method and name repeated in headers as that version asks,
    /// and a `tools/call`'s marked arguments in `Mcp-Param-*` headers (a
    /// server checks they match the body).
    async fn send_modern(&self, peek: &Peek, message: &[u8], modern: &Modern) {
        let mut headers = HeaderMap::new();
        let mut put = |name: &'static str, value: &str| {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(name, value);
            }
        };
        put(PROTOCOL_VERSION, &modern.version);
        if let Some(method) = &peek.method {
            put(METHOD, &header_text(method));
        }
        if let Some(name) = &modern.name {
            put(NAME, &header_text(name));
        }
        if let (true, Some(tool)) = (peek.method_is("tools/call"), &modern.name) {
            let arguments = call_arguments(message);
            let params = self.state().param_headers.headers(tool, arguments.as_ref());
            for (name, value) in params {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(&value),
                ) {
                    headers.insert(name, value);
                }
            }
        }
        let request = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .headers(headers)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(message.trim_ascii_end().to_vec());
        match request.send().await {
            Ok(response) => self.answer(peek, response).await,
            Err(e) => {
                let why = self.unreachable(e);
                self.fail(peek, SERVER_GONE, why).await;
            }
        }
    }

    /// POSTs `message` with the session's headers.
    async fn post(&self, message: &[u8]) -> Result<Response, String> {
        let body = message.trim_ascii_end().to_vec();
        let mut request = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        request = self.with_session(request);
        request.send().await.map_err(|e| self.unreachable(e))
    }

    fn with_session(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let state = self.state();
        if let Some(id) = &state.session_id {
            request = request.header(SESSION_ID, id.clone());
        }
        if let Some(version) = &state.protocol_version {
            request = request.header(PROTOCOL_VERSION, version.clone());
        }
        request
    }

    fn unreachable(&self, e: reqwest::Error) -> String {
        format!(
            "cannot reach the MCP server at {}: {}",
            self.shown,
            describe(&e.without_url())
        )
    }

    /// Reads the answer to `peek`'s message and passes it on.
    async fn answer(&self, peek: &Peek, response: Response) {
        let status = response.status();
        if peek.method_is("initialize") && status.is_success() {
            let id = response.headers().get(SESSION_ID).cloned();
            self.state().session_id = id;
        }
        if !status.is_success() {
            let why = self.http_error(response).await;
            return self.fail(peek, HTTP_ERROR, why).await;
        }
        if status == StatusCode::ACCEPTED || !peek.is_request() {
            // A notification or an answer to the server: nothing comes back.
            return;
        }
        if is_event_stream(&response) {
            return self.answer_stream(peek, response).await;
        }
        match read_body(response, self.inbox.max_line()).await {
            Ok(Body::Whole(body)) => self.pass_on(peek, &body).await,
            Ok(Body::TooLong(start, length)) => self.inbox.too_long(start, length).await,
            Err(e) => {
                let why = format!(
                    "the MCP server at {} stopped in the middle of its answer: {}",
                    self.shown,
                    describe(&e.without_url())
                );
                self.fail(peek, SERVER_GONE, why).await;
            }
        }
    }

    /// Passes on a message of the server's, noting the protocol version if
    /// it answers `initialize`, and the arguments tools mark for headers if
    /// it answers `tools/list` (to a 2026-07-28 client, without the tools
    /// whose marks break that version's rules).
    async fn pass_on(&self, asked: &Peek, message: &[u8]) {
        let answered = asked.answered_by(&Peek::of(message));
        if asked.method_is("initialize")
            && answered
            && let Some(version) = message::protocol_version(message)
            && let Ok(value) = HeaderValue::from_str(&version)
        {
            self.state().protocol_version = Some(value);
        }
        if asked.method_is("tools/list") && answered {
            let modern = asked.modern().is_some();
            let kept = self.state().param_headers.learn(message, modern);
            if let Some(kept) = kept {
                return self.inbox.message(&kept).await;
            }
        }
        self.inbox.message(message).await;
    }

    /// An SSE answer: every event is passed on until the answer to `peek`
    /// came; a stream that drops before it is resumed from its last event.
    async fn answer_stream(&self, peek: &Peek, response: Response) {
        let mut end = self.read_events(Some(peek), response).await;
        let mut attempts = 0;
        let mut wait = RETRY_FIRST;
        while !end.answered {
            let resumable = attempts < RESUME_ATTEMPTS && !end.too_long;
            let (Some(last), true) = (end.last_event_id.clone(), resumable) else {
                let code = if end.too_long { TOO_LARGE } else { SERVER_GONE };
                let why = end.failure.unwrap_or_else(|| {
                    format!(
                        "the MCP server at {} closed its stream before it answered `{}`",
                        self.shown,
                        peek.method.as_deref().unwrap_or("?")
                    )
                });
                return self.fail(peek, code, why).await;
            };
            attempts += 1;
            tokio::time::sleep(end.retry.unwrap_or(wait)).await;
            wait = (wait * 2).min(RETRY_MOST);
            match self.get_stream(Some(&last)).await {
                Ok(response) if response.status().is_success() && is_event_stream(&response) => {
                    let resumed = self.read_events(Some(peek), response).await;
                    end = StreamEnd {
                        last_event_id: resumed.last_event_id.or(Some(last)),
                        ..resumed
                    };
                }
                Ok(response) => {
                    end.failure = Some(format!(
                        "the MCP server at {} dropped its answer stream and would not resume \
                         it: {}",
                        self.shown,
                        self.http_error(response).await
                    ));
                }
                Err(why) => end.failure = Some(why),
            }
        }
    }

    /// Passes on every event of `response`; stops after the answer to
    /// `waiting` (the server closes such a stream after it anyway).
    async fn read_events(&self, waiting: Option<&Peek>, response: Response) -> StreamEnd {
        let max_line = self.inbox.max_line();
        let mut size = EventSize::default();
        // Set when an event outgrows the limit; the bytes stop there, so
        // the SSE parser never holds more than about the limit.
        let too_long = Arc::new(AtomicBool::new(false));
        let seen_too_long = Arc::clone(&too_long);
        let bytes = response
            .bytes_stream()
            .map(move |chunk| {
                let chunk = chunk?;
                if size.feed(&chunk) > max_line.saturating_add(TOO_LONG_START_BYTES) {
                    seen_too_long.store(true, Ordering::Relaxed);
                }
                Ok::<_, reqwest::Error>(chunk)
            })
            .take_while({
                let too_long = Arc::clone(&too_long);
                move |_| std::future::ready(!too_long.load(Ordering::Relaxed))
            });
        let mut events = std::pin::pin!(SseStream::from_bytes_stream(bytes));
        let mut end = StreamEnd {
            answered: false,
            too_long: false,
            last_event_id: None,
            retry: None,
            failure: None,
        };
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    end.failure = Some(format!(
                        "the MCP server at {}'s stream broke off: {e}",
                        self.shown
                    ));
                    break;
                }
            };
            if let Some(id) = event.id.filter(|id| !id.is_empty()) {
                end.last_event_id = Some(id);
            }
            if let Some(retry) = event.retry {
                end.retry = Some(Duration::from_millis(retry).min(RETRY_MOST));
            }
            let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
                continue;
            };
            if event.event.as_deref().is_some_and(|e| e != "message") {
                continue;
            }
            let message = Peek::of(data.as_bytes());
            match waiting {
                Some(asked) if asked.answered_by(&message) => {
                    self.pass_on(asked, data.as_bytes()).await;
                    end.answered = true;
                    break;
                }
                _ => self.inbox.message(data.as_bytes()).await,
            }
        }
        if too_long.load(Ordering::Relaxed) && !end.answered {
            end.too_long = true;
            end.failure = Some(format!(
                "an event of the MCP server's stream is more than toolcap's limit of {max_line} \
                 bytes for one message (--max-message-bytes)"
            ));
            end.last_event_id = None;
        }
        end
    }

    /// Opens the GET stream of server-initiated messages, once per session.
    fn start_listening(self: Arc<Self>) {
        {
            let mut state = self.state();
            if state.listening {
                return;
            }
            state.listening = true;
        }
        tokio::spawn(self.listen());
    }

    /// Keeps the GET stream open, resuming from its last event, until the
    /// server says it offers none (405) or the proxy stops.
    async fn listen(self: Arc<Self>) {
        let mut last_event_id: Option<String> = None;
        let mut wait = RETRY_FIRST;
        loop {
            let generation = self.state().generation;
            match self.get_stream(last_event_id.as_deref()).await {
                Ok(response) if response.status() == StatusCode::METHOD_NOT_ALLOWED => break,
                Ok(response) if response.status().is_success() && is_event_stream(&response) => {
                    wait = RETRY_FIRST;
                    let end = self.read_events(None, response).await;
                    last_event_id = end.last_event_id.or(last_event_id);
                    if let Some(retry) = end.retry {
                        wait = retry;
                    }
                }
                Ok(response) if response.status() == StatusCode::NOT_FOUND => {
                    if self.state().generation == generation {
                        // The session ended; the next request opens a new
                        // one, and this stream with it.
                        break;
                    }
                    // A new session was opened meanwhile: listen on it.
                    last_event_id = None;
                    continue;
                }
                Ok(response) => {
                    let why = self.http_error(response).await;
                    log::line(&format!("the stream of server messages: {why}"));
                    wait = (wait * 2).min(RETRY_MOST);
                }
                Err(_) => wait = (wait * 2).min(RETRY_MOST),
            }
            tokio::time::sleep(wait).await;
        }
        self.state().listening = false;
    }

    async fn get_stream(&self, last_event_id: Option<&str>) -> Result<Response, String> {
        let mut request = self
            .client
            .get(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_ID, id);
        }
        request = self.with_session(request);
        request.send().await.map_err(|e| self.unreachable(e))
    }

    /// Opens a new session with the client's own `initialize` (its answer
    /// is not passed on: the client has it) unless another request did so
    /// since `generation`.
    async fn reopen(&self, generation: u64) -> Result<(), String> {
        let _one_at_a_time = self.reopening.lock().await;
        let (initialize, initialized) = {
            let state = self.state();
            if state.generation != generation {
                return Ok(());
            }
            (state.initialize.clone(), state.initialized.clone())
        };
        let initialize = initialize.ok_or("the client never initialized")?;
        log::line(&format!(
            "the MCP server at {} ended the session: opening a new one",
            self.shown
        ));
        {
            let mut state = self.state();
            state.session_id = None;
            state.protocol_version = None;
        }
        let response = self.post(&initialize).await?;
        if !response.status().is_success() {
            return Err(self.http_error(response).await);
        }
        let session_id = response.headers().get(SESSION_ID).cloned();
        let asked = Peek::of(&initialize);
        let answer = if is_event_stream(&response) {
            first_answer(&asked, response).await
        } else {
            response.bytes().await.ok().map(|b| b.to_vec())
        };
        let version = answer.as_deref().and_then(message::protocol_version);
        {
            let mut state = self.state();
            state.session_id = session_id;
            state.protocol_version = version.and_then(|v| HeaderValue::from_str(&v).ok());
            state.generation += 1;
        }
        if let Some(initialized) = initialized {
            let response = self.post(&initialized).await?;
            if !response.status().is_success() {
                return Err(self.http_error(response).await);
            }
        }
        Ok(())
    }

    /// Ends the session on the server (DELETE), as a client that is done.
    pub async fn end(&self) {
        let Some(id) = self.state().session_id.clone() else {
            return;
        };
        let request = self
            .client
            .delete(self.url.clone())
            .headers(self.headers.clone())
            .header(SESSION_ID, id)
            .timeout(Duration::from_secs(2));
        let _ = request.send().await;
    }

    /// What an HTTP error answer says, for the error message.
    async fn http_error(&self, response: Response) -> String {
        let status = response.status();
        let hint = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                " (check the credentials given with --header)"
            }
            StatusCode::NOT_FOUND => " (is the URL the server's MCP endpoint?)",
            _ => "",
        };
        let body = response.bytes().await.unwrap_or_default();
        let excerpt: String = String::from_utf8_lossy(&body[..body.len().min(ERROR_BODY_BYTES)])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let excerpt = if excerpt.is_empty() {
            String::new()
        } else {
            format!(": {excerpt}")
        };
        format!(
            "the MCP server at {} answered HTTP {status}{hint}{excerpt}",
            self.shown
        )
    }

    /// A request that met `why` gets it as its error; anything else is logged.
    async fn fail(&self, peek: &Peek, code: rmcp::model::ErrorCode, why: String) {
        match (&peek.id, peek.is_request()) {
            (Some(id), true) => {
                log::line(&why);
                let answer = answers::error_response(id, code, why);
                self.inbox.message(&answer).await;
            }
            _ => log::line(&why),
        }
    }

    pub fn closed(&self) {
        self.inbox.closed();
    }
}

/// The answer to `asked` among an SSE stream's events.
async fn first_answer(asked: &Peek, response: Response) -> Option<Vec<u8>> {
    let mut events = std::pin::pin!(SseStream::from_bytes_stream(response.bytes_stream()));
    while let Some(Ok(event)) = events.next().await {
        if let Some(data) = event.data
            && asked.answered_by(&Peek::of(data.as_bytes()))
        {
            return Some(data.into_bytes());
        }
    }
    None
}

enum Body {
    Whole(Vec<u8>),
    /// The start and the full length of a body over the message limit.
    TooLong(Vec<u8>, u64),
}

/// The body, unless it is longer than `max_line`: then its start and length.
async fn read_body(mut response: Response, max_line: usize) -> reqwest::Result<Body> {
    let mut body = Vec::new();
    let mut length: u64 = 0;
    while let Some(chunk) = response.chunk().await? {
        length += chunk.len() as u64;
        if length > max_line as u64 {
            let room = TOO_LONG_START_BYTES.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            if body.capacity() > TOO_LONG_START_BYTES * 2 {
                body.shrink_to_fit();
            }
        } else {
            body.extend_from_slice(&chunk);
        }
    }
    Ok(if length > max_line as u64 {
        Body::TooLong(body, length)
    } else {
        Body::Whole(body)
    })
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
}

/// A reqwest error with its causes, which say what actually failed.
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The `arguments` of a `tools/call` request.
fn call_arguments(message: &[u8]) -> Option<serde_json::Value> {
    let mut request: serde_json::Value = serde_json::from_slice(message).ok()?;
    Some(request.get_mut("params")?.get_mut("arguments")?.take())
}

/// `url` without what may be secret: user, password, query and fragment.
pub fn shown_url(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// `text` as a header value: as it is when it is printable ASCII without
/// spaces at its ends, else as `=?base64?<UTF-8 in base64>?=`, the form
/// 2026-07-28 gives a header that must carry any text.
pub(super) fn header_text(text: &str) -> String {
    use base64::Engine as _;
    let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && text.trim() == text
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    if plain {
        return text.to_owned();
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("=?base64?{encoded}?=")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_url_has_no_credentials_nor_query() {
        let url = Url::parse("https://me:pw@api.example.com:8443/mcp?token=abc#x").unwrap();
        assert_eq!(shown_url(&url), "https://api.example.com:8443/mcp");
    }

    #[test]
    fn a_name_no_header_holds_as_it_is_goes_in_base64() {
        assert_eq!(header_text("read_file"), "read_file");
        assert_eq!(header_text("file:///a b.txt"), "file:///a b.txt");
        // The base64 of the text's UTF-8, in the sentinel 2026-07-28 reads.
        assert_eq!(header_text("ünï"), "=?base64?w7xuw68=?=");
        assert_eq!(header_text(" edge"), "=?base64?IGVkZ2U=?=");
        assert_eq!(header_text("a\nb"), "=?base64?YQpi?=");
        assert_eq!(header_text("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }
}
