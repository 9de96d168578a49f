//! Failure scores of values, computed while parsing: how surely a value
//! reports a failure, from 0 (not at all) to 5 (a host pattern), so that a
//! preview keeps the notable items of an array's omitted middle.
//!
//! A string is scored by [`notable::classify`], line by line (in its first
//! 4 KiB), and an object entry with a scalar value also as the line `key:
//! value` (`conclusion: failure`, `log.level: error`, `failed: true`,
//! `exitCode: 137`) when its key holds a failure word or its value alone
//! did not count. Only text holding a word failures are written with
//! ([`has_failure_word`]) is classified, so most strings cost one pass over
//! their bytes and no allocation.

use super::tree::Kind;
use crate::preview::notable::{self, HOST_SCORE, Patterns};

/// Only this much of a string is classified (what [`notable::classify`]
/// reads of a line).
const CLASSIFY_BYTES: usize = 4096;

/// The score an entry gets from its key alone: an `error`, `errors`,
/// `exception`, `failure` or `failures` key with a non-empty value.
const FAILURE_KEY_SCORE: u8 = 3;

/// Keys whose non-empty value is itself the report of a failure.
const FAILURE_KEYS: [&str; 5] = ["error", "errors", "exception", "failure", "failures"];

/// String values of a failure key that say there is none.
const NO_FAILURE: [&str; 7] = ["0", "none", "null", "nil", "false", "ok", "n/a"];

/// Where a host pattern is searched, and whether to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Host<'p>(pub Option<&'p Patterns>);

impl Host<'_> {
    fn matches(self, s: &str) -> bool {
        self.0.is_some_and(|p| p.host_matches(s))
    }
}

/// The score of a string value, and whether its head holds a failure word
/// (so that its entry's `key: value` line is worth classifying too).
pub(super) fn string(s: &str, host: Host<'_>) -> (u8, bool) {
    let words = has_failure_word(s);
    if host.matches(s) {
        return (HOST_SCORE, words);
    }
    (if words { classify(s) } else { 0 }, words)
}

/// The score of an object entry whose value scored `value_score` (and held
/// a failure word, `value_words`). `line` is scratch space for the entry's
/// `key: value` line.
pub(super) fn entry(
    key: &str,
    value: &Kind<'_>,
    (value_score, value_words): (u8, bool),
    host: Host<'_>,
    line: &mut String,
) -> u8 {
    if host.matches(key) {
        return HOST_SCORE;
    }
    let mut score = value_score;
    if FAILURE_KEYS.iter().any(|k| key.eq_ignore_ascii_case(k)) && reports_something(value) {
        score = score.max(FAILURE_KEY_SCORE);
    }
    let value_text = match value {
        Kind::String(s) if !s.trim().is_empty() => &s[..s.floor_char_boundary(CLASSIFY_BYTES)],
        Kind::Bool(true) => "true",
        Kind::Bool(false) => "false",
        Kind::Number(_) => "",
        _ => return score,
    };
    // The line says more than the value alone when the key holds a failure
    // word (`failed: true`, `exitCode: 137`), or when the value's word alone
    // was not taken for a failure. Numbers and booleans hold no such word.
    if score < 4 && ((value_words && value_score == 0) || has_failure_word(key)) {
        line.clear();
        line.push_str(key);
        line.push_str(": ");
        match value {
            // As serde_json writes the number (`1e3` as `1000.0`), which
            // the rules were written against.
            Kind::Number(n) => match serde_json::from_str::<serde_json::Value>(n) {
                Ok(serde_json::Value::Number(n)) => {
                    use std::fmt::Write;
                    let _ = write!(line, "{n}");
                }
                _ => line.push_str(n),
            },
            _ => line.push_str(value_text),
        }
        score = score.max(classify(line));
    }
    score
}

/// A non-empty container, or a string other than blank or one that says
/// there is nothing (`"none"`, `"0"`).
fn reports_something(v: &Kind<'_>) -> bool {
    match v {
        Kind::Array(a, _) => !a.is_empty(),
        Kind::Object(o) => !o.is_empty(),
        Kind::String(s) => {
            let s = s.trim();
            !s.is_empty() && !NO_FAILURE.iter().any(|z| s.eq_ignore_ascii_case(z))
        }
        Kind::Null | Kind::Bool(_) | Kind::Number(_) => false,
    }
}

/// The best [`notable::classify`] score of the lines of the head of `s`
/// that hold a failure word; 0 when none reports a failure.
fn classify(s: &str) -> u8 {
    let head = &s[..s.floor_char_boundary(CLASSIFY_BYTES)];
    let score = |line: &str| notable::classify(line).map_or(0, |(score, _)| score);
    if !head.contains('\n') {
        return score(head);
    }
    head.split('\n')
        .filter(|line| has_failure_word(line))
        .map(score)
        .max()
        .unwrap_or(0)
}

