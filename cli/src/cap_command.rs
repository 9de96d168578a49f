//! `toolcap cap`: cap standard input, or a command's joined stdout and
//! stderr, to the budget, and write exactly the capped text to stdout.

use std::ffi::OsString;
use std::io::{self, Read, Write as _};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::Instant;

use tool_output_cap::{Budget, Call, CapError, CapStream, Capped, Error};

use crate::events::{self, EventLog};
use crate::failure::{FAILED, Failure};
use crate::log;
use crate::options::CapArgs;
use crate::settings::Common;
use crate::signals::{self, Signal};

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
    // `--search` wins; without it, a search command's own patterns.
    let search = crate::search::explicit(&args.search)?
        .unwrap_or_else(|| crate::search::command_line::search_of(&args.command));
    let call = Call {
        search,
        id: args
            .id
            .clone()
            .or_else(|| tool.clone())
            .unwrap_or_else(|| "stdin".to_owned()),
        tool,
        exit_code: None,
        is_error: false,
    };
    if common.budget.max_bytes == 0 && common.redaction.is_none() {
        // A budget of 0 caps nothing: no component, no key, no spill.
        let heard = heard_signals();
        let mut source = Source::start(&args.command)?;
        let interrupted = copy_through(&mut source, heard)?;
        let status = source.wait();
        return Ok(interrupted.map_or(status, |signal| interrupted_notice(signal, false)));
    }
    common.check_spill_dir()?;
    let (tool_name, call_id) = (call.tool.clone(), call.id.clone());
    let mut events = EventLog::open(
        common.log_file.as_deref(),
        "cap",
        command_name(&args.command),
    )?;
    let key = common.key()?;
    let tool_cap = crate::runtime::tool_cap(&crate::runtime::one_shot())?;
    let mut session = tool_cap
        .open_session(common.session_config(thread, key))
        .map_err(crate::failure::session_failure)?;
    // The session creates the directory; one it could not be granted is
    // said once, and not swept.
    if session.spill_dir().is_some() {
        crate::sweep::now_and_then(&tool_cap, &common);
    } else {
        common.warn_spill_dir_not_granted();
    }
    // A budget the component refuses is found before any output is read or
    // the command runs, so nothing is lost.
    let mut stream = session
        .stream(&common.budget, call)
        .map_err(budget_failure)?;

    let heard = heard_signals();
    let mut source = Source::start(&args.command)?;
    let mut start = Start::new(&common.budget);
    let mut interrupted = None;
    let written = feed(
        &mut stream,
        &mut source,
        heard,
        &mut start,
        &mut interrupted,
    );
    // The command has closed its output: wait for how it ended, so that
    // the notice can say it failed.
    let status = match interrupted {
        Some(signal) if !source.is_command() => signal.exit_code(),
        _ => source.wait(),
    };
    let capped = written.and_then(|()| {
        if source.is_command() {
            stream
                .set_exit_code(i32::from(status))
                .map_err(cap_failure)?;
        }
        stream.finish().map_err(cap_failure)
    });
    let capped = match (capped, start.bytes) {
        (Ok(capped), bytes) => {
            if capped.report.truncated || !capped.report.redactions.is_empty() {
                events.capped(&events::Capped {
                    tool: tool_name.as_deref().unwrap_or("stdin"),
                    call_id: &call_id,
                    report: &capped.report,
                    sent_bytes: capped.text.len() as u64,
                });
            }
            unless_unchanged(capped, bytes)
        }
        // Within the budget's bytes anyway: better whole than nothing.
        (Err(failure), Some(bytes)) if common.redaction.is_none() => {
            log::line(&format!("{}; passing it on whole", failure.message));
            bytes
        }
        // Not whole when it may hold secrets to redact.
        (Err(failure), _) => return Err(failure),
    };
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(&capped).and_then(|()| stdout.flush()) {
        log::line(&format!("cannot write to standard output: {e}"));
        return Ok(FAILED);
    }
    drop(stdout);
    Ok(interrupted.map_or(status, |signal| {
        interrupted_notice(signal, capped.last().is_some_and(|&b| b != b'\n'))
    }))
}

/// From now on SIGINT, SIGTERM and SIGHUP are heard here instead of
/// ending toolcap: the run stops cleanly (see [`Source::pump`]).
fn heard_signals() -> mpsc::Receiver<Signal> {
    let (sender, heard) = mpsc::channel();
    signals::watch(move |signal| {
        let _ = sender.send(signal);
    });
    heard
}

/// Says on stdout (after the output) and stderr that a signal stopped the
/// run; the exit status for it (130 for SIGINT, 143 for SIGTERM).
fn interrupted_notice(signal: Signal, after_partial_line: bool) -> u8 {
    let notice = format!(
        "[toolcap] Interrupted ({}): the command was stopped; above is its output until then.\n",
        signal.name()
    );
    let mut stdout = io::stdout().lock();
    let lead = if after_partial_line { "\n" } else { "" };
    let _ = write!(stdout, "{lead}{notice}").and_then(|()| stdout.flush());
    log::line(&format!(
        "interrupted ({}): the command was stopped",
        signal.name()
    ));
    signal.exit_code()
}

