//! `toolcap mcp` through the built binary and the real component, in front
//! of a small scripted MCP server (`fake_mcp_server.py`, not under test).
//! `cargo test --release -p toolcap --test mcp`

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::{Sandbox, wait_gone};
use serde_json::{Value, json};

const FAKE_SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fake_mcp_server.py");
/// Longest wait for one message.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running `toolcap mcp` in front of the fake server.
struct Proxy {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: PathBuf,
    /// Kept until the proxy is gone (its spill directory and key file).
    sandbox: Option<Sandbox>,
}

impl Proxy {
    fn start(args: &[&str]) -> Self {
        Self::start_in(Sandbox::new(), args)
    }

    fn start_in(sandbox: Sandbox, args: &[&str]) -> Self {
        Self::start_with(sandbox, args, &[], &[])
    }

    /// With `env` set for the server, and `before` in front of its command.
    fn start_with(sandbox: Sandbox, args: &[&str], env: &[(&str, &str)], before: &[&str]) -> Self {
        let stderr = sandbox.path("proxy-stderr.log");
        let mut command = sandbox.toolcap("mcp");
        command
            .args(args)
            .envs(env.iter().copied())
            .arg("--")
            .args(before)
            .args(["python3", FAKE_SERVER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap());
        let mut child = command.spawn().expect("toolcap mcp starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            stderr,
            sandbox: Some(sandbox),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send_json(&mut self, message: Value) {
        self.send(&message.to_string());
    }

    fn call(&mut self, id: impl Into<Value>, tool: &str, arguments: Value) {
        self.send_json(
            json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}),
        );
    }

    /// The next line the client receives.
    fn recv(&self) -> String {
        self.recv_within(PATIENCE)
            .unwrap_or_else(|| panic!("no message in {PATIENCE:?}; stderr:\n{}", self.stderr()))
    }

    fn recv_within(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    fn recv_json(&self) -> Value {
        let line = self.recv();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits until the proxy's stderr holds `text`.
    fn wait_for_stderr(&self, text: &str) {
        let start = Instant::now();
        while !self.stderr().contains(text) {
            assert!(
                start.elapsed() < PATIENCE,
                "no `{text}` on stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The proxy's peak resident memory so far, in MiB.
    fn peak_mib(&self) -> u64 {
        peak_mib(self.child.id())
    }

    /// The fake server's process id, as it said on stderr.
    fn server_pid(&self) -> u32 {
        self.wait_for_stderr("server: pid ");
        let stderr = self.stderr();
        let at = stderr.find("server: pid ").unwrap() + "server: pid ".len();
        stderr[at..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Closes the client's side, waits for the proxy to exit, and gives its stderr.
    fn close_keeping_stderr(mut self) -> (ExitStatus, String) {
        let status = self.wait_exit();
        (status, self.stderr())
    }

    /// Closes the client's side and waits for the proxy to exit.
    fn close(self) -> ExitStatus {
        self.finish().0
    }

    /// Closes the client's side, waits for the proxy to exit, and keeps its sandbox.
    fn finish(mut self) -> (ExitStatus, Sandbox) {
        let status = self.wait_exit();
        (status, self.sandbox.take().expect("kept"))
    }

    fn wait_exit(&mut self) -> ExitStatus {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "proxy did not exit:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proxy {
    /// Stops the proxy as a user would, with SIGTERM, so that it stops its
    /// server's group too: a SIGKILL left a server that never reads its
    /// stdin (`FAKE_MODE=deaf`) running after the suite.
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// SIGTERM to a proxy still running, then its exit; SIGKILL if it does not
/// go within [`PATIENCE`].
fn stop(child: &mut Child) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    // Not reaped yet, so the pid is still this child's (a zombie at worst).
    kill("TERM", child.id());
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The peak resident memory (VmHWM) of process `pid`, in MiB.
fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024
}

/// Sends `signal` (`TERM`, `INT`) to process `pid`.
fn kill(signal: &str, pid: u32) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

/// What the fake server's `big` tool returns for `bytes`.
fn big_text(bytes: usize) -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!("line {i} of the big output\n"));
        i += 1;
    }
    text.truncate(bytes);
    text
}

/// The bytes of all text blocks of a `CallToolResult`.
fn text_bytes(result: &Value) -> usize {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .map(str::len)
        .sum()
}

fn cap_meta(result: &Value) -> &Value {
    &result["_meta"]["tool-output-cap/cap"]
}

/// The Python server's line for a one-text-block result (json.dumps defaults).
fn python_text_answer(id: u32, text: &str, is_error: bool) -> String {
    format!(
        r#"{{"jsonrpc": "2.0", "id": {id}, "result": {{"content": [{{"type": "text", "text": {}}}], "isError": {is_error}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

/// A client's `initialize` (a protocol version without `resultType`).
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

#[test]
fn messages_that_need_no_change_pass_byte_for_byte() {
    let mut proxy = Proxy::start(&[]);
    proxy.send(INITIALIZE);
    // A server without resources gains the capability (the spills), and
    // nothing else of its answer changes.
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true},"resources":{}}, "serverInfo": {"name": "fake", "version": "1.0"}}}"#
    );
    proxy.call(2, "echo", json!({"text": "hi there"}));
    assert_eq!(proxy.recv(), python_text_answer(2, "hi there", false));
    proxy.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(proxy.recv(), r#"{"jsonrpc": "2.0", "id": 3, "result": {}}"#);
    proxy.send(r#"{"jsonrpc":"2.0","id":4,"method":"prompts/list"}"#);
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "no prompts/list"}}"#
    );
    assert!(proxy.close().success());
}

#[test]
fn the_first_tools_list_page_gets_the_read_tool() {
    let mut proxy = Proxy::start(&[]);
    proxy.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let line = proxy.recv();
    // The server's own entries keep their members' exact text, and say how
    // big a result Claude Code may show whole (the budget and a margin),
    // so that it does not save a capped result to a file again.
    assert!(
        line.contains(
            r#"{"name":"echo","description":"fake echo","inputSchema":{"type": "object"},"_meta":{"anthropic/maxResultSizeChars":30720}}"#
        ),
        "{line}"
    );
    let page: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(page["result"]["nextCursor"], "page2");
    let tools = page["result"]["tools"].as_array().unwrap();
    let names: Vec<_> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "big",
            "blocks",
            "slow",
            "stubborn",
            "read_spilled_output"
        ]
    );
    let read_tool = tools.last().unwrap();
    assert!(read_tool["description"].as_str().unwrap().len() > 50);
    assert_eq!(read_tool["inputSchema"]["type"], "object");
    assert!(read_tool["inputSchema"]["properties"]["path"].is_object());
    assert_eq!(read_tool["annotations"]["readOnlyHint"], true);

    // Later pages do not get the read tool; their tools get the size too.
    proxy.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"page2"}}"#);
    let line = proxy.recv();
    assert!(
        line.starts_with(r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"progress""#),
        "{line}"
    );
    assert!(!line.contains("read_spilled_output"));
    let page: Value = serde_json::from_str(&line).unwrap();
    for tool in page["result"]["tools"].as_array().unwrap() {
        assert_eq!(
            tool["_meta"]["anthropic/maxResultSizeChars"], 30720,
            "{tool}"
        );
    }
    // A tool that passes through says nothing: its results are not capped.
    let mut proxy = Proxy::start(&["--passthrough"]);
    proxy.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let line = proxy.recv();
    assert!(!line.contains("maxResultSizeChars"), "{line}");
}

