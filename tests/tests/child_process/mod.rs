//! Re-running this test binary as a child process, for faults a test cannot
//! cause in its own process: a file-size limit, a kill in the middle of a
//! write. The child runs one test, which finds [`CHILD_DIR_ENV`] set and plays
//! the child's part; it reports to the parent with [`report`] lines.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::env;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in a child: the spill directory it works in.
pub const CHILD_DIR_ENV: &str = "TOOLCAP_TEST_CHILD_DIR";

/// Starts every line a child reports; the test harness prints other lines.
const REPORT_PREFIX: &str = "toolcap-child-report ";

/// The spill directory, if this process is a child.
pub fn child_dir() -> Option<PathBuf> {
    env::var_os(CHILD_DIR_ENV).map(PathBuf::from)
}

/// Arguments that make the test binary run only `test_name`, printing as it goes.
fn harness_args(test_name: &str) -> [&str; 5] {
    [
        "--exact",
        test_name,
        "--nocapture",
        "--test-threads=1",
        "--quiet",
    ]
}

fn current_exe() -> PathBuf {
    env::current_exe().expect("the test binary's path")
}

/// This binary, running only `test_name` as a child working in `dir`.
pub fn child(test_name: &str, dir: &Path) -> Command {
    let mut command = Command::new(current_exe());
    command
        .args(harness_args(test_name))
        .env(CHILD_DIR_ENV, dir);
    command
}

/// [`child`] under a file-size limit of `blocks` (512-byte blocks in dash,
/// 1024-byte ones in bash). `SIGXFSZ` is ignored, so a write beyond the limit
/// fails with `EFBIG` instead of killing the process.
pub fn child_with_file_size_limit(test_name: &str, dir: &Path, blocks: u32) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$@\""))
        .arg("sh")
        .arg(current_exe())
        .args(harness_args(test_name))
        .env(CHILD_DIR_ENV, dir);
    command
}

/// Reports `value` to the parent, at once (a killed child reports nothing more).
pub fn report(value: &serde_json::Value) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{REPORT_PREFIX}{value}").expect("stdout");
    out.flush().expect("stdout");
}

/// The report in one line of a child's stdout, if it is one.
pub fn parse_report(line: &str) -> Option<serde_json::Value> {
    let json = line.strip_prefix(REPORT_PREFIX)?;
    Some(serde_json::from_str(json).expect("a report is JSON"))
}

/// Every report in a child's whole stdout.
pub fn reports(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(parse_report)
        .collect()
}

/// The reports of `test_name`, run as a [`child_with_file_size_limit`] of
/// `blocks` in `dir`, once it has passed.
pub fn reports_under_file_size_limit(
    test_name: &str,
    dir: &Path,
    blocks: u32,
) -> Vec<serde_json::Value> {
    let out = child_with_file_size_limit(test_name, dir, blocks)
        .output()
        .expect("runs the child");
    assert!(
        out.status.success(),
        "the child failed: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    reports(&out.stdout)
}
