//! The host a vector runs in: the Rust crate in process ([`Local`]), or an
//! adapter process that drives the JavaScript or Python package
//! ([`Adapter`], `tests/vectors/ADAPTERS.md`). The runner asks, a host
//! answers; every check is the runner's.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tool_output_cap::types::{
    BatchResult, CappedMcp, CappedParts, ContentPart, GrepResult, McpOptions, Overflow, Page,
    PendingResult, PrunePolicy, Pruned, ReadToolOutput, ReadToolSpec, RequestLimits,
    RetentionPolicy, SpillEntry, StoreStats, SweepReport,
};
use tool_output_cap::{Budget, Call, Capped, Error, OverflowRef, Session};

use super::convert;
use super::format::{Preopen, SessionSpec};
use crate::common::{case_name, tool_cap};

/// A failed call: its `cap-error` case (`runtime` for anything else) and
/// message.
#[derive(Debug, Clone)]
pub struct Failure {
    pub case: String,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.case, self.message)
    }
}

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        Failure {
            case: case_name(&err).to_owned(),
            message: err.to_string(),
        }
    }
}

pub type Answer<T> = Result<T, Failure>;

/// What the runner asks of a session, one method per adapter op.
pub trait Host {
    /// A new session for `spec`, granted `dir` unless its preopen is none.
    fn open(&mut self, spec: &SessionSpec, dir: &Path) -> Result<(), String>;
    fn close(&mut self);
    /// The directory the open session was granted.
    fn spill_dir(&self) -> Option<PathBuf>;
    fn cap(&mut self, input: &str, budget: &Budget, call: Call) -> Answer<Capped>;
    fn cap_parts(
        &mut self,
        parts: &[ContentPart],
        budget: &Budget,
        call: Call,
    ) -> Answer<CappedParts>;
    fn cap_mcp(
        &mut self,
        result: &str,
        budget: &Budget,
        call: Call,
        options: &McpOptions,
    ) -> Answer<CappedMcp>;
    /// `input` written in chunks of `chunk_bytes` (cycled), the exit code
    /// set if given, then finished; with the stream's bytes-written count.
    fn stream(
        &mut self,
        input: &str,
        chunk_bytes: &[usize],
        exit_code: Option<i32>,
        budget: &Budget,
        call: Call,
    ) -> Answer<(Capped, u64)>;
    fn find_refs(&mut self, text: &str) -> Answer<Vec<OverflowRef>>;
    fn pruned_placeholder(&mut self, reference: &OverflowRef) -> Answer<String>;
    fn read(&mut self, path: &str, offset: u64, max_bytes: u32) -> Answer<Page>;
    fn read_lines(&mut self, path: &str, first: u64, count: u32, max_bytes: u32) -> Answer<Page>;
    fn grep(&mut self, path: &str, pattern: &str, max_matches: u32) -> Answer<GrepResult>;
    fn prune(&mut self, messages: &[String], policy: &PrunePolicy) -> Answer<Pruned>;
    fn purge(&mut self) -> Answer<u64>;
    fn host_path(&mut self, path: &str) -> Answer<Option<PathBuf>>;
    fn estimate_tokens(&mut self, text: &str) -> Answer<u64>;
    fn calibrate(&mut self, text: &str, actual_tokens: u64) -> Answer<f64>;
    fn plan(&mut self, results: &[PendingResult], limits: &RequestLimits) -> Answer<Vec<Budget>>;
    fn cap_batch(
        &mut self,
        results: &[(Call, PendingResult)],
        limits: &RequestLimits,
    ) -> Answer<Vec<BatchResult>>;
    fn read_tool(&mut self) -> Answer<ReadToolSpec>;
    fn run_read_tool(&mut self, arguments: &str) -> Answer<ReadToolOutput>;
    fn list(&mut self) -> Answer<Vec<SpillEntry>>;
    fn classify(&mut self, status: u16, body: &str) -> Answer<Option<Overflow>>;
    fn sweep(&mut self, dir: &Path, policy: &RetentionPolicy) -> Answer<SweepReport>;
    fn stats(&mut self, dir: &Path) -> Answer<StoreStats>;
}

