//! `toolcap cap` through the built binary and the real component.
//! `cargo test --release -p toolcap --test cap`

mod common;

use std::process::{Output, Stdio};

use common::{Sandbox, numbered_lines, run, spill_path, stderr, stdout, varied_lines, wait_gone};
use toolcap_core::notice::NOT_SAVED;

#[test]
fn input_that_fits_comes_back_byte_for_byte() {
    let sandbox = Sandbox::new();
    // Not valid UTF-8 on purpose: what fits is passed on as it came.
    let input = b"hello\ncaf\xe9 \xff\r\nlast line without newline";
    let output = run(sandbox.toolcap("cap"), input);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, input);
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
    assert!(
        !sandbox.spill_dir().join("shell").exists()
            || std::fs::read_dir(sandbox.spill_dir().join("shell"))
                .unwrap()
                .next()
                .is_none()
    );
}

#[test]
fn a_big_input_is_capped_and_saved_exactly() {
    let sandbox = Sandbox::new();
    let input = numbered_lines(20_000);
    let output = run(sandbox.toolcap("cap"), input.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() <= 24_576, "default budget: {} bytes", text.len());
    assert!(text.starts_with("line 0 of a long tool output\n"));
    let path = spill_path(&text).expect("the notice names the saved file");
    assert!(path.starts_with(sandbox.spill_dir().canonicalize().unwrap()));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), input);
    assert!(
        path.to_string_lossy().contains("/shell/"),
        "default thread `shell`: {}",
        path.display()
    );
}

#[test]
fn a_failed_command_over_4_mib_is_streamed_says_it_failed_and_is_saved_exactly() {
    let sandbox = Sandbox::new();
    // About 6 MiB: past the component's one-pass threshold, so the output
    // goes to the file as it comes, before the exit code is known.
    let input = numbered_lines(200_000);
    assert!(input.len() > 4 << 20);
    let mut command = sandbox.toolcap("cap");
    command.args(["--max-bytes", "4000", "--", "sh", "-c", "cat; exit 3"]);
    let output = run(command, input.as_bytes());
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() <= 4000, "{} bytes", text.len());
    let notice = &text[text.rfind("[toolcap] ").expect("a notice")..];
    assert!(
        notice.starts_with("[toolcap] The tool `sh` failed (exit code 3)."),
        "{notice}"
    );
    assert!(
        text.contains("line 199999 of a long tool output\n"),
        "the tail holds the last line: {text}"
    );
    let path = spill_path(&text).expect("the notice names the saved file");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), input);
}

#[test]
fn a_command_over_4_mib_that_succeeds_is_not_called_failed() {
    let sandbox = Sandbox::new();
    let input = numbered_lines(200_000);
    let mut command = sandbox.toolcap("cap");
    command.args(["--max-bytes", "4000", "--", "sh", "-c", "cat"]);
    let output = run(command, input.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() <= 4000, "{} bytes", text.len());
    assert!(!text.contains("failed"), "{text}");
    let path = spill_path(&text).expect("the notice names the saved file");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), input);
}

#[test]
fn a_failed_command_exits_as_it_did_and_the_notice_says_so() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.toolcap("cap");
    command.args([
        "--max-bytes",
        "2000",
        "--",
        "sh",
        "-c",
        "seq 1 20000; echo 'error: the thing broke' >&2; exit 3",
    ]);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() <= 2000);
    assert!(
        text.contains("The tool `sh` failed (exit code 3)"),
        "{text}"
    );
    assert!(
        text.contains("error: the thing broke"),
        "the tail holds the error: {text}"
    );

    // Output that fits is unchanged, and the exit code still comes through.
    let mut command = sandbox.toolcap("cap");
    command.args(["--", "sh", "-c", "echo small; exit 7"]);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(7));
    assert_eq!(stdout(&output), "small\n");
}

#[test]
fn a_command_killed_by_a_signal_exits_128_plus_the_signal() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.toolcap("cap");
    command.args(["--", "sh", "-c", "echo before; kill -9 $$"]);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(128 + 9));
    assert_eq!(stdout(&output), "before\n");
}

