//! Run 3: one turn of three parallel tool calls late in a long conversation.
//! Each result is within the host's per-result budget, so capping them one
//! at a time changes nothing, but together they overflow the next request.
//! `cap-batch` plans the turn against what the request has left and fits it.

use serde_json::json;
use tool_output_cap::{
    Budget, Call, Session, ToolCap,
    types::{BatchResult, PendingResult, RequestLimits},
};

use super::checks::{self, Checks};
use super::conversation::{Message, Part, Request, ToolCall};
use super::model::ScriptedModel;
use super::provider::{self, CONTEXT_TOKENS, MAX_BODY_BYTES, estimated_tokens};
use super::text::kind_name;
use super::text::size;

/// The per-result budget of this host: generous, as agent hosts' are
/// (about 64k tokens), so one log of a few hundred KiB passes whole.
const PER_RESULT_BYTES: u32 = 256 * 1024;
/// The services whose logs the model reads at once.
const SERVICES: [&str; 3] = ["checkout", "payments", "inventory"];
/// Lines of each service's log (about 230 KiB).
const LOG_LINES: usize = 2_200;
/// Bytes of the conversation before the turn (earlier steps of the task).
const HISTORY_BYTES: usize = 420 * 1024;
/// Tokens kept free for the model's answer.
const ANSWER_RESERVE_TOKENS: u64 = 4_096;

/// What one way of sending the turn got.
pub struct TurnReport {
    pub body_bytes: usize,
    pub status: u16,
    /// The response body: the rejection, when there was one.
    pub response: String,
}

/// Runs the turn both ways and records the two checks.
pub fn run(tool_cap: &ToolCap, session: &mut Session, checks: &mut Checks) -> anyhow::Result<()> {
    let history = history();
    let calls: Vec<ToolCall> = SERVICES
        .iter()
        .enumerate()
        .map(|(i, service)| ToolCall {
            id: format!("par_{}", i + 1),
            name: "kubectl_logs".into(),
            arguments: json!({ "deployment": service, "since": "2h" }),
        })
        .collect();
    let logs: Vec<String> = SERVICES.iter().map(|s| service_log(s)).collect();
    let history_bytes = body(
        &history,
        &calls,
        &[String::new(), String::new(), String::new()],
    )
    .len();
    println!(
        "  the conversation so far: {} ({} messages); the model calls {} tools at once",
        size(history_bytes as u64),
        history.len(),
        calls.len()
    );
    for (call, log) in calls.iter().zip(&logs) {
        println!(
            "  {} {}: {}, within the {} per-result budget",
            call.name,
            call.arguments["deployment"].as_str().unwrap_or_default(),
            size(log.len() as u64),
            size(PER_RESULT_BYTES.into())
        );
    }

    // Each result capped alone: all fit their budget, so all pass whole.
    let alone: Vec<String> = calls
        .iter()
        .zip(&logs)
        .map(|(call, log)| {
            session
                .cap(log, &Budget::new(PER_RESULT_BYTES), call.id.as_str())
                .map(|c| c.text)
        })
        .collect::<Result<_, _>>()?;
    let unplanned = send(&history, &calls, &alone);
    println!(
        "  capped one by one:  request {} (about {}k tokens) -> {}",
        size(unplanned.body_bytes as u64),
        estimated_tokens(unplanned.body_bytes).div_ceil(1000),
        verdict(tool_cap, &unplanned)?
    );
    checks.record(
        checks::PARALLEL_UNPLANNED_REJECTED,
        unplanned.status != 200,
        || {
            format!(
                "the unplanned turn was accepted ({} bytes)",
                unplanned.body_bytes
            )
        },
    );

    // The turn planned as a whole, against what the request has left.
    let limits = RequestLimits {
        max_tokens: Some(
            (CONTEXT_TOKENS as u64)
                .saturating_sub(estimated_tokens(history_bytes) as u64)
                .saturating_sub(ANSWER_RESERVE_TOKENS),
        ),
        max_body_bytes: Some((MAX_BODY_BYTES - history_bytes) as u64),
        floor_bytes: 4 * 1024,
        ceiling: Budget::new(PER_RESULT_BYTES),
    };
    let turn: Vec<(Call, PendingResult)> = calls
        .iter()
        .zip(&logs)
        .map(|(call, log)| {
            (
                Call::new(call.id.as_str()),
                PendingResult::Text(log.clone()),
            )
        })
        .collect();
    let results = session.cap_batch(&turn, &limits)?;
    let mut texts = Vec::new();
    let mut spilled_exact = true;
    for (result, log) in results.iter().zip(&logs) {
        let BatchResult::Text(capped) = result else {
            anyhow::bail!("a text result came back as parts");
        };
        if let Some(reference) = &capped.report.spill {
            let on_disk = session
                .host_path(&reference.path)?
                .and_then(|path| std::fs::read(path).ok());
            spilled_exact &= on_disk.as_deref() == Some(log.as_bytes());
        }
        println!(
            "    {}: {} -> {} ({} estimated tokens; {} failure lines shown)",
            capped
                .report
                .spill
                .as_ref()
                .map_or("kept whole", |r| r.relative_path.as_str()),
            size(log.len() as u64),
            size(capped.text.len() as u64),
            capped.report.tokens,
            capped.report.notable_lines
        );
        texts.push(capped.text.clone());
    }
    let planned = send(&history, &calls, &texts);
    println!(
        "  with cap-batch:     request {} (about {}k tokens) -> {}",
        size(planned.body_bytes as u64),
        estimated_tokens(planned.body_bytes).div_ceil(1000),
        verdict(tool_cap, &planned)?
    );
    checks.record(
        checks::PARALLEL_PLANNED_FITS,
        planned.status == 200 && planned.body_bytes <= MAX_BODY_BYTES && spilled_exact,
        || {
            format!(
                "status {}, {} bytes, spills exact: {spilled_exact}",
                planned.status, planned.body_bytes
            )
        },
    );
    Ok(())
}