/// The Rust crate, in process.
#[derive(Default)]
pub struct Local {
    session: Option<Session>,
}

impl From<Session> for Local {
    fn from(session: Session) -> Self {
        Local {
            session: Some(session),
        }
    }
}

impl Local {
    fn session(&mut self) -> &mut Session {
        self.session.as_mut().expect("a session is open")
    }
}

impl Host for Local {
    fn open(&mut self, spec: &SessionSpec, dir: &Path) -> Result<(), String> {
        let config = convert::session_config(spec, dir)?;
        self.session = Some(tool_cap().open_session(config).map_err(|e| e.to_string())?);
        Ok(())
    }

    fn close(&mut self) {
        self.session = None;
    }

    fn spill_dir(&self) -> Option<PathBuf> {
        self.session.as_ref()?.spill_dir().map(Path::to_owned)
    }

    fn cap(&mut self, input: &str, budget: &Budget, call: Call) -> Answer<Capped> {
        Ok(self.session().cap(input, budget, call)?)
    }

    fn cap_parts(
        &mut self,
        parts: &[ContentPart],
        budget: &Budget,
        call: Call,
    ) -> Answer<CappedParts> {
        Ok(self.session().cap_parts(parts, budget, call)?)
    }

    fn cap_mcp(
        &mut self,
        result: &str,
        budget: &Budget,
        call: Call,
        options: &McpOptions,
    ) -> Answer<CappedMcp> {
        Ok(self.session().cap_mcp(result, budget, call, options)?)
    }

    fn stream(
        &mut self,
        input: &str,
        chunk_bytes: &[usize],
        exit_code: Option<i32>,
        budget: &Budget,
        call: Call,
    ) -> Answer<(Capped, u64)> {
        let mut stream = self.session().stream(budget, call)?;
        let mut rest = input.as_bytes();
        for &size in chunk_bytes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at(size.min(rest.len()));
            stream.write(chunk)?;
            rest = tail;
        }
        if let Some(code) = exit_code {
            stream.set_exit_code(code)?;
        }
        let written = stream.bytes_written()?;
        Ok((stream.finish()?, written))
    }

    fn find_refs(&mut self, text: &str) -> Answer<Vec<OverflowRef>> {
        Ok(self.session().find_refs(text)?)
    }

    fn pruned_placeholder(&mut self, reference: &OverflowRef) -> Answer<String> {
        Ok(self.session().pruned_placeholder(reference)?)
    }

    fn read(&mut self, path: &str, offset: u64, max_bytes: u32) -> Answer<Page> {
        Ok(self.session().read(path, offset, max_bytes)?)
    }

    fn read_lines(&mut self, path: &str, first: u64, count: u32, max_bytes: u32) -> Answer<Page> {
        Ok(self.session().read_lines(path, first, count, max_bytes)?)
    }

    fn grep(&mut self, path: &str, pattern: &str, max_matches: u32) -> Answer<GrepResult> {
        Ok(self.session().grep(path, pattern, max_matches)?)
    }

    fn prune(&mut self, messages: &[String], policy: &PrunePolicy) -> Answer<Pruned> {
        Ok(self.session().prune(messages, policy)?)
    }

    fn purge(&mut self) -> Answer<u64> {
        Ok(self.session().purge()?)
    }

    fn host_path(&mut self, path: &str) -> Answer<Option<PathBuf>> {
        Ok(self.session().host_path(path)?)
    }

    fn estimate_tokens(&mut self, text: &str) -> Answer<u64> {
        Ok(self.session().estimate_tokens(text)?)
    }

    fn calibrate(&mut self, text: &str, actual_tokens: u64) -> Answer<f64> {
        Ok(self.session().calibrate(text, actual_tokens)?)
    }

    fn plan(&mut self, results: &[PendingResult], limits: &RequestLimits) -> Answer<Vec<Budget>> {
        Ok(self.session().plan(results, limits)?)
    }

    fn cap_batch(
        &mut self,
        results: &[(Call, PendingResult)],
        limits: &RequestLimits,
    ) -> Answer<Vec<BatchResult>> {
        Ok(self.session().cap_batch(results, limits)?)
    }

    fn read_tool(&mut self) -> Answer<ReadToolSpec> {
        Ok(self.session().read_tool()?)
    }

    fn run_read_tool(&mut self, arguments: &str) -> Answer<ReadToolOutput> {
        Ok(self.session().run_read_tool(arguments)?)
    }

    fn list(&mut self) -> Answer<Vec<SpillEntry>> {
        Ok(self.session().list()?)
    }

    fn classify(&mut self, status: u16, body: &str) -> Answer<Option<Overflow>> {
        Ok(tool_cap().classify(status, body)?)
    }

    fn sweep(&mut self, dir: &Path, policy: &RetentionPolicy) -> Answer<SweepReport> {
        Ok(tool_cap().open_spill_store(dir)?.sweep(policy)?)
    }

    fn stats(&mut self, dir: &Path) -> Answer<StoreStats> {
        Ok(tool_cap().open_spill_store(dir)?.stats()?)
    }
}