#[test]
fn stdout_and_stderr_of_the_command_are_joined_in_order() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.toolcap("cap");
    command.args([
        "--",
        "sh",
        "-c",
        "echo one; echo two >&2; echo three; echo four >&2",
    ]);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "one\ntwo\nthree\nfour\n");
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn a_command_that_does_not_exist_exits_127_with_a_clear_message() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.toolcap("cap");
    command.args(["--", "toolcap-test-no-such-command"]);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(127));
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(
        message.contains("cannot run `toolcap-test-no-such-command`"),
        "{message}"
    );
}

#[test]
fn settings_the_component_refuses_are_a_usage_error_before_anything_runs() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let mut command = sandbox.toolcap("cap");
    command
        .args(["--thread", "", "--", "sh", "-c"])
        .arg(format!("touch '{}'", marker.display()));
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "toolcap: the settings cannot be used: thread-id must not be empty\n"
    );
    assert!(!marker.exists(), "the command must not run");
}

#[test]
fn a_budget_too_small_is_refused_before_anything_runs() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let mut command = sandbox.toolcap("cap");
    command
        .args(["--max-bytes", "3", "--", "sh", "-c"])
        .arg(format!("touch '{}'", marker.display()));
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(
        message.contains("budget") && message.contains("max-bytes 3"),
        "{message}"
    );
    assert!(!marker.exists(), "the command must not run");
}

#[test]
fn a_budget_of_zero_passes_everything_through() {
    let sandbox = Sandbox::new();
    let input = numbered_lines(5_000);
    let mut command = sandbox.toolcap("cap");
    command.args(["--max-bytes", "0"]);
    let output = run(command, input.as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), input);
}

#[test]
fn a_spill_dir_that_cannot_be_made_still_caps_and_says_not_saved() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("file"), "a file, not a folder").unwrap();
    let mut command = common::toolcap_bare();
    command
        .args(["cap", "--spill-dir"])
        .arg(sandbox.path("file").join("spill"))
        .arg("--key-file")
        .arg(sandbox.key_file())
        .args([
            "--max-bytes",
            "2000",
            "--",
            "sh",
            "-c",
            "seq 1 20000; exit 6",
        ]);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(6), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() <= 2000);
    assert!(text.contains(NOT_SAVED), "{text}");
    assert!(spill_path(&text).is_none());
    // The user is told once why, not that a sweep failed.
    let said = stderr(&output);
    assert!(
        said.starts_with("toolcap: cannot use the spill directory ")
            && said.contains("/file/spill: it cannot be created: ")
            && said.ends_with("the full output of a cut result will not be saved\n"),
        "{said}"
    );
    assert_eq!(said.lines().count(), 1, "{said}");
}

#[test]
fn a_file_at_the_spill_dirs_path_is_named_as_the_reason() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("file"), "a file, not a folder").unwrap();
    let mut command = common::toolcap_bare();
    command
        .args(["cap", "--spill-dir"])
        .arg(sandbox.path("file"))
        .arg("--key-file")
        .arg(sandbox.key_file())
        .args(["--max-bytes", "2000"]);
    let output = run(command, numbered_lines(5_000).as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains(NOT_SAVED));
    let said = stderr(&output);
    assert_eq!(
        said,
        format!(
            "toolcap: cannot use the spill directory {}: it is not a directory; the full output \
             of a cut result will not be saved\n",
            sandbox.path("file").display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.path("file")).unwrap(),
        "a file, not a folder"
    );
}

#[test]
fn the_key_file_is_made_private_once_and_reused() {
    let sandbox = Sandbox::new();
    let input = numbered_lines(20_000);
    let first = stdout(&run(sandbox.toolcap("cap"), input.as_bytes()));
    let key = std::fs::read(sandbox.key_file()).expect("key file made");
    assert_eq!(key.len(), 32);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(sandbox.key_file())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let spill_mode = std::fs::metadata(sandbox.spill_dir())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(spill_mode & 0o777, 0o700);
    }
    let second = stdout(&run(sandbox.toolcap("cap"), input.as_bytes()));
    assert_eq!(std::fs::read(sandbox.key_file()).unwrap(), key, "kept");
    let tag = |text: &str| text[text.find("tag=").expect("a tag")..].to_owned();
    assert_eq!(tag(&first), tag(&second), "same key, same tag");

    // Another key signs the same output differently.
    let other = Sandbox::new();
    let command = sandbox.toolcap_with_key("cap", &other.key_file());
    let third = stdout(&run(command, input.as_bytes()));
    assert_ne!(tag(&first), tag(&third));
}

