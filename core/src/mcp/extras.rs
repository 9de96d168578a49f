//! What a result shows the model beside its texts, media and structured
//! content: blocks of an unknown type or a known type with fields missing
//! (`other` parts, `resource_link`), the server's own `_meta` members, and
//! members MCP does not define. They count against the budget as the
//! structured content does, so that nothing over budget passes uncounted.
//! Kept while they take at most half of it; beyond that they become text
//! (their JSON), cut and saved with the texts, so nothing is lost either.

use serde_json::value::RawValue;

use super::blocks::McpResult;
use super::json;
use crate::budget::Budget;
use crate::parts::Part;
use crate::tokens::TokenEstimator;

/// The result members `cap-mcp` handles itself; any other is an extra.
const HANDLED: [&str; 4] = ["content", "structuredContent", "_meta", "isError"];

/// The size of the extras, as the budget sees them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Extras {
    pub(crate) bytes: u64,
    /// Estimated only when the budget limits tokens.
    pub(crate) tokens: u64,
}

impl Extras {
    /// The extras of `parsed`, whose blocks map to `parts`.
    pub(crate) fn of(
        parsed: &McpResult<'_>,
        parts: &[Part],
        estimator: &TokenEstimator,
        budget: &Budget,
    ) -> Self {
        let mut extras = Self::default();
        let mut add = |json: &str| {
            extras.bytes += json.len() as u64;
            if budget.max_tokens.is_some() {
                extras.tokens += estimator.estimate(json);
            }
        };
        for part in parts {
            if let Part::Other(json) = part {
                add(json);
            }
        }
        if let Some(json) = top_level_json(parsed) {
            add(&json);
        }
        extras
    }

    /// Whether they may keep their place: at most half of the budget's
    /// bytes (and tokens when limited).
    pub(crate) fn may_stay(&self, budget: &Budget) -> bool {
        self.bytes * 2 <= u64::from(budget.max_bytes)
            && budget
                .max_tokens
                .is_none_or(|t| self.tokens * 2 <= u64::from(t))
    }
}

/// Whether `key` of the result object is an extra.
pub(crate) fn is_extra_member(key: &str) -> bool {
    !HANDLED.contains(&key)
}

/// The top-level extras as one JSON object (the server's `_meta` members
/// under `_meta`, then the other members in order); `None` when there are none.
fn top_level_json(parsed: &McpResult<'_>) -> Option<String> {
    let meta = parsed.meta.as_ref().filter(|m| !m.0.is_empty()).map(|m| {
        let mut out = String::new();
        json::push_object(&mut out, m.unique().map(|(k, v)| (k, v.get())));
        out
    });
    let others: Vec<(&str, &RawValue)> = parsed
        .members
        .unique()
        .filter(|(k, _)| is_extra_member(k))
        .collect();
    if meta.is_none() && others.is_empty() {
        return None;
    }
    let mut out = String::new();
    json::push_object(
        &mut out,
        meta.as_deref()
            .map(|m| ("_meta", m))
            .into_iter()
            .chain(others.iter().map(|(k, v)| (*k, v.get()))),
    );
    Some(out)
}

/// `parts` with the extras as text: each `other` block's JSON in its
/// place, and the top-level extras as one text after the blocks.
pub(crate) fn as_text(parts: Vec<Part>, parsed: &McpResult<'_>) -> Vec<Part> {
    let mut out: Vec<Part> = parts
        .into_iter()
        .map(|p| match p {
            Part::Other(json) => Part::Text(json),
            other => other,
        })
        .collect();
    out.extend(top_level_json(parsed).map(Part::Text));
    out
}
