//! Child processes of the `toolcap` suite: where the `toolcap` binary is,
//! their peak resident memory, their stderr for error messages, and a
//! watchdog so a child that stops answering fails the run instead of
//! hanging it.

use std::fs::{self, File};
use std::io;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The `toolcap` binary measured: `TOOLCAP_BIN`, else `toolcap` next to the
/// running executable (`target/release/toolcap` after
/// `cargo build --release -p toolcap`). An error says where it looked.
pub fn toolcap_bin() -> Result<PathBuf, String> {
    if let Some(bin) = std::env::var_os("TOOLCAP_BIN") {
        let bin = PathBuf::from(bin);
        return if bin.is_file() {
            Ok(bin)
        } else {
            Err(format!("TOOLCAP_BIN names no file: {}", bin.display()))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("no path of this binary: {e}"))?;
    let bin = exe.with_file_name("toolcap");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "no toolcap binary at {} (run `cargo build --release -p toolcap` \
             with the same target dir, or set TOOLCAP_BIN)",
            bin.display()
        ))
    }
}

/// This very executable, to re-run in another mode (the fixture server):
/// `/proc/self/exe` stays valid even if a build replaces the file.
pub fn this_exe() -> PathBuf {
    let proc_exe = Path::new("/proc/self/exe");
    if proc_exe.exists() {
        proc_exe.to_owned()
    } else {
        std::env::current_exe().expect("the report binary's path")
    }
}

/// The peak resident memory so far of a live process (`VmHWM` in
/// `/proc/PID/status`), in bytes.
pub fn peak_rss_live(pid: u32) -> io::Result<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| io::Error::other(format!("no VmHWM line in /proc/{pid}/status")))
}

/// The children of a live process, from `/proc/PID/task/PID/children`.
pub fn children_of(pid: u32) -> Vec<u32> {
    fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The argument that runs the report binary as [`measure_peak`]:
/// `report --peak-of FILE PROGRAM [ARG...]`.
pub const PEAK_ARG: &str = "--peak-of";

/// `command` run through this executable as [`PEAK_ARG`], which writes the
/// command's peak resident memory to `peak_file` ([`read_peak`]). Its
/// program, arguments, folder and environment are taken; set stdio on the
/// returned command (the command inherits the helper's).
///
/// Why a process in between: Linux gives a child the peak of the process
/// it was spawned from, when it executes its program (`ru_maxrss` keeps the
/// old address space's high-water mark). Spawned from the report after the
/// other suites (hundreds of MiB), `toolcap cap` read 136.8-355.2 MiB
/// instead of its own 23.6. The helper is small, so its children's peaks
/// are their own (plus its few MiB at most).
pub fn own_peak(command: &std::process::Command, peak_file: &Path) -> std::process::Command {
    own_peak_with(&this_exe(), command, peak_file)
}

/// [`own_peak`] with `helper` as the report binary (a test's own executable
/// is not one).
pub fn own_peak_with(
    helper: &Path,
    command: &std::process::Command,
    peak_file: &Path,
) -> std::process::Command {
    let mut helper = std::process::Command::new(helper);
    helper
        .arg(PEAK_ARG)
        .arg(peak_file)
        .arg(command.get_program())
        .args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        helper.current_dir(dir);
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => helper.env(key, value),
            None => helper.env_remove(key),
        };
    }
    helper
}

/// The peak that a [`PEAK_ARG`] helper wrote to `peak_file`, in bytes.
pub fn read_peak(peak_file: &Path) -> io::Result<u64> {
    let text = fs::read_to_string(peak_file)?;
    text.trim()
        .parse()
        .map_err(|e| io::Error::other(format!("{}: {e}: {text:?}", peak_file.display())))
}

/// The [`PEAK_ARG`] mode: runs `PROGRAM [ARG...]` (from `args`, after
/// `FILE`) with this process's stdin, stdout and stderr, writes its peak
/// resident memory in bytes to `FILE`, and exits as it did (128 + the
/// signal if one ended it).
pub fn measure_peak(args: &[String]) -> ! {
    let [file, program, rest @ ..] = args else {
        eprintln!("{PEAK_ARG}: usage: {PEAK_ARG} FILE PROGRAM [ARG...]");
        std::process::exit(2);
    };
    let child = match std::process::Command::new(program).args(rest).spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("{PEAK_ARG}: cannot start {program}: {e}");
            std::process::exit(127);
        }
    };
    let (status, peak) = match wait_with_peak(child) {
        Ok(done) => done,
        Err(e) => {
            eprintln!("{PEAK_ARG}: cannot wait for {program}: {e}");
            std::process::exit(125);
        }
    };
    if let Err(e) = fs::write(file, peak.to_string()) {
        eprintln!("{PEAK_ARG}: cannot write {file}: {e}");
        std::process::exit(125);
    }
    std::process::exit(
        status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
    );
}

