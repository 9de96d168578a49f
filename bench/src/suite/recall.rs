//! Does the preview keep what a model needs? For every output of the recall
//! corpus (crate::recall), at 4, 8 and 16 KiB, the share of its needles that
//! occur verbatim in the preview, by where they are in the output, for the
//! 0.1 preview (head and tail) and the current one; and how much of the
//! budget the previews use. Counts, not times: nothing here is timed.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use toolcap_core::{Budget, Call, Capper, Keep, PreviewFeatures, PreviewSettings, RefScheme};

use crate::native::Discard;
use crate::recall::{self, Case, Family, Position};
use crate::table;

/// The budgets measured, in bytes.
pub const BUDGETS: [u32; 3] = [4096, 8192, 16384];
/// Longest preview line, as the hosts' default.
pub const MAX_LINE_BYTES: u32 = 2000;
/// Head share of the head-and-tail preview, as the hosts' default.
pub const HEAD_PERCENT: u8 = 40;
/// The targets at 16 KiB for the current preview.
const TARGET_OVERALL: f64 = 0.95;
const TARGET_MIDDLE: f64 = 0.90;

/// Which preview to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// The 0.1 preview: head and tail only.
    V01,
    /// What sessions do today, every preview feature on.
    Current,
}

impl Behaviour {
    /// Both, in table order.
    pub const ALL: [Behaviour; 2] = [Behaviour::V01, Behaviour::Current];

    fn name(self) -> &'static str {
        match self {
            Behaviour::V01 => "0.1 (head + tail)",
            Behaviour::Current => "current",
        }
    }
}

/// The text a model sees for the output `text` of a command that exited
/// with `exit_code`, under `max_bytes`: the one place that calls the core.
/// No line limit, lines over [`MAX_LINE_BYTES`] shortened, head and tail at
/// [`HEAD_PERCENT`]; a short display root; the spill is discarded (only the
/// notice's wording depends on it). The 0.1 preview knew only the call id;
/// the current one is told the exit code, as a host tells it.
pub fn preview(text: &str, exit_code: i32, max_bytes: u32, behaviour: Behaviour) -> String {
    preview_searching(text, exit_code, None, max_bytes, behaviour)
}

/// [`preview`] of a command that searched for `search` (the current
/// preview is told it, as a host tells it; 0.1 knew nothing of it).
pub fn preview_searching(
    text: &str,
    exit_code: i32,
    search: Option<&str>,
    max_bytes: u32,
    behaviour: Behaviour,
) -> String {
    let scheme = RefScheme::new("/spill", "recall", vec![7; 32]).expect("valid scheme");
    let (features, call) = match behaviour {
        Behaviour::V01 => (PreviewFeatures::NONE, Call::new("recall-call")),
        Behaviour::Current => (
            PreviewFeatures::ALL,
            Call {
                exit_code: Some(exit_code),
                search: search.map(str::to_owned),
                ..Call::new("recall-call")
            },
        ),
    };
    let settings = PreviewSettings {
        features,
        ..PreviewSettings::default()
    };
    let capper = Capper::with_settings(scheme, settings).expect("valid settings");
    let budget = Budget {
        max_bytes,
        max_lines: None,
        max_line_bytes: Some(MAX_LINE_BYTES),
        keep: Keep::HeadAndTail,
        head_percent: HEAD_PERCENT,
        max_tokens: None,
    };
    capper
        .cap_call(text, &budget, &call, &mut Discard)
        .expect("a valid budget")
        .text
}

/// A size in whole KiB, for the corpus's range.
fn kib(n: usize) -> String {
    format!("{} KiB", n.div_ceil(1024))
}

/// Needles seen out of needles looked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Needles found in the preview.
    pub visible: usize,
    /// Needles looked for.
    pub total: usize,
}

impl Tally {
    fn add(&mut self, seen: bool) {
        self.visible += usize::from(seen);
        self.total += 1;
    }

    /// The visible share, 0 to 1 (1 when nothing was looked for).
    pub fn share(self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.visible as f64 / self.total as f64
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.0}% ({}/{})",
            self.share() * 100.0,
            self.visible,
            self.total
        )
    }
}

