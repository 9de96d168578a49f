//! The HTTP side of `--listen`: checks every request (loopback origins
//! only, unless allowed; the client token, if one is set), then POST hands
//! a message to its session's router and answers with an SSE stream (or
//! 202 for what needs no answer), GET opens or resumes a stream, DELETE
//! ends the session.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt as _;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::value::RawValue;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::streams::{self, Asked, Live};
use super::{Session, Shared};
use crate::log;
use crate::mcp::lines::{Credit, Event, Line};
use crate::mcp::message;
use crate::signals::Signal;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
const ENDPOINT: &str = "/mcp";

type Body = BoxBody<Bytes, Infallible>;

/// Accepts connections until `stopped` hears a signal; that signal.
pub async fn accept(
    shared: Arc<Shared>,
    listener: TcpListener,
    mut stopped: oneshot::Receiver<Signal>,
) -> Signal {
    let mut idle_check = tokio::time::interval(super::IDLE_CHECK);
    loop {
        tokio::select! {
            signal = &mut stopped => return signal.unwrap_or(Signal::Terminate),
            _ = idle_check.tick() => shared.end_idle(),
            connection = listener.accept() => {
                let Ok((stream, _)) = connection else { continue };
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let shared = Arc::clone(&shared);
                        async move { Ok::<_, Infallible>(handle(&shared, request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        }
    }
}

async fn handle(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    if request.uri().path() != ENDPOINT {
        return closing(plain(StatusCode::NOT_FOUND, "toolcap serves MCP at /mcp"));
    }
    if let Some(refusal) = refused(shared, &request) {
        return closing(refusal);
    }
    match *request.method() {
        Method::POST => post(shared, request).await,
        Method::GET => get(shared, &request),
        Method::DELETE => delete(shared, &request),
        _ => {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "use POST, GET or DELETE");
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            closing(response)
        }
    }
}

/// `response` to a request whose body was not read: hyper then closes the
/// connection after it, so the response says so. Without the header a
/// client reuses the connection for its next request and may find it
/// closed ("server disconnected without sending a response").
fn closing(mut response: Response<Body>) -> Response<Body> {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A refusal for a request from a foreign origin (DNS rebinding: a web
/// page must not reach a local server) or without the client token.
fn refused(shared: &Shared, request: &Request<Incoming>) -> Option<Response<Body>> {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !origin_allowed(origin, &shared.listen.origins) {
            log::line(&format!("refused a request from the origin {origin}"));
            return Some(plain(StatusCode::FORBIDDEN, "this origin is not allowed"));
        }
    }
    let token = shared.listen.token.as_deref()?;
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if constant_time_eq(given.as_bytes(), token.as_bytes()) {
        return None;
    }
    let mut response = plain(StatusCode::UNAUTHORIZED, "a valid client token is needed");
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    Some(response)
}

/// Loopback origins (any port), and the ones allowed by name.
fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a == origin) {
        return true;
    }
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => rest.split(':').next().unwrap_or(""),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn post(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let accept = request
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let accepts_sse = accept.contains("text/event-stream") || accept.contains("*/*");
    let accepts_json = accept.contains("application/json") || accept.contains("*/*");
    let session_id = header_text(&request, SESSION_ID);
    let request_version = header_text(&request, PROTOCOL_VERSION);
    let limit = shared.setup.max_line();
    let body = match Limited::new(request.into_body(), limit).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => {
            return closing(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("a message may be at most {limit} bytes (--max-message-bytes)"),
            ));
        }
    };
    if let Some(refusal) = unreadable(&body) {
        return refusal;
    }
    let asked = Asked::of(&body);
    let initialize = is_initialize(&body);
    let (id, session) = match (session_id, initialize) {
        (Some(id), _) => match shared.session(&id) {
            Some(session) => (id, session),
            None => return plain(StatusCode::NOT_FOUND, "no such session: initialize again"),
        },
        (None, true) => match shared.open_session() {
            Ok(opened) => opened,
            Err(why) => {
                log::line(&format!("cannot open a session: {why}"));
                return plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("cannot open a session: {why}"),
                );
            }
        },
        (None, false) => {
            if let Some(refusal) = sessionless_era(&body, request_version.as_deref()) {
                return refusal;
            }
            return plain(
                StatusCode::BAD_REQUEST,
                "no Mcp-Session-Id: initialize first",
            );
        }
    };
    if !initialize && let Some(refusal) = other_version(&session, &request_version) {
        return refusal;
    }
    if asked.ids.is_empty() {
        // Notifications and answers to the server: nothing comes back.
        send_line(&session, &body);
        return with_session(empty(StatusCode::ACCEPTED), &id);
    }
    if !accepts_sse {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "requests are answered as text/event-stream: accept it",
        );
    }
    let mut live = {
        let mut streams = session.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams.open(&asked).1
    };
    send_line(&session, &body);
    // A lone answer goes back as JSON (clients bound SSE events tighter
    // than JSON bodies: the Python SDK at 1 MiB); anything before it
    // (progress, a server request) makes the answer an SSE stream.
    let Some(first) = live.recv().await else {
        return with_session(event_stream(Vec::new(), None), &id);
    };
    if first.last && accepts_json {
        let response = json(StatusCode::OK, streams::data_of(&first.event));
        return with_session(response, &id);
    }
    let ended = first.last;
    let replay = vec![first.event];
    with_session(event_stream(replay, (!ended).then_some(live)), &id)
}

