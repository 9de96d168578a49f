//! An MCP result whose one huge text is written in pieces: the component's
//! `stream-mcp`, which [`Session::cap_mcp`] uses by itself for a large
//! result held whole, open to a host that receives the text apart (for
//! example from a body read in chunks).

use wasmtime::component::ResourceAny;

use crate::session::{Session, call_bytes};
use crate::types::{CappedMcp, McpOptions};
use crate::{Budget, Call, Error};

impl Session {
    /// Starts [`Session::cap_mcp`] of a result too large to hand over
    /// whole: `skeleton` is the result's JSON with the text of content
    /// block `block` (a `text` block's or an embedded resource's) written
    /// `""`; write that string's raw body, `raw_bytes` bytes in all, to the
    /// returned [`McpStream`] in pieces. Fails with
    /// [`CapError::InvalidArgument`](crate::CapError::InvalidArgument)
    /// unless the text is sure to be cut (`raw_bytes` over six times
    /// `max_bytes`) and the skeleton has that `""` there, and with
    /// `InvalidBudget` as `cap_mcp` does.
    pub fn stream_mcp(
        &mut self,
        skeleton: &str,
        block: u32,
        raw_bytes: u64,
        budget: &Budget,
        call: impl Into<Call>,
        options: &McpOptions,
    ) -> Result<McpStream<'_>, Error> {
        let call = call.into();
        self.move_to_best();
        let session = self.resource.expect("present until drop");
        // No recycling from here until the stream is released: it lives in
        // this instance.
        let answer = self.enter(skeleton.len() + call_bytes(&call), |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .session()
                .call_stream_mcp(
                    store, session, skeleton, block, raw_bytes, *budget, &call, *options,
                )
        })?;
        Ok(McpStream {
            session: self,
            resource: Some(answer?),
        })
    }
}

/// One MCP result whose huge text is being written, borrowed from its
/// [`Session`] until it is finished (or dropped, which abandons it and
/// saves nothing).
///
/// ```
/// # use tool_output_cap::{Budget, SessionConfig, ToolCap, types::McpOptions};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spill = tempfile::tempdir()?;
/// let tool_cap = ToolCap::new()?;
/// let mut session = tool_cap.open_session(SessionConfig::new("thread-42", spill.path()))?;
/// // The text's JSON string body, as it arrives: escapes and all.
/// let body = "line \\\"quoted\\\"\\n".repeat(10_000);
/// let skeleton = r#"{"content":[{"type":"text","text":""}]}"#;
/// let options = McpOptions { resource_link: false };
/// let mut stream = session.stream_mcp(
///     skeleton, 0, body.len() as u64, &Budget::new(4096), "call-1", &options,
/// )?;
/// for piece in [&body[..70_000], &body[70_000..]] {
///     stream.write(piece)?;
/// }
/// let capped = stream.finish()?;
/// assert!(capped.report.truncated && capped.result.len() < 8192);
/// # Ok(())
/// # }
/// ```
pub struct McpStream<'s> {
    session: &'s mut Session,
    resource: Option<ResourceAny>,
}

impl McpStream<'_> {
    /// Adds the next piece of the text's raw string body (cut anywhere
    /// between characters: an escape cut in two is joined). Fails with
    /// [`CapError::InvalidArgument`](crate::CapError::InvalidArgument) past
    /// `raw_bytes` or for what a JSON string cannot hold (a bare quote or
    /// control character, an unknown escape); the stream is then done and
    /// its partial file removed.
    pub fn write(&mut self, raw: &str) -> Result<(), Error> {
        let resource = self.resource.expect("present until finish or drop");
        let answer = self.session.enter(raw.len(), |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .mcp_stream()
                .call_write(store, resource, raw)
        })?;
        Ok(answer?)
    }

    /// The capped result: exactly what [`Session::cap_mcp`] returns for the
    /// whole result. Fails with
    /// [`CapError::InvalidArgument`](crate::CapError::InvalidArgument) when
    /// fewer than `raw_bytes` arrived or the body ends inside an escape, or
    /// (only with redaction) when the texts fit once redacted, which the
    /// skeleton could not tell: `cap_mcp` of the whole result keeps them.
    pub fn finish(mut self) -> Result<CappedMcp, Error> {
        let resource = self.resource.take().expect("present until finish or drop");
        let answer = self.session.enter(0, |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .mcp_stream()
                .call_finish(store, resource)
        });
        self.session.release(resource);
        Ok(answer??)
    }
}

impl Drop for McpStream<'_> {
    fn drop(&mut self) {
        if let Some(resource) = self.resource.take() {
            self.session.release(resource);
        }
    }
}
