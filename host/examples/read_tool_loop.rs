//! The component's read tool in an agent loop: register its spec with the
//! model, then run each call the model makes and hand back the answer as is.
//! Here a scripted "model" greps a spilled log, then reads around the hit.
//! `cargo run --release -p tool-output-cap --example read_tool_loop`

use tool_output_cap::{Budget, SessionConfig, ToolCap};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spill_dir =
        std::env::temp_dir().join(format!("toolcap-example-read-{}", std::process::id()));
    std::fs::create_dir_all(&spill_dir)?;
    let mut config = SessionConfig::new("thread-3", &spill_dir);
    config.read_tool = Some("read_spilled_output".into());
    let mut session = ToolCap::new()?.open_session(config)?;

    let log: String = (1..=50_000)
        .map(|i| format!("request {i}: status=200\n"))
        .collect::<String>()
        + "request 50001: status=500 upstream timed out\n";
    let capped = session.cap(&log, &Budget::new(4096), "call-1")?;
    let reference = capped
        .report
        .spill
        .clone()
        .ok_or("the full output was not saved")?;

    // What the host registers with the model, next to its own tools.
    let spec = session.read_tool()?;
    println!(
        "tool {}: {}\nschema: {}\n",
        spec.name, spec.description, spec.input_schema
    );

    // The model's calls, as JSON arguments; each answer goes back verbatim.
    let calls = [
        format!(r#"{{"path": "{}", "grep": "status=500"}}"#, reference.path),
        format!(
            r#"{{"path": "{}", "line": 49998, "lines": 4}}"#,
            reference.path
        ),
        r#"{"path": "../../etc/passwd"}"#.to_string(),
    ];
    let mut answers = Vec::new();
    for arguments in &calls {
        let answer = session.run_read_tool(arguments)?;
        println!(
            "> {arguments}\n{}{}\n",
            if answer.is_error { "(error) " } else { "" },
            answer.text
        );
        answers.push(answer);
    }
    assert!(!answers[0].is_error && answers[0].text.contains("upstream timed out"));
    assert!(!answers[1].is_error && answers[1].text.contains("request 49999: status=200"));
    assert!(
        answers[2].is_error,
        "a path outside the thread's spills is a mistake, explained"
    );

    session.purge()?;
    std::fs::remove_dir_all(&spill_dir)?;
    Ok(())
}