/// Writes all of `source` to `stream`, keeping its start in `start`. If
/// the component fails, the rest is read and dropped, so the command is
/// not left blocked on a full pipe and ends as it would have. A signal
/// ends the output early (see [`Source::pump`]); it is kept in `interrupted`.
fn feed(
    stream: &mut CapStream<'_>,
    source: &mut Source,
    heard: mpsc::Receiver<Signal>,
    start: &mut Start,
    interrupted: &mut Option<Signal>,
) -> Result<(), Failure> {
    let mut failed = None;
    *interrupted = source.pump(heard, |chunk| {
        if failed.is_none() {
            start.keep(chunk);
            if let Err(e) = stream.write(chunk) {
                failed = Some(cap_failure(e));
            }
        }
    });
    failed.map_or(Ok(()), Err)
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

/// Copies all of `source` to stdout; the signal that ended it early, if one did.
fn copy_through(
    source: &mut Source,
    heard: mpsc::Receiver<Signal>,
) -> Result<Option<Signal>, Failure> {
    let mut stdout = io::stdout().lock();
    let mut failed = None;
    let interrupted = source.pump(heard, |chunk| {
        if failed.is_none()
            && let Err(e) = stdout.write_all(chunk).and_then(|()| stdout.flush())
        {
            failed = Some(Failure::failed(format!(
                "cannot write to standard output: {e}"
            )));
        }
    });
    failed.map_or(Ok(interrupted), Err)
}

/// The command's file name (no arguments): the default tool name, and
/// the program a `--log-file` event names (`toolcap mcp` too).
pub(crate) fn command_name(command: &[OsString]) -> Option<String> {
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
    Stdin,
    Command {
        child: Child,
        output: io::PipeReader,
    },
}

impl Source {
    fn start(command: &[OsString]) -> Result<Self, Failure> {
        let Some((program, args)) = command.split_first() else {
            return Ok(Source::Stdin);
        };
        let not_started = |e: io::Error| Failure {
            code: NOT_STARTED,
            message: format!("cannot run `{}`: {e}", program.to_string_lossy()),
        };
        let (output, writer) = io::pipe().map_err(not_started)?;
        let mut builder = Command::new(program);
        // Its own process group: a signal to toolcap stops the command and
        // all it started, and toolcap still prints what they wrote.
        signals::own_group(&mut builder);
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

    /// Gives every chunk of the output to `each` until it ends, or until a
    /// SIGINT, SIGTERM or SIGHUP stops the run: the command's process group
    /// gets the signal (so the command can say it was interrupted, and that
    /// is kept), and if its output has not ended within a grace period,
    /// SIGKILL. Standard input stops at once. The signal, if one came.
    fn pump(
        &mut self,
        heard: mpsc::Receiver<Signal>,
        mut each: impl FnMut(&[u8]),
    ) -> Option<Signal> {
        let (sender, chunks) = mpsc::sync_channel::<Pumped>(2);
        let signal_sender = sender.clone();
        std::thread::spawn(move || {
            for signal in heard {
                if signal_sender.send(Pumped::Signal(signal)).is_err() {
                    return;
                }
            }
        });
        let reader: Box<dyn Read + Send> = match self {
            Source::Stdin => Box::new(io::stdin()),
            Source::Command { output, .. } => match output.try_clone() {
                Ok(output) => Box::new(output),
                Err(e) => {
                    log::line(&format!("reading the output failed, it ends here: {e}"));
                    return None;
                }
            },
        };
        std::thread::spawn(move || pump_reader(reader, sender));
        let mut interrupted: Option<Signal> = None;
        let mut deadline: Option<(Instant, bool)> = None;
        loop {
            let next = match deadline {
                None => chunks
                    .recv()
                    .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                Some((at, _)) => chunks.recv_timeout(at.saturating_duration_since(Instant::now())),
            };
            match next {
                Ok(Pumped::Chunk(chunk)) => each(&chunk),
                Ok(Pumped::End) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Ok(Pumped::Signal(signal)) => {
                    let Source::Command { child, .. } = self else {
                        interrupted.get_or_insert(signal);
                        break;
                    };
                    if interrupted.is_none() {
                        interrupted = Some(signal);
                        signals::signal_group(child, signal);
                        deadline = Some((Instant::now() + signals::STOP_GRACE, false));
                    } else {
                        // Asked twice: no more waiting.
                        signals::kill_group(child);
                        deadline = Some((Instant::now() + signals::STOP_GRACE, true));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let Source::Command { child, .. } = self else {
                        break;
                    };
                    match deadline {
                        Some((_, false)) => {
                            signals::kill_group(child);
                            deadline = Some((Instant::now() + signals::STOP_GRACE, true));
                        }
                        // Something outside its group still holds the pipe open.
                        _ => break,
                    }
                }
            }
        }
        if let Source::Command { child, .. } = self
            && interrupted.is_some()
        {
            signals::kill_group(child);
        }
        interrupted
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

/// What the reading thread hands over.
enum Pumped {
    Chunk(Vec<u8>),
    End,
    Signal(Signal),
}

/// Reads `input` until it ends, handing over what each read gives at once;
/// a read error ends it (and is told). The reads go into one buffer zeroed
/// once: a pipe gives 64 KiB a read, and zeroing a fresh megabyte for each
/// was 4% of `toolcap cap`'s CPU time (a profile of 256 MiB on stdin). That
/// thread runs beside the component, so the wall-clock time is the same.
fn pump_reader(mut input: Box<dyn Read + Send>, sender: mpsc::SyncSender<Pumped>) {
    let mut buffer = vec![0; CHUNK_BYTES];
    loop {
        match input.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                if sender.send(Pumped::Chunk(buffer[..n].to_vec())).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                log::line(&format!("reading the output failed, it ends here: {e}"));
                break;
            }
        }
    }
    let _ = sender.send(Pumped::End);
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
