//! Replacing stale tool outputs by the component's placeholders.

use super::checks::{self, Checks};
use super::conversation::{Message, Part};
use super::text::size;
use tool_output_cap::{OverflowRef, Session, types::PrunePolicy};

/// Keep the newest tool output whole; older ones become placeholders.
const POLICY: PrunePolicy = PrunePolicy {
    keep_last: Some(1),
    max_total_bytes: None,
    max_total_tokens: None,
};

/// Prunes the tool messages of `messages` in place; adds the references
/// the placeholders keep to `kept`; returns the bytes saved.
pub fn prune(
    session: &mut Session,
    messages: &mut [Message],
    kept: &mut Vec<OverflowRef>,
    checks: &mut Checks,
) -> anyhow::Result<u64> {
    let tool_indices: Vec<usize> = (0..messages.len())
        .filter(|&i| matches!(messages[i], Message::Tool { .. }))
        .collect();
    let bodies: Vec<String> = tool_indices
        .iter()
        .map(|&i| messages[i].tool_text().unwrap_or_default())
        .collect();
    let pruned = session.prune(&bodies, &POLICY)?;
    let (mut placeholders, mut markers) = (Vec::new(), Vec::new());
    for &replaced in &pruned.replaced {
        let replaced = replaced as usize;
        let (before, after) = (&bodies[replaced], &pruned.messages[replaced]);
        let refs_before = comparable(&session.find_refs(before)?);
        let found_after = session.find_refs(after)?;
        let refs_after = comparable(&found_after);
        checks.record(checks::PRUNE_KEEPS_REFS, refs_before == refs_after, || {
            format!("{refs_before:?} became {refs_after:?}")
        });
        for reference in found_after {
            if !kept.iter().any(|k| k.tag == reference.tag) {
                kept.push(reference);
            }
        }
        if let Message::Tool {
            tool_call_id,
            content,
            ..
        } = &mut messages[tool_indices[replaced]]
        {
            let list = if refs_after.is_empty() {
                &mut markers
            } else {
                &mut placeholders
            };
            list.push(tool_call_id.clone());
            // A stale image goes too: the placeholder stands for the whole result.
            *content = vec![Part::Text {
                text: after.clone(),
            }];
        }
    }
    let mut became = Vec::new();
    if !placeholders.is_empty() {
        became.push(format!("{} -> placeholder", placeholders.join(", ")));
    }
    if !markers.is_empty() {
        became.push(format!("{} -> marker", markers.join(", ")));
    }
    if !became.is_empty() {
        println!(
            "  prune  {}: {} saved",
            became.join(", "),
            size(pruned.bytes_saved)
        );
    }
    Ok(pruned.bytes_saved)
}

/// References as comparable tuples (the generated record has no `PartialEq`).
pub fn comparable(refs: &[OverflowRef]) -> Vec<(String, u64, u64, String, String)> {
    refs.iter()
        .map(|r| {
            (
                r.path.clone(),
                r.bytes,
                r.lines,
                r.digest.clone(),
                r.tag.clone(),
            )
        })
        .collect()
}