#[test]
fn the_log_file_gets_an_event_per_capped_result() {
    let sandbox = Sandbox::new();
    let log = sandbox.path("events.jsonl");
    let mut proxy = Proxy::start_in(
        sandbox,
        &["--max-bytes", "3000", "--log-file", log.to_str().unwrap()],
    );
    proxy.call(1, "big", json!({"bytes": 200_000}));
    let answer: Value = serde_json::from_str(&proxy.recv()).unwrap();
    let sent = answer["result"].to_string().len() as u64;
    proxy.call(2, "echo", json!({"text": "fits"}));
    proxy.recv();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let event: Value = serde_json::from_str(text.trim_end()).unwrap();
    assert_eq!(event["subcommand"], "mcp");
    assert_eq!(event["server"], "python3");
    assert_eq!(event["tool"], "big");
    assert_eq!(event["truncated"], true);
    assert!(event["originalBytes"].as_u64().unwrap() >= 200_000);
    assert!(
        event["sentBytes"].as_u64().unwrap().abs_diff(sent) < 100,
        "{event} {sent}"
    );
    assert_eq!(
        event["spill"],
        cap_meta(&answer["result"])["spill"]["path"],
        "{event}"
    );
}

#[test]
fn the_read_tool_name_can_be_chosen() {
    let mut proxy = Proxy::start(&["--read-tool-name", "open_saved"]);
    proxy.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#);
    let page = proxy.recv_json();
    assert_eq!(page["result"]["tools"][5]["name"], "open_saved");
    proxy.call(2, "big", json!({"bytes": 60000}));
    let answer = proxy.recv_json();
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("open_saved")
    );
    let path = cap_meta(&answer["result"])["spill"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    proxy.call(3, "open_saved", json!({"path": path, "grep": "line 77 of"}));
    let read = proxy.recv_json();
    assert_eq!(read["result"]["isError"], false, "{read}");
}

#[test]
fn a_big_result_is_capped_and_the_read_tool_reads_it_back() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    proxy.call("call-a", "big", json!({"bytes": 100_000}));
    let answer = proxy.recv_json();
    assert_eq!(answer["id"], "call-a");
    let result = &answer["result"];
    let notice = result["content"][0]["text"].as_str().unwrap();
    assert!(
        notice.starts_with("[toolcap]"),
        "the notice is the first block: {notice}"
    );
    assert!(text_bytes(result) <= 3000, "{} bytes", text_bytes(result));
    assert_eq!(result["isError"], false);
    let spill = &cap_meta(result)["spill"];
    let path = spill["path"].as_str().unwrap().to_owned();
    assert!(
        path.contains("/big-call-a-"),
        "call id `<tool>-<id>`: {path}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), big_text(100_000));

    // The read tool answers from the proxy (the server never sees it),
    // uncapped although its answer is larger than the budget.
    proxy.call(
        7,
        "read_spilled_output",
        json!({"path": path, "grep": "line 1234 of"}),
    );
    let read = proxy.recv_json();
    assert_eq!(read["id"], 7);
    assert_eq!(read["result"]["isError"], false, "{read}");
    assert!(
        read["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("line 1235: line 1234 of the big output")
    );
    proxy.call(
        8,
        "read_spilled_output",
        json!({"path": path, "offset": 0, "max_bytes": 8000}),
    );
    let page = proxy.recv_json();
    let text = page["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.len() > 3000, "never capped: {} bytes", text.len());
    assert!(text.contains("1\tline 0 of the big output\n"), "{text}");
    assert!(text.contains("2\tline 1 of the big output\n"), "{text}");
    assert_eq!(
        proxy.stderr().matches("server: got tools/call").count(),
        1,
        "only `big` reached the server"
    );

    // A path that is not a saved output is the model's mistake, said plainly.
    proxy.call(9, "read_spilled_output", json!({"path": "/etc/passwd"}));
    let refused = proxy.recv_json();
    assert_eq!(refused["result"]["isError"], true);
    assert_eq!(refused["result"]["content"][0]["type"], "text");
}

#[test]
fn a_spill_dir_that_is_a_file_is_said_once_and_results_are_still_capped() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.spill_dir(), "a file, not a folder").unwrap();
    let mut proxy = Proxy::start_in(sandbox, &["--max-bytes", "3000"]);
    proxy.call("call-a", "big", json!({"bytes": 100_000}));
    let answer = proxy.recv_json();
    let result = &answer["result"];
    assert!(text_bytes(result) <= 3000, "{} bytes", text_bytes(result));
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(toolcap_core::notice::NOT_SAVED), "{text}");
    let (_, said) = proxy.close_keeping_stderr();
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("toolcap: ") && !l.starts_with("toolcap: server: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{said}");
    assert!(
        warnings[0].starts_with("toolcap: cannot use the spill directory ")
            && warnings[0].ends_with(
                "/spill: it is not a directory; the full output of a cut result will not be saved"
            ),
        "{said}"
    );
}

#[test]
fn references_verify_across_proxy_restarts() {
    let sandbox = Sandbox::new();
    let mut proxy = Proxy::start_in(sandbox, &["--max-bytes", "3000"]);
    proxy.call(1, "big", json!({"bytes": 50_000}));
    let answer = proxy.recv_json();
    let notice = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, sandbox) = proxy.finish();
    assert!(status.success());
    let mut again = Proxy::start_in(sandbox, &[]);
    // The notice text itself is a valid argument: its reference is checked with the key.
    again.call(
        2,
        "read_spilled_output",
        json!({"path": notice, "line": 3, "lines": 1}),
    );
    let read = again.recv_json();
    assert_eq!(read["result"]["isError"], false, "{read}");
    assert!(
        read["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("line 2 of the big output")
    );
}

#[test]
fn a_failed_call_keeps_is_error_and_says_so_first() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    proxy.call(1, "big", json!({"bytes": 50_000, "is_error": true}));
    let result = proxy.recv_json()["result"].clone();
    assert_eq!(result["isError"], true);
    let notice = result["content"][0]["text"].as_str().unwrap();
    assert!(notice.contains("`big` failed"), "{notice}");
}

#[test]
fn media_blocks_and_structured_content_are_not_cut() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    proxy.call(1, "blocks", json!({"bytes": 50_000}));
    let result = proxy.recv_json()["result"].clone();
    let blocks = result["content"].as_array().unwrap();
    assert!(
        blocks.contains(&json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}))
    );
    assert_eq!(result["structuredContent"], json!({"rows": [0, 1, 2]}));
}

#[test]
fn notifications_pass_both_ways() {
    let mut proxy = Proxy::start(&[]);
    proxy.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    proxy.wait_for_stderr("server: got notifications/initialized");
    proxy.call(1, "notify", json!({"text": "héllo"}));
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "h\u00e9llo"}}"#
    );
    assert_eq!(proxy.recv(), python_text_answer(1, "notified", false));
}

