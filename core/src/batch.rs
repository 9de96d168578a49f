//! A whole turn at once: measure every pending result, plan one budget each
//! ([`crate::plan`]), cap them, and check that together they fit.
//!
//! The plan shares the limits out in proportion to each text's density; a
//! preview's own density can differ a little (the notice is plain English,
//! the tail may be denser than the whole). So after capping, the totals are
//! measured as the next request will carry them, and while one is over,
//! the cut results shrink in proportion and are capped again, a few rounds
//! at most. Each round only lowers budgets, so it ends; what comes back is
//! within every limit, or the call fails.

use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Capped, Capper, SpillStore};
use crate::error::CapError;
use crate::parts::{CappedParts, Part, cap_parts, fixed_cost, joined_text};
use crate::plan::{RequestLimits, ResultSize, json_string_len, plan};

/// One pending result of a turn. Mirrors WIT `pending-result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// A text result.
    Text(String),
    /// A structured result.
    Parts(Vec<Part>),
}

/// One capped result of a turn. Mirrors WIT `batch-result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchResult {
    /// From a text result.
    Text(Capped),
    /// From a structured result.
    Parts(CappedParts),
}

impl BatchResult {
    /// Its estimated tokens and body bytes, as the next request carries it.
    fn cost(&self, capper: &Capper) -> (u64, u64) {
        match self {
            BatchResult::Text(c) => (c.tokens, json_string_len(&c.text)),
            BatchResult::Parts(p) => {
                let (_, fixed_body) = fixed_cost(capper.estimator(), &p.parts);
                let text: u64 = p
                    .parts
                    .iter()
                    .filter_map(|part| match part {
                        Part::Text(t) => Some(json_string_len(t)),
                        Part::Resource(r) => r.text.as_deref().map(json_string_len),
                        _ => None,
                    })
                    .sum();
                (p.report.tokens, text.saturating_add(fixed_body))
            }
        }
    }

    fn truncated(&self) -> bool {
        match self {
            BatchResult::Text(c) => c.truncated,
            BatchResult::Parts(p) => p.report.truncated,
        }
    }
}

/// What `pending` takes in the next request, whole.
pub fn size_of(capper: &Capper, pending: &Pending) -> ResultSize {
    let estimator = capper.estimator();
    match pending {
        Pending::Text(t) => ResultSize {
            bytes: t.len() as u64,
            tokens: estimator.estimate(t),
            body_bytes: json_string_len(t),
            media_tokens: 0,
            media_body_bytes: 0,
        },
        Pending::Parts(parts) => {
            let text = joined_text(parts);
            let (media_tokens, media_body_bytes) = fixed_cost(estimator, parts);
            ResultSize {
                bytes: text.len() as u64,
                tokens: estimator.estimate(&text),
                body_bytes: json_string_len(&text),
                media_tokens,
                media_body_bytes,
            }
        }
    }
}

/// One budget per pending result ([`plan`] over their sizes).
pub fn plan_turn(
    capper: &Capper,
    pending: &[Pending],
    limits: &RequestLimits,
) -> Result<Vec<Budget>, CapError> {
    let sizes: Vec<ResultSize> = pending.iter().map(|p| size_of(capper, p)).collect();
    plan(&sizes, limits, capper.room())
}

/// Rounds of shrinking after the planned caps, at most.
const ROUNDS: usize = 6;

/// Plan and cap a turn: the results, in order, together within every limit.
pub fn cap_batch(
    capper: &Capper,
    turn: &[(Call, Pending)],
    limits: &RequestLimits,
    store: &mut dyn SpillStore,
) -> Result<Vec<BatchResult>, CapError> {
    for (call, _) in turn {
        call.validate()?;
    }
    let pending: Vec<Pending> = turn.iter().map(|(_, p)| p.clone()).collect();
    let mut budgets = plan_turn(capper, &pending, limits)?;
    let cap_one = |i: usize, budget: &Budget, store: &mut dyn SpillStore| {
        let (call, p) = &turn[i];
        match p {
            Pending::Text(t) => capper
                .cap_call(t, budget, call, store)
                .map(BatchResult::Text),
            Pending::Parts(parts) => {
                cap_parts(capper, parts.clone(), budget, call, store).map(BatchResult::Parts)
            }
        }
    };
    let mut out = Vec::with_capacity(turn.len());
    for (i, budget) in budgets.iter().enumerate() {
        out.push(cap_one(i, budget, store)?);
    }
    let least = capper.room().bytes as u32;
    for _ in 0..ROUNDS {
        let (tokens, body) = totals(capper, &out);
        // How far over each limit the turn is, as a ratio to shrink by.
        let over = |used: u64, limit: Option<u64>| {
            limit.filter(|&l| used > l).map(|l| l as f64 / used as f64)
        };
        let ratio = match (
            over(tokens, limits.max_tokens),
            over(body, limits.max_body_bytes),
        ) {
            (None, None) => return Ok(out),
            (a, b) => a.unwrap_or(1.0).min(b.unwrap_or(1.0)) * 0.97,
        };
        let mut shrunk_any = false;
        for (i, result) in out.iter_mut().enumerate() {
            let budget = &mut budgets[i];
            if !result.truncated() || budget.max_bytes <= least {
                continue;
            }
            let next = ((f64::from(budget.max_bytes) * ratio) as u32)
                .min(budget.max_bytes - 1)
                .max(least);
            budget.max_bytes = next;
            if let Some(t) = budget.max_tokens.as_mut() {
                *t = ((f64::from(*t) * ratio) as u32).max(capper.room().tokens as u32);
            }
            *result = cap_one(i, budget, store)?;
            shrunk_any = true;
        }
        if !shrunk_any {
            break;
        }
    }
    let (tokens, body) = totals(capper, &out);
    if limits.max_tokens.is_some_and(|l| tokens > l)
        || limits.max_body_bytes.is_some_and(|l| body > l)
    {
        return Err(CapError::InvalidBudget(format!(
            "the results cut to the least budget still take {tokens} tokens and {body} body \
             bytes, over the limits: send fewer results in this request"
        )));
    }
    Ok(out)
}

/// Tokens and body bytes of a turn's results together.
fn totals(capper: &Capper, out: &[BatchResult]) -> (u64, u64) {
    out.iter()
        .map(|r| r.cost(capper))
        .fold((0, 0), |(t, b), (ct, cb)| (t + ct, b + cb))
}
