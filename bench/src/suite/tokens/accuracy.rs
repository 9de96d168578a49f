//! The estimate against exact counts: every text of the corpus cut into
//! samples (windows of 2 KiB and 16 KiB, and the whole text), each counted
//! by the estimator and by o200k_base and cl100k_base (bpe-openai, the same
//! counts as tiktoken), and the relative errors summed up per kind.

use std::fmt::Write as _;

use bpe_openai::Tokenizer;
use toolcap_core::tokens::TokenEstimator;

use super::corpus::Text;

/// Window sizes of the samples; `usize::MAX` stands for the whole text.
pub const WINDOWS: [usize; 3] = [2 * 1024, 16 * 1024, usize::MAX];
/// Most windows of one size taken from one text, spread evenly over it.
const MAX_WINDOWS: usize = 12;
/// The targets, for o200k: over all samples, the median error within
/// ±10%; and the issue's, in every kind (script, family of tool outputs) and
/// every source, on held-out samples:
pub const TARGET_MEDIAN: f64 = 0.10;
/// the 95th percentile of |error| within 20%,
pub const TARGET_P95: f64 = 0.20;
/// and under 5% of samples under-estimated by more than 10%.
pub const TARGET_UNDER: f64 = 0.05;
/// An estimate below the exact count by more than this is an under-estimate.
const UNDER: f64 = 0.10;

/// One sample and its three counts.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The kind of the text it comes from.
    pub kind: &'static str,
    /// The source of that text.
    pub source: &'static str,
    /// Whether that text was used to tune the rates.
    pub fit: bool,
    /// Its window size (`usize::MAX` for the whole text).
    pub window: usize,
    /// Its length in bytes.
    pub bytes: usize,
    /// The estimate.
    pub estimate: u64,
    /// The exact o200k_base count.
    pub o200k: u64,
    /// The exact cl100k_base count.
    pub cl100k: u64,
}

impl Sample {
    /// (estimate - exact) / exact, for o200k (`cl100k` false) or cl100k.
    pub fn error(&self, cl100k: bool) -> f64 {
        let exact = if cl100k { self.cl100k } else { self.o200k };
        (self.estimate as f64 - exact as f64) / exact.max(1) as f64
    }
}

/// Every sample of `texts`, in the order of the texts.
pub fn samples(texts: &[Text], estimator: &TokenEstimator) -> Vec<Sample> {
    let (o200k, cl100k) = (bpe_openai::o200k_base(), bpe_openai::cl100k_base());
    let mut out = Vec::new();
    for t in texts {
        for window in WINDOWS {
            for piece in windows(&t.text, window) {
                out.push(Sample {
                    kind: t.kind,
                    source: t.source,
                    fit: t.fit,
                    window,
                    bytes: piece.len(),
                    estimate: estimator.estimate(piece),
                    o200k: count(o200k, piece),
                    cl100k: count(cl100k, piece),
                });
            }
        }
    }
    out
}

fn count(tokenizer: &Tokenizer, text: &str) -> u64 {
    tokenizer.count(text) as u64
}

/// Up to [`MAX_WINDOWS`] windows of `size` bytes spread evenly over `text`,
/// cut on character boundaries; the whole text for `usize::MAX`.
fn windows(text: &str, size: usize) -> Vec<&str> {
    if size >= text.len() {
        return if size == usize::MAX {
            vec![text]
        } else {
            Vec::new()
        };
    }
    let fit = text.len() / size;
    let n = fit.min(MAX_WINDOWS);
    let stride = (text.len() - size) / n.max(1);
    (0..n)
        .map(|k| {
            let start = text.floor_char_boundary(k * stride);
            let end = text.floor_char_boundary(start + size);
            &text[start..end]
        })
        .collect()
}

/// Median, 95th percentile of |error| and share under-estimated by more
/// than 10%, of some samples.
#[derive(Debug, Clone, Copy, Default)]
pub struct Summary {
    /// Samples.
    pub n: usize,
    /// Median of the signed relative error.
    pub median: f64,
    /// 95th percentile of the absolute relative error.
    pub p95: f64,
    /// Share of samples whose estimate is more than 10% below the count.
    pub under: f64,
    /// Exact tokens per estimated token, over all samples' bytes: the ratio
    /// a calibrated scale would converge to.
    pub ratio: f64,
}

