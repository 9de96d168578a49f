//! `toolcap mcp` through the built binary and the real component, in front
//! of a small scripted MCP server (`fake_mcp_server.py`, not under test).
//! `cargo test --release -p toolcap --test mcp`

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::Sandbox;
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
        let stderr = sandbox.path("proxy-stderr.log");
        let mut command = sandbox.toolcap("mcp");
        command
            .args(args)
            .args(["--", "python3", FAKE_SERVER])
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
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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

#[test]
fn messages_that_need_no_change_pass_byte_for_byte() {
    let mut proxy = Proxy::start(&[]);
    proxy.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "fake", "version": "1.0"}}}"#
    );
    proxy.call(2, "echo", json!({"text": "hi there"}));
    assert_eq!(proxy.recv(), python_text_answer(2, "hi there", false));
    proxy.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(proxy.recv(), r#"{"jsonrpc": "2.0", "id": 3, "result": {}}"#);
    proxy.send(r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#);
    assert_eq!(
        proxy.recv(),
        r#"{"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "no resources/list"}}"#
    );
    assert!(proxy.close().success());
}

#[test]
fn the_first_tools_list_page_gets_the_read_tool() {
    let mut proxy = Proxy::start(&[]);
    proxy.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let line = proxy.recv();
    // The server's own entries keep their exact text.
    assert!(
        line.contains(
            r#"{"name": "echo", "description": "fake echo", "inputSchema": {"type": "object"}}"#
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

    // Later pages pass as they are.
    proxy.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"page2"}}"#);
    let line = proxy.recv();
    assert!(
        line.starts_with(r#"{"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "progress""#),
        "{line}"
    );
    assert!(!line.contains("read_spilled_output"));
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
