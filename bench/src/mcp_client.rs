//! A minimal MCP client over a child's stdio: newline-delimited JSON-RPC 2.0
//! written and read directly on the pipes, synchronously, with no async
//! runtime between the clock and the bytes. The same client talks to the
//! fixture server and to `toolcap mcp` in front of it, so whatever it costs
//! is on both sides of a comparison; what differs is the proxy.
//!
//! A call writes one request line and reads lines until the response with
//! its id, then parses it with `serde_json` (as any client must). A response
//! that is an error, or a child that exits or stays silent past the deadline,
//! fails the run with the end of the child's stderr.

use std::ffi::OsString;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::process::{StderrLog, Watchdog};

/// The protocol version the client asks for (one with `initialize`).
const PROTOCOL_VERSION: &str = "2025-06-18";

/// One MCP server (or proxy) as a child process, initialized.
#[derive(Debug)]
pub struct McpChild {
    label: String,
    child: Arc<Mutex<std::process::Child>>,
    pid: u32,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: StderrLog,
    watchdog: Watchdog,
    /// Most time any one request may take.
    limit: Duration,
    next_id: u64,
    line: Vec<u8>,
}

impl McpChild {
    /// Starts `program args...`, its stderr into `stderr`, and runs the
    /// MCP handshake (`initialize`, then `notifications/initialized`).
    pub fn start(
        label: &str,
        program: &Path,
        args: &[OsString],
        stderr: StderrLog,
        limit: Duration,
    ) -> McpChild {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr.stdio().expect("the stderr log opens"))
            .spawn()
            .unwrap_or_else(|e| panic!("{label}: cannot start {}: {e}", program.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped"));
        let pid = child.id();
        let child = Arc::new(Mutex::new(child));
        let mut client = McpChild {
            label: label.to_owned(),
            watchdog: Watchdog::watch(child.clone()),
            child,
            pid,
            stdin,
            stdout,
            stderr,
            limit,
            next_id: 0,
            line: Vec::new(),
        };
        let init = client.request(
            "initialize",
            &json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": { "name": "toolcap-bench", "version": env!("CARGO_PKG_VERSION") }
            }),
        );
        if init.get("serverInfo").is_none() {
            client.fail(&format!("initialize answered without serverInfo: {init}"));
        }
        client.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        client
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The names of the tools `tools/list` gives (first page).
    pub fn tool_names(&mut self) -> Vec<String> {
        let result = self.request("tools/list", &json!({}));
        result["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Calls `tool` with `arguments` and returns the `result` object.
    pub fn call_tool(&mut self, tool: &str, arguments: &Value) -> Value {
        self.request(
            "tools/call",
            &json!({ "name": tool, "arguments": arguments }),
        )
    }

    /// Sends one request and returns its `result`; notifications and
    /// server-to-client requests in between are skipped.
    fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut line = serde_json::to_vec(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }),
        )
        .expect("a request serializes");
        line.push(b'\n');
        self.watchdog.expect_within(self.limit);
        self.send(&line);
        loop {
            let Value::Object(mut message) = self.read_message(method) else {
                continue;
            };
            if message.get("id").and_then(Value::as_u64) != Some(id)
                || message.contains_key("method")
            {
                continue;
            }
            self.watchdog.idle();
            return match message.remove("result") {
                Some(result) => result,
                None => self.fail(&format!(
                    "{method} got an error: {}",
                    message.get("error").unwrap_or(&Value::Null)
                )),
            };
        }
    }

    fn send(&mut self, line: &[u8]) {
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line).and_then(|()| stdin.flush()),
            None => Ok(()),
        };
        if let Err(e) = written {
            self.fail(&format!("cannot write to its stdin: {e}"));
        }
    }

    /// The next line from the child, parsed.
    fn read_message(&mut self, method: &str) -> Value {
        self.line.clear();
        match self.stdout.read_until(b'\n', &mut self.line) {
            Ok(0) => self.fail(&format!("closed its stdout while {method} was pending")),
            Ok(_) => {}
            Err(e) => self.fail(&format!("cannot read its stdout: {e}")),
        }
        match serde_json::from_slice(&self.line) {
            Ok(message) => message,
            Err(e) => {
                let shown = String::from_utf8_lossy(&self.line[..self.line.len().min(200)]);
                self.fail(&format!("wrote a line that is not JSON ({e}): {shown}"))
            }
        }
    }

    /// Closes stdin (the end of the session) and waits for the exit.
    pub fn close(mut self) -> ExitStatus {
        self.stdin = None;
        self.watchdog.expect_within(self.limit);
        let status = loop {
            let polled = self
                .child
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .try_wait();
            match polled {
                Ok(Some(status)) => break status,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => self.fail(&format!("cannot wait for it: {e}")),
            }
        };
        if self.watchdog.fired() {
            self.fail("did not exit after its stdin closed");
        }
        status
    }

    fn fail(&self, what: &str) -> ! {
        let why = if self.watchdog.fired() {
            format!(
                " (killed: no answer within {:.0} s)",
                self.limit.as_secs_f64()
            )
        } else {
            String::new()
        };
        panic!(
            "{}: {what}{why}\n--- its stderr ends:\n{}",
            self.label,
            self.stderr.tail()
        )
    }
}

impl Drop for McpChild {
    fn drop(&mut self) {
        // A child left running after a failed run would hold its pipes.
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        if let Ok(None) = child.try_wait() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