#[test]
fn requests_from_the_server_and_their_answers_pass_through() {
    let mut proxy = Proxy::start(&[]);
    proxy.call(5, "ask", json!({}));
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": "s-5", "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}"#
    );
    proxy.send(r#"{"jsonrpc":"2.0","id":"s-5","result":{"model":"m","role":"assistant","content":{"type":"text","text":"ok"}}}"#);
    let answer = proxy.recv_json();
    assert_eq!(answer["id"], 5);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with(r#"client said {"model": "m""#), "{text}");
}

#[test]
fn many_interleaved_messages_keep_their_order() {
    let mut proxy = Proxy::start(&["--max-bytes", "2000"]);
    let count = 60;
    for i in 0..count {
        match i % 4 {
            0 => proxy.call(i, "big", json!({"bytes": 20_000 + i * 100})),
            1 => proxy.call(i, "echo", json!({"text": format!("echo {i}")})),
            2 => proxy.call(i, "notify", json!({"text": format!("note {i}")})),
            _ => proxy.send_json(json!({"jsonrpc": "2.0", "id": i, "method": "ping"})),
        }
    }
    for i in 0..count {
        if i % 4 == 2 {
            let note = proxy.recv_json();
            assert_eq!(note["params"]["data"], format!("note {i}"));
        }
        let answer = proxy.recv_json();
        assert_eq!(
            answer["id"], i,
            "answers in the order the server wrote them"
        );
        if i % 4 == 0 {
            assert_eq!(cap_meta(&answer["result"])["truncated"], true);
        }
    }
}

#[test]
fn a_request_not_answered_in_time_fails_and_is_cancelled() {
    let mut proxy = Proxy::start(&["--timeout", "1"]);
    let start = Instant::now();
    proxy.call(7, "stubborn", json!({"seconds": 2.5}));
    let error = proxy.recv_json();
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert_eq!(error["id"], 7);
    assert_eq!(error["error"]["code"], -32001);
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("tools/call") && message.contains("1 s"),
        "{message}"
    );
    proxy.wait_for_stderr("server: cancelled 7");
    // The late answer (at 2.5 s) is dropped: the next line is the ping's.
    std::thread::sleep(Duration::from_millis(2000));
    proxy.send(r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
    assert_eq!(proxy.recv(), r#"{"jsonrpc": "2.0", "id": 8, "result": {}}"#);
    proxy.wait_for_stderr("late answer");
    assert_eq!(proxy.recv_within(Duration::from_millis(300)), None);
}

#[test]
fn progress_restarts_a_request_clock() {
    let mut proxy = Proxy::start(&["--timeout", "2"]);
    proxy.send_json(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "progress", "arguments": {"seconds": 4.5}, "_meta": {"progressToken": "tok"}}}));
    loop {
        let message = proxy.recv_json();
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], "tok");
            continue;
        }
        assert_eq!(message["id"], 3);
        assert_eq!(
            message["result"]["content"][0]["text"], "progress done",
            "{message}"
        );
        break;
    }
}

#[test]
fn a_request_the_client_cancelled_gets_no_error_later() {
    let mut proxy = Proxy::start(&["--timeout", "1"]);
    proxy.call(9, "slow", json!({"seconds": 3}));
    proxy.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user"}}"#);
    proxy.wait_for_stderr("server: cancelled 9");
    assert_eq!(proxy.recv_within(Duration::from_millis(1800)), None);
    proxy.send(r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#);
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": 10, "result": {}}"#
    );
}

#[test]
fn a_server_crash_fails_pending_and_later_requests() {
    let mut proxy = Proxy::start(&[]);
    proxy.call(1, "silent", json!({}));
    proxy.call(2, "crash", json!({}));
    let mut failed = Vec::new();
    for _ in 0..2 {
        let error = proxy.recv_json();
        assert_eq!(error["error"]["code"], -32000, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("exited with status 3") && message.contains("boom"),
            "{message}"
        );
        failed.push(error["id"].as_i64().unwrap());
    }
    failed.sort();
    assert_eq!(failed, [1, 2]);
    proxy.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    let error = proxy.recv_json();
    assert_eq!(
        (error["id"].clone(), error["error"]["code"].clone()),
        (json!(3), json!(-32000))
    );
    // The read tool needs no server.
    proxy.call(
        4,
        "read_spilled_output",
        json!({"path": "nothing-here.txt"}),
    );
    let read = proxy.recv_json();
    assert_eq!(read["id"], 4);
    assert_eq!(read["result"]["isError"], true, "{read}");
    assert_eq!(proxy.close().code(), Some(0));
}

#[test]
fn a_line_that_is_not_json_is_skipped_and_fails_its_request() {
    let mut proxy = Proxy::start(&[]);
    proxy.call(4, "garbage", json!({}));
    let error = proxy.recv_json();
    assert_eq!(error["id"], 4);
    assert_eq!(error["error"]["code"], -32003);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    proxy.wait_for_stderr("this is not json at all");
    proxy.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    assert_eq!(proxy.recv(), r#"{"jsonrpc": "2.0", "id": 5, "result": {}}"#);
}

#[test]
fn passthrough_forwards_results_untouched_but_adds_the_read_tool() {
    let mut proxy = Proxy::start(&["--passthrough", "--max-bytes", "2000"]);
    proxy.call(1, "big", json!({"bytes": 40_000}));
    assert_eq!(
        proxy.recv(),
        python_text_answer(1, &big_text(40_000), false)
    );
    proxy.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert!(proxy.recv().contains("read_spilled_output"));
}

#[test]
fn a_tool_budget_applies_to_that_tool_only() {
    let mut proxy = Proxy::start(&["--tool-budget", "big=2000"]);
    proxy.call(1, "big", json!({"bytes": 100_000}));
    let result = proxy.recv_json()["result"].clone();
    assert!(text_bytes(&result) <= 2000, "{}", text_bytes(&result));
    proxy.call(2, "blocks", json!({"bytes": 100_000, "varied": true}));
    let result = proxy.recv_json()["result"].clone();
    assert!(
        text_bytes(&result) > 2000 && text_bytes(&result) <= 24_576,
        "{}",
        text_bytes(&result)
    );
}

#[test]
fn the_config_file_sets_budgets_and_switches() {
    let sandbox = Sandbox::new();
    let config = sandbox.path("toolcap.toml");
    std::fs::write(
        &config,
        "timeout_seconds = 60\n[budget]\nmax_bytes = 2500\n\n[tools.blocks]\nmax_bytes = 4000\n\n[tools.echo]\npassthrough = true\n\n[tools.big]\npassthrough = true\n",
    )
    .unwrap();
    let config = config.to_string_lossy().into_owned();
    let mut proxy = Proxy::start_in(
        sandbox,
        &["--config", &config, "--tool-budget", "blocks=3000"],
    );
    proxy.call(1, "big", json!({"bytes": 30_000}));
    assert_eq!(
        proxy.recv(),
        python_text_answer(1, &big_text(30_000), false)
    );
    proxy.call(2, "blocks", json!({"bytes": 100_000, "varied": true}));
    let result = proxy.recv_json()["result"].clone();
    let bytes = text_bytes(&result);
    assert!(
        bytes <= 3000 && bytes > 2500,
        "the option wins over both: {bytes}"
    );
}

#[test]
fn an_unknown_config_key_is_an_error_naming_it_and_the_file() {
    let sandbox = Sandbox::new();
    let config = sandbox.path("proxy.toml");
    std::fs::write(&config, "[tools.big]\nmax_bytez = 10\n").unwrap();
    let output = sandbox
        .toolcap("mcp")
        .arg("--config")
        .arg(&config)
        .args(["--", "python3", FAKE_SERVER])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("max_bytez") && message.contains("proxy.toml"),
        "{message}"
    );
}

#[test]
fn a_budget_too_small_stops_the_proxy_before_the_server_starts() {
    let sandbox = Sandbox::new();
    let output = sandbox
        .toolcap("mcp")
        .args(["--tool-budget", "big=10", "--", "python3", FAKE_SERVER])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("tool `big`") && !message.contains("server: "),
        "{message}"
    );
}

