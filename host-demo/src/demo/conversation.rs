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
    },
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

/// The request body: the model name and every message so far. Borrowed when
/// sent, owned when the provider parses it.
#[derive(Serialize, Deserialize)]
pub struct Request<'a> {
    pub model: Cow<'a, str>,
    pub messages: Cow<'a, [Message]>,
}

/// The body of a successful response.
#[derive(Serialize, Deserialize)]
pub struct Completion {
    pub message: Message,
}
