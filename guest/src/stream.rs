//! The `cap-stream` resource: a result written in chunks, spilled to a
//! temporary file as it grows past what memory should hold, and capped at
//! the end exactly as `cap` would.

use std::cell::RefCell;
use std::rc::Rc;

use toolcap_core::{Call, CapError, SpillWriter};
use wasi::filesystem::types::{
    Descriptor, DescriptorFlags, OpenFlags, PathFlags, filesystem_error_code,
};
use wasi::io::streams::{OutputStream, StreamError};

use crate::bindings::exports::toolcap::tool_output_cap::capper::GuestCapStream;
use crate::bindings::toolcap::tool_output_cap::types;
use crate::convert::{self, CapResult};
use crate::files;
use crate::fs_error::to_cap_error;
use crate::session_state::Inner;

/// State behind one `cap-stream` handle.
pub struct Stream {
    session: Rc<Inner>,
    /// `None` once finished.
    state: RefCell<Option<Running>>,
    written: RefCell<u64>,
}

struct Running {
    capper_stream: toolcap_core::CapStream,
    file: StreamFile,
}

impl Stream {
    pub fn start(
        session: Rc<Inner>,
        budget: types::Budget,
        call: types::Call,
    ) -> CapResult<Stream> {
        let call = convert::call(call);
        let capper_stream = toolcap_core::CapStream::new(
            &session.capper.borrow(),
            convert::budget(budget),
            call.clone(),
        )
        .map_err(convert::error)?;
        let file = StreamFile::new(Rc::clone(&session), call);
        Ok(Stream {
            session,
            state: RefCell::new(Some(Running {
                capper_stream,
                file,
            })),
            written: RefCell::new(0),
        })
    }
}

fn finished() -> types::CapError {
    types::CapError::InvalidArgument("this stream is finished: start a new one".into())
}

impl GuestCapStream for Stream {
    fn write(&self, chunk: Vec<u8>) -> CapResult<()> {
        let mut state = self.state.borrow_mut();
        let running = state.as_mut().ok_or_else(finished)?;
        running
            .capper_stream
            .write(&self.session.capper.borrow(), &chunk, &mut running.file);
        *self.written.borrow_mut() += chunk.len() as u64;
        Ok(())
    }

    fn bytes_written(&self) -> u64 {
        *self.written.borrow()
    }

    fn set_exit_code(&self, code: i32) -> CapResult<()> {
        let mut state = self.state.borrow_mut();
        let running = state.as_mut().ok_or_else(finished)?;
        running.capper_stream.set_exit_code(code);
        running.file.call.exit_code = Some(code);
        Ok(())
    }

    fn finish(&self) -> CapResult<types::Capped> {
        let Running {
            capper_stream,
            mut file,
        } = self.state.borrow_mut().take().ok_or_else(finished)?;
        let mut store = self.session.store();
        capper_stream
            .finish(&self.session.capper.borrow(), &mut file, &mut store)
            .map(convert::capped)
            .map_err(convert::error)
    }
}

/// The spill file a stream writes as it goes: a temporary file in the
/// thread folder, renamed when the stream finishes.
pub(crate) struct StreamFile {
    session: Rc<Inner>,
    call: Call,
    open: Option<OpenFile>,
}

impl StreamFile {
    /// The file of `call`'s output, not created until written to.
    pub(crate) fn new(session: Rc<Inner>, call: Call) -> Self {
        StreamFile {
            session,
            call,
            open: None,
        }
    }

    /// The call its catalog note records, once known better.
    pub(crate) fn set_call(&mut self, call: Call) {
        self.call = call;
    }
}

/// Bytes of an append written behind: the host writes them on its own
/// thread while the stream reads on, and the next append or the commit
/// waits for them. The rest of a larger append is written at once. (A
/// 1 GiB `toolcap cap` spent about 0.6 s of its 3.5 s in these writes;
/// wasmtime-wasi takes 64 KiB per write on a file's stream.)
const WRITE_BEHIND: usize = 64 << 10;

struct OpenFile {
    /// The write still running, if any. Declared before `file`: a stream
    /// is dropped before the descriptor it writes to.
    behind: Option<OutputStream>,
    dir: Descriptor,
    file: Descriptor,
    tmp: String,
    offset: u64,
    /// Line breaks written, and the last byte: the file's line count for
    /// its catalog note.
    lfs: u64,
    last: Option<u8>,
}

impl OpenFile {
    /// Wait for the write behind, if any; its error, if it failed.
    fn settle(&mut self) -> Result<(), CapError> {
        match self.behind.take() {
            Some(stream) => ready(&stream).map(drop),
            None => Ok(()),
        }
    }

