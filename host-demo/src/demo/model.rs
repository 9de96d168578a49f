//! The scripted model: it decides each turn from the conversation it is sent,
//! like a real one, but by script.

use serde_json::json;

use super::conversation::{Message, ToolCall};
use super::fixtures::{BUNDLE_NEEDLE, ISSUE_NUMBER};
use super::tools::{BUILD, GET_ISSUE, GREP, READ_SPILLED};
use tool_output_cap::Session;

/// What the model greps the spilled build log for.
pub const ERROR_PATTERN: &str = "error[";
/// Lines the model reads from the error on (the whole rustc diagnostic).
const ERROR_CONTEXT_LINES: u32 = 7;

/// Calls grep, the MCP tracker, the build, then answers with the build error:
/// from the capped result when the preview shows it, otherwise dug out of the
/// spilled log with the read tool.
#[derive(Default)]
pub struct ScriptedModel;

impl ScriptedModel {
    /// The next assistant message for `messages`. `session` stands in for the
    /// model's reading of notices: a real model reads the path in the text;
    /// this script asks the component for the genuine references instead.
    pub fn respond(&self, messages: &[Message], session: Option<&mut Session>) -> Message {
        let calls: Vec<&ToolCall> = messages
            .iter()
            .flat_map(|message| match message {
                Message::Assistant { tool_calls, .. } => tool_calls.iter().collect(),
                _ => Vec::new(),
            })
            .collect();
        let id = format!("call_{}", calls.len() + 1);
        let Some(last) = calls.last() else {
            return call(
                id,
                GREP,
                json!({ "pattern": BUNDLE_NEEDLE, "path": "dist/" }),
            );
        };
        match last.name.as_str() {
            GREP => call(id, GET_ISSUE, json!({ "issue": ISSUE_NUMBER })),
            GET_ISSUE => call(id, BUILD, json!({ "package": "billing" })),
            BUILD => match result_of(messages, &last.id).and_then(|text| diagnostic_in(&text)) {
                Some(diagnostic) => answer(&format!("The billing build fails here:\n{diagnostic}")),
                None => self.dig_out_build_error(messages, &calls, session, id),
            },
            READ_SPILLED if last.arguments.get("grep").is_some() => {
                let line = result_of(messages, &last.id).and_then(|text| first_match_line(&text));
                match (line, build_log_path(messages, &calls, session)) {
                    (Some(line), Some(path)) => call(
                        id,
                        READ_SPILLED,
                        json!({ "path": path, "first_line": line, "count": ERROR_CONTEXT_LINES }),
                    ),
                    _ => answer("The build failed; I could not find the error in its log."),
                }
            }
            _ => {
                let diagnostic = result_of(messages, &last.id).unwrap_or_default();
                let body = diagnostic.split_once('\n').map_or("", |(_, lines)| lines);
                answer(&format!(
                    "The billing build fails here:\n{}",
                    body.trim_end()
                ))
            }
        }
    }

    /// The build error is not in the preview: grep the spilled log for it.
    fn dig_out_build_error(
        &self,
        messages: &[Message],
        calls: &[&ToolCall],
        session: Option<&mut Session>,
        id: String,
    ) -> Message {
        match build_log_path(messages, calls, session) {
            Some(path) => call(
                id,
                READ_SPILLED,
                json!({ "path": path, "grep": ERROR_PATTERN }),
            ),
            None => answer("The build failed, but its error was cut from the output I got."),
        }
    }
}

/// The compiler error and its location, when a tool result shows both: the
/// error line (after any line-number prefix the preview gives it) and the
/// `-->` line that follows it.
fn diagnostic_in(text: &str) -> Option<String> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(at) = line.find(ERROR_PATTERN) else {
            continue;
        };
        let location = lines.next()?;
        location.find("-->")?;
        // Keep the location's own indentation, as rustc prints it, without
        // the `[line N] ` the preview puts before a notable line.
        let location = match location.strip_prefix("[line ") {
            Some(rest) => rest
                .split_once("] ")
                .map_or(location, |(_, original)| original),
            None => location,
        };
        return Some(format!("{}\n{location}", &line[at..]));
    }
    None
}

/// The spill file of the build's output, from the genuine reference in that
/// tool message, whether it is still a notice or already a pruned placeholder.
fn build_log_path(
    messages: &[Message],
    calls: &[&ToolCall],
    session: Option<&mut Session>,
) -> Option<String> {
    let build = calls.iter().find(|call| call.name == BUILD)?;
    let text = result_of(messages, &build.id)?;
    let refs = session?.find_refs(&text).ok()?;
    refs.into_iter().next().map(|reference| reference.path)
}

/// The text of the tool message that answers `call_id`.
fn result_of(messages: &[Message], call_id: &str) -> Option<String> {
    messages.iter().find_map(|message| match message {
        Message::Tool { tool_call_id, .. } if tool_call_id == call_id => message.tool_text(),
        _ => None,
    })
}

/// `N` from the first `line N: ...` of a read_spilled grep result.
fn first_match_line(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("line ")?.split_once(':')?.0.parse().ok())
}

fn call(id: String, name: &str, arguments: serde_json::Value) -> Message {
    let call = ToolCall {
        id,
        name: name.to_owned(),
        arguments,
    };
    Message::Assistant {
        content: None,
        tool_calls: vec![call],
    }
}

fn answer(text: &str) -> Message {
    Message::Assistant {
        content: Some(text.to_owned()),
        tool_calls: Vec::new(),
    }
}