impl Summary {
    /// The summary of `samples` against o200k (`cl100k` false) or cl100k.
    pub fn of<'a>(samples: impl IntoIterator<Item = &'a Sample>, cl100k: bool) -> Summary {
        let mut errors = Vec::new();
        let (mut exact, mut estimated) = (0u64, 0u64);
        for s in samples {
            errors.push(s.error(cl100k));
            exact += if cl100k { s.cl100k } else { s.o200k };
            estimated += s.estimate;
        }
        if errors.is_empty() {
            return Summary::default();
        }
        errors.sort_by(f64::total_cmp);
        let n = errors.len();
        let median = errors[n / 2];
        let under = errors.iter().filter(|&&e| e < -UNDER).count() as f64 / n as f64;
        let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
        abs.sort_by(f64::total_cmp);
        let p95 = abs[((n as f64 * 0.95).ceil() as usize).clamp(1, n) - 1];
        Summary {
            n,
            median,
            p95,
            under,
            ratio: exact as f64 / estimated.max(1) as f64,
        }
    }

    /// Whether the targets for one kind or source hold: p95 and
    /// the share under (the median of a small group is reported, not held
    /// to a bound).
    pub fn meets_row_targets(&self) -> bool {
        self.p95 <= TARGET_P95 && self.under < TARGET_UNDER
    }

    /// Whether all the targets hold, the median's included (for the whole
    /// corpus).
    pub fn meets_targets(&self) -> bool {
        self.median.abs() <= TARGET_MEDIAN && self.p95 <= TARGET_P95 && self.under < TARGET_UNDER
    }
}

fn percent(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

fn share(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// One Markdown row: name, samples, bytes per o200k token, then median, p95
/// and share under for o200k and for cl100k.
fn row(out: &mut String, name: &str, samples: &[&Sample]) {
    let (o, c) = (
        Summary::of(samples.iter().copied(), false),
        Summary::of(samples.iter().copied(), true),
    );
    let bytes: usize = samples.iter().map(|s| s.bytes).sum();
    let tokens: u64 = samples.iter().map(|s| s.o200k).sum();
    let _ = writeln!(
        out,
        "| {name} | {} | {:.2} | {} | {} | {} | {} | {} | {} |",
        o.n,
        bytes as f64 / tokens.max(1) as f64,
        percent(o.median),
        share(o.p95),
        share(o.under),
        percent(c.median),
        share(c.p95),
        share(c.under),
    );
}

const HEADER: &str = "| n | bytes/token (o200k) | o200k median | o200k p95 abs | o200k under >10% | cl100k median | cl100k p95 abs | cl100k under >10% |\n";
const RULE: &str = "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";

/// Kinds whose JSON files make the "CJK in JSON" group.
const CJK: [&str; 4] = [
    "Chinese (Traditional)",
    "Chinese (Simplified)",
    "Japanese",
    "Korean",
];

/// The groups the targets hold in, each over `samples`: every kind, every
/// source, and CJK text inside JSON.
pub fn groups<'a>(samples: &[&'a Sample]) -> Vec<(String, Vec<&'a Sample>)> {
    let mut out: Vec<(String, Vec<&Sample>)> = Vec::new();
    let mut add = |name: String, s: &'a Sample| match out.iter_mut().find(|(n, _)| *n == name) {
        Some((_, v)) => v.push(s),
        None => out.push((name, vec![s])),
    };
    for &s in samples {
        add(s.kind.to_owned(), s);
    }
    for &s in samples {
        add(format!("source: {}", s.source), s);
    }
    for &s in samples {
        if CJK.contains(&s.kind) && s.source.contains("JSON") {
            add("CJK in JSON".to_owned(), s);
        }
    }
    out
}

/// The groups of held-out samples that miss a target, for o200k
/// (`cl100k` false) or cl100k, each with its summary.
pub fn misses(samples: &[Sample], cl100k: bool) -> Vec<(String, Summary)> {
    let held: Vec<&Sample> = samples.iter().filter(|s| !s.fit).collect();
    groups(&held)
        .into_iter()
        .map(|(name, of)| (name, Summary::of(of, cl100k)))
        .filter(|(_, summary)| !summary.meets_row_targets())
        .collect()
}

/// The accuracy tables: per kind and per source on the held-out samples
/// (where the targets are measured), then all samples per window size, fit
/// and held out, overall.
pub fn tables(samples: &[Sample]) -> String {
    let mut out = String::new();
    let held: Vec<&Sample> = samples.iter().filter(|s| !s.fit).collect();
    out.push_str("Held-out samples, per kind and per source (the targets hold in each row):\n\n");
    out.push_str("| held-out samples of ");
    out.push_str(HEADER);
    out.push_str(RULE);
    for (name, of) in groups(&held) {
        row(&mut out, &name, &of);
    }
    out.push_str("\nAll samples:\n\n| samples of ");
    out.push_str(HEADER);
    out.push_str(RULE);
    for window in WINDOWS {
        let of: Vec<&Sample> = samples.iter().filter(|s| s.window == window).collect();
        let name = match window {
            usize::MAX => "**whole texts**".to_owned(),
            w => format!("**{} KiB windows**", w / 1024),
        };
        row(&mut out, &name, &of);
    }
    for (fit, name) in [(true, "**fit texts**"), (false, "**held-out texts**")] {
        let of: Vec<&Sample> = samples.iter().filter(|s| s.fit == fit).collect();
        row(&mut out, name, &of);
    }
    let all: Vec<&Sample> = samples.iter().collect();
    row(&mut out, "**all**", &all);
    out
}