/// The longest an adapter may take over one answer: the slowest vector step
/// (a 4 MiB cap in Python) takes a few seconds.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// Another host's package, driven by its adapter over JSON lines.
pub struct Adapter {
    name: String,
    child: Child,
    stdin: ChildStdin,
    /// Its answer lines, read by a thread of their own, so that an adapter
    /// that stops answering is a failure after [`ANSWER_TIMEOUT`], not a hang.
    answers: Receiver<std::io::Result<String>>,
    /// The open session's granted directory, and whether it was made
    /// read-only (restored at close).
    granted: Option<PathBuf>,
    locked: Option<PathBuf>,
    /// Whether the adapter holds a session to close.
    session_open: bool,
}

impl Adapter {
    /// Starts `program` with `args` (from the repository's root).
    pub fn start(name: &str, program: &Path, args: &[PathBuf]) -> Result<Self, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut child = Command::new(program)
            .args(args)
            .current_dir(&root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Inherited: a crash's trace shows in the test's output, and a
            // pipe nobody reads cannot fill up and stall the adapter.
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the {name} adapter {}: {e}", program.display()))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let (send, answers) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Adapter {
            name: name.to_owned(),
            child,
            stdin,
            answers,
            granted: None,
            locked: None,
            session_open: false,
        })
    }

    /// One request and its answer; a broken adapter is a `runtime` failure.
    fn ask<T: DeserializeOwned>(&mut self, op: &str, mut args: Value) -> Answer<T> {
        args["op"] = json!(op);
        // A broken adapter is stopped: what it says next cannot be trusted
        // to answer the next request, and the next trial starts a new one.
        let broken = |this: &mut Self, why: String| -> Failure {
            let _ = this.child.kill();
            Failure {
                case: "runtime".into(),
                message: format!("the {} adapter {why} (its stderr is above)", this.name),
            }
        };
        let mut line = args.to_string();
        line.push('\n');
        if let Err(e) = self.stdin.write_all(line.as_bytes()) {
            return Err(broken(self, format!("does not read its requests: {e}")));
        }
        let answer = match self.answers.recv_timeout(ANSWER_TIMEOUT) {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => return Err(broken(self, format!("wrote no answer: {e}"))),
            Err(RecvTimeoutError::Disconnected) => return Err(broken(self, "exited".into())),
            Err(RecvTimeoutError::Timeout) => {
                let why = format!("did not answer {op} in {} s", ANSWER_TIMEOUT.as_secs());
                return Err(broken(self, why));
            }
        };
        let mut answer: Value = serde_json::from_str(&answer)
            .map_err(|e| broken(self, format!("wrote a line that is not JSON ({e})")))?;
        if let Some(error) = answer.get("error") {
            return Err(Failure {
                case: error["case"].as_str().unwrap_or("runtime").to_owned(),
                message: error["message"].as_str().unwrap_or_default().to_owned(),
            });
        }
        serde_json::from_value(answer["ok"].take())
            .map_err(|e| broken(self, format!("answered {op} with a wrong shape: {e}")))
    }

    /// False once the adapter has exited (then start a new one).
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn unlock(&mut self) {
        if let Some(dir) = self.locked.take() {
            unlock(&dir);
        }
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        self.unlock();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes `dir` unwritable, for a package without a read-only option: its
/// write permission removed, and immutable too, since root writes anyway.
fn lock(dir: &Path) -> Result<(), String> {
    set_mode(dir, 0o500);
    let _ = Command::new("chattr")
        .arg("+i")
        .arg(dir)
        .stderr(Stdio::null())
        .status();
    let probe = dir.join("probe-write");
    if std::fs::write(&probe, "x").is_ok() {
        let _ = std::fs::remove_file(&probe);
        return Err(format!("cannot make {} read-only here", dir.display()));
    }
    Ok(())
}

fn unlock(dir: &Path) {
    let _ = Command::new("chattr")
        .arg("-i")
        .arg(dir)
        .stderr(Stdio::null())
        .status();
    set_mode(dir, 0o700);
}

#[cfg(unix)]
fn set_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_mode(dir: &Path, mode: u32) {
    let mut permissions = std::fs::metadata(dir)
        .expect("the dir exists")
        .permissions();
    permissions.set_readonly(mode & 0o200 == 0);
    let _ = std::fs::set_permissions(dir, permissions);
}

fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("the records serialize")
}