/// One budget and behaviour over the whole corpus.
#[derive(Debug, Clone, Default)]
pub struct Measure {
    /// Every needle.
    pub overall: Tally,
    /// By position class.
    pub by_position: BTreeMap<Position, Tally>,
    /// By family.
    pub by_family: BTreeMap<Family, Tally>,
    /// Mean of preview bytes / max-bytes over the outputs that were cut.
    pub mean_use: f64,
    /// The least of those ratios.
    pub min_use: f64,
    /// Outputs that were cut (all of the corpus, at these budgets).
    pub cut: usize,
    /// Previews longer than max-bytes: must be 0.
    pub over_budget: usize,
    /// Needles not visible, as (case, needle).
    pub missed: Vec<(String, String)>,
}

/// Measures `behaviour` at `max_bytes` over `cases`.
pub fn measure(cases: &[Case], max_bytes: u32, behaviour: Behaviour) -> Measure {
    let mut m = Measure {
        min_use: f64::INFINITY,
        ..Measure::default()
    };
    let mut use_sum = 0.0;
    for case in cases {
        let search = case.search.as_deref();
        let shown = preview_searching(&case.text, case.exit_code, search, max_bytes, behaviour);
        if shown.len() > max_bytes as usize {
            m.over_budget += 1;
        }
        if case.text.len() > max_bytes as usize {
            let used = shown.len() as f64 / f64::from(max_bytes);
            use_sum += used;
            m.min_use = m.min_use.min(used);
            m.cut += 1;
        }
        for needle in &case.needles {
            let seen = shown.contains(needle.text.as_str());
            m.overall.add(seen);
            m.by_position.entry(needle.position).or_default().add(seen);
            m.by_family.entry(case.family).or_default().add(seen);
            if !seen {
                m.missed.push((case.name.clone(), needle.text.clone()));
            }
        }
    }
    m.mean_use = if m.cut == 0 {
        0.0
    } else {
        use_sum / m.cut as f64
    };
    if m.cut == 0 {
        m.min_use = 0.0;
    }
    m
}

/// The recall section of the report: one row per budget and behaviour, the
/// target check at 16 KiB, and the 16 KiB view by family.
pub fn report() -> String {
    let cases = recall::cases();
    report_of(&cases)
}

