//! Every message the proxy writes itself, built from rmcp's MCP types: the
//! read tool's entry and results, JSON-RPC errors, cancellations, and the
//! results of the spills' resources (`resources.rs`).

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, CancelledNotification, CancelledNotificationParam, ContentBlock, ErrorCode,
    ErrorData, JsonRpcError, JsonRpcNotification, JsonRpcResponse, JsonRpcVersion2_0, Notification,
    RequestId, Tool, ToolAnnotations,
};
use serde::Serialize;
use serde_json::value::RawValue;
use tool_output_cap::types::{ReadToolOutput, ReadToolSpec};

/// The server did not answer in time (as the MCP TypeScript SDK's `RequestTimeout`).
pub const TIMED_OUT: ErrorCode = ErrorCode(-32001);
/// The server exited or closed its output (as the TypeScript SDK's `ConnectionClosed`).
pub const SERVER_GONE: ErrorCode = ErrorCode(-32000);
/// The server's answer to this request was not valid JSON, or not one
/// message every client reads the same way.
pub const BAD_ANSWER: ErrorCode = ErrorCode(-32003);
/// A message was longer than the proxy's limit for one message.
pub const TOO_LARGE: ErrorCode = ErrorCode(-32004);
/// The client's request reuses the id of one still pending (JSON-RPC's
/// `Invalid Request`).
pub const INVALID_REQUEST: ErrorCode = ErrorCode::INVALID_REQUEST;
/// Too many requests are waiting for the server already.
pub const TOO_MANY: ErrorCode = ErrorCode(-32005);
/// A remote server answered with an HTTP error (401, 5xx...), or ended the
/// session and would not open a new one.
pub const HTTP_ERROR: ErrorCode = ErrorCode(-32006);
/// The proxy is stopping (a signal): the request will not be answered.
pub const STOPPING: ErrorCode = ErrorCode(-32000);

/// The read tool's `tools/list` entry, as JSON.
pub fn read_tool_entry(spec: &ReadToolSpec) -> Result<String, String> {
    let schema: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&spec.input_schema)
            .map_err(|e| format!("the read tool's input schema is not a JSON object: {e}"))?;
    let mut tool = Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        Arc::new(schema),
    );
    tool.annotations = Some(ToolAnnotations::new().read_only(true).open_world(false));
    serde_json::to_string(&tool).map_err(|e| e.to_string())
}

/// A `tools/call` result in place of the server's, that says why in one
/// text block and is marked `isError`.
pub fn tool_error_response(id: &RawValue, text: String, result_type: bool) -> Vec<u8> {
    let output = ReadToolOutput {
        text,
        is_error: true,
    };
    read_tool_response(id, output, result_type)
}

/// The response to a `tools/call` of the read tool: its text as one block.
/// `result_type` says whether the client speaks a protocol version that
/// has `resultType` (2026-07-28 and later).
pub fn read_tool_response(id: &RawValue, output: ReadToolOutput, result_type: bool) -> Vec<u8> {
    let content = vec![ContentBlock::text(output.text)];
    let mut result = if output.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    if !result_type {
        result.result_type = None;
    }
    match request_id(id) {
        Some(id) => line(&JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result,
        }),
        None => with_raw_id(id, "result", &result),
    }
}

/// The response to request `id` with `result`, one of rmcp's result types.
pub fn result_response(id: &RawValue, result: &impl Serialize) -> Vec<u8> {
    match request_id(id) {
        Some(id) => line(&JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result,
        }),
        None => with_raw_id(id, "result", result),
    }
}

/// A JSON-RPC error response to request `id`.
pub fn error_response(id: &RawValue, code: ErrorCode, message: String) -> Vec<u8> {
    let error = ErrorData::new(code, message, None);
    match request_id(id) {
        Some(id) => line(&JsonRpcError::new(Some(id), error)),
        None => with_raw_id(id, "error", &error),
    }
}

/// `notifications/cancelled` for request `id`, to tell the server to stop;
/// `None` for an id rmcp cannot represent (neither integer nor string).
pub fn cancelled(id: &RawValue, reason: String) -> Option<Vec<u8>> {
    let params = CancelledNotificationParam::new(Some(request_id(id)?), Some(reason));
    let notification: CancelledNotification = Notification::new(params);
    Some(line(&JsonRpcNotification {
        jsonrpc: JsonRpcVersion2_0,
        notification,
    }))
}

fn request_id(id: &RawValue) -> Option<RequestId> {
    serde_json::from_str(id.get()).ok()
}

/// One message as a line. Serializing these types cannot fail (string
/// keys, no maps with other keys).
fn line(message: &impl Serialize) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).expect("MCP types serialize");
    line.push(b'\n');
    line
}

/// A response whose id is valid JSON-RPC but not an rmcp `RequestId`
/// (a fractional number): the id goes back exactly as it came.
fn with_raw_id(id: &RawValue, member: &str, value: &impl Serialize) -> Vec<u8> {
    let value = serde_json::to_string(value).expect("MCP types serialize");
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"{member}\":{value}}}\n",
        id.get()
    )
    .into_bytes()
}
