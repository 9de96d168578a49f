//! The chat messages the agent sends, in a generic provider JSON shape.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of the conversation.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: Vec<Part>,
        /// The call was a mistake (MCP's `isError`): the read tool's answer
        /// to bad arguments.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// A tool the host registers with the model: its name, what it does, and
/// the JSON Schema of its arguments.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// A tool call the model asks for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// One part of a tool message's content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Part {
    Text { text: String },
    Image { mime_type: String, data: String },
}

impl Message {
    /// The text of a tool message, if it is one.
    pub fn tool_text(&self) -> Option<String> {
        match self {
            Message::Tool { content, .. } => Some(joined_text(content)),
            _ => None,
        }
    }
}

/// The text parts of a content list, joined by LF (as `cap-parts` joins them).
pub fn joined_text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|part| match part {
            Part::Text { text } => Some(text.as_str()),
            Part::Image { .. } => None,
        })
        .collect();
    texts.join("\n")
}

/// The request body: the model name, every message so far and the tools the
/// model may call. Borrowed when sent, owned when the provider parses it.
#[derive(Serialize, Deserialize)]
pub struct Request<'a> {
    pub model: Cow<'a, str>,
    pub messages: Cow<'a, [Message]>,
    #[serde(default, skip_serializing_if = "no_tools")]
    pub tools: Cow<'a, [ToolSpec]>,
}

fn no_tools(tools: &[ToolSpec]) -> bool {
    tools.is_empty()
}

/// The body of a successful response.
#[derive(Serialize, Deserialize)]
pub struct Completion {
    pub message: Message,
}
