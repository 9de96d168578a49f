//! The generator's tools: a seeded PRNG, a text under construction that
//! records its needles, and the small formats every family shares
//! (timestamps, ids).

use std::fmt::Write as _;

use toolcap_core::test_support::SplitMix;

use super::corpus::{Case, Family, Needle, Position};

/// The corpus's generator: the workspace's one seeded PRNG, with the
/// names and ids the families write.
#[derive(Debug, Clone)]
pub struct Rng(SplitMix);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.0.range(lo, hi)
    }

    /// An index below `n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        self.0.index(n)
    }

    /// A fraction in `lo..hi`.
    pub fn frac(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.frac(lo, hi)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.0.chance(p)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        self.0.pick(items)
    }

    /// `n` lowercase hex digits.
    pub fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.index(16)]))
            .collect()
    }

    /// `n` characters of the alphabet Kubernetes uses for generated names.
    pub fn kube_suffix(&mut self, n: usize) -> String {
        const SAFE: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..n)
            .map(|_| char::from(SAFE[self.index(SAFE.len())]))
            .collect()
    }

    /// `n` characters of `[A-Za-z0-9]`, as in API ids and tokens.
    pub fn alnum(&mut self, n: usize) -> String {
        const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n)
            .map(|_| char::from(ALNUM[self.index(ALNUM.len())]))
            .collect()
    }
}

/// A text under construction: filler up to a fraction of the target size,
/// then an incident, and the needles the incident wrote.
#[derive(Debug)]
pub struct Gen {
    /// The text so far.
    pub out: String,
    /// The case's random numbers.
    pub rng: Rng,
    /// Target size in bytes; the text ends near it.
    pub size: usize,
    /// Milliseconds since the start of the run, for timestamps.
    pub clock: u64,
    /// A counter families use as they like (line, test or request number).
    pub n: u64,
    /// The exit status of the command that printed the text.
    pub exit_code: i32,
    needles: Vec<String>,
}

impl Gen {
    /// A text of about `size` bytes drawn from `seed`.
    pub fn new(seed: u64, size: usize) -> Gen {
        Gen {
            out: String::with_capacity(size + 64 * 1024),
            rng: Rng::new(seed),
            size,
            clock: 0,
            n: 0,
            exit_code: 0,
            needles: Vec::new(),
        }
    }

    /// Adds filler until the text holds `frac` of the target size.
    pub fn fill(&mut self, frac: f64, mut filler: impl FnMut(&mut Gen)) {
        let until = (self.size as f64 * frac) as usize;
        while self.out.len() < until {
            let before = self.out.len();
            filler(self);
            assert!(self.out.len() > before, "a filler must write");
        }
    }

    /// Appends `s` and a LF.
    pub fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// Appends lines, one per item.
    pub fn lines(&mut self, lines: &[&str]) {
        for l in lines {
            self.line(l);
        }
    }

    /// Records `s` as a needle: the exact string a model needs. It must be
    /// in the finished text; its position class comes from where it first
    /// occurs.
    pub fn needle(&mut self, s: impl Into<String>) {
        self.needles.push(s.into());
    }

    /// Advances the clock by a random step in `lo..hi` milliseconds.
    pub fn tick(&mut self, lo: u64, hi: u64) -> u64 {
        self.clock += self.rng.range(lo, hi);
        self.clock
    }

    /// The finished case. Panics if a needle is missing from the text: the
    /// generator is wrong, not the preview.
    pub fn finish(self, name: &str, family: Family) -> Case {
        let len = self.out.len();
        let needles = self
            .needles
            .into_iter()
            .map(|text| {
                let at = self
                    .out
                    .find(&text)
                    .unwrap_or_else(|| panic!("{name}: needle {text:?} is not in the text"));
                Needle {
                    position: Position::of(at, len),
                    text,
                }
            })
            .collect();
        Case {
            name: name.to_owned(),
            family,
            exit_code: self.exit_code,
            text: self.out,
            needles,
            search: super::corpus::search_of(name),
        }
    }
}

/// `2024-03-11T14:02:17.431Z` for a run started at 2024-03-11 14:00 UTC.
pub fn iso(ms: u64) -> String {
    let (day, h, m, s, milli) = parts(ms);
    format!("2024-03-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// `2024-03-11 14:02:17.431`, the log4j/logback layout.
pub fn stamp(ms: u64) -> String {
    let (day, h, m, s, milli) = parts(ms);
    format!("2024-03-{day:02} {h:02}:{m:02}:{s:02}.{milli:03}")
}

/// `2024-03-11 14:02:17,431`, Python logging's layout.
pub fn py_stamp(ms: u64) -> String {
    let (day, h, m, s, milli) = parts(ms);
    format!("2024-03-{day:02} {h:02}:{m:02}:{s:02},{milli:03}")
}

/// `14:02:17`, for logs that print only the time of day.
pub fn clock_time(ms: u64) -> String {
    let (_, h, m, s, _) = parts(ms);
    format!("{h:02}:{m:02}:{s:02}")
}

fn parts(ms: u64) -> (u64, u64, u64, u64, u64) {
    let total_s = ms / 1000 + 14 * 3600;
    let day = 11 + total_s / 86_400;
    let in_day = total_s % 86_400;
    (day, in_day / 3600, in_day / 60 % 60, in_day % 60, ms % 1000)
}

/// A duration as Go and Kubernetes print a short age: `45s`, `12m`, `3h`.
pub fn age(seconds: u64) -> String {
    if seconds < 120 {
        format!("{seconds}s")
    } else if seconds < 7200 {
        format!("{}m", seconds / 60)
    } else {
        format!("{}h", seconds / 3600)
    }
}

/// A `v4` UUID.
pub fn uuid(rng: &mut Rng) -> String {
    let h = rng.hex(32);
    let mut s = String::with_capacity(36);
    let _ = write!(
        s,
        "{}-{}-4{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[16..20],
        &h[20..]
    );
    s
}

/// `writeln!` into a [`Gen`]'s text (writing to a `String` cannot fail).
macro_rules! w {
    ($g:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($g.out, $($arg)*);
    }};
}
pub(super) use w;

/// Spaces for a rustc/gcc gutter of `width` columns.
pub fn pad(width: usize) -> String {
    " ".repeat(width)
}

/// Positions for `n` incidents, spread at random over `lo..hi` of the text
/// and sorted.
pub(super) fn spots(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    let mut at: Vec<f64> = (0..n).map(|_| rng.frac(lo, hi)).collect();
    at.sort_by(f64::total_cmp);
    at
}
