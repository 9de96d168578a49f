//! `toolcap mcp --url`: a remote MCP server over Streamable HTTP, which the
//! router sees as it sees a server it started: lines in, lines out. The
//! HTTP side runs on a thread of its own with a small tokio runtime.

mod inbox;
mod param_headers;
mod peek;
mod session;

use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::header::HeaderMap;
use tokio::sync::watch;
use tokio::task::JoinSet;

use self::inbox::Inbox;
use self::session::Session;
use super::lines::{Event, Flow, Outgoing};
use crate::failure::Failure;
use crate::headers::{self, HeaderSpec};

/// A remote server as the options give it.
#[derive(Debug, Clone)]
pub struct Remote {
    pub url: Url,
    pub headers: Vec<HeaderSpec>,
}

/// The running connection, as the router holds it.
pub struct RemoteServer {
    pub shown: String,
    stop: watch::Sender<bool>,
    worker: Option<JoinHandle<()>>,
}

impl RemoteServer {
    /// Whether the connection has ended (the client closed, and what was
    /// on its way has arrived).
    pub fn has_ended(&self) -> bool {
        self.worker.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Stops what is still pending, ends the session on the server and
    /// waits for that, at most `grace`.
    pub fn stop(&mut self, grace: Duration) {
        let _ = self.stop.send(true);
        let deadline = Instant::now() + grace;
        while !self.has_ended() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The URL of `--url`: http or https only.
pub fn parse_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|e| format!("`--url`: not a URL ({e})"))?;
    match url.scheme() {
        "http" | "https" if url.host().is_some() => Ok(url),
        _ => Err("`--url` must be an http:// or https:// URL with a host".to_owned()),
    }
}

/// Connects to `remote`: the sender takes messages for the server, and the
/// server's messages arrive as [`Event::Server`] lines.
pub fn connect(
    remote: &Remote,
    events: mpsc::Sender<Event>,
    in_flight: usize,
    max_line: usize,
) -> Result<(Sender<Outgoing>, RemoteServer), Failure> {
    let headers = headers::resolve(&remote.headers, |name| std::env::var(name).ok())
        .map_err(Failure::usage)?;
    let headers: HeaderMap = headers.into_iter().collect();
    // One process-wide provider; installing it twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .tls_backend_rustls()
        .build()
        .map_err(|e| Failure::failed(format!("cannot set up the HTTP client: {e}")))?;
    let inbox = Inbox::new(events, Flow::new(in_flight), max_line);
    let session = Arc::new(Session::new(client, remote.url.clone(), headers, inbox));
    let shown = session.shown.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::failed(format!("cannot start the HTTP client: {e}")))?;
    let (to_server, from_router) = mpsc::channel::<Outgoing>();
    let (queue, outgoing) = tokio::sync::mpsc::unbounded_channel();
    // The router's messages cross into the runtime; each keeps its credit
    // until it is sent, so the client is held back as over stdio.
    thread::spawn(move || {
        for message in from_router {
            if queue.send(message).is_err() {
                break;
            }
        }
    });
    let (stop, stopped) = watch::channel(false);
    let worker = thread::spawn(move || runtime.block_on(run(session, outgoing, stopped)));
    Ok((
        to_server,
        RemoteServer {
            shown,
            stop,
            worker: Some(worker),
        },
    ))
}

/// Sends each message as it comes, concurrently; once the client is done,
/// waits for what is on its way, then ends the session.
async fn run(
    session: Arc<Session>,
    mut outgoing: tokio::sync::mpsc::UnboundedReceiver<Outgoing>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut sending = JoinSet::new();
    let mut stopping = false;
    loop {
        tokio::select! {
            message = outgoing.recv() => match message {
                Some((bytes, credit)) => {
                    let session = Arc::clone(&session);
                    sending.spawn(async move {
                        let _credit = credit;
                        session.send(bytes).await;
                    });
                }
                None => break,
            },
            _ = stopped.changed() => {
                stopping = true;
                break;
            }
            Some(_) = sending.join_next(), if !sending.is_empty() => {}
        }
    }
    while !stopping && !sending.is_empty() {
        tokio::select! {
            _ = sending.join_next() => {}
            _ = stopped.changed() => stopping = true,
        }
    }
    sending.abort_all();
    session.end().await;
    session.closed();
}
