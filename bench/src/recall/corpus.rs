//! The recall corpus: tool outputs shaped like the real thing (build logs,
//! test runs, server logs with stack traces, kubectl, npm, grep over
//! minified bundles, JSON API replies, diffs, progress logs), generated from
//! fixed seeds: no data files, no network, the same bytes on every machine.
//!
//! Each case carries 2 to 5 needles: exact substrings of its text that a
//! model needs for the task the output answers (a compiler error and its
//! location, a failing test and its assertion, an exception and the frame in
//! the application's code, a pod and its reason, a JSON field's value). A
//! needle's position class comes from where it first occurs, never by hand.

use super::{build, data, failures, listings, logs, runs};

/// Kinds of tool output, for the per-family view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// Compiler and build-tool output: cargo, make, maven, eslint, docker
    /// build, terraform.
    Build,
    /// Test runners: pytest, jest, go test, cargo test.
    TestRun,
    /// Timestamped service logs with stack traces.
    ServerLog,
    /// `kubectl get events`, `kubectl get pods`.
    Kubectl,
    /// `npm ci`, `npm run --workspaces`.
    Npm,
    /// `grep -rn` over minified bundles: few, huge lines.
    Grep,
    /// A whole JSON document from an API.
    Json,
    /// Unified diffs: `git diff`, `git log -p`.
    Diff,
    /// Download and training progress, thousands of near-identical lines.
    Progress,
    /// `find` listings, CSV exports, tables of numbers.
    Listing,
}

impl Family {
    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Family::Build => "build log",
            Family::TestRun => "test run",
            Family::ServerLog => "server log",
            Family::Kubectl => "kubectl",
            Family::Npm => "npm",
            Family::Grep => "grep, minified",
            Family::Json => "JSON reply",
            Family::Diff => "diff",
            Family::Progress => "progress log",
            Family::Listing => "listing, table",
        }
    }
}

/// Where a needle first occurs in its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Position {
    /// In the first 10% of the bytes.
    Head,
    /// Neither head nor tail.
    Middle,
    /// In the last 10% of the bytes.
    Tail,
}

impl Position {
    /// Every class, in table order.
    pub const ALL: [Position; 3] = [Position::Head, Position::Middle, Position::Tail];

    /// The class of a needle starting at byte `at` of a text of `len` bytes.
    pub fn of(at: usize, len: usize) -> Position {
        if at < len / 10 {
            Position::Head
        } else if at >= len - len / 10 {
            Position::Tail
        } else {
            Position::Middle
        }
    }

    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Position::Head => "head",
            Position::Middle => "middle",
            Position::Tail => "tail",
        }
    }
}

/// One exact string a model needs.
#[derive(Debug, Clone)]
pub struct Needle {
    /// The string, verbatim.
    pub text: String,
    /// Where it first occurs.
    pub position: Position,
}

/// One tool output and what a model needs from it.
#[derive(Debug, Clone)]
pub struct Case {
    /// Unique name: the command that could have printed it.
    pub name: String,
    /// Its kind.
    pub family: Family,
    /// The exit status of the command (0 for a log or listing that was
    /// read without error); a host passes it with the call.
    pub exit_code: i32,
    /// The output.
    pub text: String,
    /// 2 to 5 needles.
    pub needles: Vec<Needle>,
    /// What the command searched for, as a host passes it with the call
    /// ([`search_of`]): set for the grep commands.
    pub search: Option<String>,
}

/// The literal alternatives a host derives from a `grep` command line: its
/// quoted pattern, split at grep's `\|`, one per line; `None` for any
/// other command.
pub fn search_of(command: &str) -> Option<String> {
    let rest = command.strip_prefix("grep ")?;
    let open = rest.find('"')?;
    let close = rest[open + 1..].find('"')? + open + 1;
    let pattern = &rest[open + 1..close];
    Some(pattern.split("\\|").collect::<Vec<_>>().join("\n"))
}

/// The whole corpus, in a fixed order.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(build::cases());
    all.extend(runs::cases());
    all.extend(logs::cases());
    all.extend(data::cases());
    all.extend(failures::cases());
    all.extend(listings::cases());
    all
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;
    use crate::corpus::{KIB, MIB};

    #[test]
    fn corpus_has_enough_realistic_cases() {
        let all = cases();
        assert!(all.len() >= 30, "{} cases", all.len());
        let names: HashSet<&str> = all.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), all.len(), "case names are unique");
        let families: std::collections::BTreeSet<Family> = all.iter().map(|c| c.family).collect();
        assert_eq!(families.len(), 10, "every family is present");
        for c in &all {
            let size = c.text.len();
            assert!(
                (50 * KIB..=4 * MIB).contains(&size),
                "{}: {size} bytes",
                c.name
            );
            assert!(
                (2..=5).contains(&c.needles.len()),
                "{}: {} needles",
                c.name,
                c.needles.len()
            );
        }
    }

    #[test]
    fn every_needle_occurs_in_its_text_and_rarely() {
        for c in cases() {
            for n in &c.needles {
                let count = c.text.matches(n.text.as_str()).count();
                assert!(count >= 1, "{}: {:?} missing", c.name, n.text);
                // A needle is what a model looks for: the output holds it
                // once, or a few times when the tool repeats it in a summary.
                assert!(count <= 3, "{}: {:?} occurs {count} times", c.name, n.text);
                let at = c.text.find(n.text.as_str()).unwrap();
                assert_eq!(n.position, Position::of(at, c.text.len()), "{}", c.name);
                assert!(
                    !n.text.trim().is_empty() && n.text.len() >= 8,
                    "{:?}",
                    n.text
                );
            }
        }
    }

    #[test]
    fn corpus_is_deterministic() {
        let digest = |all: &[Case]| {
            all.iter()
                .map(|c| toolcap_core::naming::content_digest(c.text.as_bytes()))
                .collect::<Vec<_>>()
        };
        let (a, b) = (cases(), cases());
        assert_eq!(digest(&a), digest(&b));
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.text, y.text, "{}", x.name);
            let nx: Vec<_> = x.needles.iter().map(|n| (&n.text, n.position)).collect();
            let ny: Vec<_> = y.needles.iter().map(|n| (&n.text, n.position)).collect();
            assert_eq!(nx, ny, "{}", x.name);
        }
    }

    #[test]
    fn positions_are_mixed_with_most_in_the_middle() {
        let mut by: BTreeMap<Position, usize> = BTreeMap::new();
        for c in cases() {
            for n in &c.needles {
                *by.entry(n.position).or_default() += 1;
            }
        }
        let total: usize = by.values().sum();
        let middle = by.get(&Position::Middle).copied().unwrap_or(0);
        assert!(middle * 2 > total, "{by:?}");
        assert!(by.get(&Position::Head).copied().unwrap_or(0) > 0, "{by:?}");
        assert!(by.get(&Position::Tail).copied().unwrap_or(0) > 0, "{by:?}");
    }

    #[test]
    fn json_replies_are_valid_json() {
        for c in cases().iter().filter(|c| c.family == Family::Json) {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(&c.text);
            assert!(parsed.is_ok(), "{}: {:?}", c.name, parsed.err());
        }
    }
}
