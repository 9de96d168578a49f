//! The MCP server the `toolcap` suite calls, directly and through
//! `toolcap mcp`: written with the official Rust SDK's server side (`rmcp`),
//! served over stdio. It runs as a mode of the report binary itself
//! (`report --mcp-fixture-server`), so the suite never depends on a server
//! installed elsewhere.
//!
//! Two tools: [`SMALL_TOOL`] returns a fixed text of about 200 bytes (a
//! result that fits any budget), and [`SIZED_TOOL`] returns exactly
//! `{"bytes": N}` bytes of server-log lines (the bench's ASCII corpus). Each
//! size's text is generated once and kept, so a timed call measures the
//! transfer, not the generation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};

use crate::corpus::{self, Kind};

/// The hidden first argument that turns the report binary into the server.
pub const SERVER_ARG: &str = "--mcp-fixture-server";

/// The tool whose result is a short fixed text.
pub const SMALL_TOOL: &str = "small_result";
/// The tool whose result is `bytes` bytes of log lines.
pub const SIZED_TOOL: &str = "sized_result";

/// The small tool's text: one status line of about 200 bytes.
pub const SMALL_TEXT: &str = "build 8841 finished: 412 targets up to date, 3 rebuilt \
     (core, host, cli) in 1.84 s; tests: 1207 passed, 0 failed, 4 ignored; \
     artifacts at target/release (toolcap 6.1 MiB); no warnings.";

/// Largest text [`SIZED_TOOL`] makes (it keeps each size it made).
const MAX_SIZED: u64 = 512 << 20;

/// Serves the fixture on this process's stdin and stdout until the client
/// closes stdin. Errors go to stderr; the exit status says whether it ran.
pub fn serve() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async {
        let running = Fixture::default()
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP handshake failed: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| format!("the server task failed: {e}"))?;
        Ok(())
    })
}

/// The server's state: every sized text made so far, by size.
#[derive(Default)]
struct Fixture {
    texts: Mutex<HashMap<usize, Arc<String>>>,
}

impl Fixture {
    /// Exactly `bytes` bytes of log lines, made on first use.
    fn sized_text(&self, bytes: usize) -> Arc<String> {
        let mut texts = self.texts.lock().unwrap_or_else(|p| p.into_inner());
        texts
            .entry(bytes)
            .or_insert_with(|| Arc::new(corpus::text(Kind::Ascii, bytes)))
            .clone()
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("toolcap-bench-fixture", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = match request.name.as_ref() {
            SMALL_TOOL => SMALL_TEXT.to_owned(),
            SIZED_TOOL => {
                let bytes = requested_bytes(request.arguments.as_ref())?;
                self.sized_text(bytes).as_str().to_owned()
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other:?}"),
                    None,
                ));
            }
        };
        Ok(text_result(text).into())
    }
}

/// A successful result of one text block, as the tools return it.
fn text_result(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The JSON of the result the tools return for `text`: the bytes the server
/// sends as the response's `result`.
pub fn result_json(text: &str) -> String {
    serde_json::to_string(&text_result(text.to_owned())).expect("a result serializes")
}

/// The `bytes` argument of [`SIZED_TOOL`]: a whole number up to [`MAX_SIZED`].
fn requested_bytes(arguments: Option<&serde_json::Map<String, Value>>) -> Result<usize, ErrorData> {
    let bytes = arguments
        .and_then(|a| a.get("bytes"))
        .and_then(Value::as_u64)
        .filter(|&b| b <= MAX_SIZED)
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!("{SIZED_TOOL} takes {{\"bytes\": N}} with N from 0 to {MAX_SIZED}"),
                None,
            )
        })?;
    usize::try_from(bytes).map_err(|_| ErrorData::invalid_params("bytes too large", None))
}

/// The two tools, as `tools/list` gives them.
fn tools() -> Vec<Tool> {
    let no_arguments = object(json!({ "type": "object", "properties": {} }));
    let bytes_argument = object(json!({
        "type": "object",
        "properties": { "bytes": { "type": "integer", "minimum": 0 } },
        "required": ["bytes"]
    }));
    vec![
        Tool::new(
            SMALL_TOOL,
            "Returns a build status line of about 200 bytes.",
            no_arguments,
        ),
        Tool::new(
            SIZED_TOOL,
            "Returns exactly `bytes` bytes of server-log lines.",
            bytes_argument,
        ),
    ]
}

/// The members of a JSON object literal (anything else gives no members).
fn object(value: Value) -> Arc<serde_json::Map<String, Value>> {
    match value {
        Value::Object(members) => Arc::new(members),
        _ => Arc::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_argument_is_checked() {
        let args = |v: Value| v.as_object().cloned();
        assert_eq!(
            requested_bytes(args(json!({ "bytes": 4096 })).as_ref()).ok(),
            Some(4096)
        );
        for bad in [json!({}), json!({ "bytes": -1 }), json!({ "bytes": "9" })] {
            assert!(requested_bytes(args(bad).as_ref()).is_err());
        }
        let too_big = json!({ "bytes": MAX_SIZED + 1 });
        assert!(requested_bytes(args(too_big).as_ref()).is_err());
        assert!(requested_bytes(None).is_err());
    }

    #[test]
    fn results_are_one_text_block_of_the_size_asked() {
        let fixture = Fixture::default();
        assert_eq!(fixture.sized_text(70_000).len(), 70_000);
        let json: Value = serde_json::from_str(&result_json("abc")).unwrap();
        assert_eq!(json["content"][0]["text"], "abc");
        assert_eq!(json["isError"], false);
        assert!(
            (150..260).contains(&SMALL_TEXT.len()),
            "{}",
            SMALL_TEXT.len()
        );
    }
}