#[test]
fn a_key_file_too_short_is_a_clear_error() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.key_file().parent().unwrap()).unwrap();
    std::fs::write(sandbox.key_file(), b"short").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let private = std::fs::Permissions::from_mode(0o600);
        std::fs::set_permissions(sandbox.key_file(), private).unwrap();
    }
    let output = run(sandbox.toolcap("cap"), b"hello\n");
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("holds 5 bytes") && message.contains("at least 16"),
        "{message}"
    );
}

#[test]
fn options_win_over_the_config_file_and_unknown_keys_are_errors() {
    let sandbox = Sandbox::new();
    let config = sandbox.path("toolcap.toml");
    std::fs::write(
        &config,
        "thread = \"from-file\"\n[budget]\nmax_bytes = 3000\n",
    )
    .unwrap();
    let input = varied_lines(20_000);
    let mut command = sandbox.toolcap("cap");
    command.arg("--config").arg(&config);
    let text = stdout(&run(command, input.as_bytes()));
    assert!(
        text.len() <= 3000 && text.len() > 2000,
        "{} bytes",
        text.len()
    );
    assert!(
        spill_path(&text)
            .unwrap()
            .to_string_lossy()
            .contains("/from-file/")
    );

    let mut command = sandbox.toolcap("cap");
    command
        .arg("--config")
        .arg(&config)
        .args(["--max-bytes", "1500", "--thread", "opt"]);
    let text = stdout(&run(command, input.as_bytes()));
    assert!(
        text.len() <= 1500 && text.len() > 1000,
        "{} bytes",
        text.len()
    );
    assert!(
        spill_path(&text)
            .unwrap()
            .to_string_lossy()
            .contains("/opt/")
    );

    std::fs::write(&config, "[budget]\nmax_bytes = 3000\nmax_byte = 5\n").unwrap();
    let mut command = sandbox.toolcap("cap");
    command.arg("--config").arg(&config);
    let output = run(command, b"x\n");
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("max_byte") && message.contains("toolcap.toml"),
        "{message}"
    );
    assert!(message.contains("line 3"), "{message}");
}

#[test]
fn id_tool_and_thread_name_the_saved_file() {
    let sandbox = Sandbox::new();
    let input = numbered_lines(20_000);
    let mut command = sandbox.toolcap("cap");
    command
        .env("TOOLCAP_THREAD", "from-env")
        .args(["--id", "call-42", "--tool", "grep"]);
    let text = stdout(&run(command, input.as_bytes()));
    let path = spill_path(&text).unwrap();
    let path = path.to_string_lossy();
    assert!(path.contains("/from-env/call-42-"), "{path}");
}

/// Starts `toolcap cap` with `script` run by `sh`; waits until the script
/// has written its pid into the file `ready` (after its first output),
/// then sends `signal` to toolcap. The output, and the script's pid.
fn interrupt(sandbox: &Sandbox, args: &[&str], script: &str, signal: &str) -> (Output, u32) {
    let ready = sandbox.path("ready");
    let mut command = sandbox.toolcap("cap");
    command
        .args(args)
        .args(["--", "sh", "-c", script, "sh"])
        .arg(&ready)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().expect("toolcap starts");
    let start = std::time::Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&ready)
            && let Ok(pid) = text.trim().parse::<u32>()
        {
            break pid;
        }
        assert!(start.elapsed().as_secs() < 30, "the script never got ready");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    (child.wait_with_output().expect("toolcap ends"), pid)
}

