//! The report's `--peak-of` helper gives a child's own peak resident memory,
//! where `wait4` in a large process gives that process's peak instead.

use std::process::Command;

use toolcap_bench::process;

const REPORT: &str = env!("CARGO_BIN_EXE_report");
const MIB: u64 = 1 << 20;

/// `command` through the helper: its exit status and the peak it wrote.
fn helped(command: &Command) -> (std::process::ExitStatus, u64) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("peak");
    let status = process::own_peak_with(REPORT.as_ref(), command, &file)
        .status()
        .expect("the helper starts");
    (
        status,
        process::read_peak(&file).expect("the helper wrote the peak"),
    )
}

#[test]
fn a_child_of_a_large_process_gets_its_own_peak_through_the_helper() {
    // 256 MiB written, so resident.
    let ballast = std::hint::black_box(vec![1u8; 256 << 20]);
    let direct = Command::new("true").spawn().unwrap();
    let (status, inherited) = process::wait_with_peak(direct).unwrap();
    assert!(status.success());
    // What the helper is for: Linux hands the spawner's peak on.
    assert!(inherited >= 256 * MIB, "{inherited}");
    let (status, own) = helped(&Command::new("true"));
    assert!(status.success());
    assert!(own > 0 && own < 64 * MIB, "{own}");
    // A child that needs 64 MiB has that peak through the helper too.
    let mut big = Command::new("sh");
    big.args([
        "-c",
        "x=$(head -c 67108864 /dev/zero | tr '\\0' a); test ${#x} = 67108864",
    ]);
    let (status, own) = helped(&big);
    assert!(status.success());
    assert!((64 * MIB..256 * MIB).contains(&own), "{own}");
    drop(ballast);
}

#[test]
fn the_helper_exits_as_its_child_did() {
    let (status, _) = helped(Command::new("sh").args(["-c", "exit 3"]));
    assert_eq!(status.code(), Some(3));
    let (status, _) = helped(Command::new("sh").args(["-c", "kill -TERM $$"]));
    assert_eq!(status.code(), Some(128 + 15));
}
