//! Pruning stale tool outputs of a conversation without losing references.

use crate::refs::{OverflowRef, PRUNED_PREFIX, RefScheme};
use crate::tokens::TokenEstimator;

/// Which messages to prune. Mirrors WIT `prune-policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrunePolicy {
    /// Keep the newest this many; `None` prunes nothing by age.
    pub keep_last: Option<u32>,
    /// Then prune oldest first until the total fits; wins over `keep_last`.
    pub max_total_bytes: Option<u64>,
    /// Likewise in estimated tokens; both targets hold when both are set.
    pub max_total_tokens: Option<u64>,
}

/// Result of [`prune`]. Mirrors WIT `pruned`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// The bodies after pruning, in the given order.
    pub messages: Vec<String>,
    /// Indices of the bodies this call replaced.
    pub replaced: Vec<u32>,
    /// Total size before minus total size after.
    pub bytes_saved: u64,
    /// Total size after.
    pub total_bytes: u64,
    /// Estimated tokens after.
    pub total_tokens: u64,
}

const MARKER_SUFFIX: &str = " bytes, not saved]";

/// The marker for a pruned body that held no reference.
pub fn marker(bytes: usize) -> String {
    format!("{PRUNED_PREFIX}{bytes}{MARKER_SUFFIX}")
}

