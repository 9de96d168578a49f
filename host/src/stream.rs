//! A tool result written in chunks as a command produces it: the
//! component's `cap-stream`, with memory bounded whatever the output's size.

use wasmtime::component::ResourceAny;

use crate::session::{Session, call_bytes};
use crate::{Budget, Call, Capped, Error};

impl Session {
    /// Starts capping a result that arrives in chunks; see [`CapStream`].
    pub fn stream(
        &mut self,
        budget: &Budget,
        call: impl Into<Call>,
    ) -> Result<CapStream<'_>, Error> {
        let call = call.into();
        self.move_to_best();
        let session = self.resource.expect("present until drop");
        // No recycling from here until the stream is released: it lives in
        // this instance.
        let answer = self.enter(call_bytes(&call), |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .session()
                .call_stream(store, session, *budget, &call)
        })?;
        Ok(CapStream::new(self, answer?))
    }
}

/// One result being written, borrowed from its [`Session`] until it is
/// finished (or dropped, which abandons it and saves nothing).
///
/// ```
/// # use tool_output_cap::{Budget, SessionConfig, ToolCap};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spill = tempfile::tempdir()?;
/// let tool_cap = ToolCap::new()?;
/// let mut session = tool_cap.open_session(SessionConfig::new("thread-42", spill.path()))?;
/// let mut stream = session.stream(&Budget::new(4096), "call-1")?;
/// for i in 0..10_000 {
///     stream.write(format!("line {i}\n").as_bytes())?;
/// }
/// let capped = stream.finish()?;
/// assert!(capped.report.truncated && capped.text.len() <= 4096);
/// # Ok(())
/// # }
/// ```
pub struct CapStream<'s> {
    session: &'s mut Session,
    resource: Option<ResourceAny>,
}

impl<'s> CapStream<'s> {
    pub(crate) fn new(session: &'s mut Session, resource: ResourceAny) -> Self {
        Self {
            session,
            resource: Some(resource),
        }
    }

    /// Adds the next bytes of the output (any split: a character cut
    /// between two chunks is joined). A full disk is not an error here: the
    /// result says the output could not be saved.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let resource = self.resource.expect("present until finish or drop");
        let answer = self.session.enter(chunk.len(), |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .cap_stream()
                .call_write(store, resource, chunk)
        })?;
        Ok(answer?)
    }

    /// Bytes written so far.
    pub fn bytes_written(&mut self) -> Result<u64, Error> {
        let resource = self.resource.expect("present until finish or drop");
        self.session.enter(0, |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .cap_stream()
                .call_bytes_written(store, resource)
        })
    }

    /// Records how the command ended, once it has: `finish` then gives
    /// what [`Session::cap`] gives with `code` as the call's exit code (a
    /// non-zero code is stated first in the notice, and the preview leans
    /// to the tail). It may come at any point before `finish`; a later
    /// call replaces an earlier one.
    pub fn set_exit_code(&mut self, code: i32) -> Result<(), Error> {
        let resource = self.resource.expect("present until finish or drop");
        let answer = self.session.enter(0, |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .cap_stream()
                .call_set_exit_code(store, resource, code)
        })?;
        Ok(answer?)
    }

    /// The capped result of everything written: exactly what
    /// [`Session::cap`] returns for the whole output (with the exit code
    /// of [`set_exit_code`](Self::set_exit_code), if called, in the call).
    pub fn finish(mut self) -> Result<Capped, Error> {
        let resource = self.resource.take().expect("present until finish or drop");
        let answer = self.session.enter(0, |exports, store| {
            exports
                .toolcap_tool_output_cap_capper()
                .cap_stream()
                .call_finish(store, resource)
        });
        self.session.release(resource);
        Ok(answer??)
    }
}

impl Drop for CapStream<'_> {
    fn drop(&mut self) {
        if let Some(resource) = self.resource.take() {
            self.session.release(resource);
        }
    }
}