/// Files in the spill directory whose names say they are temporary.
fn temporary_files(sandbox: &Sandbox) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![sandbox.spill_dir()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if entry.file_name().to_string_lossy().contains(".tmp") {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[test]
fn ctrl_c_prints_what_arrived_with_the_commands_own_summary() {
    let sandbox = Sandbox::new();
    // Over 4 MiB, so the output is streamed to a file as it comes.
    let script = r#"trap 'echo "cmd: interrupted"; exit 130' INT
seq 1 700000
echo $$ > "$1"
sleep 1000 &
wait"#;
    let (output, pid) = interrupt(&sandbox, &["--max-bytes", "4000"], script, "INT");
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("cmd: interrupted"), "{text}");
    assert!(text.contains("[toolcap] Interrupted (SIGINT)"), "{text}");
    assert!(text.contains("700000"), "the tail is kept: {text}");
    let saved = spill_path(&text).expect("saved");
    let full = std::fs::read_to_string(saved).unwrap();
    assert!(full.starts_with("1\n2\n") && full.contains("\n700000\ncmd: interrupted\n"));
    assert_eq!(temporary_files(&sandbox), Vec::<String>::new());
    wait_gone(pid);
}

#[test]
fn sigterm_stops_a_command_that_ignores_it_and_its_group() {
    let sandbox = Sandbox::new();
    let script = r#"trap '' TERM
echo started
echo $$ > "$1"
sleep 1000"#;
    let (output, pid) = interrupt(&sandbox, &["--max-bytes", "4000"], script, "TERM");
    assert_eq!(output.status.code(), Some(143), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("started\n"), "{text}");
    assert!(text.contains("[toolcap] Interrupted (SIGTERM)"), "{text}");
    wait_gone(pid);
}

#[test]
fn a_signal_with_a_budget_of_zero_still_stops_the_command() {
    let sandbox = Sandbox::new();
    let script = r#"echo started
echo $$ > "$1"
sleep 1000"#;
    let (output, pid) = interrupt(&sandbox, &["--max-bytes", "0"], script, "TERM");
    assert_eq!(output.status.code(), Some(143), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("started\n"));
    wait_gone(pid);
}

const TOKEN: &str = "ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f";

#[test]
fn redact_replaces_secrets_in_what_fits_in_a_preview_and_with_no_budget() {
    let sandbox = Sandbox::new();
    let small = format!("deploying\nGITHUB_TOKEN={TOKEN}\ndone\n");
    let mut command = sandbox.toolcap("cap");
    command.arg("--redact");
    let output = run(command, small.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "deploying\nGITHUB_TOKEN=[redacted: github-token]\ndone\n"
    );
    // A budget of 0 cuts nothing, but still redacts.
    let mut command = sandbox.toolcap("cap");
    command.args(["--redact", "--max-bytes", "0"]);
    let text = stdout(&run(command, small.as_bytes()));
    assert_eq!(
        text,
        "deploying\nGITHUB_TOKEN=[redacted: github-token]\ndone\n"
    );
    // A cut output: the preview is redacted, the saved file is as it was.
    let big = format!("GITHUB_TOKEN={TOKEN}\n{}", numbered_lines(20_000));
    let mut command = sandbox.toolcap("cap");
    command.arg("--redact");
    let text = stdout(&run(command, big.as_bytes()));
    assert!(
        text.starts_with("GITHUB_TOKEN=[redacted: github-token]\n"),
        "{}",
        &text[..200]
    );
    assert!(!text.contains(TOKEN));
    assert_eq!(
        std::fs::read_to_string(spill_path(&text).unwrap()).unwrap(),
        big
    );
    // Without the option, nothing is redacted.
    let text = stdout(&run(sandbox.toolcap("cap"), small.as_bytes()));
    assert_eq!(text, small);
}

#[test]
fn redact_keys_of_the_config_file_redact_spills_and_literals() {
    let sandbox = Sandbox::new();
    let config = sandbox.path("toolcap.toml");
    std::fs::write(
        &config,
        "redact_spill = true\nredact_literals = [\"corp-vault-FAKE-9f8e7d\"]\n",
    )
    .unwrap();
    let big = format!(
        "GITHUB_TOKEN={TOKEN}\nvault key corp-vault-FAKE-9f8e7d\n{}",
        numbered_lines(20_000)
    );
    let mut command = sandbox.toolcap("cap");
    command.arg("--config").arg(&config);
    let text = stdout(&run(command, big.as_bytes()));
    assert!(
        text.contains("vault key [redacted: literal]"),
        "{}",
        &text[..300]
    );
    let saved = std::fs::read_to_string(spill_path(&text).unwrap()).unwrap();
    assert!(
        saved.starts_with("GITHUB_TOKEN=[redacted: github-token]\nvault key [redacted: literal]\n")
    );
    assert!(!saved.contains(TOKEN) && !saved.contains("corp-vault"));
}

/// A huge output is redacted in pieces, unit by unit as `redact` cuts a
/// long line; a unit that follows one moved back to a character's start is
/// longer than a unit, and was cut again: the token at its end lost its
/// last character to the next unit and showed it (`[redacted: secret]f`).
#[test]
fn redaction_of_a_huge_output_cuts_long_lines_as_the_whole_does() {
    let sandbox = Sandbox::new();
    let long_line = format!("={}GITHUB_TOKEN={TOKEN}\n", "\u{e9}".repeat(65_509));
    let big = format!("{}{long_line}", numbered_lines(400_000));
    assert!(big.len() > 5 << 20, "past the one-pass preview's threshold");
    let mut command = sandbox.toolcap("cap");
    command.arg("--redact-spill");
    let text = stdout(&run(command, big.as_bytes()));
    assert!(
        text.contains("GITHUB_TOKEN=[redacted: github-token]\n"),
        "{}",
        &text[text.len().saturating_sub(600)..]
    );
    assert!(!text.contains("]f\n") && !text.contains("FAKE0"));
    let saved = std::fs::read_to_string(spill_path(&text).unwrap()).unwrap();
    assert!(saved.ends_with("GITHUB_TOKEN=[redacted: github-token]\n"));
    assert!(!saved.contains("FAKE0"));
}

/// `bytes=` and `blake3=` of the reference in `notice`.
fn reference_fields(notice: &str) -> (u64, String) {
    let field = |name: &str| {
        let start = notice.rfind(name).expect("a reference") + name.len();
        let end = start + notice[start..].find([' ', ')']).unwrap();
        notice[start..end].to_owned()
    };
    (field("bytes=").parse().unwrap(), field("blake3="))
}

/// Random bytes (not valid UTF-8), from a fixed seed.
fn random_bytes(len: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// An output that is not valid UTF-8 is saved as the bytes that arrived:
/// the file, the reference's size and its digest are those bytes, below
/// and above the one-pass threshold (4 MiB), from stdin or a command. The
/// preview is lossy and its notice says so.
#[test]
fn output_that_is_not_utf8_is_saved_byte_for_byte() {
    let latin1: Vec<u8> = (0..80_000u32)
        .map(|i| {
            if i % 50 == 49 {
                b'\n'
            } else {
                0xC0 + (i % 40) as u8
            }
        })
        .collect();
    let mut big = random_bytes(5 << 20);
    for (i, b) in big.iter_mut().enumerate() {
        if i % 120 == 0 {
            *b = b'\n';
        }
    }
    for (label, input, through_command) in [
        ("300,000 random bytes", random_bytes(300_000), false),
        ("80,000 bytes of Latin-1", latin1, true),
        ("5 MiB of random lines", big, false),
    ] {
        let sandbox = Sandbox::new();
        std::fs::write(sandbox.path("input"), &input).unwrap();
        let mut command = sandbox.toolcap("cap");
        command.args(["--max-bytes", "8000"]);
        if through_command {
            command.arg("--").arg("cat").arg(sandbox.path("input"));
        }
        let output = run(command, if through_command { b"" } else { &input });
        assert_eq!(
            output.status.code(),
            Some(0),
            "{label}: {}",
            stderr(&output)
        );
        let text = stdout(&output);
        assert!(text.len() <= 8000, "{label}");
        let path = spill_path(&text).unwrap_or_else(|| panic!("{label}: not saved: {text}"));
        let saved = std::fs::read(&path).unwrap();
        assert!(
            saved == input,
            "{label}: {} bytes saved of {}",
            saved.len(),
            input.len()
        );
        let (bytes, digest) = reference_fields(&text);
        assert_eq!(bytes, input.len() as u64, "{label}");
        let want = blake3::hash(&input).to_hex()[..16].to_owned();
        assert_eq!(digest, want, "{label}");
        assert!(path.to_string_lossy().contains(&want), "{label}");
        assert!(text.contains("It is not valid UTF-8"), "{label}: {text}");
    }
}

/// The start and end of a long text, for a failure message.
fn ends(text: &str) -> String {
    let start: String = text.chars().take(200).collect();
    let end: String = text
        .chars()
        .rev()
        .take(600)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{} bytes: {start} [...] {end}", text.len())
}

/// A folder holding one file of a single 2 MB line with `token` in its
/// middle, and `other` a quarter of the way in.
fn one_long_line_with(sandbox: &Sandbox, token: &str, other: &str) -> std::path::PathBuf {
    let dir = sandbox.path("searched");
    std::fs::create_dir_all(&dir).unwrap();
    let filler = |bytes: usize| "abcdefgh ".repeat(bytes / 9);
    let line = format!(
        "{}{other}{}{token}{}\n",
        filler(500_000),
        filler(500_000),
        filler(1_000_000)
    );
    assert!(line.len() > 2_000_000);
    std::fs::write(dir.join("long.txt"), line).unwrap();
    dir
}

/// Needs the core's search windows (branch search-core): before them the
/// preview shows only the start of the long line.
#[test]
fn a_grep_command_s_pattern_is_shown_inside_a_two_megabyte_line() {
    let sandbox = Sandbox::new();
    let dir = one_long_line_with(&sandbox, "TOKEN", "SOMETHING-ELSE");
    let mut command = sandbox.toolcap("cap");
    command.args(["--", "grep", "-rn", "TOKEN"]).arg(&dir);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() <= 24_576, "{} bytes", text.len());
    assert!(spill_path(&text).is_some(), "capped: {}", ends(&text));
    assert!(
        text.contains("TOKEN"),
        "the hit is in the preview: {}",
        ends(&text)
    );
}

/// Needs the core's search windows, as above.
#[test]
fn an_explicit_search_wins_over_the_command_s_own() {
    let sandbox = Sandbox::new();
    let dir = one_long_line_with(&sandbox, "TOKEN", "SOMETHING-ELSE");
    let mut command = sandbox.toolcap("cap");
    command
        .args(["--search", "SOMETHING-ELSE", "--", "grep", "-rn", "TOKEN"])
        .arg(&dir);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("SOMETHING-ELSE"), "{}", ends(&text));
    assert!(!text.contains("TOKEN"), "{}", ends(&text));
}