/// Waits for `child` to exit and returns its status and its peak resident
/// memory in bytes (`ru_maxrss` of `wait4`, taken by the kernel when the
/// process ends). That peak is at least the spawning process's peak when
/// the child started ([`own_peak`] says why): spawn from a small process.
#[allow(unsafe_code)]
pub fn wait_with_peak(child: Child) -> io::Result<(ExitStatus, u64)> {
    let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: plain FFI with pointers to two locals that outlive the
        // call; an all-zero `rusage` is a valid value of that C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let done = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if done == pid {
            // Linux gives ru_maxrss in KiB.
            let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
            return Ok((ExitStatus::from_raw(status), peak));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Where a child's stderr goes: a file, so an error message can quote its
/// end without the child's logs filling the report.
#[derive(Debug)]
pub struct StderrLog {
    path: PathBuf,
}

impl StderrLog {
    /// A fresh log file at `path`.
    pub fn create(path: PathBuf) -> io::Result<StderrLog> {
        File::create(&path)?;
        Ok(StderrLog { path })
    }

    /// A `Stdio` that appends to the log.
    pub fn stdio(&self) -> io::Result<Stdio> {
        let file = fs::OpenOptions::new().append(true).open(&self.path)?;
        Ok(Stdio::from(file))
    }

    /// The last few lines the child wrote, for an error message.
    pub fn tail(&self) -> String {
        let text = fs::read(&self.path).unwrap_or_default();
        let start = text.len().saturating_sub(2000);
        let tail = String::from_utf8_lossy(&text[start..]);
        if tail.trim().is_empty() {
            "(nothing on stderr)".to_owned()
        } else {
            tail.trim_end().to_owned()
        }
    }
}

/// Kills a child whose current step has run past its deadline. The timed
/// side costs one clock read and one atomic store per step
/// ([`Watchdog::expect_within`]); a thread checks ten times a second.
#[derive(Debug)]
pub struct Watchdog {
    deadline_ms: Arc<AtomicU64>,
    fired: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    epoch: Instant,
}

/// No deadline set.
const NONE: u64 = u64::MAX;

impl Watchdog {
    /// Watches `child` (shared so the watchdog can kill it).
    pub fn watch(child: Arc<Mutex<Child>>) -> Watchdog {
        let deadline_ms = Arc::new(AtomicU64::new(NONE));
        let fired = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        let (deadline, fire, halt) = (deadline_ms.clone(), fired.clone(), stop.clone());
        thread::spawn(move || {
            while !halt.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(100));
                let due = deadline.load(Ordering::Relaxed);
                if due != NONE && epoch.elapsed().as_millis() > u128::from(due) {
                    fire.store(true, Ordering::Relaxed);
                    let _ = child.lock().unwrap_or_else(|p| p.into_inner()).kill();
                    return;
                }
            }
        });
        Watchdog {
            deadline_ms,
            fired,
            stop,
            epoch,
        }
    }

    /// The step starting now must end within `limit`.
    pub fn expect_within(&self, limit: Duration) {
        let due = (self.epoch.elapsed() + limit).as_millis();
        self.deadline_ms
            .store(u64::try_from(due).unwrap_or(NONE - 1), Ordering::Relaxed);
    }

    /// No step is running.
    pub fn idle(&self) {
        self.deadline_ms.store(NONE, Ordering::Relaxed);
    }

    /// Whether the watchdog killed the child.
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::Relaxed)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Removes every file below `dir` (folders stay): the spills of a run, so
/// each sample starts from the same state and disk use stays bounded.
pub fn remove_files_below(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => remove_files_below(&path),
            Ok(_) => {
                let _ = fs::remove_file(&path);
            }
            Err(_) => {}
        }
    }
}

/// Names of the files below `dir` of at least `min_size` bytes.
pub fn file_names_below(dir: &Path, min_size: u64) -> Vec<String> {
    let mut names = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => pending.push(entry.path()),
                Ok(m) if m.len() >= min_size => {
                    names.push(entry.file_name().to_string_lossy().into_owned());
                }
                _ => {}
            }
        }
    }
    names
}

/// Sizes of the files below `dir`, largest first.
pub fn file_sizes_below(dir: &Path) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => pending.push(entry.path()),
                Ok(m) => sizes.push(m.len()),
                Err(_) => {}
            }
        }
    }
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn peak_of_a_finished_child_is_its_own() {
        // `head -c` of 64 MiB into a pipe needs little memory; a shell that
        // holds 64 MiB in a variable needs at least that. Only the second
        // must exceed 32 MiB.
        let small = Command::new("true").spawn().unwrap();
        let (status, peak) = wait_with_peak(small).unwrap();
        assert!(status.success());
        assert!(peak > 0 && peak < 32 << 20, "{peak}");
        let big = Command::new("sh")
            .args([
                "-c",
                "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}",
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let (status, peak) = wait_with_peak(big).unwrap();
        assert!(status.success());
        assert!(peak > 32 << 20, "{peak}");
    }

    #[test]
    fn live_peak_is_read_from_proc() {
        let peak = peak_rss_live(std::process::id()).unwrap();
        assert!(peak > 0);
        assert!(peak_rss_live(u32::MAX).is_err());
    }

    #[test]
    fn watchdog_kills_a_child_past_its_deadline() {
        let child = Command::new("sleep").arg("30").spawn().unwrap();
        let shared = Arc::new(Mutex::new(child));
        let dog = Watchdog::watch(shared.clone());
        dog.expect_within(Duration::from_millis(50));
        let start = Instant::now();
        let status = loop {
            if let Some(s) = shared.lock().unwrap().try_wait().unwrap() {
                break s;
            }
            assert!(start.elapsed() < Duration::from_secs(5), "not killed");
            thread::sleep(Duration::from_millis(20));
        };
        assert!(dog.fired());
        assert!(!status.success());
    }
}