#[test]
fn a_server_that_cannot_start_exits_1() {
    let sandbox = Sandbox::new();
    let output = sandbox
        .toolcap("mcp")
        .args(["--", "toolcap-test-no-such-server"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("cannot start the MCP server `toolcap-test-no-such-server`"),
        "{message}"
    );
}

#[test]
fn answers_still_arrive_after_the_client_closed_its_input() {
    let mut proxy = Proxy::start(&["--max-bytes", "2000"]);
    proxy.call(1, "echo", json!({"text": "first"}));
    proxy.call(2, "big", json!({"bytes": 30_000}));
    proxy.call(3, "stubborn", json!({"seconds": 0.5}));
    drop(proxy.stdin.take());
    assert_eq!(proxy.recv(), python_text_answer(1, "first", false));
    assert_eq!(proxy.recv_json()["id"], 2);
    assert_eq!(proxy.recv_json()["id"], 3);
    let status = proxy.close();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn spills_older_than_the_retention_are_swept_at_start() {
    let sandbox = Sandbox::new();
    let mut cap = sandbox.toolcap("cap");
    cap.args(["--thread", "old", "--max-bytes", "2000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cap.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(common::numbered_lines(5_000).as_bytes())
        .unwrap();
    let notice = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let spilled = common::spill_path(&notice).expect("saved");
    // Make it 30 days old: its record and its file times.
    let folder = spilled.parent().unwrap();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".meta") {
            let mut meta: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let created = meta["created_ns"].as_u64().expect("created_ns");
            meta["created_ns"] = json!(created - 30 * 86_400 * 1_000_000_000);
            // Its promise (7 days from the save) moves back with it.
            let expires = meta["expires_ns"].as_u64().expect("expires_ns");
            meta["expires_ns"] = json!(expires - 30 * 86_400 * 1_000_000_000);
            std::fs::write(&path, meta.to_string()).unwrap();
        }
        let touched = std::process::Command::new("touch")
            .args(["-d", "30 days ago"])
            .arg(&path)
            .status()
            .unwrap();
        assert!(touched.success());
    }

    let proxy = Proxy::start_in(sandbox, &["--retention-days", "0"]);
    let (status, sandbox) = proxy.finish();
    assert!(status.success());
    assert!(spilled.exists(), "0 keeps for ever");

    let proxy = Proxy::start_in(sandbox, &[]);
    proxy.wait_for_stderr("deleted 1 saved output older than 7 days");
    assert!(!spilled.exists());
}

// ---- the spills as resources ----

/// The answer to a request of `method` with `params`.
fn request(proxy: &mut Proxy, id: u32, method: &str, params: Value) -> Value {
    proxy.send_json(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    proxy.recv_json()
}

/// The spill resource `uri` read page after page, each page's `_meta`
/// naming the next: the pages' texts joined, and how many pages there were.
/// Every page holds at most `page_bytes`.
fn read_pages(proxy: &mut Proxy, uri: &str, page_bytes: usize) -> (String, usize) {
    let (mut text, mut pages) = (String::new(), 0);
    let mut next = Some(uri.to_owned());
    while let Some(uri) = next {
        let page = request(proxy, 10_000 + pages, "resources/read", json!({"uri": uri}));
        let contents = &page["result"]["contents"];
        assert_eq!(contents.as_array().map(Vec::len), Some(1), "{page}");
        let contents = &contents[0];
        assert_eq!(contents["uri"], uri.as_str());
        assert_eq!(contents["mimeType"], "text/plain");
        let part = contents["text"].as_str().unwrap();
        assert!(part.len() <= page_bytes, "a page of {} bytes", part.len());
        assert_eq!(contents["_meta"]["toolcap/offset"], text.len());
        text.push_str(part);
        next = contents["_meta"]["toolcap/nextUri"]
            .as_str()
            .map(str::to_owned);
        pages += 1;
        assert!(pages < 10_000, "the pages never end");
    }
    (text, pages as usize)
}

/// The URI of the proxy's resource for the spill of a capped `result`.
fn listed_uri(proxy: &mut Proxy, id: u32, result: &Value) -> String {
    let relative = cap_meta(result)["spill"]["relativePath"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed = request(proxy, id, "resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().unwrap();
    let entry = resources
        .iter()
        .find(|r| r["uri"].as_str().unwrap().contains(&relative))
        .unwrap_or_else(|| panic!("{relative} is not listed: {listed}"));
    entry["uri"].as_str().unwrap().to_owned()
}

#[test]
fn spills_are_resources_read_back_exactly_in_bounded_pages() {
    let mut proxy = Proxy::start(&["--max-bytes", "8000"]);
    proxy.send(INITIALIZE);
    let initialized: Value = serde_json::from_str(&proxy.recv()).unwrap();
    assert_eq!(
        initialized["result"]["capabilities"]["resources"],
        json!({})
    );
    let empty = request(&mut proxy, 2, "resources/list", json!({}));
    assert_eq!(empty["result"], json!({"resources": []}), "{empty}");

    proxy.call(3, "big", json!({"bytes": 200_000}));
    let capped = proxy.recv_json();
    let spill = cap_meta(&capped["result"])["spill"].clone();
    let listed = request(&mut proxy, 4, "resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 1, "{listed}");
    let entry = &resources[0];
    let uri = entry["uri"].as_str().unwrap();
    assert_eq!(
        uri,
        format!(
            "toolcap://spill/{}?bytes=200000&lines={}&tag={}",
            spill["relativePath"].as_str().unwrap(),
            spill["lines"],
            spill["tag"].as_str().unwrap()
        )
    );
    assert_eq!(entry["size"], 200_000);
    assert_eq!(entry["mimeType"], "text/plain");
    assert!(
        entry["title"].as_str().unwrap().contains("`big`"),
        "{entry}"
    );
    let meta = &entry["_meta"];
    assert_eq!(meta["toolcap/tool"], "big");
    assert_eq!(meta["toolcap/callId"], "big-3");
    assert_eq!(meta["toolcap/lines"], spill["lines"]);
    assert_eq!(meta["toolcap/path"], spill["path"]);
    // Kept 7 days (the default retention) from when it was saved.
    let saved = meta["toolcap/savedAt"].as_str().unwrap();
    let expires = meta["toolcap/expiresAt"].as_str().unwrap();
    let days = |t: &str| chrono_days(t).unwrap_or_else(|| panic!("not an RFC 3339 UTC time: {t}"));
    assert!(
        (days(expires) - days(saved) - 7.0).abs() < 0.01,
        "{saved} {expires}"
    );
    assert_eq!(entry["annotations"]["lastModified"], saved);

    let (text, pages) = read_pages(&mut proxy, uri, 8000);
    assert_eq!(text, big_text(200_000));
    assert!(pages >= 25, "{pages} pages");

    let templates = request(&mut proxy, 5, "resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "toolcap://spill/{+path}{?bytes,lines,tag,offset}"
    );
    // None of it reached the server, which has no resources.
    assert!(
        !proxy.stderr().contains("server: got resources/"),
        "{}",
        proxy.stderr()
    );
}

/// Days since the epoch of an RFC 3339 time.
fn chrono_days(t: &str) -> Option<f64> {
    let time = chrono::DateTime::parse_from_rfc3339(t).ok()?;
    Some(time.timestamp() as f64 / 86_400.0)
}

#[test]
fn forged_outside_and_changed_spill_uris_are_refused() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    proxy.call(1, "big", json!({"bytes": 50_000}));
    let capped = proxy.recv_json();
    let path = cap_meta(&capped["result"])["spill"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    let uri = listed_uri(&mut proxy, 2, &capped["result"]);
    let thread = uri["toolcap://spill/".len()..].split('/').next().unwrap();
    let tag_at = uri.find("tag=").unwrap() + 4;
    let flipped = if &uri[tag_at..=tag_at] == "0" {
        "1"
    } else {
        "0"
    };
    let forged = format!("{}{flipped}{}", &uri[..tag_at], &uri[tag_at + 1..]);
    let cases = [
        (forged, -32602, "not a genuine reference"),
        (
            uri.replace("bytes=50000", "bytes=50001"),
            -32602,
            "not a genuine reference",
        ),
        (
            uri.replace(&format!("/{thread}/"), "/mcp-other-000000000000/"),
            -32602,
            "not a genuine reference",
        ),
        (
            "toolcap://spill/../../etc/passwd?bytes=1&lines=1&tag=00".to_owned(),
            -32602,
            "not a toolcap spill URI",
        ),
        (
            format!("toolcap://spill/{thread}/.expired?bytes=1&lines=1&tag=00"),
            -32602,
            "not the name of a saved output",
        ),
        (
            uri[..uri.find('?').unwrap()].to_owned(),
            -32602,
            "no reference",
        ),
        (
            format!("toolcap://spill/{thread}/%2e%2e/x-0123456789abcdef.txt?bytes=1"),
            -32602,
            "not a toolcap spill URI",
        ),
    ];
    for (i, (bad, code, why)) in cases.iter().enumerate() {
        let answer = request(
            &mut proxy,
            10 + i as u32,
            "resources/read",
            json!({"uri": bad}),
        );
        assert_eq!(answer["error"]["code"], *code, "{bad}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{bad}: {message}");
    }
    // Another scheme is the server's to answer (this one has no resources).
    let other = request(
        &mut proxy,
        30,
        "resources/read",
        json!({"uri": "file:///etc/passwd"}),
    );
    assert_eq!(other["error"]["message"], "no resources/read", "{other}");

    // A file changed after it was saved is refused by the read tool's check.
    std::fs::write(&path, big_text(50_000).replace("line 7 ", "line 8 ")).unwrap();
    let changed = request(&mut proxy, 31, "resources/read", json!({"uri": uri}));
    assert_eq!(changed["error"]["code"], -32002, "{changed}");
    assert!(
        changed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no longer holds the output"),
        "{changed}"
    );
    // And one deleted is not found.
    proxy.call(32, "big", json!({"bytes": 60_000}));
    let second = proxy.recv_json();
    let second_uri = listed_uri(&mut proxy, 33, &second["result"]);
    std::fs::remove_file(
        cap_meta(&second["result"])["spill"]["path"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let gone = request(&mut proxy, 34, "resources/read", json!({"uri": second_uri}));
    assert_eq!(gone["error"]["code"], -32002, "{gone}");
    assert_eq!(
        proxy.stderr().matches("server: got resources/read").count(),
        1,
        "only the file:// read reached the server"
    );
}

#[test]
fn a_server_with_resources_keeps_them_and_the_spills_follow_its_last_page() {
    let mut proxy = Proxy::start_with(
        Sandbox::new(),
        &["--max-bytes", "3000"],
        &[("FAKE_RESOURCES", "1")],
        &[],
    );
    proxy.send(INITIALIZE);
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}, "resources": {"listChanged": false}}, "serverInfo": {"name": "fake", "version": "1.0"}}}"#
    );
    let first_page = |id: u32| {
        format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "result": {{"resources": [{{"uri": "fake://a", "name": "a"}}], "nextCursor": "r2"}}}}"#
        )
    };
    let last_page = |id: u32| {
        format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "result": {{"resources": [{{"uri": "fake://b", "name": "b"}}]}}}}"#
        )
    };
    // Without spills, the server's pages pass byte for byte.
    proxy.send(r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#);
    assert_eq!(proxy.recv(), first_page(2));
    proxy.send(r#"{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{"cursor":"r2"}}"#);
    assert_eq!(proxy.recv(), last_page(3));

    proxy.call(4, "big", json!({"bytes": 50_000}));
    let capped = proxy.recv_json();
    // With one, the last page leads on to the proxy's.
    proxy.send(r#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#);
    assert_eq!(proxy.recv(), first_page(5));
    proxy.send(r#"{"jsonrpc":"2.0","id":6,"method":"resources/list","params":{"cursor":"r2"}}"#);
    let last = last_page(6);
    assert_eq!(
        proxy.recv(),
        format!(
            r#"{},"nextCursor":"toolcap-spills:0"}}}}"#,
            &last[..last.len() - 2]
        )
    );
    // A last page whose cursor is "" (which clients read as the end) too.
    proxy
        .send(r#"{"jsonrpc":"2.0","id":70,"method":"resources/list","params":{"cursor":"empty"}}"#);
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc":"2.0","id":70,"result":{"resources":[],"nextCursor":"toolcap-spills:0"}}"#
    );
    let ours = request(
        &mut proxy,
        7,
        "resources/list",
        json!({"cursor": "toolcap-spills:0"}),
    );
    let resources = ours["result"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 1, "{ours}");
    assert!(ours["result"].get("nextCursor").is_none(), "{ours}");
    let uri = resources[0]["uri"].as_str().unwrap().to_owned();
    assert!(
        uri.contains(
            cap_meta(&capped["result"])["spill"]["relativePath"]
                .as_str()
                .unwrap()
        )
    );

    // The server's resources are still its own to read; the spills, the proxy's.
    let own = request(&mut proxy, 8, "resources/read", json!({"uri": "fake://a"}));
    assert_eq!(
        own["result"]["contents"][0]["text"],
        "fake content of fake://a"
    );
    let (text, _) = read_pages(&mut proxy, &uri, 4096);
    assert_eq!(text, big_text(50_000));

    // The template for the pages follows the server's own.
    proxy.send(r#"{"jsonrpc":"2.0","id":9,"method":"resources/templates/list"}"#);
    let line = proxy.recv();
    assert!(
        line.starts_with(
            r#"{"jsonrpc": "2.0", "id": 9, "result": {"resourceTemplates": [{"uriTemplate": "fake://{name}", "name": "fake"},{"#
        ),
        "{line}"
    );
    let templates: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        templates["result"]["resourceTemplates"][1]["uriTemplate"],
        "toolcap://spill/{+path}{?bytes,lines,tag,offset}"
    );
    let stderr = proxy.stderr();
    assert_eq!(stderr.matches("server: got resources/list").count(), 5);
    assert_eq!(stderr.matches("server: got resources/read").count(), 1);
}

#[test]
fn the_proxys_listing_pages_by_a_hundred_even_before_initialize() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    // Without `initialize`, the server's `method not found` is replaced by
    // the proxy's own listing; later listings do not reach the server.
    let none = request(&mut proxy, 1, "resources/list", json!({}));
    assert_eq!(none["result"], json!({"resources": []}), "{none}");
    for i in 0..101 {
        proxy.call(100 + i, "big", json!({"bytes": 4000 + i}));
        proxy.recv();
    }
    let first = request(&mut proxy, 2, "resources/list", json!({}));
    let entries = first["result"]["resources"].as_array().unwrap();
    assert_eq!(entries.len(), 100);
    assert_eq!(first["result"]["nextCursor"], "toolcap-spills:100");
    let second = request(
        &mut proxy,
        3,
        "resources/list",
        json!({"cursor": "toolcap-spills:100"}),
    );
    let rest = second["result"]["resources"].as_array().unwrap();
    assert_eq!(rest.len(), 1);
    assert!(second["result"].get("nextCursor").is_none());
    let mut uris: Vec<&str> = entries
        .iter()
        .chain(rest)
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    uris.sort();
    uris.dedup();
    assert_eq!(uris.len(), 101);
    let bad = request(
        &mut proxy,
        4,
        "resources/list",
        json!({"cursor": "elsewhere"}),
    );
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert_eq!(
        proxy.stderr().matches("server: got resources/list").count(),
        1
    );
}

#[test]
fn resource_links_name_the_spill_resource_which_reads_back() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000", "--resource-link"]);
    proxy.call(1, "big", json!({"bytes": 30_000}));
    let capped = proxy.recv_json();
    let content = capped["result"]["content"].as_array().unwrap();
    let links: Vec<&Value> = content
        .iter()
        .filter(|b| b["type"] == "resource_link")
        .collect();
    assert_eq!(links.len(), 1, "{capped}");
    let uri = links[0]["uri"].as_str().unwrap();
    assert!(uri.starts_with("toolcap://spill/"), "{uri}");
    assert_eq!(links[0]["size"], 30_000);
    assert_eq!(uri, listed_uri(&mut proxy, 2, &capped["result"]));
    let (text, _) = read_pages(&mut proxy, uri, 4096);
    assert_eq!(text, big_text(30_000));
}

// ---- item: nothing over budget reaches the client ----

/// Calls the fake server's `raw` tool: it writes `lines` as they are.
fn raw_call(proxy: &mut Proxy, id: impl Into<Value>, lines: &[&str], bytes: usize) {
    proxy.call(id, "raw", json!({"lines": lines, "bytes": bytes}));
}

/// Whether a line the client got holds a whole big text of the fake server.
fn holds_big_text(line: &str) -> bool {
    line.contains("line 1500 of the big output")
}

#[test]
fn a_result_written_twice_is_refused_not_forwarded() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    raw_call(
        &mut proxy,
        1,
        &[
            r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok"}]},"result":{"content":[{"type":"text","text":$TEXT}]}}"#,
        ],
        100_000,
    );
    let line = proxy.recv();
    assert!(!holds_big_text(&line) && line.len() < 3000, "{line}");
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32003, "{answer}");
    // So is a block's member written twice, inside the result.
    raw_call(
        &mut proxy,
        2,
        &[
            r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok","text":$TEXT}]}}"#,
        ],
        100_000,
    );
    let line = proxy.recv();
    assert!(!holds_big_text(&line) && line.len() < 3000, "{line}");
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("content[0].text"),
        "{answer}"
    );
    // And an id written twice.
    raw_call(
        &mut proxy,
        3,
        &[
            r#"{"jsonrpc":"2.0","id":$ID,"id":99,"result":{"content":[{"type":"text","text":$TEXT}]}}"#,
        ],
        100_000,
    );
    let line = proxy.recv();
    assert!(!holds_big_text(&line) && line.len() < 3000, "{line}");
}

