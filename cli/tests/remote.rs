//! `toolcap mcp --url` and `--listen` as a user mistypes them: every bad option is refused
//! at once with an error that says what to fix, and names no secret. (The
//! remote server itself is exercised end to end in tests/mcp/python/
//! test_remote.py, with real SDK servers and clients.)
//! `cargo test --release -p toolcap --test remote`

mod common;

use common::{Sandbox, run, stderr};

const SECRET: &str = "s3cr3t-value-91";

fn refused(sandbox: &Sandbox, args: &[&str]) -> String {
    let mut command = sandbox.toolcap("mcp");
    command.args(args).env("PRESENT_TOKEN", SECRET);
    let output = run(command, b"");
    assert_eq!(
        output.status.code(),
        Some(2),
        "{args:?}: {}",
        stderr(&output)
    );
    let said = stderr(&output);
    assert!(!said.contains(SECRET), "{said}");
    said
}

#[test]
fn bad_remote_options_are_refused_with_what_to_fix() {
    let sandbox = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&[], "give its command after `--`, or its URL with --url"),
        (
            &["--url", "http://127.0.0.1:9/mcp", "--", "server"],
            "cannot be used together",
        ),
        (&["--url", "not a url"], "not a URL"),
        (&["--url", "ftp://host/mcp"], "http:// or https://"),
        (
            &[
                "--url",
                "http://127.0.0.1:9/mcp",
                "--header",
                "Authorization: Bearer ${MISSING_TOKEN_VAR}",
            ],
            "MISSING_TOKEN_VAR is not set",
        ),
        (
            &[
                "--url",
                "http://127.0.0.1:9/mcp",
                "--header",
                "X-Key: ${PRESENT_TOKEN}\u{7f}",
            ],
            "characters a header cannot carry",
        ),
        (
            &[
                "--url",
                "http://127.0.0.1:9/mcp",
                "--header",
                "Mcp-Session-Id: x",
            ],
            "set by toolcap itself",
        ),
        (
            &["--url", "http://127.0.0.1:9/mcp", "--header", "no colon"],
            "Name: value",
        ),
    ];
    for (args, expected) in cases {
        let said = refused(&sandbox, args);
        assert!(said.contains(expected), "{args:?}: {said}");
    }
}

#[test]
fn an_unreachable_server_fails_each_request_with_why_and_the_proxy_ends_cleanly() {
    let sandbox = Sandbox::new();
    // Port 9 (discard) on loopback: nothing listens there.
    let mut command = sandbox.toolcap("mcp");
    command.args([
        "--url",
        "http://user:pw@127.0.0.1:9/mcp?token=in-the-query",
        "--header",
        "Authorization: Bearer ${PRESENT_TOKEN}",
    ]);
    command.env("PRESENT_TOKEN", SECRET);
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let output = run(command, format!("{request}\n").as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let answer: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32000);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot reach the MCP server at http://127.0.0.1:9/mcp"),
        "{message}"
    );
    let everything = format!("{answer}{}", stderr(&output));
    for secret in [SECRET, "in-the-query", "pw@"] {
        assert!(!everything.contains(secret), "{secret} in {everything}");
    }
}
