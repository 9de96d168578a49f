//! What one run of the agent loop did: how it ended and what it sent.

use tool_output_cap::{OverflowRef, types::OverflowKind};

use super::read_tool::ReadBack;

/// How a run ended.
pub enum Outcome {
    /// The model gave its final answer.
    Answered,
    /// The provider refused a request; `kind` is what `classify` made of it.
    Rejected {
        status: u16,
        kind: Option<OverflowKind>,
    },
    /// The script ran out of requests.
    NoAnswer,
}

/// What one run did, for the summary and the checks.
pub struct RunReport {
    pub label: &'static str,
    pub requests: usize,
    pub bytes_sent: u64,
    pub largest_request: u64,
    pub bytes_spilled: u64,
    pub bytes_saved_by_pruning: u64,
    pub outcome: Outcome,
    /// What the read tool read back, in order.
    pub read_backs: Vec<ReadBack>,
    /// The references that pruned placeholders kept.
    pub pruned_refs: Vec<OverflowRef>,
    /// The model's final answer, if it gave one.
    pub answer: Option<String>,
}