#[test]
fn an_id_written_another_way_is_still_capped_and_gets_its_own_id_back() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    for (id, written) in [(5, "5.0"), (6, "6e0"), (7, r#""7""#), (8, r#"" 0x8""#)] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{written},"result":{{"content":[{{"type":"text","text":$TEXT}}]}}}}"#
        );
        raw_call(&mut proxy, id, &[&line], 100_000);
        let line = proxy.recv();
        assert!(!holds_big_text(&line), "{written}: {} bytes", line.len());
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], id, "{written}");
        assert_eq!(cap_meta(&answer["result"])["truncated"], true, "{written}");
        assert!(text_bytes(&answer["result"]) <= 3000);
    }
    // A result that fits keeps every byte as the server wrote it, spaces
    // included, but its id.
    raw_call(
        &mut proxy,
        9,
        &[
            r#"{"jsonrpc":"2.0", "id" : 9.0 , "result" : {"content":[{"type":"text","text":"ok"}]} }"#,
        ],
        0,
    );
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc":"2.0", "id" : 9 , "result" : {"content":[{"type":"text","text":"ok"}]} }"#
    );
    // -0 is 0.
    proxy.call(0, "raw", json!({"lines": [r#"{"jsonrpc":"2.0","id":-0,"result":{"content":[{"type":"text","text":$TEXT}]}}"#], "bytes": 100_000}));
    let answer = proxy.recv_json();
    assert_eq!(
        (
            answer["id"].clone(),
            cap_meta(&answer["result"])["truncated"].clone()
        ),
        (json!(0), json!(true))
    );
}

#[test]
fn answers_to_ids_nobody_asked_for_are_dropped() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    let huge_id = format!(r#""{}""#, "i".repeat(10 << 20));
    let to_huge_id = format!(
        r#"{{"jsonrpc":"2.0","id":{huge_id},"result":{{"content":[{{"type":"text","text":$TEXT}}]}}}}"#
    );
    raw_call(
        &mut proxy,
        1,
        &[
            r#"{"jsonrpc":"2.0","id":999,"result":{"content":[{"type":"text","text":$TEXT}]}}"#,
            &to_huge_id,
            r#"{"jsonrpc":"2.0","id":998,"error":{"code":1,"message":$TEXT}}"#,
            r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"done"}]}}"#,
        ],
        200_000,
    );
    let line = proxy.recv();
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}"#
    );
    proxy.wait_for_stderr("which no pending request has");
    proxy.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(proxy.recv(), r#"{"jsonrpc": "2.0", "id": 2, "result": {}}"#);
}