fn get(shared: &Shared, request: &Request<Incoming>) -> Response<Body> {
    let Some(id) = header_text(request, SESSION_ID) else {
        return plain(StatusCode::BAD_REQUEST, "no Mcp-Session-Id");
    };
    let Some(session) = shared.session(&id) else {
        return plain(StatusCode::NOT_FOUND, "no such session: initialize again");
    };
    if let Some(refusal) = other_version(&session, &header_text(request, PROTOCOL_VERSION)) {
        return refusal;
    }
    let mut streams = session.streams.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(last) = header_text(request, LAST_EVENT_ID) {
        return match streams.resume(&last) {
            Some((replay, live)) => with_session(event_stream(replay, live), &id),
            None => plain(StatusCode::NOT_FOUND, "no such event to resume after"),
        };
    }
    match streams.open_standalone() {
        Some(live) => with_session(event_stream(Vec::new(), Some(live)), &id),
        None => plain(
            StatusCode::CONFLICT,
            "a stream for server messages is open already",
        ),
    }
}

fn delete(shared: &Shared, request: &Request<Incoming>) -> Response<Body> {
    let Some(id) = header_text(request, SESSION_ID) else {
        return plain(StatusCode::BAD_REQUEST, "no Mcp-Session-Id");
    };
    if let Some(session) = shared.session(&id)
        && let Some(refusal) = other_version(&session, &header_text(request, PROTOCOL_VERSION))
    {
        return refusal;
    }
    match shared.remove(&id) {
        Some(session) => {
            session.close();
            empty(StatusCode::OK)
        }
        None => plain(StatusCode::NOT_FOUND, "no such session"),
    }
}

/// Hands the message to the router as a line (one message per line: a
/// JSON text holds line breaks only as whitespace).
fn send_line(session: &Session, body: &[u8]) {
    let mut bytes: Vec<u8> = body
        .iter()
        .copied()
        .filter(|&b| b != b'\n' && b != b'\r')
        .collect();
    bytes.push(b'\n');
    session.send(Event::Client(Line {
        bytes,
        too_long: None,
        credit: Credit::none(),
    }));
}

/// A 400 for a body that is no JSON-RPC message (nor a batch of them),
/// with a JSON-RPC error that has no id, as the transport asks: taken as a
/// notification, it would get a 202 and its sender no word of the fault.
fn unreadable(body: &[u8]) -> Option<Response<Body>> {
    let (code, why) = match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        Err(e) => (-32700, format!("Parse error: the body is not JSON ({e})")),
        Ok(_) if is_message_or_batch(body) => return None,
        Ok(_) => (
            -32600,
            "Invalid Request: the body is not a JSON-RPC message".to_owned(),
        ),
    };
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": why },
    });
    Some(json(
        StatusCode::BAD_REQUEST,
        Bytes::from(error.to_string()),
    ))
}

/// The versions whose session-based transport `--listen` serves, newest first.
const SESSION_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// JSON-RPC error of MCP 2026-07-28: the protocol version is not supported.
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// For a request of a client of MCP 2026-07-28 or later (its version in
/// `MCP-Protocol-Version` or in its own `_meta`), which comes without a
/// session: the 400 with JSON-RPC error -32022 that version defines,
/// naming the versions served, so that the client falls back to
/// `initialize` at one of them. `None` for any other request.
fn sessionless_era(body: &[u8], header_version: Option<&str>) -> Option<Response<Body>> {
    #[derive(serde::Deserialize)]
    struct Request<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }
    let request = serde_json::from_slice::<Request<'_>>(body).ok();
    let params = message::Params::of(request.as_ref().and_then(|r| r.params));
    let requested = header_version
        .or(params.protocol_version())
        .filter(|v| message::has_result_type(v))?;
    let id = request.and_then(|r| r.id).map_or("null", RawValue::get);
    let error = serde_json::json!({
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": format!(
            "Unsupported protocol version {requested:?}: this server speaks MCP {} over \
             sessions; send initialize",
            SESSION_VERSIONS.join(", ")
        ),
        "data": { "supported": SESSION_VERSIONS, "requested": requested },
    });
    let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#);
    Some(json(StatusCode::BAD_REQUEST, Bytes::from(text)))
}