#[test]
fn an_empty_search_takes_none_from_the_command() {
    let sandbox = Sandbox::new();
    let dir = one_long_line_with(&sandbox, "TOKEN", "SOMETHING-ELSE");
    let mut command = sandbox.toolcap("cap");
    command
        .args(["--search", "", "--", "grep", "-rn", "TOKEN"])
        .arg(&dir);
    let output = run(command, b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(spill_path(&text).is_some(), "capped: {}", ends(&text));
    assert!(
        !text.contains("TOKEN"),
        "no search, no window: {}",
        ends(&text)
    );
}

#[test]
fn an_explicit_search_past_the_limits_is_a_usage_error_and_nothing_runs() {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("ran");
    let touch = format!("touch {}", marker.display());
    let long = "x".repeat(257);
    let mut too_many: Vec<String> = Vec::new();
    for i in 0..17 {
        too_many.push("--search".to_owned());
        too_many.push(format!("term{i}"));
    }
    for (args, says) in [
        (too_many, "17 alternatives"),
        (vec!["--search".to_owned(), long], "257 bytes"),
    ] {
        let mut command = sandbox.toolcap("cap");
        command.args(&args).args(["--", "sh", "-c", &touch]);
        let output = run(command, b"");
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
        assert!(output.stdout.is_empty());
        assert!(!marker.exists(), "the command did not run");
    }
}
