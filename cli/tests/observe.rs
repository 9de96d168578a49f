//! What `toolcap` tells its user: `toolcap spills` over a spill directory,
//! the `--log-file` event of each capped result, the config file found
//! without `--config`, and a `--help` complete on its own.
//! `cargo test --release -p toolcap --test observe`

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt as _;

use common::{Sandbox, numbered_lines, run, spill_path, stderr, stdout, varied_lines};
use serde_json::Value;

/// Caps `input` as tool `tool`; the notice's last line (its reference).
fn cap(sandbox: &Sandbox, args: &[&str], tool: &str, input: &str) -> String {
    let mut command = sandbox.toolcap("cap");
    command
        .args(["--max-bytes", "2000", "--tool", tool, "--id", tool])
        .args(args);
    let output = run(command, input.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(spill_path(&text).is_some(), "{text}");
    text.lines().last().unwrap().to_owned()
}

fn spills(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    let mut command = sandbox.toolcap("spills");
    // The common options come before the subcommand here (after it works
    // too: `spills_takes_the_common_options_after_its_subcommand_too`).
    let (sub, rest) = args.split_first().unwrap();
    command.arg(sub).args(rest);
    run(command, b"")
}

#[test]
fn spills_takes_the_common_options_after_its_subcommand_too() {
    let sandbox = Sandbox::new();
    cap(&sandbox, &[], "grep", &numbered_lines(3000));
    for args in [
        vec!["spills", "--spill-dir", "DIR", "stats"],
        vec!["spills", "stats", "--spill-dir", "DIR"],
    ] {
        let mut command = common::toolcap_bare();
        for arg in args {
            match arg {
                "DIR" => command.arg(sandbox.spill_dir()),
                _ => command.arg(arg),
            };
        }
        let output = run(command, b"");
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            stdout(&output).contains(": 1 saved output ("),
            "{}",
            stdout(&output)
        );
    }
}