#[test]
fn a_reused_pending_id_is_refused_and_the_first_answer_still_capped() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    proxy.call(4, "stubborn", json!({"seconds": 0.5}));
    proxy.call(4, "big", json!({"bytes": 200_000}));
    let refused = proxy.recv_json();
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone()),
        (json!(4), json!(-32600))
    );
    let answer = proxy.recv_json();
    assert_eq!(answer["result"]["content"][0]["text"], "stubborn done");
    assert_eq!(
        proxy.stderr().matches("server: got tools/call").count(),
        1,
        "the reused id never reached the server"
    );
}

#[test]
fn malformed_and_unusual_answers_never_pass_whole() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    let cases = [
        // Both a result and an error.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":$TEXT}]},"error":{"code":1,"message":"x"}}"#,
        // Not a CallToolResult: `content` is not a list.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":$TEXT}}"#,
        // A result that is not an object.
        r#"{"jsonrpc":"2.0","id":$ID,"result":$TEXT}"#,
        // An error whose message is the big text.
        r#"{"jsonrpc":"2.0","id":$ID,"error":{"code":-32000,"message":$TEXT}}"#,
        // A batch holding the answer.
        r#"[{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":$TEXT}]}}]"#,
        // A method and a result at once.
        r#"{"jsonrpc":"2.0","id":$ID,"method":"x","result":{"content":[{"type":"text","text":$TEXT}]}}"#,
    ];
    for (i, case) in cases.iter().enumerate() {
        raw_call(&mut proxy, i, &[case], 100_000);
        let line = if i == cases.len() - 1 {
            // Dropped: the request then times out or is answered otherwise;
            // here the next message is the ping's answer.
            proxy.send(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
            proxy.recv()
        } else {
            proxy.recv()
        };
        assert!(
            !holds_big_text(&line) && line.len() < 4000,
            "case {i}: {} bytes: {}",
            line.len(),
            &line[..line.len().min(300)]
        );
        let answer: Value = serde_json::from_str(&line).unwrap();
        if i < cases.len() - 1 {
            assert_eq!(answer["id"], i, "case {i}: {answer}");
        }
    }
    // A small answer that cannot be capped still passes: it fits.
    raw_call(
        &mut proxy,
        50,
        &[r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":"odd"}}"#],
        0,
    );
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc":"2.0","id":50,"result":{"content":"odd"}}"#
    );
}

