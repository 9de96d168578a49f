//! The `mcp-stream` resource: `cap-mcp` of a result whose huge text is
//! written in pieces, spilled as it arrives.

use std::cell::RefCell;
use std::rc::Rc;

use toolcap_core::{Budget, Call, McpOptions, McpStream};

use crate::bindings::exports::toolcap::tool_output_cap::capper::GuestMcpStream;
use crate::bindings::toolcap::tool_output_cap::types;
use crate::convert::{self, CapResult};
use crate::session_state::Inner;
use crate::stream::StreamFile;

/// What `stream-mcp` was given.
pub struct Start {
    pub skeleton: String,
    pub block: u32,
    pub raw_bytes: u64,
    pub budget: Budget,
    pub call: Call,
    pub options: McpOptions,
}

/// State behind one `mcp-stream` handle.
pub struct Streamed {
    session: Rc<Inner>,
    /// `None` once finished or failed (the partial file is then gone).
    state: RefCell<Option<(McpStream, StreamFile)>>,
}

impl Streamed {
    pub fn start(session: Rc<Inner>, start: Start) -> CapResult<Streamed> {
        let mut file = StreamFile::new(Rc::clone(&session), start.call.clone());
        let stream = McpStream::new(
            &session.capper.borrow(),
            start.skeleton,
            start.block,
            start.raw_bytes,
            &start.budget,
            &start.call,
            start.options,
            &mut session.store(),
            &mut file,
        )
        .map_err(convert::error)?;
        // The note records the call as `cap-mcp` saves it: with the result's `isError`.
        file.set_call(stream.call().clone());
        Ok(Streamed {
            session,
            state: RefCell::new(Some((stream, file))),
        })
    }
}

fn done() -> types::CapError {
    types::CapError::InvalidArgument("this stream is finished, or failed: start a new one".into())
}

impl GuestMcpStream for Streamed {
    fn write(&self, raw: String) -> CapResult<()> {
        let mut state = self.state.borrow_mut();
        let (stream, file) = state.as_mut().ok_or_else(done)?;
        let written = stream.write(&self.session.capper.borrow(), &raw, file);
        if written.is_err() {
            // Dropping the file removes what it holds so far.
            *state = None;
        }
        written.map_err(convert::error)
    }

    fn finish(&self) -> CapResult<types::CappedMcp> {
        let (stream, mut file) = self.state.borrow_mut().take().ok_or_else(done)?;
        let mut store = self.session.store();
        stream
            .finish(&self.session.capper.borrow(), &mut file, &mut store)
            .map(convert::capped_mcp)
            .map_err(convert::error)
    }
}
