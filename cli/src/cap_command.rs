//! `toolcap cap`: cap standard input, or a command's joined stdout and
//! stderr, to the budget, and write exactly the capped text to stdout.

use std::ffi::OsString;
use std::io::{self, Read, Write as _};
use std::path::Path;
use std::process::{Child, Command};

use tool_output_cap::{Budget, Call, CapError, CapStream, Capped, Error, RuntimeOptions};

use crate::failure::{FAILED, Failure};
use crate::log;
use crate::options::CapArgs;
use crate::settings::Common;

/// Bytes read from the output and handed to the component at a time.
const CHUNK_BYTES: usize = 1 << 20;
/// Exit status for a command that could not be started (as shells use).
const NOT_STARTED: u8 = 127;

pub fn run(args: CapArgs) -> Result<u8, Failure> {
    let common = Common::resolve(&args.common)?;
    let thread = args
        .common
        .thread
        .clone()
        .or_else(|| {
            std::env::var("TOOLCAP_THREAD")
                .ok()
                .filter(|t| !t.is_empty())
        })
        .or_else(|| common.thread.clone())
        .unwrap_or_else(|| "shell".to_owned());
    let tool = args.tool.clone().or_else(|| command_name(&args.command));
    let call = Call {
        id: args
            .id
            .clone()
            .or_else(|| tool.clone())
            .unwrap_or_else(|| "stdin".to_owned()),
        tool,
        exit_code: None,
        is_error: false,
    };
    if common.budget.max_bytes == 0 {
        // A budget of 0 caps nothing: no component, no key, no spill.
        let mut source = Source::start(&args.command)?;
        copy_through(&mut source)?;
        return Ok(source.wait());
    }
    common.check_spill_dir()?;
    let key = common.key()?;
    let tool_cap = crate::runtime::tool_cap(&RuntimeOptions::default())?;
    crate::sweep::now_and_then(&tool_cap, &common);
    let mut session = tool_cap
        .open_session(common.session_config(thread, key))
        .map_err(|e| Failure::failed(format!("cannot open a session: {e}")))?;
    // A budget the component refuses is found before any output is read or
    // the command runs, so nothing is lost.
    let mut stream = session
        .stream(&common.budget, call)
        .map_err(budget_failure)?;

    let mut source = Source::start(&args.command)?;
    let mut start = Start::new(&common.budget);
    let written = feed(&mut stream, &mut source, &mut start);
    // The command has closed its output: wait for how it ended, so that
    // the notice can say it failed.
    let status = source.wait();
    let capped = written.and_then(|()| {
        if source.is_command() {
            stream
                .set_exit_code(i32::from(status))
                .map_err(cap_failure)?;
        }
        stream.finish().map_err(cap_failure)
    });
    let capped = match (capped, start.bytes) {
        (Ok(capped), bytes) => unless_unchanged(capped, bytes),
        // Within the budget's bytes anyway: better whole than nothing.
        (Err(failure), Some(bytes)) => {
            log::line(&format!("{}; passing it on whole", failure.message));
            bytes
        }
        (Err(failure), None) => return Err(failure),
    };
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(&capped).and_then(|()| stdout.flush()) {
        log::line(&format!("cannot write to standard output: {e}"));
        return Ok(FAILED);
    }
    Ok(status)
}

/// Writes all of `source` to `stream`, keeping its start in `start`. If
/// the component fails, the rest is read and dropped, so the command is
/// not left blocked on a full pipe and ends as it would have.
fn feed(stream: &mut CapStream<'_>, source: &mut Source, start: &mut Start) -> Result<(), Failure> {
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        let read = source.read(&mut chunk)?;
        if read == 0 {
            return Ok(());
        }
        start.keep(&chunk[..read]);
        if let Err(e) = stream.write(&chunk[..read]) {
            while source.read(&mut chunk)? > 0 {}
            return Err(cap_failure(e));
        }
    }
}

/// The output's first bytes while it may still fit the budget (an output
/// that fits is never longer than `max-bytes`: its capped text, the same
/// output decoded, is at least as long), so that an output that fits is
/// passed on as the bytes it was, even if they are not valid UTF-8.
struct Start {
    bytes: Option<Vec<u8>>,
    limit: usize,
}

