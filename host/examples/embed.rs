//! Embed the component and cap one failed build: the preview keeps the
//! error, the notice names the saved file, and grep finds what was cut.
//! `cargo run --release -p tool-output-cap --example embed`

use tool_output_cap::{Budget, Call, SessionConfig, ToolCap};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spill_dir =
        std::env::temp_dir().join(format!("toolcap-example-embed-{}", std::process::id()));
    std::fs::create_dir_all(&spill_dir)?;
    let tool_cap = ToolCap::new()?; // compile once per process
    let mut session = tool_cap.open_session(SessionConfig::new("thread-1", &spill_dir))?;

    let mut log = "   Compiling dep v0.1.0\n".repeat(20_000);
    log.push_str("error[E0308]: mismatched types\n");
    log.push_str(&"   Compiling other v0.2.0\n".repeat(20_000));
    let call = Call {
        tool: Some("cargo".into()),
        exit_code: Some(101),
        ..Call::new("call-1")
    };
    let capped = session.cap(&log, &Budget::new(8 * 1024), call)?;
    println!("{}\n", capped.text);

    assert!(capped.text.len() <= 8 * 1024, "the preview fits its budget");
    assert!(
        capped.text.contains("error[E0308]"),
        "the failure line from the middle is shown"
    );
    let reference = capped
        .report
        .spill
        .clone()
        .ok_or("the full output was not saved")?;
    let hits = session.grep(&reference.path, "E0308", 5)?;
    assert_eq!(hits.total_matches, 1);
    println!(
        "{} bytes became {}; the error is on line {} of {}",
        log.len(),
        capped.text.len(),
        hits.matches[0].line,
        reference.path
    );

    session.purge()?;
    std::fs::remove_dir_all(&spill_dir)?;
    Ok(())
}