#[test]
fn spills_lists_counts_shows_and_sweeps_saved_outputs() {
    let sandbox = Sandbox::new();
    let (a, b) = (numbered_lines(3000), numbered_lines(5000));
    let ref_a = cap(&sandbox, &[], "grep", &a);
    cap(&sandbox, &["--thread", "other"], "find", &b);

    let listed = spills(&sandbox, &["list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let listed = stdout(&listed);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("{} bytes", a.len()))
                && l.contains("\tgrep\t")
                && l.contains("/shell/")
                && l.contains("\tkept until 20"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("{} bytes", b.len())) && l.contains("/other/"))
    );

    let stats = stdout(&spills(&sandbox, &["stats"]));
    assert!(
        stats.contains(&format!(
            "2 saved outputs ({} bytes) in 2 thread folders",
            a.len() + b.len()
        )),
        "{stats}"
    );

    // Shown byte for byte from a genuine reference; a forged one is refused.
    let shown = spills(&sandbox, &["show", &ref_a]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    assert_eq!(shown.stdout, a.as_bytes());
    let forged = ref_a.replace("tag=", "tag=0");
    let refused = spills(&sandbox, &["show", &forged]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
    assert!(
        stderr(&refused).contains("no genuine reference"),
        "{}",
        stderr(&refused)
    );
    // A path alone is not a reference.
    let path = spill_path(&ref_a).unwrap();
    assert_eq!(
        spills(&sandbox, &["show", &path.display().to_string()])
            .status
            .code(),
        Some(2)
    );

    // A sweep never deletes what a notice promised (7 days), whatever it asks.
    let swept = spills(&sandbox, &["sweep", "--max-files", "0"]);
    let said = stdout(&swept);
    assert!(said.contains("0 deleted; 2 kept"), "{said}");
    assert!(said.contains("as its notice promised"), "{said}");
    // `toolcap cap`'s own stamp of its last sweep is no stranger to report.
    assert!(sandbox.spill_dir().join(".toolcap-swept").exists());
    assert!(!said.contains(".toolcap-swept"), "{said}");
    assert!(path.exists());
    // Outputs saved with no promise (retention 0) go when the policy says.
    cap(
        &sandbox,
        &["--retention-days", "0", "--thread", "t3"],
        "ls",
        &numbered_lines(4000),
    );
    let swept = stdout(&spills(&sandbox, &["sweep", "--max-files", "2"]));
    assert!(swept.contains("1 deleted; 2 kept"), "{swept}");
    assert!(swept.contains("over --max-files"), "{swept}");
}

#[test]
fn the_log_file_gets_one_json_line_per_capped_result_and_no_output_bytes() {
    let sandbox = Sandbox::new();
    let log = sandbox.path("events.jsonl");
    let secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let input = format!("token {secret}\n{}", numbered_lines(3000));
    let log_arg = log.display().to_string();
    cap(
        &sandbox,
        &["--log-file", &log_arg, "--redact"],
        "build",
        &input,
    );
    // A result that fits is not an event.
    let mut command = sandbox.toolcap("cap");
    command.args(["--log-file", &log_arg]);
    assert_eq!(run(command, b"small\n").status.code(), Some(0));

    let text = fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        !text.contains(secret) && !text.contains("line 1 of"),
        "{text}"
    );
    let event: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(event["subcommand"], "cap");
    assert_eq!(event["tool"], "build");
    assert_eq!(event["truncated"], true);
    // Counted as redacted: the secret's placeholder is shorter.
    let original = event["originalBytes"].as_u64().unwrap();
    assert!(original < input.len() as u64 && original + 100 > input.len() as u64);
    assert!(event["sentBytes"].as_u64().unwrap() <= 2000);
    assert!(event["originalTokens"].as_u64().unwrap() > event["sentTokens"].as_u64().unwrap());
    assert_eq!(event["redactions"]["github-token"], 1);
    assert!(event["spill"].as_str().unwrap().ends_with(".txt"));
    assert!(event["time"].as_str().unwrap().ends_with('Z'));
    let mode = fs::metadata(&log).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A log file that cannot be opened is an error before anything runs.
    let mut command = sandbox.toolcap("cap");
    command.args(["--log-file", "/nonexistent-dir/events.jsonl"]);
    let output = run(command, numbered_lines(3000).as_bytes());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot open the log file"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_config_file_is_found_without_config() {
    let sandbox = Sandbox::new();
    let xdg = sandbox.path("xdg");
    fs::create_dir_all(xdg.join("toolcap")).unwrap();
    fs::write(
        xdg.join("toolcap/config.toml"),
        "[budget]\nmax_bytes = 1500\n",
    )
    .unwrap();
    let capped_bytes = |command: std::process::Command| {
        // Lines that differ, so that no fold leaves the budget unused.
        let output = run(command, varied_lines(3000).as_bytes());
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        output.stdout.len()
    };
    let mut from_xdg = sandbox.toolcap("cap");
    from_xdg.env("XDG_CONFIG_HOME", &xdg);
    assert!(capped_bytes(from_xdg) <= 1500);

    // TOOLCAP_CONFIG comes before it, and --config before both.
    let named = sandbox.path("named.toml");
    fs::write(&named, "[budget]\nmax_bytes = 3000\n").unwrap();
    let mut from_variable = sandbox.toolcap("cap");
    from_variable
        .env("XDG_CONFIG_HOME", &xdg)
        .env("TOOLCAP_CONFIG", &named);
    let bytes = capped_bytes(from_variable);
    assert!(bytes > 1500 && bytes <= 3000, "{bytes}");
    let option = sandbox.path("option.toml");
    fs::write(&option, "[budget]\nmax_bytes = 5000\n").unwrap();
    let mut from_option = sandbox.toolcap("cap");
    from_option
        .env("TOOLCAP_CONFIG", &named)
        .arg("--config")
        .arg(&option);
    let bytes = capped_bytes(from_option);
    assert!(bytes > 3000 && bytes <= 5000, "{bytes}");

    // A file named by the variable must exist; a bad found one is an error naming it.
    let mut missing = sandbox.toolcap("cap");
    missing.env("TOOLCAP_CONFIG", sandbox.path("nope.toml"));
    let output = run(missing, b"x\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("nope.toml"), "{}", stderr(&output));
    fs::write(xdg.join("toolcap/config.toml"), "max_bites = 1\n").unwrap();
    let mut bad = sandbox.toolcap("cap");
    bad.env("XDG_CONFIG_HOME", &xdg);
    let output = run(bad, b"x\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("max_bites") && stderr(&output).contains("config.toml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn help_is_complete_without_the_readme() {
    for subcommand in ["cap", "mcp", "spills"] {
        let output = run(
            {
                let mut c = common::toolcap_bare();
                c.args([subcommand, "--help"]);
                c
            },
            b"",
        );
        let help = stdout(&output);
        assert_eq!(output.status.code(), Some(0));
        assert!(!help.contains("README"), "{subcommand}: {help}");
        for needle in [
            "Config file",
            "TOOLCAP_CONFIG",
            "[budget] max_bytes",
            "--log-file",
            "Exit status",
        ] {
            assert!(help.contains(needle), "{subcommand} --help lacks {needle}");
        }
    }
    let mcp = stdout(&run(
        {
            let mut c = common::toolcap_bare();
            c.args(["mcp", "--help"]);
            c
        },
        b"",
    ));
    assert!(mcp.contains("default: no limit"), "{mcp}");
}