/// True when the head of `s` holds, ASCII case-insensitively, a word
/// failures are written with ([`NEEDLES`]) or a test runner's cross mark
/// (✕ ✖ ✗ ✘) or Jest's `●`. Only text that does is classified: it covers
/// what [`notable::classify`] takes but an access log's `" 5xx`, a `make:
/// ***` line or pytest location without an error word, and
/// `InvalidImageName`, none of which a JSON value is likely to be.
///
/// Every other position costs one look-up of the two bytes there in a set
/// of pairs: each needle adds both pairs of three of its bytes, one of which
/// starts at an even position wherever the needle is. Only a hit compares
/// the needles of that pair.
pub(super) fn has_failure_word(s: &str) -> bool {
    let b = &s.as_bytes()[..s.len().min(CLASSIFY_BYTES)];
    let mut i = 0;
    while i + 1 < b.len() {
        let key = pair_key(b[i], b[i + 1]);
        let bits = PAIRS[key >> 6];
        if bits & (1 << (key & 63)) != 0 {
            let slot =
                RANK[key >> 6] as usize + (bits & ((1 << (key & 63)) - 1)).count_ones() as usize;
            for &(n, p) in SLOTS[slot].iter().take_while(|&&(n, _)| n != u8::MAX) {
                let p = p as usize;
                if i >= p && starts(&b[i - p..], NEEDLES[n as usize].0) {
                    return true;
                }
            }
        }
        i += 2;
    }
    false
}

/// The needles, lower case, each with where its three bytes start. A byte
/// is compared with its ASCII letter bit (`| 0x20`) set, so the marks (✕ ✖
/// ✗ ✘ as `E2 9C 95..98`, `●` as `E2 97 8F`) are written so too; what else
/// they match only costs a classification.
pub(super) const NEEDLES: [(&[u8], usize); 30] = [
    (b"err", 0),
    (b"fail", 0),
    (b"fatal", 0),
    (b"panic", 2),
    (b"xception", 0),
    (b"kill", 0),
    (b"backoff", 3),
    (b"crash", 0),
    (b"critical", 0),
    (b"timeout", 2),
    (b"timed out", 1),
    (b"abort", 0),
    (b"denied", 2),
    (b"refused", 1),
    (b"oom", 0),
    (b"traceback", 4),
    (b"exit", 0),
    (b"evicted", 1),
    (b"dumped", 0),
    (b"segmentation", 1),
    (b"segv", 1),
    (b"sigabrt", 3),
    (b"sigbus", 2),
    (b"sigill", 2),
    (b"sigfpe", 2),
    (&[0xE2, 0x9C | 0x20, 0x95 | 0x20], 0),
    (&[0xE2, 0x9C | 0x20, 0x96 | 0x20], 0),
    (&[0xE2, 0x9C | 0x20, 0x97 | 0x20], 0),
    (&[0xE2, 0x9C | 0x20, 0x98 | 0x20], 0),
    (&[0xE2, 0x97 | 0x20, 0x8F | 0x20], 0),
];

/// The pairs of [`NEEDLES`], a bit set over [`pair_key`].
static PAIRS: [u64; 1024] = {
    let mut set = [0u64; 1024];
    let mut n = 0;
    while n < NEEDLES.len() {
        let (needle, at) = NEEDLES[n];
        let mut p = at;
        while p < at + 2 {
            let key = pair_key(needle[p], needle[p + 1]);
            set[key >> 6] |= 1 << (key & 63);
            p += 1;
        }
        n += 1;
    }
    set
};

/// Pairs in [`PAIRS`] before each of its words.
static RANK: [u8; 1024] = {
    let mut rank = [0u8; 1024];
    let mut sum = 0;
    let mut w = 0;
    while w < 1024 {
        rank[w] = sum;
        sum += PAIRS[w].count_ones() as u8;
        w += 1;
    }
    rank
};

/// Most needles that share a pair.
const PER_PAIR: usize = 4;

/// For each pair of [`PAIRS`], in order, its needles and where it is in
/// them; `u8::MAX` fills.
static SLOTS: [[(u8, u8); PER_PAIR]; 2 * NEEDLES.len()] = {
    let mut slots = [[(u8::MAX, 0u8); PER_PAIR]; 2 * NEEDLES.len()];
    let mut n = 0;
    while n < NEEDLES.len() {
        let (needle, at) = NEEDLES[n];
        let mut p = at;
        while p < at + 2 {
            let key = pair_key(needle[p], needle[p + 1]);
            let bits = PAIRS[key >> 6];
            let slot =
                RANK[key >> 6] as usize + (bits & ((1 << (key & 63)) - 1)).count_ones() as usize;
            let mut j = 0;
            while slots[slot][j].0 != u8::MAX {
                j += 1;
            }
            slots[slot][j] = (n as u8, p as u8);
            p += 1;
        }
        n += 1;
    }
    slots
};

/// Two bytes as an index, ASCII letters lowered.
const fn pair_key(a: u8, b: u8) -> usize {
    ((a | 0x20) as usize) << 8 | (b | 0x20) as usize
}

/// True when `s` starts with the lower-case `word`, ignoring ASCII case.
fn starts(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s.iter().zip(word).all(|(&c, &w)| c | 0x20 == w)
}
