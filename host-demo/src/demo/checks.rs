//! The demo's invariants: each is checked where its data is, and the demo
//! fails if any broke or never got checked.

/// Run 1 (raw results) was rejected, and `classify` recognised the rejection.
pub const RAW_RUN_REJECTED: &str = "run 1 was rejected, and classify recognised it as an overflow";
/// Every request of run 2 was accepted and within both limits.
pub const CAPPED_REQUESTS_FIT: &str = "every run-2 request fit the body limit and context window";
/// Every capped text is within its budget's bytes and lines.
pub const WITHIN_BUDGET: &str = "every capped result is within its budget";
/// Every spill file holds exactly the tool's output.
pub const SPILL_EXACT: &str = "every spill file equals the tool output, byte for byte";
/// The build's output, written to a `cap-stream` in chunks as it arrived,
/// came back exactly as `cap` gives it for the whole text.
pub const STREAM_EQUALS_CAP: &str = "the streamed build output was capped exactly as cap caps it";
/// Every notice states the host's retention (`retention_seconds`).
pub const NOTICE_STATES_RETENTION: &str = "every notice says the full output is kept for 7 days";
/// Image parts come back from `cap_parts` unchanged and in place.
pub const IMAGE_UNTOUCHED: &str = "the image part passed through untouched";
/// The build error reached the model verbatim: its answer quotes it, and
/// what the read tool gave it is the spilled log's bytes.
pub const ERROR_LINE_RECOVERED: &str =
    "the build error reached the model verbatim (answer and read tool)";
/// The capped run answered from the build's preview, which shows the error's
/// whole block: 4 requests, nothing read back.
pub const ANSWERED_FROM_PREVIEW: &str =
    "run 2 answered from the build's preview in 4 requests, reading nothing back";
/// Every pruned body keeps exactly the references it had.
pub const PRUNE_KEEPS_REFS: &str = "pruned placeholders keep every reference";
/// Every reference a placeholder kept is in the thread's catalog (`list`).
pub const CATALOG_HAS_PRUNED: &str = "every pruned reference is in the thread's catalog (list)";
/// A sweep with the 7-day retention kept every spill of this run.
pub const SWEEP_KEEPS_RUN: &str = "a 7-day retention sweep kept every spill of this run";

/// A turn of parallel results, each within its budget, overflowed the
/// request when capped one by one.
pub const PARALLEL_UNPLANNED_REJECTED: &str =
    "a turn of parallel results, each within its budget, was rejected unplanned";
/// With `cap-batch` the same turn fit, and every cut result was spilled exactly.
pub const PARALLEL_PLANNED_FITS: &str =
    "with cap-batch the same turn fit, each full output spilled byte for byte";

const ALL: [&str; 14] = [
    RAW_RUN_REJECTED,
    CAPPED_REQUESTS_FIT,
    WITHIN_BUDGET,
    SPILL_EXACT,
    STREAM_EQUALS_CAP,
    NOTICE_STATES_RETENTION,
    IMAGE_UNTOUCHED,
    ERROR_LINE_RECOVERED,
    ANSWERED_FROM_PREVIEW,
    PRUNE_KEEPS_REFS,
    CATALOG_HAS_PRUNED,
    PARALLEL_UNPLANNED_REJECTED,
    PARALLEL_PLANNED_FITS,
    SWEEP_KEEPS_RUN,
];

struct Check {
    name: &'static str,
    passed: usize,
    failures: Vec<String>,
}

/// The tally of every invariant.
pub struct Checks {
    checks: Vec<Check>,
}

impl Default for Checks {
    fn default() -> Self {
        let checks = ALL.iter().map(|&name| Check {
            name,
            passed: 0,
            failures: Vec::new(),
        });
        Self {
            checks: checks.collect(),
        }
    }
}

impl Checks {
    /// Records one evaluation of the invariant `name`; `why` explains a failure.
    pub fn record(&mut self, name: &'static str, ok: bool, why: impl FnOnce() -> String) {
        let check = self
            .checks
            .iter_mut()
            .find(|check| check.name == name)
            .expect("known check");
        if ok {
            check.passed += 1;
        } else {
            check.failures.push(why());
        }
    }

    /// Prints one line per invariant; returns how many failed or never ran.
    pub fn print(&self) -> usize {
        let mut broken = 0;
        for check in &self.checks {
            match (check.failures.first(), check.passed) {
                (None, 0) => {
                    broken += 1;
                    println!("  FAIL  {} (never checked)", check.name);
                }
                (None, passed) => println!("  ok    {} ({passed}x)", check.name),
                (Some(first), _) => {
                    broken += 1;
                    println!("  FAIL  {}: {first}", check.name);
                }
            }
        }
        broken
    }
}
