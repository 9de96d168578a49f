//! The agent loop: send the conversation, run the tools the model calls, feed
//! the results back, until the model answers or the provider refuses.

use std::borrow::Cow;
use std::fs;
use std::path::Path;

use anyhow::{Context as _, bail};

use super::checks::{self, Checks};
use super::conversation::{Completion, Message, Request, ToolSpec};
use super::model::ScriptedModel;
use super::provider::{self, CONTEXT_TOKENS, MAX_BODY_BYTES, Response, estimated_tokens};
use super::pruning;
use super::read_tool;
use super::results::{send_capped, send_raw};
use super::run::{Outcome, RunReport};
use super::text::kind_name;
use super::text::{QUOTE_WIDTH, one_line, quote, show_arguments, size};
use super::tools::{self, Fixtures};
use tool_output_cap::{Budget, Session, ToolCap};

const MODEL: &str = "sim-128k";
/// The scripted task takes 4 requests (6 when the build's error must be read
/// back from its log); more means the script is lost.
const MAX_REQUESTS: usize = 10;
/// Prune once this many tool outputs are in the context ("after turn 3").
const PRUNE_FROM_TOOL_OUTPUTS: usize = 3;

/// The system prompt; the tools come with their own descriptions.
const SYSTEM_PROMPT: &str = "You are a coding agent. Use the tools to answer the user's task.";

/// The user's task, the same in both runs.
pub const TASK: &str = "Checkout fails with apiKeyMissing since last night's deploy. Find it \
                        in the bundle, read issue #1289, and tell me why the billing build fails.";

/// How the host treats tool results.
pub enum Host<'a> {
    /// As most harnesses do: the result goes to the model as it is.
    Raw,
    /// Through the component: capped to `budget`, spilled, pruned later.
    Capped {
        session: &'a mut Session,
        budget: Budget,
    },
}

impl Host<'_> {
    fn session(&mut self) -> Option<&mut Session> {
        match self {
            Host::Raw => None,
            Host::Capped { session, .. } => Some(session),
        }
    }
}

/// Runs the task once, printing the transcript.
pub fn run(
    label: &'static str,
    mut host: Host<'_>,
    fixtures: &Fixtures,
    tool_cap: &ToolCap,
    checks: &mut Checks,
) -> anyhow::Result<RunReport> {
    let mut report = RunReport {
        label,
        requests: 0,
        bytes_sent: 0,
        largest_request: 0,
        bytes_spilled: 0,
        bytes_saved_by_pruning: 0,
        outcome: Outcome::NoAnswer,
        read_backs: Vec::new(),
        pruned_refs: Vec::new(),
        answer: None,
    };
    let mut specs = tools::specs();
    let mut read_tool_name = None;
    if let Some(session) = host.session() {
        let spec = read_tool::spec(session)?;
        let names: Vec<&str> = specs.iter().map(|tool| tool.name.as_str()).collect();
        println!(
            "  tools: {}, and {} from session.read_tool()",
            names.join(", "),
            spec.name
        );
        read_tool_name = Some(spec.name.clone());
        specs.push(spec);
    }
    let mut messages = vec![
        Message::System {
            content: SYSTEM_PROMPT.to_owned(),
        },
        Message::User {
            content: TASK.to_owned(),
        },
    ];
    while report.requests < MAX_REQUESTS {
        let tool_outputs = messages
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        if let Host::Capped { session, .. } = &mut host
            && tool_outputs >= PRUNE_FROM_TOOL_OUTPUTS
        {
            report.bytes_saved_by_pruning +=
                pruning::prune(session, &mut messages, &mut report.pruned_refs, checks)?;
        }
        let (head, response) = send(&messages, &specs, &mut host, &mut report, checks)?;
        if response.status != 200 {
            let kind = tool_cap
                .classify(response.status, &response.body)?
                .map(|overflow| overflow.kind);
            println!("{head}  {}", one_line(&response.body, 60));
            println!(
                "  classify({}, body) = {}: the turn fails; nothing in this host can shrink it",
                response.status,
                kind.map_or("none", kind_name)
            );
            report.outcome = Outcome::Rejected {
                status: response.status,
                kind,
            };
            break;
        }
        let Completion { message } = serde_json::from_str(&response.body)?;
        messages.push(message.clone());
        let Message::Assistant {
            content,
            tool_calls,
        } = message
        else {
            bail!("the model sent a {message:?}");
        };
        if tool_calls.is_empty() {
            println!("{head}  model answers:");
            quote(content.as_deref().unwrap_or_default(), QUOTE_WIDTH);
            report.outcome = Outcome::Answered;
            report.answer = content;
            break;
        }
        for call in tool_calls {
            let root = host
                .session()
                .map(|session| session.display_root().to_owned());
            println!(
                "{head}  model calls {}({})",
                call.name,
                show_arguments(&call, root)
            );
            let (content, is_error) = match &mut host {
                Host::Capped { session, .. } if read_tool_name.as_ref() == Some(&call.name) => {
                    read_tool::run(&call, session, &mut report.read_backs)?
                }
                Host::Raw => (send_raw(&call, tools::run(&call, fixtures)?), false),
                Host::Capped { session, budget } => {
                    let output = tools::run(&call, fixtures)?;
                    (send_capped(&call, output, session, budget, checks)?, false)
                }
            };
            messages.push(Message::Tool {
                tool_call_id: call.id,
                content,
                is_error,
            });
        }
    }
    if let Host::Capped { session, .. } = &host {
        report.bytes_spilled = dir_bytes(session.spill_dir().context("no spill dir")?)?;
    }
    Ok(report)
}

/// Sends the conversation; returns the transcript line's head and the answer.
/// With the component, every request must be accepted and within both limits.
fn send(
    messages: &[Message],
    tools: &[ToolSpec],
    host: &mut Host<'_>,
    report: &mut RunReport,
    checks: &mut Checks,
) -> anyhow::Result<(String, Response)> {
    let request = Request {
        model: MODEL.into(),
        messages: Cow::Borrowed(messages),
        tools: Cow::Borrowed(tools),
    };
    let body = serde_json::to_string(&request)?;
    let bytes = body.len() as u64;
    report.requests += 1;
    report.bytes_sent += bytes;
    report.largest_request = report.largest_request.max(bytes);
    let response = provider::send(&body, &ScriptedModel, host.session());
    if let Host::Capped { .. } = host {
        let fits = body.len() <= MAX_BODY_BYTES && estimated_tokens(body.len()) <= CONTEXT_TOKENS;
        checks.record(
            checks::CAPPED_REQUESTS_FIT,
            fits && response.status == 200,
            || {
                format!(
                    "request {} ({bytes} bytes) got {}",
                    report.requests, response.status
                )
            },
        );
    }
    let head = format!(
        "  req {}  {:>9}  {}",
        report.requests,
        size(bytes),
        response.status
    );
    Ok((head, response))
}

/// Total size of the files under `dir`: what the spills cost on disk.
fn dir_bytes(dir: &Path) -> anyhow::Result<u64> {
    let mut total = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        total += if entry.file_type()?.is_dir() {
            dir_bytes(&entry.path())?
        } else {
            entry.metadata()?.len()
        };
    }
    Ok(total)
}
