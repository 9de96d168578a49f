//! The scripted model: it decides each turn from the conversation and the
//! tools it is sent, like a real one, but by script.

use serde_json::json;

use super::conversation::{Message, ToolCall, ToolSpec};
use super::fixtures::{BUNDLE_NEEDLE, ISSUE_NUMBER};
use super::read_tool::{grep_matches, numbered_lines};
use super::tools::{BUILD, GET_ISSUE, GREP};
use tool_output_cap::Session;

/// What the model greps the spilled build log for.
pub const ERROR_PATTERN: &str = "error[";
/// Lines the model reads from the error on (the whole rustc diagnostic).
const ERROR_CONTEXT_LINES: u32 = 7;

/// Calls grep, the MCP tracker, the build, then answers with the build error:
/// from the build's result when it shows the whole diagnostic (as the
/// preview shows the first failure of its omitted middle), otherwise
/// read from the saved log with the read tool (a grep, then the lines).
#[derive(Default)]
pub struct ScriptedModel;

impl ScriptedModel {
    /// The next assistant message for `messages`, with `tools` to call.
    /// `session` stands in for the model's reading of notices: a real model
    /// reads the path in the text; this script asks the component for the
    /// genuine references instead.
    pub fn respond(
        &self,
        messages: &[Message],
        tools: &[ToolSpec],
        session: Option<&mut Session>,
    ) -> Message {
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
        let read_tool = read_tool_in(tools);
        let result = result_of(messages, &last.id).unwrap_or_default();
        match last.name.as_str() {
            GREP => call(id, GET_ISSUE, json!({ "issue": ISSUE_NUMBER })),
            GET_ISSUE => call(id, BUILD, json!({ "package": "billing" })),
            BUILD => match diagnostic_in(&result) {
                Some(diagnostic) => answer(&format!("The billing build fails here:\n{diagnostic}")),
                None => match (read_tool, build_log_path(messages, &calls, session)) {
                    (Some(tool), Some(path)) => {
                        call(id, tool, json!({ "path": path, "grep": ERROR_PATTERN }))
                    }
                    _ => answer("The build failed, but its error was cut from the output I got."),
                },
            },
            name if Some(name) == read_tool && last.arguments.get("grep").is_some() => {
                let line = grep_matches(&result).first().map(|&(line, _)| line);
                match (line, &last.arguments["path"]) {
                    (Some(line), path) if path.is_string() => call(
                        id,
                        name,
                        json!({ "path": path, "line": line, "lines": ERROR_CONTEXT_LINES }),
                    ),
                    _ => answer("The build failed; I could not find the error in its log."),
                }
            }
            _ => {
                let read: String = numbered_lines(&result)
                    .iter()
                    .map(|(_, line)| format!("{line}\n"))
                    .collect();
                match diagnostic_in(&read) {
                    Some(diagnostic) => {
                        answer(&format!("The billing build fails here:\n{diagnostic}"))
                    }
                    None => answer("The build failed; I could not read the error in its log."),
                }
            }
        }
    }
}

/// The tool that reads a saved output, known by its arguments as the
/// schema gives them: a path, and a grep or lines to read.
fn read_tool_in(tools: &[ToolSpec]) -> Option<&str> {
    tools
        .iter()
        .find(|tool| {
            let properties = &tool.input_schema["properties"];
            ["path", "grep", "line", "lines"]
                .iter()
                .all(|name| properties.get(name).is_some())
        })
        .map(|tool| tool.name.as_str())
}

/// The compiler error as rustc prints it, when a text shows it whole and in
/// place: the error line, its `-->` location, and the annotated source down
/// to the label that says what was expected. Lines may come as a preview
/// shows the lines of its omitted middle, `[line N] ` before each: then the
/// block's lines must be numbered one after another. A preview that shows
/// only the error's first lines out of context does not give it.
fn diagnostic_in(text: &str) -> Option<String> {
    let lines: Vec<(Option<u64>, &str)> = text.lines().map(numbered).collect();
    let start = lines
        .iter()
        .position(|(_, line)| line.starts_with(ERROR_PATTERN))?;
    let mut block = vec![lines[start].1];
    let mut previous = lines[start].0;
    for &(number, line) in &lines[start + 1..] {
        let next = match (previous, number) {
            (None, None) => true,
            (Some(p), Some(n)) => n == p + 1,
            _ => false,
        };
        if !next || !is_annotation(line) {
            break;
        }
        block.push(line);
        previous = number;
    }
    let whole = block.get(1).is_some_and(|line| line.contains("-->"))
        && block.iter().any(|line| line.contains("expected"));
    whole.then(|| block.join("\n"))
}

/// A line of a preview's omitted middle, `[line N] text`, as its number and
/// text; any other line as it is.
fn numbered(line: &str) -> (Option<u64>, &str) {
    let parsed = line.strip_prefix("[line ").and_then(|rest| {
        let (number, text) = rest.split_once("] ")?;
        Some((Some(number.parse().ok()?), text))
    });
    parsed.unwrap_or((None, line))
}

/// A line of rustc's annotation of an error: `--> file`, ` |` or `4711 | code`.
fn is_annotation(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("-->")
        || line.starts_with('|')
        || line
            .split_once(" |")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
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
