//! Structured results: text shares one budget, media passes through.

use crate::budget::Budget;
use crate::cap::{Capped, Capper, SpillStore};
use crate::error::CapError;

/// Binary media, carried untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Media {
    /// Base64 data.
    pub data: String,
    /// MIME type.
    pub mime_type: String,
}

/// An embedded resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// URI.
    pub uri: String,
    /// MIME type.
    pub mime_type: Option<String>,
    /// Text contents, capped with the text parts.
    pub text: Option<String>,
    /// Base64 contents, carried untouched.
    pub blob: Option<String>,
}

/// One content part. Mirrors WIT `content-part`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text.
    Text(String),
    /// An image.
    Image(Media),
    /// Audio.
    Audio(Media),
    /// An embedded resource.
    Resource(Resource),
    /// Anything else.
    Other(String),
}

/// Parts fitted to a budget, and the accounting of their joined text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedParts {
    /// The parts to give the model.
    pub parts: Vec<Part>,
    /// The accounting; `report.text` is the joined text or its preview.
    pub report: Capped,
}

fn text_of(part: &Part) -> Option<&str> {
    match part {
        Part::Text(t) => Some(t),
        Part::Resource(Resource { text: Some(t), .. }) => Some(t),
        _ => None,
    }
}

/// Cap the text of `parts` as one document (texts joined by LF). If it fits,
/// the parts come back unchanged. Otherwise the first textual part becomes the
/// preview, later text parts are dropped, resource texts are removed (their
/// URI and blob stay), and every other part stays in place.
pub fn cap_parts(
    capper: &Capper,
    parts: Vec<Part>,
    budget: &Budget,
    call_id: &str,
    store: &mut dyn SpillStore,
) -> Result<CappedParts, CapError> {
    let joined = parts
        .iter()
        .filter_map(text_of)
        .collect::<Vec<_>>()
        .join("\n");
    let report = capper.cap(&joined, budget, call_id, store)?;
    if !report.truncated {
        return Ok(CappedParts { parts, report });
    }
    let mut out = Vec::with_capacity(parts.len());
    let mut preview_placed = false;
    for part in parts {
        let textual = text_of(&part).is_some();
        if textual && !preview_placed {
            out.push(Part::Text(report.text.clone()));
            preview_placed = true;
        }
        match part {
            Part::Text(_) => {}
            Part::Resource(r) if r.text.is_some() => {
                out.push(Part::Resource(Resource { text: None, ..r }))
            }
            other => out.push(other),
        }
    }
    Ok(CappedParts { parts: out, report })
}
