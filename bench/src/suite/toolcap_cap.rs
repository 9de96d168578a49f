//! How fast does `toolcap cap` filter a huge pipe, and with what memory?
//! The bench writes 1 GiB of server-log lines (one 1 MiB chunk of the ASCII
//! corpus, ending in a line feed, written 1,024 times) into the binary's
//! stdin from one thread and reads its stdout on another, with the default
//! budget and a spill directory and key file in a temporary folder. Baseline:
//! the same pipe into `cat`, which copies every byte back, in the same
//! rounds. Each time runs from the spawn to the exit, so both include a
//! process start, and both run under the report's small `--peak-of` helper,
//! which gives `toolcap cap`'s own peak resident memory (`ru_maxrss` from
//! `wait4`; see `process::own_peak` for why not straight from the report).

use std::io::{self, Read as _, Write as _};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::corpus::{self, Kind, MIB};
use crate::measure::{self, Plan};
use crate::process::{self, StderrLog};
use crate::table::{self, Row};

/// The default budget's bytes (cli-spec: `--max-bytes`, default 24576): the
/// capped text, notice included, is at most this long.
pub const DEFAULT_MAX_BYTES: usize = 24576;

/// The piped output: 1 GiB, or 64 MiB in a quick run.
fn pipe_bytes(plan: Plan) -> usize {
    if plan.max_rounds <= Plan::QUICK.max_rounds {
        64 * MIB
    } else {
        1024 * MIB
    }
}

/// Size of one write into the pipe.
const CHUNK: usize = MIB;

/// What the memory table prints, filled by [`run`].
static PEAK: Mutex<Option<Peak>> = Mutex::new(None);

/// The largest peak resident memory of the timed `toolcap cap` runs.
#[derive(Debug, Clone, Copy)]
pub struct Peak {
    /// Bytes piped in.
    pub piped: usize,
    /// Peak resident memory, bytes.
    pub rss: u64,
}

