//! MCP `CallToolResult` content, as JSON, as conversation parts, and as the
//! component's `content-part`s.

use anyhow::{Context as _, bail};
use serde_json::Value;

use super::conversation::Part;
use tool_output_cap::types::{ContentPart, Media};

/// The content parts of an MCP `CallToolResult` (`text` and `image` kinds).
pub fn parts_of_call_tool_result(result: &Value) -> anyhow::Result<Vec<Part>> {
    let content = result["content"]
        .as_array()
        .context("CallToolResult without content")?;
    content
        .iter()
        .map(|part| {
            let field = |name: &str| part[name].as_str().map(str::to_owned);
            Ok(match part["type"].as_str() {
                Some("text") => Part::Text {
                    text: field("text").context("text part")?,
                },
                Some("image") => Part::Image {
                    mime_type: field("mimeType").context("image part")?,
                    data: field("data").context("image part")?,
                },
                other => bail!("content part of type {other:?} is not used in this demo"),
            })
        })
        .collect()
}

/// Conversation parts as the component's content parts.
pub fn to_content_parts(parts: &[Part]) -> Vec<ContentPart> {
    parts
        .iter()
        .map(|part| match part {
            Part::Text { text } => ContentPart::Text(text.clone()),
            Part::Image { mime_type, data } => ContentPart::Image(Media {
                data: data.clone(),
                mime_type: mime_type.clone(),
            }),
        })
        .collect()
}

/// The component's content parts as conversation parts.
pub fn from_content_parts(parts: Vec<ContentPart>) -> anyhow::Result<Vec<Part>> {
    parts
        .into_iter()
        .map(|part| match part {
            ContentPart::Text(text) => Ok(Part::Text { text }),
            ContentPart::Image(media) => Ok(Part::Image {
                mime_type: media.mime_type,
                data: media.data,
            }),
            other => bail!("the component returned a part it was not given: {other:?}"),
        })
        .collect()
}
