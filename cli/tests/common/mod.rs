//! Shared by the integration tests: the built `toolcap` binary, run with
//! its own spill directory and key file, and a compiled-code cache shared
//! by all tests (compiling the component once, not per test).

#![allow(dead_code)] // each test crate uses its own part

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn spill_dir(&self) -> PathBuf {
        self.dir.path().join("spill")
    }

    pub fn key_file(&self) -> PathBuf {
        self.dir.path().join("keys").join("key")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `toolcap <subcommand>` with this sandbox's spill directory and key
    /// file, and no setting taken from the environment.
    pub fn toolcap(&self, subcommand: &str) -> Command {
        self.toolcap_with_key(subcommand, &self.key_file())
    }

    /// [`toolcap`](Self::toolcap) with another key file.
    pub fn toolcap_with_key(&self, subcommand: &str, key_file: &Path) -> Command {
        let mut command = toolcap_bare();
        command
            .arg(subcommand)
            .arg("--spill-dir")
            .arg(self.spill_dir())
            .arg("--key-file")
            .arg(key_file);
        command
    }
}

/// `toolcap` with a clean environment of its own variables.
pub fn toolcap_bare() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolcap"));
    command
        .env("XDG_CACHE_HOME", shared_cache())
        // No config file of the machine's user is found.
        .env("XDG_CONFIG_HOME", shared_cache().join("no-config"))
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_SPILL_DIR")
        .env_remove("TOOLCAP_KEY_FILE")
        .env_remove("TOOLCAP_THREAD");
    command
}

fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("toolcap-test-cache")
}

/// The path a notice names after `full content at `.
pub fn spill_path(notice: &str) -> Option<PathBuf> {
    let start = notice.find("full content at ")? + "full content at ".len();
    let end = start + notice[start..].find(']')?;
    Some(PathBuf::from(&notice[start..end]))
}

/// `count` numbered lines (about 30 bytes each).
pub fn numbered_lines(count: usize) -> String {
    (0..count)
        .map(|i| format!("line {i} of a long tool output\n"))
        .collect()
}

/// `count` lines that differ in letters, not only numbers, so previews
/// cannot fold them: a cut result then uses most of its budget.
pub fn varied_lines(count: usize) -> String {
    (0..count)
        .map(|i| format!("entry {} holds {}\n", letters(i), letters(i * 7 + 3)))
        .collect()
}

fn letters(mut n: usize) -> String {
    let mut word = String::new();
    loop {
        word.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            return word;
        }
    }
}

/// Runs `command` with `input` on stdin, and its whole output.
pub fn run(mut command: Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolcap starts");
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The command may exit without reading everything (a bad budget).
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("toolcap ends");
    writer.join().expect("writer");
    output
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Whether process `pid` still runs (a zombie does not).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit(')')
                .next()
                .map(|rest| rest.trim_start().to_owned())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// Waits until process `pid` has ended (at most 30 s, then fails).
pub fn wait_gone(pid: u32) {
    let start = std::time::Instant::now();
    while alive(pid) {
        assert!(start.elapsed().as_secs() < 30, "process {pid} still runs");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