#[test]
fn what_is_shown_beside_the_texts_is_capped_too() {
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    let cases = [
        // A block of a type the proxy does not know.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok"},{"type":"x-trace","frames":$TEXT}]}}"#,
        // A text block whose text is not a string.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":[$TEXT]}]}}"#,
        // A resource link with a huge name.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"resource_link","uri":"file:///a","name":$TEXT}]}}"#,
        // The server's own _meta.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok"}],"_meta":{"debug":$TEXT}}}"#,
        // A member MCP does not define.
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok"}],"rows":[$TEXT]}}"#,
    ];
    for (i, case) in cases.iter().enumerate() {
        raw_call(&mut proxy, i, &[case], 100_000);
        let line = proxy.recv();
        assert!(
            !holds_big_text(&line) && line.len() < 6000,
            "case {i}: {} bytes: {}",
            line.len(),
            &line[..line.len().min(300)]
        );
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], i, "case {i}: {answer}");
        // Capped, not refused: the notice says where the whole is.
        let notice = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert!(notice.starts_with("[toolcap] "), "case {i}: {notice}");
        assert_eq!(cap_meta(&answer["result"])["truncated"], true);
    }
}

#[test]
fn a_result_over_the_message_limit_becomes_an_error_result() {
    let mut proxy = Proxy::start(&["--max-message-bytes", "1000000", "--max-bytes", "3000"]);
    proxy.call(1, "big", json!({"bytes": 3_000_000}));
    let answer = proxy.recv_json();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("--max-message-bytes") && text.contains("big"),
        "{text}"
    );
    // A notification over the limit is dropped, and said.
    proxy.call(2, "flood", json!({"count": 1, "bytes": 2_000_000}));
    assert_eq!(
        proxy.recv_json()["result"]["content"][0]["text"],
        "flood done"
    );
    proxy.wait_for_stderr("more than the limit of 1000000");
    // Under the limit, results are capped as always.
    proxy.call(3, "big", json!({"bytes": 900_000}));
    assert_eq!(cap_meta(&proxy.recv_json()["result"])["truncated"], true);
    // A client message over the limit is answered, not passed on.
    let big_request = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "a".repeat(1_100_000)
    );
    proxy.send(&big_request);
    let refused = proxy.recv_json();
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone()),
        (json!(4), json!(-32004))
    );
}

// ---- item: bounded memory, backpressure ----

/// Waits until `count()` stops growing (no change over half a second),
/// and gives its last value.
fn settled(mut count: impl FnMut() -> usize) -> usize {
    let start = Instant::now();
    let mut last = count();
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = count();
        if now == last || start.elapsed() > PATIENCE {
            return now;
        }
        last = now;
    }
}

#[test]
fn a_client_that_stops_reading_stops_the_server_not_the_memory() {
    let sandbox = Sandbox::new();
    let stderr_path = sandbox.path("proxy-stderr.log");
    let mut child = sandbox
        .toolcap("mcp")
        .args(["--", "python3", FAKE_SERVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let count = 200;
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "flood", "arguments": {"count": count, "bytes": 1 << 20}}})
    )
    .unwrap();
    // Nobody reads the proxy's stdout: the server must be held up.
    let flooded = || {
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        stderr.matches("server: flooded ").count()
    };
    let sent = settled(flooded);
    assert!(
        sent < 64,
        "the server sent {sent} MiB to a client that reads nothing"
    );
    let peak = peak_mib(child.id());
    // Now read: every notification arrives, none was dropped.
    let mut received = 0;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] == 1 {
            break;
        }
        received += 1;
    }
    assert_eq!(received, count);
    let peak_after = peak_mib(child.id());
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(
        peak < 150 && peak_after < 150,
        "peak {peak} MiB while held up, {peak_after} MiB after a 200 MiB flood"
    );
}

#[test]
fn a_server_that_does_not_read_stops_the_client_not_the_memory() {
    let sandbox = Sandbox::new();
    let mut child = sandbox
        .toolcap("mcp")
        .env("FAKE_MODE", "deaf")
        .args(["--", "python3", FAKE_SERVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&written);
    std::thread::spawn(move || {
        let line = format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"data": "d".repeat(1 << 20)}})
        );
        for _ in 0..300 {
            if stdin.write_all(line.as_bytes()).is_err() {
                return;
            }
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let sent = settled(|| written.load(std::sync::atomic::Ordering::SeqCst));
    let peak = peak_mib(child.id());
    stop(&mut child);
    assert!(
        sent < 64,
        "the client wrote {sent} MiB to a server that reads nothing"
    );
    assert!(peak < 150, "peak {peak} MiB");
}