impl Start {
    fn new(budget: &Budget) -> Self {
        Self {
            bytes: Some(Vec::new()),
            limit: budget.max_bytes as usize,
        }
    }

    fn keep(&mut self, chunk: &[u8]) {
        if let Some(bytes) = &mut self.bytes {
            if bytes.len() + chunk.len() > self.limit {
                self.bytes = None;
            } else {
                bytes.extend_from_slice(chunk);
            }
        }
    }
}

/// The bytes to write: the output as it came (`bytes`, if still held) when
/// `capped` is that output unchanged, else the capped text.
fn unless_unchanged(capped: Capped, bytes: Option<Vec<u8>>) -> Vec<u8> {
    match bytes {
        Some(bytes)
            if !capped.report.truncated && capped.text == String::from_utf8_lossy(&bytes) =>
        {
            bytes
        }
        _ => capped.text.into_bytes(),
    }
}

fn cap_failure(e: Error) -> Failure {
    Failure::failed(format!("could not cap the output: {e}"))
}

fn budget_failure(e: Error) -> Failure {
    match e {
        Error::Cap(CapError::InvalidBudget(message)) => {
            Failure::usage(format!("the budget cannot be used: {message}"))
        }
        other => Failure::failed(format!("cannot start capping: {other}")),
    }
}

fn copy_through(source: &mut Source) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        let read = source.read(&mut chunk)?;
        if read == 0 {
            return stdout
                .flush()
                .map_err(|e| Failure::failed(format!("cannot write to standard output: {e}")));
        }
        stdout
            .write_all(&chunk[..read])
            .map_err(|e| Failure::failed(format!("cannot write to standard output: {e}")))?;
    }
}

/// The command's file name, as the default tool name.
fn command_name(command: &[OsString]) -> Option<String> {
    let program = Path::new(command.first()?);
    Some(
        program
            .file_name()
            .unwrap_or(program.as_os_str())
            .to_string_lossy()
            .into_owned(),
    )
}

/// Where the output comes from: standard input, or a running command's
/// stdout and stderr joined in one pipe (one stream, in the order written).
enum Source {
    Stdin(io::Stdin),
    Command {
        child: Child,
        output: io::PipeReader,
    },
}

impl Source {
    fn start(command: &[OsString]) -> Result<Self, Failure> {
        let Some((program, args)) = command.split_first() else {
            return Ok(Source::Stdin(io::stdin()));
        };
        let not_started = |e: io::Error| Failure {
            code: NOT_STARTED,
            message: format!("cannot run `{}`: {e}", program.to_string_lossy()),
        };
        let (output, writer) = io::pipe().map_err(not_started)?;
        let mut builder = Command::new(program);
        builder
            .args(args)
            .stdout(writer.try_clone().map_err(not_started)?)
            .stderr(writer);
        let child = builder.spawn().map_err(not_started)?;
        // Our copies of the pipe's writing end go with the builder, so the
        // output ends when the command (and anything it started) closes it.
        drop(builder);
        Ok(Source::Command { child, output })
    }

    fn is_command(&self) -> bool {
        matches!(self, Source::Command { .. })
    }

    /// Reads the next bytes; a read error ends the output (and is told).
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Failure> {
        let read = match self {
            Source::Stdin(stdin) => stdin.read(buf),
            Source::Command { output, .. } => output.read(buf),
        };
        match read {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => self.read(buf),
            Err(e) => {
                log::line(&format!("reading the output failed, it ends here: {e}"));
                Ok(0)
            }
        }
    }

    /// The command's exit status: its code, or 128 + the signal that
    /// killed it, as shells report it; 0 for standard input.
    fn wait(&mut self) -> u8 {
        let Source::Command { child, .. } = self else {
            return 0;
        };
        match child.wait() {
            Ok(status) => exit_code(status),
            Err(e) => {
                log::line(&format!("cannot learn how the command ended: {e}"));
                FAILED
            }
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return code as u8;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return 128u8.wrapping_add(signal as u8);
        }
    }
    FAILED
}