fn report_of(cases: &[Case]) -> String {
    let mut needles: BTreeMap<Position, usize> = BTreeMap::new();
    for n in cases.iter().flat_map(|c| &c.needles) {
        *needles.entry(n.position).or_default() += 1;
    }
    let total: usize = needles.values().sum();
    let smallest = cases.iter().map(|c| c.text.len()).min().unwrap_or(0);
    let largest = cases.iter().map(|c| c.text.len()).max().unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Preview recall: {} tool outputs ({} to {}), {total} needles ({}). Budget: max-bytes \
         as shown, max-lines none, max-line-bytes {MAX_LINE_BYTES}, head-and-tail with \
         head-percent {HEAD_PERCENT}. A needle is visible when it occurs verbatim in the \
         preview; budget used is preview bytes / max-bytes over the outputs cut.\n",
        cases.len(),
        kib(smallest),
        kib(largest),
        Position::ALL
            .iter()
            .map(|p| format!("{} {}", needles.get(p).copied().unwrap_or(0), p.name()))
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push_str(
        "| max-bytes | preview | needles visible | head | middle | tail | budget used (mean, min) | over budget |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut at_16 = Vec::new();
    for max in BUDGETS {
        for behaviour in Behaviour::ALL {
            let m = measure(cases, max, behaviour);
            let pos = |p| m.by_position.get(&p).copied().unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {:.0}%, {:.0}% | {} |",
                table::bytes(max as usize),
                behaviour.name(),
                m.overall,
                pos(Position::Head),
                pos(Position::Middle),
                pos(Position::Tail),
                m.mean_use * 100.0,
                m.min_use * 100.0,
                m.over_budget,
            );
            if max == 16384 {
                at_16.push((behaviour, m));
            }
        }
    }
    if let Some((_, m)) = at_16.iter().find(|(b, _)| *b == Behaviour::Current) {
        let middle = m
            .by_position
            .get(&Position::Middle)
            .copied()
            .unwrap_or_default();
        let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
        let _ = writeln!(
            out,
            "\nTarget at 16 KiB, current preview: at least {:.0}% of needles visible ({:.0}%: {}), \
             at least {:.0}% of middle needles ({:.0}%: {}), every preview within budget ({} over: {}).",
            TARGET_OVERALL * 100.0,
            m.overall.share() * 100.0,
            verdict(m.overall.share() >= TARGET_OVERALL),
            TARGET_MIDDLE * 100.0,
            middle.share() * 100.0,
            verdict(middle.share() >= TARGET_MIDDLE),
            m.over_budget,
            verdict(m.over_budget == 0),
        );
    }
    out.push_str("\nAt 16 KiB, by family:\n\n| family | outputs | needles |");
    for (b, _) in &at_16 {
        let _ = write!(out, " {} |", b.name());
    }
    out.push_str("\n|---|---:|---:|");
    for _ in &at_16 {
        out.push_str("---:|");
    }
    out.push('\n');
    let mut families: Vec<Family> = cases.iter().map(|c| c.family).collect();
    families.sort();
    families.dedup();
    for family in families {
        let outputs = cases.iter().filter(|c| c.family == family).count();
        let count: usize = cases
            .iter()
            .filter(|c| c.family == family)
            .map(|c| c.needles.len())
            .sum();
        let _ = write!(out, "| {} | {outputs} | {count} |", family.name());
        for (_, m) in &at_16 {
            let t = m.by_family.get(&family).copied().unwrap_or_default();
            let _ = write!(out, " {t} |");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preview_is_within_budget() {
        let cases = recall::cases();
        for max in BUDGETS {
            for behaviour in Behaviour::ALL {
                let m = measure(&cases, max, behaviour);
                assert_eq!(m.over_budget, 0, "{max} {behaviour:?}");
                assert_eq!(m.cut, cases.len(), "every output is over every budget");
                assert!(m.mean_use <= 1.0 && m.min_use > 0.0, "{max} {behaviour:?}");
            }
        }
    }

    #[test]
    fn a_fitting_output_is_its_own_preview_and_a_cut_one_is_a_prefix_plus_notice() {
        let small = "one\ntwo\n";
        for behaviour in Behaviour::ALL {
            assert_eq!(preview(small, 1, 4096, behaviour), small);
        }
        let big = "line of a log\n".repeat(10_000);
        let shown = preview(&big, 0, 4096, Behaviour::V01);
        assert!(shown.len() <= 4096);
        assert!(shown.starts_with("line of a log\n"));
        assert!(shown.contains("/spill/recall/"), "{shown}");
    }

    /// Recall does not fall as the budget grows: a needle of any output of
    /// the corpus visible at a budget is visible at twice that budget (JSON
    /// replies from 2 KiB, every output from 4 KiB).
    #[test]
    fn needles_stay_visible_as_the_budget_grows() {
        for case in recall::cases() {
            let from = if case.family == Family::Json {
                2048
            } else {
                4096
            };
            let search = case.search.as_deref();
            let at = |max| {
                preview_searching(&case.text, case.exit_code, search, max, Behaviour::Current)
            };
            let mut max = from;
            let mut small = at(max);
            while max < BUDGETS[BUDGETS.len() - 1] {
                let large = at(max * 2);
                for n in &case.needles {
                    assert!(
                        !small.contains(&n.text) || large.contains(&n.text),
                        "{}: {:?} visible at {max} but not at {}",
                        case.name,
                        n.text,
                        max * 2
                    );
                }
                (max, small) = (max * 2, large);
            }
        }
    }

    #[test]
    fn tally_counts_and_renders() {
        let mut t = Tally::default();
        t.add(true);
        t.add(false);
        t.add(true);
        assert_eq!(t.to_string(), "67% (2/3)");
        assert_eq!(Tally::default().share(), 1.0);
    }

    #[test]
    fn report_has_a_row_per_budget_and_behaviour() {
        let cases: Vec<Case> = recall::cases().into_iter().take(3).collect();
        let r = report_of(&cases);
        let rows = r
            .lines()
            .filter(|l| l.starts_with("| ") && l.contains(" KiB |"))
            .count();
        assert_eq!(rows, BUDGETS.len() * Behaviour::ALL.len(), "{r}");
        assert!(r.contains("Target at 16 KiB"), "{r}");
    }
}