impl Host for Adapter {
    fn open(&mut self, spec: &SessionSpec, dir: &Path) -> Result<(), String> {
        self.close();
        let preopen = spec.preopen.unwrap_or(Preopen::ReadWrite);
        let display_root = convert::display_root(spec)?;
        let granted = (preopen != Preopen::None).then(|| dir.to_owned());
        if preopen == Preopen::ReadOnly {
            self.locked = Some(dir.to_owned());
            lock(dir)?;
        }
        let session = json!({
            "thread_id": spec.thread_id,
            "key_hex": spec.key_hex,
            "read_only": preopen == Preopen::ReadOnly,
            "display_root": display_root,
            "read_tool": spec.read_tool,
            "shell_hints": spec.shell_hints,
            "notable_patterns": spec.notable_patterns,
            "image_tokens": spec.image_tokens,
            "audio_tokens": spec.audio_tokens,
            "token_scale": spec.token_scale,
            "retention_seconds": spec.retention_seconds,
            "redaction": spec.redaction.as_ref().map(|r| json!({"literals": r.literals, "spill": r.spill})),
        });
        self.ask::<()>("open", json!({"session": session, "dir": granted}))
            .map_err(|f| f.to_string())?;
        self.session_open = true;
        self.granted = granted;
        Ok(())
    }

    fn close(&mut self) {
        if std::mem::take(&mut self.session_open) {
            let _ = self.ask::<()>("close", json!({}));
        }
        self.granted = None;
        self.unlock();
    }

    fn spill_dir(&self) -> Option<PathBuf> {
        self.granted.clone()
    }

    fn cap(&mut self, input: &str, budget: &Budget, call: Call) -> Answer<Capped> {
        let args = json!({"input": input, "budget": to_json(budget), "call": to_json(&call)});
        self.ask("cap", args)
    }

    fn cap_parts(
        &mut self,
        parts: &[ContentPart],
        budget: &Budget,
        call: Call,
    ) -> Answer<CappedParts> {
        let args =
            json!({"parts": to_json(&parts), "budget": to_json(budget), "call": to_json(&call)});
        self.ask("cap-parts", args)
    }

    fn cap_mcp(
        &mut self,
        result: &str,
        budget: &Budget,
        call: Call,
        options: &McpOptions,
    ) -> Answer<CappedMcp> {
        let args = json!({
            "result": result, "budget": to_json(budget), "call": to_json(&call),
            "options": to_json(options),
        });
        self.ask("cap-mcp", args)
    }

