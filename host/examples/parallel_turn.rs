//! A turn of parallel tool calls, fitted as a whole: three results that each
//! fit a per-result budget overflow the next request together; `cap_batch`
//! shares what the request has left among them.
//! `cargo run --release -p tool-output-cap --example parallel_turn`

use tool_output_cap::{
    Budget, Call, SessionConfig, ToolCap,
    types::{BatchResult, PendingResult, RequestLimits},
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spill_dir =
        std::env::temp_dir().join(format!("toolcap-example-turn-{}", std::process::id()));
    std::fs::create_dir_all(&spill_dir)?;
    let mut session = ToolCap::new()?.open_session(SessionConfig::new("thread-2", &spill_dir))?;

    let logs =
        ["build", "test", "lint"].map(|tool| format!("{tool}: a line of output\n").repeat(3_000));
    let turn: Vec<(Call, PendingResult)> = logs
        .iter()
        .enumerate()
        .map(|(i, log)| {
            (
                Call::new(format!("call-{i}")),
                PendingResult::Text(log.clone()),
            )
        })
        .collect();
    // What the next request has left after the conversation so far.
    let limits = RequestLimits {
        max_tokens: Some(12_000),
        max_body_bytes: Some(48 * 1024),
        floor_bytes: 2048,
        ceiling: Budget::new(64 * 1024),
    };

    let results = session.cap_batch(&turn, &limits)?;
    let (mut bytes, mut tokens) = (0, 0);
    for result in &results {
        let BatchResult::Text(capped) = result else {
            unreachable!("text in, text out")
        };
        println!(
            "{:>6} bytes, {:>5} tokens, cut: {}",
            capped.text.len(),
            capped.report.tokens,
            capped.report.truncated
        );
        bytes += capped.text.len();
        tokens += u64::from(capped.report.tokens);
    }
    assert!(
        tokens <= 12_000 && bytes <= 48 * 1024,
        "the turn fits the request as a whole"
    );
    println!(
        "the turn: {bytes} bytes, {tokens} tokens (each log alone is {} bytes)",
        logs[0].len()
    );

    session.purge()?;
    std::fs::remove_dir_all(&spill_dir)?;
    Ok(())
}
