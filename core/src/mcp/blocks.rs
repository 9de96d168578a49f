//! An MCP `CallToolResult` as `cap-parts` sees it: each content block as a
//! content part, and each block's raw JSON to write back.

use serde_json::value::RawValue;

use crate::error::CapError;
use crate::parts::{Media, Part, Resource};
use crate::raw_json::{self as json, Kind, Members};

/// The members of a parsed `CallToolResult`, and its content.
#[derive(Debug)]
pub(crate) struct McpResult<'a> {
    /// The result object's members in order, as received.
    pub(crate) members: Members<'a>,
    /// Each content block as received, with the part it maps to.
    pub(crate) blocks: Vec<&'a RawValue>,
    /// `structuredContent`, as received.
    pub(crate) structured: Option<&'a RawValue>,
    /// The members of `_meta`, when present.
    pub(crate) meta: Option<Members<'a>>,
    /// `isError` is `true`.
    pub(crate) is_error: bool,
}

/// Parse `text`; `invalid-argument` says what is wrong and where.
pub(crate) fn parse(text: &str) -> Result<McpResult<'_>, CapError> {
    let invalid = |m: String| CapError::InvalidArgument(m);
    let raw: &RawValue = serde_json::from_str(text)
        .map_err(|e| invalid(format!("the result is not valid JSON: {e}")))?;
    let members = Members::of(raw).ok_or_else(|| {
        invalid(format!(
            "the result must be a JSON object (an MCP CallToolResult), got {}",
            json::kind(raw).phrase()
        ))
    })?;
    let blocks = match members.get("content") {
        None => Vec::new(),
        Some(content) => json::elements(content).ok_or_else(|| {
            invalid(format!(
                "the result's content must be a list of content blocks, got {}",
                json::kind(content).phrase()
            ))
        })?,
    };
    if let Some((i, block)) = blocks
        .iter()
        .enumerate()
        .find(|(_, b)| json::kind(b) != Kind::Object)
    {
        return Err(invalid(format!(
            "content[{i}] is {}, not an object (a content block)",
            json::kind(block).phrase()
        )));
    }
    let meta = match members.get("_meta") {
        None => None,
        Some(meta) => Some(Members::of(meta).ok_or_else(|| {
            invalid(format!(
                "the result's _meta must be an object, got {}",
                json::kind(meta).phrase()
            ))
        })?),
    };
    Ok(McpResult {
        structured: members.get("structuredContent"),
        is_error: members.get("isError").is_some_and(|v| v.get() == "true"),
        blocks,
        meta,
        members,
    })
}

/// The content part a block maps to: `text`, `image`, `audio` and
/// `resource` (with a text or a blob) by their fields; anything else,
/// including a known type with a field missing or of the wrong kind, is an
/// `other` part holding the block's JSON.
pub(crate) fn part_of(block: &RawValue) -> Part {
    Members::of(block)
        .and_then(|members| known_part(&members, &json::string))
        .unwrap_or_else(|| Part::Other(block.get().to_owned()))
}

/// The raw JSON string of the text of a block that maps to a textual part
/// (a `text` block's `text`, a `resource` block's resource `text`), found
/// without decoding it.
pub(crate) fn text_string(block: &RawValue) -> Option<&RawValue> {
    let members = Members::of(block)?;
    // Texts, media data and blobs are only checked to be strings.
    let undecoded = |raw: &RawValue| (json::kind(raw) == Kind::String).then(String::new);
    match known_part(&members, &undecoded)? {
        Part::Text(_) => members.get("text"),
        Part::Resource(Resource { text: Some(_), .. }) => {
            Members::of(members.get("resource")?)?.get("text")
        }
        _ => None,
    }
}

/// [`part_of`] of a known block (its `members`), its texts, media data
/// and blobs decoded by `long` (other strings are short and decoded as
/// usual).
fn known_part(members: &Members<'_>, long: &dyn Fn(&RawValue) -> Option<String>) -> Option<Part> {
    let string_member = |key: &str| members.get(key).and_then(json::string);
    match string_member("type")?.as_str() {
        "text" => Some(Part::Text(members.get("text").and_then(long)?)),
        "image" => Some(Part::Image(media(members, long)?)),
        "audio" => Some(Part::Audio(media(members, long)?)),
        "resource" => resource(members.get("resource")?, long).map(Part::Resource),
        _ => None,
    }
}

fn media(members: &Members<'_>, long: &dyn Fn(&RawValue) -> Option<String>) -> Option<Media> {
    Some(Media {
        data: members.get("data").and_then(long)?,
        mime_type: members.get("mimeType").and_then(json::string)?,
    })
}

/// An embedded resource with a string `uri` and a string `text` or `blob`
/// (any other field of the wrong kind makes the block `other`); its text
/// and blob decoded by `long`.
fn resource(raw: &RawValue, long: &dyn Fn(&RawValue) -> Option<String>) -> Option<Resource> {
    let members = Members::of(raw)?;
    let optional_with =
        |key: &str, decode: &dyn Fn(&RawValue) -> Option<String>| match members.get(key) {
            None => Some(None),
            Some(v) => decode(v).map(Some),
        };
    let optional = |key: &str| optional_with(key, &json::string);
    let resource = Resource {
        uri: members.get("uri").and_then(json::string)?,
        mime_type: optional("mimeType")?,
        text: optional_with("text", long)?,
        blob: optional_with("blob", long)?,
    };
    (resource.text.is_some() || resource.blob.is_some()).then_some(resource)
}

/// `block` with its `text` member replaced by `text` (removed when `None`);
/// in a `resource` block (`in_resource`), its resource's `text`. Every
/// other member keeps its value as received.
pub(crate) fn with_text(block: &RawValue, in_resource: bool, text: Option<&str>) -> String {
    let members = Members::of(block).expect("a textual block is an object");
    if in_resource {
        let resource = members.get("resource").expect("a textual resource has one");
        let inner = with_text(resource, false, text);
        return rewritten(&members, "resource", Some(&inner));
    }
    let new_text = text.map(|t| {
        let mut s = String::new();
        json::push_string(&mut s, t);
        s
    });
    rewritten(&members, "text", new_text.as_deref())
}

/// `members` as an object, the member `key` holding `value` (JSON), or
/// removed when `None`.
fn rewritten(members: &Members<'_>, key: &str, value: Option<&str>) -> String {
    let mut out = String::new();
    json::push_object(
        &mut out,
        members.unique().filter_map(|(k, v)| {
            if k == key {
                value.map(|value| (k, value))
            } else {
                Some((k, v.get()))
            }
        }),
    );
    out
}