    fn stream(
        &mut self,
        input: &str,
        chunk_bytes: &[usize],
        exit_code: Option<i32>,
        budget: &Budget,
        call: Call,
    ) -> Answer<(Capped, u64)> {
        #[derive(serde::Deserialize)]
        struct Streamed {
            capped: Capped,
            bytes_written: u64,
        }
        let args = json!({
            "input": input, "chunk_bytes": chunk_bytes, "exit_code_at_end": exit_code,
            "budget": to_json(budget), "call": to_json(&call),
        });
        let s: Streamed = self.ask("stream", args)?;
        Ok((s.capped, s.bytes_written))
    }

    fn find_refs(&mut self, text: &str) -> Answer<Vec<OverflowRef>> {
        self.ask("find-refs", json!({"text": text}))
    }

    fn pruned_placeholder(&mut self, reference: &OverflowRef) -> Answer<String> {
        self.ask(
            "pruned-placeholder",
            json!({"reference": to_json(reference)}),
        )
    }

    fn read(&mut self, path: &str, offset: u64, max_bytes: u32) -> Answer<Page> {
        self.ask(
            "read",
            json!({"path": path, "offset": offset, "max_bytes": max_bytes}),
        )
    }

    fn read_lines(&mut self, path: &str, first: u64, count: u32, max_bytes: u32) -> Answer<Page> {
        let args =
            json!({"path": path, "first_line": first, "count": count, "max_bytes": max_bytes});
        self.ask("read-lines", args)
    }

    fn grep(&mut self, path: &str, pattern: &str, max_matches: u32) -> Answer<GrepResult> {
        let args = json!({"path": path, "pattern": pattern, "max_matches": max_matches});
        self.ask("grep", args)
    }

    fn prune(&mut self, messages: &[String], policy: &PrunePolicy) -> Answer<Pruned> {
        self.ask(
            "prune",
            json!({"messages": messages, "policy": to_json(policy)}),
        )
    }

    fn purge(&mut self) -> Answer<u64> {
        self.ask("purge", json!({}))
    }

    fn host_path(&mut self, path: &str) -> Answer<Option<PathBuf>> {
        self.ask("host-path", json!({"path": path}))
    }

    fn estimate_tokens(&mut self, text: &str) -> Answer<u64> {
        self.ask("estimate-tokens", json!({"text": text}))
    }

    fn calibrate(&mut self, text: &str, actual_tokens: u64) -> Answer<f64> {
        self.ask(
            "calibrate",
            json!({"text": text, "actual_tokens": actual_tokens}),
        )
    }

    fn plan(&mut self, results: &[PendingResult], limits: &RequestLimits) -> Answer<Vec<Budget>> {
        self.ask(
            "plan",
            json!({"results": to_json(&results), "limits": to_json(limits)}),
        )
    }

    fn cap_batch(
        &mut self,
        results: &[(Call, PendingResult)],
        limits: &RequestLimits,
    ) -> Answer<Vec<BatchResult>> {
        self.ask(
            "cap-batch",
            json!({"results": to_json(&results), "limits": to_json(limits)}),
        )
    }

    fn read_tool(&mut self) -> Answer<ReadToolSpec> {
        self.ask("read-tool", json!({}))
    }

    fn run_read_tool(&mut self, arguments: &str) -> Answer<ReadToolOutput> {
        self.ask("run-read-tool", json!({"arguments": arguments}))
    }

    fn list(&mut self) -> Answer<Vec<SpillEntry>> {
        self.ask("list", json!({}))
    }

    fn classify(&mut self, status: u16, body: &str) -> Answer<Option<Overflow>> {
        self.ask("classify", json!({"status": status, "body": body}))
    }

    fn sweep(&mut self, dir: &Path, policy: &RetentionPolicy) -> Answer<SweepReport> {
        self.ask("sweep", json!({"dir": dir, "policy": to_json(policy)}))
    }

    fn stats(&mut self, dir: &Path) -> Answer<StoreStats> {
        self.ask("stats", json!({"dir": dir}))
    }
}