/// The peak of the last [`run`], if it ran.
pub fn peak() -> Option<Peak> {
    *PEAK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Rows: `toolcap cap` on the pipe, against `cat` on the same pipe.
pub fn run(bin: &Path, plan: Plan, rows: &mut Vec<Row>) {
    let total = pipe_bytes(plan);
    let chunk = log_chunk();
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("spill");
    let key = dir.path().join("key");
    let log = StderrLog::create(dir.path().join("toolcap-cap.stderr")).unwrap();
    let peak_file = dir.path().join("peak");

    let toolcap = || {
        let mut command = Command::new(bin);
        command
            .arg("cap")
            .arg("--spill-dir")
            .arg(&spill)
            .arg("--key-file")
            .arg(&key);
        let mut helped = process::own_peak(&command, &peak_file);
        helped.stderr(log.stdio().unwrap());
        helped
    };
    let mut peaks = Vec::new();
    let mut capped = || {
        let run = pipe_through(toolcap(), &chunk, total);
        check_capped(&run, &spill, total, &log);
        peaks.push(process::read_peak(&peak_file).expect("the helper wrote the peak"));
    };
    let mut copied = || {
        let mut cat = process::own_peak(&Command::new("cat"), &dir.path().join("cat-peak"));
        cat.stderr(Stdio::inherit());
        let run = pipe_through(cat, &chunk, total);
        assert!(run.status.success(), "cat failed: {}", run.status);
        assert_eq!(run.out_bytes, total as u64, "cat lost bytes");
    };
    // Seconds per call: a few rounds, no calibration.
    let rounds = if total < 1024 * MIB { 1 } else { 3 };
    let m = measure::medians_of_rounds(&mut [&mut capped, &mut copied], rounds, &mut || {
        process::remove_files_below(&spill)
    });
    process::remove_files_below(&spill);
    rows.push(Row::alone(
        format!("{} of log lines piped into cat", table::bytes(total)),
        Some(total),
        m[1],
    ));
    rows.push(Row::vs(
        format!(
            "toolcap cap, {} of log lines on stdin, default budget",
            table::bytes(total)
        ),
        Some(total),
        m[0],
        "the same pipe into cat",
        m[1],
    ));
    let rss = peaks.into_iter().max().unwrap_or(0);
    *PEAK.lock().unwrap_or_else(|p| p.into_inner()) = Some(Peak { piped: total, rss });
}

/// 1 MiB of log lines that ends at a line's end, so the chunks repeated are
/// whole lines.
fn log_chunk() -> Vec<u8> {
    let mut chunk = corpus::text(Kind::Ascii, CHUNK).into_bytes();
    if let Some(last) = chunk.last_mut() {
        *last = b'\n';
    }
    chunk
}

/// One run of a filter on the pipe.
struct PipeRun {
    status: ExitStatus,
    out_bytes: u64,
    /// The first [`KEPT`] bytes of its output.
    head: Vec<u8>,
    elapsed: Duration,
    /// The write side's error, if the filter stopped reading.
    write_error: Option<io::Error>,
}

/// Bytes of output kept for the checks (the capped text is far shorter).
const KEPT: usize = 256 * 1024;

/// Spawns `command`, writes `total` bytes (`chunk` repeated) into its stdin
/// and reads its stdout, from two threads; waits for the exit.
fn pipe_through(mut command: Command, chunk: &[u8], total: usize) -> PipeRun {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the filter starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = child.stdout.take().expect("piped");
    let (read, write_error) = thread::scope(|s| {
        let writer = s.spawn(move || -> io::Result<()> {
            for _ in 0..total / chunk.len() {
                stdin.write_all(chunk)?;
            }
            Ok(())
        });
        let mut head = Vec::new();
        let mut out_bytes = 0u64;
        let mut buf = vec![0u8; 64 * 1024];
        let read = loop {
            match stdout.read(&mut buf) {
                Ok(0) => break Ok((out_bytes, head)),
                Ok(n) => {
                    out_bytes += n as u64;
                    let room = KEPT.saturating_sub(head.len()).min(n);
                    head.extend_from_slice(&buf[..room]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let written = writer.join().expect("the writer thread ends");
        (read, written.err())
    });
    let (out_bytes, head) = read.expect("the filter's stdout reads");
    let status = child.wait().expect("the filter is waited for");
    PipeRun {
        status,
        out_bytes,
        head,
        elapsed: start.elapsed(),
        write_error,
    }
}

/// A `toolcap cap` run did its job: exit 0, every byte taken, a capped text
/// within the default budget, and the whole input in one spill file whose
/// name the notice gives.
fn check_capped(run: &PipeRun, spill: &Path, total: usize, log: &StderrLog) {
    let fail = |what: String| -> ! {
        panic!(
            "toolcap cap: {what} (after {:.1?})\n--- its stderr ends:\n{}",
            run.elapsed,
            log.tail()
        )
    };
    if !run.status.success() {
        fail(format!("exited with {}", run.status));
    }
    if let Some(e) = &run.write_error {
        fail(format!("stopped reading its stdin: {e}"));
    }
    if run.out_bytes > DEFAULT_MAX_BYTES as u64 {
        fail(format!(
            "wrote {} bytes, over the default budget of {DEFAULT_MAX_BYTES}",
            run.out_bytes
        ));
    }
    let Ok(text) = std::str::from_utf8(&run.head) else {
        fail("wrote text that is not UTF-8".to_owned())
    };
    let saved = process::file_sizes_below(spill);
    if saved.first() != Some(&(total as u64)) {
        fail(format!(
            "left no spill file of {total} bytes in {} (largest files: {:?})",
            spill.display(),
            &saved[..saved.len().min(3)]
        ));
    }
    let names = process::file_names_below(spill, total as u64);
    if !names.iter().any(|name| text.contains(name.as_str())) {
        fail(format!(
            "wrote a notice that names no spill file of {names:?}:\n{text}"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chunk_is_whole_log_lines() {
        let chunk = log_chunk();
        assert_eq!(chunk.len(), CHUNK);
        assert_eq!(chunk.last(), Some(&b'\n'));
        assert!(chunk.iter().filter(|&&b| b == b'\n').count() > 10_000);
        assert!(std::str::from_utf8(&chunk).is_ok());
    }

    #[test]
    fn a_pipe_through_cat_comes_back_whole() {
        let chunk = log_chunk();
        let run = pipe_through(Command::new("cat"), &chunk, 4 * CHUNK);
        assert!(run.status.success());
        assert!(run.write_error.is_none());
        assert_eq!(run.out_bytes, 4 * CHUNK as u64);
        assert_eq!(&run.head[..], &chunk[..KEPT]);
    }
}