    /// Write `bytes` at the end of the file before returning.
    fn write_now(&mut self, mut bytes: &[u8]) -> Result<(), CapError> {
        while !bytes.is_empty() {
            let written = self
                .file
                .write(&bytes[..bytes.len().min(files::WRITE_CHUNK)], self.offset)
                .map_err(|e| to_cap_error("cannot write the spill file", e))?;
            if written == 0 {
                return Err(CapError::Io(
                    "cannot write the spill file: no progress".into(),
                ));
            }
            self.offset += written;
            bytes = &bytes[written as usize..];
        }
        Ok(())
    }

    /// Start writing `bytes` at the end of the file, and return: the host
    /// copies them and writes them on its own thread.
    fn write_behind(&mut self, mut bytes: &[u8]) -> Result<(), CapError> {
        let stream = self
            .file
            .write_via_stream(self.offset)
            .map_err(|e| to_cap_error("cannot write the spill file", e))?;
        while !bytes.is_empty() {
            let room = ready(&stream)?.min(bytes.len());
            stream.write(&bytes[..room]).map_err(stream_error)?;
            self.offset += room as u64;
            bytes = &bytes[room..];
        }
        self.behind = Some(stream);
        Ok(())
    }

    fn lines(&self) -> u64 {
        match self.last {
            None | Some(b'\n') => self.lfs,
            Some(_) => self.lfs + 1,
        }
    }
}

impl SpillWriter for StreamFile {
    fn create(&mut self, thread_dir: &str) -> Result<(), CapError> {
        let dir = self.session.spill.thread_dir(thread_dir, true)?;
        let tmp = files::temp_name("stream");
        let file = dir
            .open_at(
                PathFlags::empty(),
                &tmp,
                OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
                DescriptorFlags::WRITE,
            )
            .map_err(|e| to_cap_error("cannot create the spill file", e))?;
        self.open = Some(OpenFile {
            behind: None,
            dir,
            file,
            tmp,
            offset: 0,
            lfs: 0,
            last: None,
        });
        Ok(())
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), CapError> {
        let open = self
            .open
            .as_mut()
            .ok_or_else(|| CapError::Io("the spill file was not created".into()))?;
        open.lfs += memchr::memchr_iter(b'\n', bytes).count() as u64;
        if let Some(&b) = bytes.last() {
            open.last = Some(b);
        }
        open.settle()?;
        let now = bytes.len().saturating_sub(WRITE_BEHIND);
        open.write_now(&bytes[..now])?;
        open.write_behind(&bytes[now..])
    }

    fn commit(&mut self, _thread_dir: &str, file_name: &str) -> Result<(), CapError> {
        let mut open = self
            .open
            .take()
            .ok_or_else(|| CapError::Io("the spill file was not created".into()))?;
        if let Err(e) = open.settle() {
            drop(open.file);
            let _ = open.dir.unlink_file_at(&open.tmp);
            return Err(e);
        }
        let lines = open.lines();
        drop(open.file);
        let renamed = open
            .dir
            .rename_at(&open.tmp, &open.dir, file_name)
            .map_err(|e| to_cap_error("cannot rename", e));
        if renamed.is_err() {
            let _ = open.dir.unlink_file_at(&open.tmp);
        }
        renamed?;
        let retention = self.session.retention_seconds();
        files::write_meta(
            &open.dir,
            file_name,
            &self.call,
            open.offset,
            lines,
            retention,
        );
        Ok(())
    }

    fn abort(&mut self) {
        if let Some(open) = self.open.take() {
            // Dropping the stream waits for its write, which the unlink
            // then removes with the rest.
            drop(open.behind);
            drop(open.file);
            let _ = open.dir.unlink_file_at(&open.tmp);
        }
    }
}

impl Drop for StreamFile {
    /// An abandoned stream leaves no temporary file behind.
    fn drop(&mut self) {
        self.abort();
    }
}

/// Room for the next write on `stream`, once its last write is done; that
/// write's error if it failed.
fn ready(stream: &OutputStream) -> Result<usize, CapError> {
    loop {
        match stream.check_write().map_err(stream_error)? {
            0 => stream.subscribe().block(),
            room => return Ok(usize::try_from(room).unwrap_or(usize::MAX)),
        }
    }
}

fn stream_error(e: StreamError) -> CapError {
    match e {
        StreamError::LastOperationFailed(error) => match filesystem_error_code(&error) {
            Some(code) => to_cap_error("cannot write the spill file", code),
            None => CapError::Io(format!(
                "cannot write the spill file: {}",
                error.to_debug_string()
            )),
        },
        StreamError::Closed => CapError::Io("cannot write the spill file: closed".into()),
    }
}