/// A 400 for a request whose `MCP-Protocol-Version` is not the one the
/// session's `initialize` agreed on. Without the header, or before the
/// version is known, the request goes on (the transport then assumes the
/// version the client negotiated or an older one).
fn other_version(session: &Session, given: &Option<String>) -> Option<Response<Body>> {
    let given = given.as_deref()?;
    let streams = session.streams.lock().unwrap_or_else(|e| e.into_inner());
    let agreed = streams.protocol_version()?;
    (given != agreed).then(|| {
        plain(
            StatusCode::BAD_REQUEST,
            &format!(
                "unsupported MCP-Protocol-Version {given:?}: this session agreed on {agreed:?}"
            ),
        )
    })
}

/// An object, or a batch of objects (JSON `body`).
fn is_message_or_batch(body: &[u8]) -> bool {
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => true,
        Some(b'[') => serde_json::from_slice::<Vec<&RawValue>>(body)
            .is_ok_and(|items| !items.is_empty() && items.iter().all(|i| i.get().starts_with('{'))),
        _ => false,
    }
}

fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method {
        method: Option<String>,
    }
    serde_json::from_slice::<Method>(body).is_ok_and(|m| m.method.as_deref() == Some("initialize"))
}

fn header_text(request: &Request<Incoming>, name: &str) -> Option<String> {
    request
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// An SSE response: the replayed events, then the live ones until the
/// stream ends.
fn event_stream(replay: Vec<Bytes>, live: Option<Live>) -> Response<Body> {
    let replay = futures_util::stream::iter(replay);
    let live = futures_util::stream::unfold(live, |live| async move {
        let mut live = live?;
        let sent = live.recv().await?;
        // After the last answer the stream ends, even if its sender lingers.
        let next = (!sent.last).then_some(live);
        Some((sent.event, next))
    });
    let frames = replay
        .chain(live)
        .map(|event| Ok::<_, Infallible>(Frame::data(event)));
    let mut response = Response::new(http_body_util::BodyExt::boxed(StreamBody::new(frames)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn with_session(mut response: Response<Body>, id: &str) -> Response<Body> {
    if let Ok(value) = HeaderValue::from_str(id) {
        response.headers_mut().insert(SESSION_ID, value);
    }
    response
}

/// A JSON body (a JSON-RPC message) with `status`.
fn json(status: StatusCode, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{text}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_origins_and_the_allowed_ones_pass() {
        for origin in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
        ] {
            assert!(origin_allowed(origin, &[]), "{origin}");
        }
        for origin in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "null",
            "file://",
        ] {
            assert!(!origin_allowed(origin, &[]), "{origin}");
        }
        assert!(origin_allowed(
            "https://app.example",
            &["https://app.example".to_owned()]
        ));
        assert!(constant_time_eq(b"abc", b"abc") && !constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }

    #[test]
    fn a_body_that_is_no_message_gets_a_400_with_a_jsonrpc_error() {
        for body in [
            &br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#[..],
            br#" [{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"n"}] "#,
        ] {
            assert!(unreadable(body).is_none());
        }
        for (body, code) in [
            (&br#"{"jsonrpc":"2.0","id":8,"#[..], -32700),
            (b"", -32700),
            (b"\xff", -32700),
            (b"42", -32600),
            (b"[]", -32600),
            (br#"[{"id":1,"method":"ping"}, 3]"#, -32600),
            (br#""ping""#, -32600),
        ] {
            let response = unreadable(body).expect("refused");
            assert_eq!(response.status(), StatusCode::BAD_REQUEST);
            assert_eq!(
                response.headers()[header::CONTENT_TYPE],
                "application/json",
                "{body:?}"
            );
            let text = body_text(response);
            let error: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(error["id"], serde_json::Value::Null);
            assert_eq!(error["error"]["code"], code, "{body:?}: {text}");
        }
    }

    /// The bytes of a response built from a `Full` body.
    #[test]
    fn a_sessionless_request_of_2026_07_28_gets_the_unsupported_version_error() {
        let meta = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
        let discover =
            format!(r#"{{"jsonrpc":"2.0","id":"d-1","method":"server/discover","params":{meta}}}"#);
        let plain_ping = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        for (body, header) in [
            (discover.as_bytes(), None),
            (&plain_ping[..], Some("2026-07-28")),
            (&br#"[{"id":1,"method":"ping"}]"#[..], Some("2027-01-01")),
        ] {
            let response = sessionless_era(body, header).expect("refused");
            assert_eq!(response.status(), StatusCode::BAD_REQUEST);
            let answer: serde_json::Value = serde_json::from_str(&body_text(response)).unwrap();
            assert_eq!(answer["error"]["code"], -32022, "{answer}");
            assert_eq!(answer["error"]["data"]["supported"][0], "2025-11-25");
            let id = serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .unwrap_or(serde_json::Value::Null);
            assert_eq!(answer["id"], id, "{answer}");
        }
        // Older clients and requests that name no version: the usual 400.
        assert!(sessionless_era(plain_ping, Some("2025-11-25")).is_none());
        assert!(sessionless_era(plain_ping, None).is_none());
        assert!(sessionless_era(b"not json", None).is_none());
    }

    fn body_text(response: Response<Body>) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let bytes = runtime
            .block_on(response.into_body().collect())
            .unwrap()
            .to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }
}
