//! The one table the report prints: path, size, median, throughput and the
//! ratio to the baseline measured in the same run, as Markdown, ready for the
//! README.

use std::fmt::Write as _;
use std::time::Duration;

use crate::corpus::{KIB, MIB};

/// One measured path and how it compares with its baseline.
#[derive(Debug, Clone)]
pub struct Row {
    /// What ran: layer, operation, input kind.
    pub path: String,
    /// Bytes of input, when the path has one.
    pub size: Option<usize>,
    /// Median time of one call.
    pub median: Duration,
    /// The baseline's name and its median, measured in the same rounds.
    pub baseline: Option<(String, Duration)>,
}

impl Row {
    /// A row compared with `baseline`.
    pub fn vs(
        path: impl Into<String>,
        size: Option<usize>,
        median: Duration,
        baseline: &str,
        baseline_median: Duration,
    ) -> Row {
        Row {
            path: path.into(),
            size,
            median,
            baseline: Some((baseline.to_owned(), baseline_median)),
        }
    }

    /// A row that is itself the baseline of others.
    pub fn alone(path: impl Into<String>, size: Option<usize>, median: Duration) -> Row {
        Row {
            path: path.into(),
            size,
            median,
            baseline: None,
        }
    }

    /// Median divided by the baseline's median.
    pub fn ratio(&self) -> Option<f64> {
        let (_, base) = self.baseline.as_ref()?;
        Some(self.median.as_secs_f64() / base.as_secs_f64())
    }
}

/// The rows as a Markdown table.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::from(
        "| path | size | median | throughput | ratio | baseline (its median) |\n\
         |---|---:|---:|---:|---:|---|\n",
    );
    for row in rows {
        let size = row.size.map_or_else(|| "-".to_owned(), bytes);
        let speed = row
            .size
            .filter(|&s| s >= 64 * KIB)
            .map_or_else(|| "-".to_owned(), |s| throughput(s, row.median));
        let (ratio, baseline) = match (&row.baseline, row.ratio()) {
            (Some((name, base)), Some(r)) => (ratio(r), format!("{name} ({})", time(*base))),
            _ => ("-".to_owned(), "-".to_owned()),
        };
        let _ = writeln!(
            out,
            "| {} | {size} | {} | {speed} | {ratio} | {baseline} |",
            row.path,
            time(row.median)
        );
    }
    out
}

/// A ratio with two decimals, or two significant digits below 0.1 (a warm
/// cache's 0.02x is not 0.00x).
fn ratio(r: f64) -> String {
    if r >= 0.1 || r <= 0.0 {
        format!("{r:.2}x")
    } else {
        let decimals = (-r.log10()).floor() as usize + 2;
        format!("{r:.decimals$}x")
    }
}

/// A size in the unit it was chosen in.
pub fn bytes(n: usize) -> String {
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= MIB {
        format!("{:.2} MiB", n as f64 / MIB as f64)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} B")
    }
}

/// A duration with three significant digits and a readable unit.
pub fn time(d: Duration) -> String {
    let ns = d.as_secs_f64() * 1e9;
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "us")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {unit}")
}

fn throughput(size: usize, d: Duration) -> String {
    let gbps = size as f64 / d.as_secs_f64() / 1e9;
    if gbps >= 1.0 {
        format!("{gbps:.2} GB/s")
    } else {
        format!("{:.0} MB/s", gbps * 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_ratio_and_units() {
        let rows = [
            Row::vs(
                "cap",
                Some(64 * MIB),
                Duration::from_millis(50),
                "memcpy",
                Duration::from_millis(10),
            ),
            Row::alone("compile", None, Duration::from_micros(1500)),
        ];
        let t = render(&rows);
        assert!(t.contains("| cap | 64 MiB | 50.0 ms | 1.34 GB/s | 5.00x | memcpy (10.0 ms) |"));
        assert!(t.contains("| compile | - | 1.50 ms | - | - | - |"));
        assert_eq!(time(Duration::from_nanos(812)), "812 ns");
        assert_eq!(ratio(2.456), "2.46x");
        assert_eq!(ratio(0.0234), "0.023x");
        assert_eq!(ratio(0.00307), "0.0031x");
    }
}
