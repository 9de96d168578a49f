//! The summary table of the runs.

use super::run::{Outcome, RunReport};
use super::text::{kind_name, size};

/// The summary table of both runs.
pub fn print_summary(reports: &[RunReport]) {
    println!(
        "{:<24}{:>9}{:>12}{:>15}{:>18}  outcome",
        "run", "requests", "bytes sent", "bytes spilled", "saved by pruning"
    );
    for report in reports {
        let outcome = match &report.outcome {
            Outcome::Answered => "answered".to_owned(),
            Outcome::Rejected {
                status,
                kind: Some(kind),
            } => format!("failed: {status} {}", kind_name(*kind)),
            Outcome::Rejected { status, kind: None } => format!("failed: {status}"),
            Outcome::NoAnswer => "no answer".to_owned(),
        };
        println!(
            "{:<24}{:>9}{:>12}{:>15}{:>18}  {outcome}",
            report.label,
            report.requests,
            size(report.bytes_sent),
            size(report.bytes_spilled),
            size(report.bytes_saved_by_pruning),
        );
    }
}
