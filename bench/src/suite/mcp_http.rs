//! What does serving over Streamable HTTP (`toolcap mcp --listen`) add to a
//! `tools/call`? The fixture server (`crate::mcp_fixture`) runs behind
//! `toolcap mcp --listen PORT`, called by an HTTP client (reqwest, one
//! keep-alive connection, the session's headers), against the same server
//! called directly over stdio, in interleaved rounds: a small result (the
//! proxy answers it as JSON) and a 4 MiB one (capped and spilled).

use std::ffi::OsString;
use std::hint::black_box;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::corpus::MIB;
use crate::mcp_client::McpChild;
use crate::mcp_fixture::{SERVER_ARG, SIZED_TOOL, SMALL_TEXT, SMALL_TOOL};
use crate::measure::{self, Plan};
use crate::process::{self, StderrLog};
use crate::table::{self, Row};

const LARGE: usize = 4 * MIB;
const REQUEST_LIMIT: Duration = Duration::from_secs(120);

/// Small call: direct, over HTTP through the proxy.
static FINDINGS: Mutex<Option<(Duration, Duration)>> = Mutex::new(None);

pub fn findings() -> Option<(Duration, Duration)> {
    *FINDINGS.lock().unwrap_or_else(|p| p.into_inner())
}

/// A client session with `toolcap mcp --listen` over HTTP.
struct HttpClient {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    url: String,
    session: String,
    next_id: u64,
}

impl HttpClient {
    fn connect(url: String) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        // reqwest is built without a default TLS provider (as in the cli).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(REQUEST_LIMIT)
            .build()
            .expect("an HTTP client");
        let mut this = Self {
            runtime,
            client,
            url,
            session: String::new(),
            next_id: 0,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}});
        let (session, _) = this.post(&init);
        this.session = session.expect("the proxy names the session");
        this.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        this
    }

    /// POSTs `message`; the session id header and the JSON answer, if any.
    fn post(&self, message: &Value) -> (Option<String>, Option<Value>) {
        let mut request = self
            .client
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(serde_json::to_vec(message).expect("JSON"));
        if !self.session.is_empty() {
            request = request.header("mcp-session-id", &self.session);
        }
        self.runtime.block_on(async {
            let response = request.send().await.expect("the proxy answers");
            assert!(response.status().is_success(), "HTTP {}", response.status());
            let session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = response.bytes().await.expect("a body");
            (session, serde_json::from_slice(&body).ok())
        })
    }

    fn call_tool(&mut self, tool: &str, arguments: &Value) -> Value {
        self.next_id += 1;
        let call = json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let (_, answer) = self.post(&call);
        let answer = answer.expect("a lone answer comes as JSON");
        answer["result"].clone()
    }
}

/// `toolcap mcp --listen` in front of the fixture, stopped on drop.
struct Listening(Child);

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn listen(bin: &Path, server: &Path, dir: &Path) -> (Listening, String) {
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        probe.local_addr().expect("its address").port()
    };
    let args: Vec<OsString> = vec![
        "mcp".into(),
        "--spill-dir".into(),
        dir.join("spill").into(),
        "--key-file".into(),
        dir.join("key").into(),
        "--listen".into(),
        port.to_string().into(),
        "--".into(),
        server.into(),
        SERVER_ARG.into(),
    ];
    let log = std::fs::File::create(dir.join("listen.stderr")).expect("a log");
    let child = Command::new(bin)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("toolcap mcp --listen starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "toolcap mcp --listen did not listen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (Listening(child), format!("http://127.0.0.1:{port}/mcp"))
}

pub fn run(bin: &Path, plan: Plan, rows: &mut Vec<Row>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let server = std::env::current_exe().expect("the report binary's path");
    let spill = dir.path().join("spill");
    let mut direct = McpChild::start(
        "fixture server",
        &server,
        &[SERVER_ARG.into()],
        StderrLog::create(dir.path().join("direct.stderr")).expect("a log"),
        REQUEST_LIMIT,
    );
    let (_listening, url) = listen(bin, &server, dir.path());
    let mut http = HttpClient::connect(url);
    let small = http.call_tool(SMALL_TOOL, &json!({}));
    assert_eq!(
        small["content"][0]["text"], SMALL_TEXT,
        "over HTTP: {small}"
    );
    assert_eq!(small, direct.call_tool(SMALL_TOOL, &json!({})));

    let no_args = json!({});
    let mut small_direct = || {
        black_box(direct.call_tool(SMALL_TOOL, &no_args));
    };
    let mut small_http = || {
        black_box(http.call_tool(SMALL_TOOL, &no_args));
    };
    let small = measure::medians(&mut [&mut small_direct, &mut small_http], plan);
    rows.push(Row::vs(
        "tools/call, small result, over HTTP through toolcap mcp --listen",
        None,
        small[1],
        "direct (stdio)",
        small[0],
    ));

    let large_args = json!({ "bytes": LARGE });
    let mut large_direct = || {
        black_box(direct.call_tool(SIZED_TOOL, &large_args));
    };
    let mut large_http = || {
        let result = http.call_tool(SIZED_TOOL, &large_args);
        assert!(
            result["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("[toolcap]"))
        );
    };
    let large =
        measure::medians_between(&mut [&mut large_direct, &mut large_http], plan, &mut || {
            process::remove_files_below(&spill)
        });
    rows.push(Row::vs(
        "tools/call, 4 MiB result, over HTTP through toolcap mcp --listen (capped + spilled)",
        Some(LARGE),
        large[1],
        "direct (stdio)",
        large[0],
    ));
    assert!(
        direct.close().success(),
        "the fixture server exited with an error"
    );
    *FINDINGS.lock().unwrap_or_else(|p| p.into_inner()) = Some((small[0], small[1]));
}

/// The report's line: the added latency against the target.
pub fn report(direct: Duration, http: Duration) -> String {
    let added = http.saturating_sub(direct);
    format!(
        "- toolcap mcp --listen adds {} per tools/call with a small result over HTTP ({} over \
         HTTP, {} direct over stdio): target under 1 ms: {}.\n",
        table::time(added),
        table::time(http),
        table::time(direct),
        if added < Duration::from_millis(1) {
            "met"
        } else {
            "not met"
        }
    )
}