/// The request body for `history`, the assistant's parallel calls and one
/// tool message per result.
fn body(history: &[Message], calls: &[ToolCall], results: &[String]) -> String {
    let mut messages = history.to_vec();
    messages.push(Message::Assistant {
        content: None,
        tool_calls: calls.to_vec(),
    });
    for (call, text) in calls.iter().zip(results) {
        messages.push(Message::Tool {
            tool_call_id: call.id.clone(),
            content: vec![Part::Text { text: text.clone() }],
            is_error: false,
        });
    }
    let request = Request {
        model: "demo-model".into(),
        messages: messages.into(),
        tools: Vec::new().into(),
    };
    serde_json::to_string(&request).expect("plain JSON")
}

/// Sends the turn through the simulated proxy and provider.
fn send(history: &[Message], calls: &[ToolCall], results: &[String]) -> TurnReport {
    let body = body(history, calls, results);
    let response = provider::send(&body, &ScriptedModel, None);
    TurnReport {
        body_bytes: body.len(),
        status: response.status,
        response: response.body,
    }
}

/// `200 OK`, or the status and what `classify` makes of the rejection.
fn verdict(tool_cap: &ToolCap, report: &TurnReport) -> anyhow::Result<String> {
    if report.status == 200 {
        return Ok("200, accepted".into());
    }
    Ok(match tool_cap.classify(report.status, &report.response)? {
        Some(overflow) => {
            let amounts = match (overflow.limit, overflow.requested) {
                (Some(limit), Some(requested)) => format!(" ({requested} over {limit})"),
                _ => String::new(),
            };
            format!("{}, {}{amounts}", report.status, kind_name(overflow.kind))
        }
        None => format!("{}, rejected", report.status),
    })
}

/// The earlier conversation: the task, and earlier steps' tool messages.
fn history() -> Vec<Message> {
    let mut messages = vec![Message::User {
        content: "Checkout requests time out since the last deploy; find out why.".into(),
    }];
    let mut bytes = 0;
    let mut step = 0;
    while bytes < HISTORY_BYTES {
        step += 1;
        let text: String = (0..400)
            .map(|i| format!("step {step}: manifest line {i} of an earlier kubectl describe\n"))
            .collect();
        bytes += text.len();
        messages.push(Message::Assistant {
            content: Some(format!("Looking at step {step}.")),
            tool_calls: Vec::new(),
        });
        messages.push(Message::User { content: text });
    }
    messages
}

/// A service's log: requests, a few warnings, and one error with its cause.
fn service_log(service: &str) -> String {
    let mut out = String::with_capacity(LOG_LINES * 110);
    for i in 0..LOG_LINES {
        let second = i % 60;
        let minute = (i / 60) % 60;
        if i == LOG_LINES * 3 / 5 {
            out.push_str(&format!(
                "2024-03-11T14:{minute:02}:{second:02}Z ERROR {service} upstream timed out after \
                 30000ms calling payments-api (pool exhausted: 50/50 connections busy)\n"
            ));
            continue;
        }
        let route = ["/cart", "/checkout", "/orders", "/stock", "/refunds"][i % 5];
        out.push_str(&format!(
            "2024-03-11T14:{minute:02}:{second:02}Z INFO  {service} GET {route}/{} 200 in {} ms \
             trace={:016x}\n",
            i * 7 % 1000,
            (i * 37) % 900 + 12,
            (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ));
    }
    out
}
