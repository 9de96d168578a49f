//! `toolcap mcp --listen ADDR`: the proxy serves clients over Streamable
//! HTTP instead of stdio. Each client session (`Mcp-Session-Id`, made at
//! its `initialize`) gets a proxy of its own: its own server process (or
//! remote session), its own component session and spill thread folder, and
//! the same router as over stdio, whose lines go to and from HTTP here.
//!
//! Built on hyper rather than rmcp's `StreamableHttpService`: that service
//! hands typed messages to an rmcp handler, where the proxy passes every
//! message through its router byte for byte.

mod http;
mod streams;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::Setup;
use super::lines::Event;
use crate::config::FileConfig;
use crate::failure::Failure;
use crate::log;
use crate::options::McpArgs;
use crate::signals::{self, Signal};

use self::streams::Streams;

/// How long sessions have to shut down when the proxy stops.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// A session with no request and no open stream for this long is ended
/// (its client went away without DELETE), unless `--idle-timeout` says.
const DEFAULT_IDLE: Duration = Duration::from_secs(3600);
/// How often idle sessions are looked for.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// Where and for whom the proxy listens.
#[derive(Debug)]
pub struct Listen {
    pub addr: SocketAddr,
    /// What clients must send as `Authorization: Bearer <token>`.
    token: Option<String>,
    /// Origins allowed besides the loopback ones.
    origins: Vec<String>,
    /// How long an abandoned session lives.
    idle: Duration,
}

/// `--listen` (or the file's `listen`) with its token and origins; `None`
/// over stdio. A port alone means 127.0.0.1; an address that is not
/// loopback needs a client token, since anyone who reaches it could call
/// the server's tools.
pub fn options(args: &McpArgs, file: &FileConfig) -> Result<Option<Listen>, Failure> {
    let Some(text) = args.listen.as_deref().or(file.listen.as_deref()) else {
        return Ok(None);
    };
    let addr = match text.parse::<u16>() {
        Ok(port) => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
        Err(_) => text.parse::<SocketAddr>().map_err(|_| {
            Failure::usage(format!(
                "--listen: `{text}` is not PORT nor HOST:PORT (an IP address)"
            ))
        })?,
    };
    let template = args
        .client_token
        .clone()
        .or_else(|| file.client_token.clone());
    let token = match template {
        Some(template) => {
            let token = crate::headers::expand_env(&template, |name| std::env::var(name).ok())
                .map_err(|e| Failure::usage(format!("--client-token: {e}")))?;
            if token.trim().is_empty() {
                return Err(Failure::usage("--client-token is empty"));
            }
            Some(token.trim().to_owned())
        }
        None => None,
    };
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(Failure::usage(format!(
            "--listen {addr} is reachable from other machines: give --client-token too \
             (or listen on 127.0.0.1)"
        )));
    }
    let mut origins = file.allow_origins.clone().unwrap_or_default();
    origins.extend(args.allow_origins.iter().cloned());
    let idle = match args.idle_timeout.or(file.idle_timeout_seconds) {
        Some(0) => return Err(Failure::usage("--idle-timeout must be at least 1 second")),
        Some(seconds) => Duration::from_secs(seconds),
        None => DEFAULT_IDLE,
    };
    Ok(Some(Listen {
        addr,
        token,
        origins,
        idle,
    }))
}

/// One client's session: its proxy's input, and its streams.
pub struct Session {
    to_router: Mutex<Option<mpsc::Sender<Event>>>,
    streams: Arc<Mutex<Streams>>,
    proxy: Mutex<Option<JoinHandle<u8>>>,
    /// When the client last sent a request.
    last_used: Mutex<Instant>,
}

impl Session {
    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// No request for `idle` and no stream open: the client is gone.
    fn idle_for(&self, idle: Duration) -> bool {
        let quiet = self
            .last_used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
            >= idle;
        quiet
            && !self
                .streams
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .any_open()
    }

    fn send(&self, event: Event) -> bool {
        let to_router = self.to_router.lock().unwrap_or_else(|e| e.into_inner());
        to_router.as_ref().is_some_and(|s| s.send(event).is_ok())
    }

    /// The client is done: the proxy closes the server and ends.
    fn close(&self) {
        if let Some(to_router) = self
            .to_router
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            let _ = to_router.send(Event::ClientClosed);
        }
    }

    fn ended(&self) -> bool {
        self.proxy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_none_or(JoinHandle::is_finished)
    }
}

/// What every request handler shares.
pub struct Shared {
    setup: Setup,
    listen: Listen,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl Shared {
    fn session(&self, id: &str) -> Option<Arc<Session>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|_, s| !s.ended());
        let session = sessions.get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// Ends the sessions whose clients went away without a DELETE.
    fn end_idle(&self) {
        let idle = self.listen.idle;
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|id, session| {
            if !session.idle_for(idle) {
                return true;
            }
            log::line(&format!(
                "session {}… idle for {} s: ended",
                &id[..8],
                idle.as_secs()
            ));
            session.close();
            false
        });
    }

    /// A new session: a proxy of its own, with its own thread folder.
    fn open_session(&self) -> Result<(String, Arc<Session>), String> {
        let mut random = [0u8; 16];
        getrandom::fill(&mut random).map_err(|e| format!("no random session id: {e}"))?;
        let id: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let thread = format!("{}-{}", self.setup.config.thread_id, &id[..8]);
        let capper = self.setup.capper(&thread).map_err(|f| f.message)?;
        let (events, received) = mpsc::channel();
        let server = self.setup.start_server(&events).map_err(|f| f.message)?;
        let (to_client, from_router) = mpsc::channel();
        let streams = Arc::new(Mutex::new(Streams::default()));
        let dispatcher = {
            let streams = Arc::clone(&streams);
            thread::spawn(move || streams::dispatch(from_router, streams))
        };
        let proxy = self
            .setup
            .proxy(capper, server, received, to_client, dispatcher);
        let proxy = thread::spawn(move || proxy.serve());
        let session = Arc::new(Session {
            to_router: Mutex::new(Some(events)),
            streams,
            proxy: Mutex::new(Some(proxy)),
            last_used: Mutex::new(Instant::now()),
        });
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), Arc::clone(&session));
        Ok((id, session))
    }

    fn remove(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
    }
}

/// Serves clients until a signal stops the proxy; the exit status.
pub fn serve(setup: Setup, listen: Listen) -> Result<u8, Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::failed(format!("cannot start the HTTP server: {e}")))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(listen.addr))
        .map_err(|e| Failure::usage(format!("cannot listen on {}: {e}", listen.addr)))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Failure::failed(e.to_string()))?;
    log::line(&format!("listening on http://{bound}/mcp"));
    let shared = Arc::new(Shared {
        setup,
        listen,
        sessions: Mutex::new(HashMap::new()),
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<Signal>();
    let stop = Mutex::new(Some(stop));
    signals::watch(move |signal| {
        match stop.lock().ok().and_then(|mut s| s.take()) {
            Some(stop) => {
                let _ = stop.send(signal);
            }
            // A second signal while stopping: at once.
            None => std::process::exit(i32::from(signal.exit_code())),
        }
    });
    let signal = runtime.block_on(http::accept(Arc::clone(&shared), listener, stopped));
    log::line(&format!("stopping ({})", signal.name()));
    let sessions: Vec<Arc<Session>> = shared
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain()
        .map(|(_, s)| s)
        .collect();
    for session in &sessions {
        session.send(Event::Signal(signal));
    }
    let deadline = Instant::now() + STOP_GRACE;
    while sessions.iter().any(|s| !s.ended()) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(signal.exit_code())
}
