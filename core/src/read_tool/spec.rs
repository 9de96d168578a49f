//! The tool as a model sees it: its description and the JSON Schema of its
//! arguments, built from the same constants that [`run`](super::run) checks.

use serde_json::json;

use super::ReadToolSpec;
use super::args::{
    DEFAULT_LINES, DEFAULT_MAX_BYTES, DEFAULT_MAX_MATCHES, MAX_GREP_CHARS, MAX_LINES, MAX_MATCHES,
    MAX_MAX_BYTES, MIN_MAX_BYTES,
};

/// A name for the tool when the host has none of its own; give the same
/// name to the notices (`NoticeStyle::read_tool`), so that they point at it.
pub const DEFAULT_TOOL_NAME: &str = "read_spilled_output";

/// The read tool as `name`: a description written for the model, and the
/// JSON Schema (draft 2020-12, compact) of the arguments [`run`](super::run)
/// accepts.
pub fn spec(name: &str) -> ReadToolSpec {
    ReadToolSpec {
        name: name.to_owned(),
        description: description(),
        input_schema: schema(),
    }
}

fn description() -> String {
    format!(
        "Read the full output of an earlier tool call whose result was cut to fit the context. \
         A cut result ends with a notice that the full output was saved, and gives its path \
         (\"full content at <path>\"); pass that path, or the notice text holding it, as \
         \"path\". Three ways to read: by lines (the default: \"line\" from 1 and \"lines\", up to \
         {MAX_LINES}), by bytes from \"offset\", or \"grep\": a literal, case-sensitive text (not \
         a regex) whose matching lines are listed with their line numbers. To find an error in a \
         long log, grep for it (for example \"error\" or \"FAILED\"), then read the lines around \
         it. Each answer holds at most \"max_bytes\" (default {DEFAULT_MAX_BYTES}) of the file, \
         lines numbered, and when there is more it ends with the exact arguments of the next \
         call. The command already ran: do not run it again to see its output; read it here."
    )
}

fn schema() -> String {
    json!({
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "The saved output's path, as the notice gives it (or the notice text holding it)."
            },
            "line": {
                "type": "integer",
                "minimum": 1,
                "description": "Line mode: first line to read, from 1 (default 1)."
            },
            "lines": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LINES,
                "description": format!("Line mode: how many lines (default {DEFAULT_LINES}).")
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "Byte mode: first byte to read, from 0. Not with line, lines or grep."
            },
            "grep": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_GREP_CHARS,
                "description": "Search mode: literal text to find (not a regex). Not with line, lines or offset."
            },
            "max_matches": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_MATCHES,
                "description": format!("Search mode: matches to list (default {DEFAULT_MAX_MATCHES}).")
            },
            "max_bytes": {
                "type": "integer",
                "minimum": MIN_MAX_BYTES,
                "maximum": MAX_MAX_BYTES,
                "description": format!("Most bytes of the file to return (default {DEFAULT_MAX_BYTES}).")
            }
        },
        "required": ["path"],
        "additionalProperties": false
    })
    .to_string()
}