#[test]
fn server_stderr_without_line_ends_is_passed_on_bounded() {
    let mut proxy = Proxy::start(&[]);
    proxy.call(1, "scribble", json!({"bytes": 64 << 20}));
    assert_eq!(
        proxy.recv_json()["result"]["content"][0]["text"],
        "scribbled"
    );
    let peak = proxy.peak_mib();
    let status = proxy.close_keeping_stderr();
    assert!(status.0.success());
    let stderr = status.1;
    assert!(
        stderr.contains("more bytes)"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(stderr.len() < 1 << 20, "{} bytes of stderr", stderr.len());
    assert!(
        peak < 120,
        "peak {peak} MiB for 64 MiB of stderr in one line"
    );
}

/// The resident memory (VmRSS) of process `pid` now, in MiB.
fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024
}

#[test]
fn a_huge_result_is_held_about_once_while_capped_and_given_back_after() {
    // The proxy's line, and no more: its huge text goes to the component in
    // pieces (`stream-mcp`), which keeps only what the preview needs.
    const MIB: u64 = 64;
    let mut proxy = Proxy::start(&["--max-bytes", "3000"]);
    proxy.call(0, "echo", json!({"text": "warm"}));
    proxy.recv_json();
    let idle = rss_mib(proxy.child.id());
    for id in 1..=2 {
        proxy.call(id, "big", json!({"bytes": MIB << 20}));
        let answer = proxy.recv_json();
        let meta = cap_meta(&answer["result"]);
        assert_eq!(meta["truncated"], true);
        // The text, handed over in pieces, is saved byte for byte and read
        // back by the read tool.
        let path = meta["spill"]["path"].as_str().unwrap().to_owned();
        if id == 1 {
            let saved = std::fs::read_to_string(&path).unwrap();
            assert!(saved == big_text((MIB << 20) as usize), "saved as sent");
        }
        proxy.call(
            10 + id,
            "read_spilled_output",
            json!({"path": path, "grep": "line 654321 of"}),
        );
        let read = proxy.recv_json();
        let found = read["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            found.contains("line 654322: line 654321 of the big output"),
            "{found}"
        );
    }
    let peak = proxy.peak_mib();
    assert!(
        peak < idle + MIB * 3 / 2,
        "peak {peak} MiB for a {MIB} MiB result ({idle} MiB before it)"
    );
    // What the component grew for it is given back (its instance is renewed).
    let start = Instant::now();
    while rss_mib(proxy.child.id()) > idle + MIB / 2 {
        assert!(
            start.elapsed() < PATIENCE,
            "{} MiB resident after the calls, {idle} MiB before",
            rss_mib(proxy.child.id())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(proxy.close().code(), Some(0));
}

// ---- item: process lifecycle ----

#[test]
fn a_client_that_closes_mid_call_stops_the_proxy_and_a_clinging_server() {
    let mut proxy = Proxy::start_with(
        Sandbox::new(),
        &["--timeout", "0"],
        &[("FAKE_MODE", "clingy")],
        &[],
    );
    let server = proxy.server_pid();
    proxy.call(1, "silent", json!({}));
    proxy.wait_for_stderr("server: got tools/call");
    drop(proxy.stdin.take());
    let error = proxy.recv_json();
    assert_eq!(
        (error["id"].clone(), error["error"]["code"].clone()),
        (json!(1), json!(-32000))
    );
    assert_eq!(proxy.close().code(), Some(0));
    wait_gone(server);
}

#[test]
fn sigterm_stops_the_proxy_and_its_server_group() {
    let mut proxy = Proxy::start_with(Sandbox::new(), &[], &[("FAKE_MODE", "clingy")], &[]);
    let server = proxy.server_pid();
    proxy.call(1, "silent", json!({}));
    proxy.wait_for_stderr("server: got tools/call");
    kill("TERM", proxy.child.id());
    let error = proxy.recv_json();
    assert_eq!(error["id"], 1);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("SIGTERM"),
        "{error}"
    );
    assert_eq!(proxy.wait_exit().code(), Some(143));
    wait_gone(server);
}

#[test]
fn sigint_stops_the_proxy_with_130() {
    let mut proxy = Proxy::start(&[]);
    let server = proxy.server_pid();
    kill("INT", proxy.child.id());
    assert_eq!(proxy.wait_exit().code(), Some(130));
    wait_gone(server);
}

// ---- item: no secrets of the command line in notices ----

#[test]
fn the_default_thread_hides_the_server_arguments() {
    let secret = "ghp_A1b2C3d4E5f6G7h8";
    let token = format!("TOKEN={secret}");
    let mut proxy = Proxy::start_with(
        Sandbox::new(),
        &["--max-bytes", "3000"],
        &[],
        &["env", &token],
    );
    proxy.call(1, "big", json!({"bytes": 50_000}));
    let line = proxy.recv();
    assert!(!line.contains(secret) && !line.contains("TOKEN"), "{line}");
    let answer: Value = serde_json::from_str(&line).unwrap();
    let path = cap_meta(&answer["result"])["spill"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(path.contains("/mcp-env-"), "{path}");
    let (_, sandbox) = proxy.finish();
    // The same command line is the same thread: its references still read.
    let mut again = Proxy::start_with(sandbox, &[], &[], &["env", &token]);
    again.call(
        2,
        "read_spilled_output",
        json!({"path": path, "line": 1, "lines": 1}),
    );
    assert_eq!(again.recv_json()["result"]["isError"], false);
}

#[test]
fn requests_past_the_pending_bound_are_refused() {
    let mut proxy = Proxy::start_with(
        Sandbox::new(),
        &["--timeout", "0"],
        &[("FAKE_MODE", "deaf")],
        &[],
    );
    for i in 0..10_001 {
        proxy.send_json(json!({"jsonrpc": "2.0", "id": i, "method": "ping"}));
    }
    let refused = proxy.recv_json();
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone()),
        (json!(10_000), json!(-32005))
    );
}

/// One line of about 2 MB with `hit` in its middle and `other` a quarter
/// of the way in: a head-and-tail preview shows neither without a search.
fn long_line_with(hit: &str, other: &str) -> String {
    let filler = |bytes: usize| "abcdefgh ".repeat(bytes / 9);
    format!(
        "{}{other}{}{hit}{}",
        filler(500_000),
        filler(500_000),
        filler(1_000_000)
    )
}

/// The texts of a `tools/call` answer's result, joined; and whether it was
/// capped (its cut text is saved).
fn capped_text(answer: &Value) -> (String, bool) {
    let result = &answer["result"];
    let text = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("not a result: {}", &answer.to_string()[..300]))
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (text, cap_meta(result)["spill"]["path"].is_string())
}

/// Needs the core's search windows (branch search-core): before them the
/// preview shows only the ends of the long line.
#[test]
fn a_calls_query_argument_is_shown_inside_a_long_line() {
    let mut proxy = Proxy::start(&[]);
    let text = long_line_with("NEEDLE-QUERY", "NEEDLE-OTHER");
    proxy.call(1, "echo", json!({"text": text, "query": "NEEDLE-QUERY"}));
    let (preview, capped) = capped_text(&proxy.recv_json());
    assert!(capped && preview.len() <= 24_576, "{} bytes", preview.len());
    assert!(preview.contains("NEEDLE-QUERY"), "the hit is shown");
    assert!(
        !preview.contains("NEEDLE-OTHER"),
        "what was not searched is not"
    );
}

/// Needs the core's search windows, as above.
#[test]
fn search_keys_name_the_arguments_a_search_is_taken_from() {
    let mut proxy = Proxy::start(&["--search-key", "needle_arg"]);
    let text = long_line_with("NEEDLE-QUERY", "NEEDLE-OTHER");
    proxy.call(
        1,
        "echo",
        json!({"text": text, "query": "NEEDLE-QUERY", "needle_arg": "NEEDLE-OTHER"}),
    );
    let (preview, capped) = capped_text(&proxy.recv_json());
    assert!(capped);
    assert!(
        preview.contains("NEEDLE-OTHER"),
        "the named key's hit is shown"
    );
    assert!(
        !preview.contains("NEEDLE-QUERY"),
        "`query` is no longer a key"
    );
}

#[test]
fn no_search_an_empty_key_list_or_a_tools_switch_takes_no_search() {
    let sandbox = Sandbox::new();
    let empty = sandbox.path("empty-keys.toml");
    std::fs::write(&empty, "search_keys = []\n").unwrap();
    let switched_off = sandbox.path("echo-off.toml");
    std::fs::write(&switched_off, "[tools.echo]\nsearch = false\n").unwrap();
    let text = long_line_with("NEEDLE-QUERY", "NEEDLE-OTHER");
    for options in [
        vec!["--no-search".to_owned()],
        vec!["--config".to_owned(), empty.display().to_string()],
        vec!["--config".to_owned(), switched_off.display().to_string()],
    ] {
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let mut proxy = Proxy::start(&options);
        proxy.call(1, "echo", json!({"text": text, "query": "NEEDLE-QUERY"}));
        let (preview, capped) = capped_text(&proxy.recv_json());
        assert!(capped, "{options:?}");
        assert!(!preview.contains("NEEDLE-QUERY"), "{options:?}: no search");
    }
    drop(sandbox);
}

#[test]
fn no_search_and_search_keys_together_are_a_usage_error() {
    let sandbox = Sandbox::new();
    let output = sandbox
        .toolcap("mcp")
        .args([
            "--no-search",
            "--search-key",
            "q",
            "--",
            "python3",
            FAKE_SERVER,
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