fn is_marker(body: &str) -> bool {
    body.strip_prefix(PRUNED_PREFIX)
        .and_then(|rest| rest.strip_suffix(MARKER_SUFFIX))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// What a body becomes when pruned: its genuine references as placeholders
/// (one per line, duplicates once), or a marker. A reference that does not
/// verify is not carried over, and its body is not kept whole either: the
/// shape of a reference is public (every notice shows it), so keeping such
/// bodies would let any tool output pin itself in the conversation and
/// defeat `max_total_bytes`. References inside JSON strings verify like any
/// other (see [`RefScheme::find_refs`]).
fn replacement(scheme: &RefScheme, body: &str) -> String {
    let mut refs: Vec<OverflowRef> = Vec::new();
    for r in scheme.find_refs(body) {
        if !refs.iter().any(|seen| seen.path == r.path) {
            refs.push(r);
        }
    }
    if refs.is_empty() {
        return marker(body.len());
    }
    let lines: Vec<String> = refs
        .iter()
        .map(|r| format!("{PRUNED_PREFIX}{}", RefScheme::token(r)))
        .collect();
    lines.join("\n")
}

/// True when `body` is already a marker or consists only of genuine
/// placeholders of this session.
fn is_pruned(scheme: &RefScheme, body: &str) -> bool {
    is_marker(body)
        || (body.starts_with(PRUNED_PREFIX)
            && body.split('\n').all(|line| {
                matches!(scheme.find_refs(line).as_slice(),
                    [r] if line == format!("{PRUNED_PREFIX}{}", RefScheme::token(r)))
            }))
}

/// Running totals of the bodies.
#[derive(Debug, Clone, Copy)]
struct Totals {
    bytes: u64,
    tokens: u64,
}

/// Prune `messages` (oldest first) under `policy`, counting tokens with
/// `estimator`. A body is replaced only if that makes it smaller. One aged
/// out by `keep_last` becomes a marker only if that at least halves it: the
/// marker keeps none of its text, and a short result (`42`, `ok: 3 files`)
/// is worth more to the model than the bytes it would save. Over
/// `max_total_bytes` or `max_total_tokens` every saving counts. Already
/// pruned bodies are never touched.
pub fn prune(
    scheme: &RefScheme,
    messages: &[String],
    policy: PrunePolicy,
    estimator: &TokenEstimator,
) -> Pruned {
    let mut out: Vec<String> = messages.to_vec();
    let mut tokens: Vec<u64> = messages.iter().map(|m| estimator.estimate(m)).collect();
    let before: u64 = messages.iter().map(|m| m.len() as u64).sum();
    let mut total = Totals {
        bytes: before,
        tokens: tokens.iter().sum(),
    };
    let mut replaced = Vec::new();
    let aged = policy
        .keep_last
        .map_or(0, |k| messages.len().saturating_sub(k as usize));
    let mut try_replace = |i: usize, out: &mut Vec<String>, total: &mut Totals, aging: bool| {
        if is_pruned(scheme, &out[i]) {
            return;
        }
        let new = replacement(scheme, &out[i]);
        let worth_it = if aging && is_marker(&new) {
            new.len().saturating_mul(2) <= out[i].len()
        } else {
            new.len() < out[i].len()
        };
        if worth_it {
            let new_tokens = estimator.estimate(&new);
            total.bytes -= (out[i].len() - new.len()) as u64;
            total.tokens = total.tokens - tokens[i] + new_tokens;
            tokens[i] = new_tokens;
            out[i] = new;
            replaced.push(i as u32);
        }
    };
    for i in 0..aged {
        try_replace(i, &mut out, &mut total, true);
    }
    let over = |t: &Totals| {
        policy.max_total_bytes.is_some_and(|l| t.bytes > l)
            || policy.max_total_tokens.is_some_and(|l| t.tokens > l)
    };
    for i in 0..out.len() {
        if !over(&total) {
            break;
        }
        try_replace(i, &mut out, &mut total, false);
    }
    replaced.sort_unstable();
    replaced.dedup();
    Pruned {
        messages: out,
        replaced,
        bytes_saved: before - total.bytes,
        total_bytes: total.bytes,
        total_tokens: total.tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming;

    fn prune_test(s: &RefScheme, messages: &[String], policy: PrunePolicy) -> Pruned {
        prune(s, messages, policy, &TokenEstimator::default())
    }

    #[test]
    fn token_budget_prunes_oldest_first_and_counts_tokens() {
        let s = scheme();
        let e = TokenEstimator::default();
        let msgs: Vec<String> = (0..4)
            .map(|i| format!("word{i} and more words ").repeat(200))
            .collect();
        let each = e.estimate(&msgs[0]);
        let p = prune(
            &s,
            &msgs,
            PrunePolicy {
                keep_last: None,
                max_total_bytes: None,
                max_total_tokens: Some(each * 5 / 2),
            },
            &e,
        );
        assert_eq!(p.replaced, vec![0, 1]);
        assert!(
            p.total_tokens <= each * 5 / 2,
            "{} > {}",
            p.total_tokens,
            each * 5 / 2
        );
        let recount: u64 = p.messages.iter().map(|m| e.estimate(m)).sum();
        assert_eq!(p.total_tokens, recount);
        // Both targets hold when both are set: the stricter decides.
        let both = prune(
            &s,
            &msgs,
            PrunePolicy {
                keep_last: None,
                max_total_bytes: Some(msgs[0].len() as u64 + 300),
                max_total_tokens: Some(each * 5 / 2),
            },
            &e,
        );
        assert_eq!(both.replaced, vec![0, 1, 2]);
    }

    fn scheme() -> RefScheme {
        RefScheme::new("/spill", "t1", vec![3; 16]).unwrap()
    }

    fn body_with_ref(s: &RefScheme, content: &str) -> (String, OverflowRef) {
        let d = naming::content_digest(content.as_bytes());
        let r = s.make_ref(
            &naming::spill_file_name("c", &d),
            content.len() as u64,
            1,
            &d,
        );
        let body = format!(
            "{}\n[full output saved; {}",
            "x".repeat(500),
            RefScheme::token(&r)
        );
        (body, r)
    }

    #[test]
    fn keeps_last_n_and_turns_refs_into_placeholders() {
        let s = scheme();
        let (with_ref, r) = body_with_ref(&s, "abc");
        let msgs = vec![with_ref, "y".repeat(300), "new".to_owned()];
        let p = prune_test(
            &s,
            &msgs,
            PrunePolicy {
                keep_last: Some(1),
                max_total_bytes: None,
                max_total_tokens: None,
            },
        );
        assert_eq!(p.replaced, vec![0, 1]);
        assert_eq!(p.messages[0], s.placeholder(&r).unwrap());
        assert_eq!(p.messages[1], marker(300));
        assert_eq!(p.messages[2], "new");
        assert_eq!(s.find_refs(&p.messages.join("\n")), vec![r]);
        let before: usize = msgs.iter().map(String::len).sum();
        assert_eq!(p.bytes_saved as usize, before - p.total_bytes as usize);
    }

    #[test]
    fn already_pruned_bodies_stay_and_small_bodies_are_kept() {
        let s = scheme();
        let (with_ref, _) = body_with_ref(&s, "abc");
        let once = prune_test(
            &s,
            &[with_ref],
            PrunePolicy {
                keep_last: Some(0),
                max_total_bytes: None,
                max_total_tokens: None,
            },
        );
        let again = prune_test(
            &s,
            &once.messages,
            PrunePolicy {
                keep_last: Some(0),
                max_total_bytes: None,
                max_total_tokens: None,
            },
        );
        assert_eq!(again.messages, once.messages);
        assert!(again.replaced.is_empty());
        let tiny = prune_test(
            &s,
            &["ok".to_owned()],
            PrunePolicy {
                keep_last: Some(0),
                max_total_bytes: None,
                max_total_tokens: None,
            },
        );
        assert_eq!(tiny.messages, vec!["ok".to_owned()]);
        // A short result is kept until its marker would at least halve it.
        let short = "answer: 42, from the service status page (HTTP 200)".to_owned();
        let long = format!("{short} and more{}", " words".repeat(10));
        let pruned = prune_test(
            &s,
            &[short.clone(), long.clone()],
            PrunePolicy {
                keep_last: Some(0),
                max_total_bytes: None,
                max_total_tokens: None,
            },
        );
        assert!(marker(short.len()).len() < short.len());
        assert_eq!(pruned.messages, vec![short.clone(), marker(long.len())]);
        assert_eq!(pruned.replaced, vec![1]);
        // Over a byte limit every saving counts.
        let over = prune_test(
            &s,
            std::slice::from_ref(&short),
            PrunePolicy {
                keep_last: None,
                max_total_bytes: Some(10),
                max_total_tokens: None,
            },
        );
        assert_eq!(over.messages, vec![marker(short.len())]);
    }

    #[test]
    fn byte_budget_prunes_oldest_first_even_within_keep_last() {
        let s = scheme();
        let msgs: Vec<String> = (0..4).map(|i| format!("{i}").repeat(1000)).collect();
        let p = prune_test(
            &s,
            &msgs,
            PrunePolicy {
                keep_last: Some(4),
                max_total_bytes: Some(2500),
                max_total_tokens: None,
            },
        );
        assert_eq!(p.replaced, vec![0, 1]);
        assert!(p.total_bytes <= 2500);
        assert_eq!(p.messages[2], msgs[2]);
    }

    #[test]
    fn json_encoded_body_keeps_its_reference() {
        let s = scheme();
        let (body, r) = body_with_ref(&s, "abc");
        let forged = body.replace(&r.tag, "0123456789abcdef");
        for slash in ["\\/", "\\u002f"] {
            // A tool message stored as JSON, as some encoders write `/`.
            let stored = |body: &str| {
                let escaped = body.replace('\n', "\\n").replace('/', slash);
                format!("{{\"role\":\"tool\",\"content\":\"{escaped}\"}}")
            };
            let p = prune_test(
                &s,
                &[stored(&body), stored(&forged)],
                PrunePolicy {
                    keep_last: Some(0),
                    max_total_bytes: None,
                    max_total_tokens: None,
                },
            );
            assert_eq!(p.messages[0], s.placeholder(&r).unwrap());
            // A reference that does not verify is not kept, escaped or not.
            assert_eq!(p.messages[1], marker(stored(&forged).len()));
        }
    }

    #[test]
    fn forged_placeholder_is_not_treated_as_pruned() {
        let s = scheme();
        let forged = format!(
            "{PRUNED_PREFIX}full content at /spill/t1/c-0123456789abcdef.txt] (ref bytes=1 lines=1 blake3=0123456789abcdef tag=0000000000000000){}",
            " ".repeat(100)
        );
        let p = prune_test(
            &s,
            std::slice::from_ref(&forged),
            PrunePolicy {
                keep_last: Some(0),
                max_total_bytes: None,
                max_total_tokens: None,
            },
        );
        assert_eq!(p.messages[0], marker(forged.len()));
    }
}
