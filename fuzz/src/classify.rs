//! `classify` on any status and body: never a panic, the status rules of its
//! docs, ASCII case-insensitive matching, and more text never unmakes a match.

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::classify::{OverflowKind, classify};

/// Phrases near the table's entries, so that bodies match, nearly match or
/// match the wrong thing; and characters whose Unicode lowercase differs in
/// length, which an index-juggling matcher would trip on.
const PHRASES: [&str; 16] = [
    "context_length_exceeded",
    "This model's maximum context length is 8192 tokens",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "413 Request Entity Too Large",
    "Payload Too Large",
    "Too many tokens, please wait before trying again.",
    "too many tokens:",
    "max_tokens is too large: 9999",
    "The input token count is 9 but model only supports up to 8",
    "input token count",
    "ValidationException",
    "input length",
    "request_too_large",
    "İ",
    "\u{212A}",
    "ẞ",
];

/// Statuses providers and proxies send, around the edges of the rules.
const STATUSES: [u16; 14] = [
    0, 200, 399, 400, 401, 403, 404, 412, 413, 414, 422, 429, 500, 529,
];

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    status: Status,
    /// Text wrapped around the body to check that matches survive it.
    wrapper: &'a str,
    /// The body, piece by piece.
    pieces: Vec<BodyPiece<'a>>,
}

/// An HTTP status: mostly a common one.
#[derive(Arbitrary, Debug)]
enum Status {
    /// An index into [`STATUSES`].
    Common(u8),
    Any(u16),
}

impl Status {
    fn get(&self) -> u16 {
        match *self {
            Status::Common(i) => STATUSES[usize::from(i) % STATUSES.len()],
            Status::Any(n) => n,
        }
    }
}

/// One piece of a response body.
#[derive(Arbitrary, Debug)]
enum BodyPiece<'a> {
    Raw(&'a str),
    /// An index into [`PHRASES`].
    Phrase(u8),
    /// The same, ASCII upper-cased.
    Shouted(u8),
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassifyPath {
    /// Status below 400.
    NotAnError,
    /// Status 413.
    Status413,
    /// Another error status, and no size rejection in the body.
    NoOverflow,
    /// Another error status, and a token overflow in the body.
    ContextLength,
    /// Another error status, and a byte-size rejection in the body.
    TooLarge,
}

/// Parse `data` as a status and a body, classify them and check the rules.
/// Panics when one breaks; `None` when `data` does not shape into an input.
pub fn check_classify(data: &[u8]) -> Option<ClassifyPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let body = body_of(&input.pieces);
    let status = input.status.get();
    let overflow = classify(status, &body);
    let kind = overflow.map(|o| o.kind);

    if status < 400 {
        assert_eq!(kind, None, "status {status} is no error");
        return Some(ClassifyPath::NotAnError);
    }
    if status == 413 {
        assert_eq!(
            kind,
            Some(OverflowKind::RequestTooLarge),
            "413 is always too large"
        );
        return Some(ClassifyPath::Status413);
    }
    // Any other error status is decided by the body alone.
    let other_status = if status == 400 { 599 } else { 400 };
    assert_eq!(
        overflow,
        classify(other_status, &body),
        "status {status} changed the verdict"
    );
    assert_eq!(classify(status, ""), None, "an empty body matched");
    // ASCII case never matters.
    assert_eq!(
        overflow,
        classify(status, &body.to_ascii_uppercase()),
        "upper-casing changed it"
    );
    assert_eq!(
        overflow,
        classify(status, &body.to_ascii_lowercase()),
        "lower-casing changed it"
    );
    // Amounts come with their unit, and only with an overflow.
    if let Some(o) = overflow {
        assert!(
            o.unit.is_some() || (o.limit.is_none() && o.requested.is_none()),
            "amounts without a unit: {o:?}"
        );
    }
    // A longer body still holds every phrase the shorter one held.
    let wrapped = format!("{}{body}{}", input.wrapper, input.wrapper);
    if kind.is_some() {
        assert!(
            classify(status, &wrapped).is_some(),
            "wrapping lost the match"
        );
    }
    // The table's first entry is a token overflow and wins over every other.
    if body
        .to_ascii_lowercase()
        .contains("context_length_exceeded")
    {
        assert_eq!(kind, Some(OverflowKind::ContextLengthExceeded));
    }
    Some(match kind {
        None => ClassifyPath::NoOverflow,
        Some(OverflowKind::ContextLengthExceeded) => ClassifyPath::ContextLength,
        Some(OverflowKind::RequestTooLarge) => ClassifyPath::TooLarge,
    })
}

/// The body of `pieces`.
fn body_of(pieces: &[BodyPiece<'_>]) -> String {
    let phrase = |i: u8| PHRASES[usize::from(i) % PHRASES.len()];
    pieces
        .iter()
        .map(|piece| match piece {
            BodyPiece::Raw(s) => (*s).to_owned(),
            BodyPiece::Phrase(i) => phrase(*i).to_owned(),
            BodyPiece::Shouted(i) => phrase(*i).to_ascii_uppercase(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0xC1A5,
            20_000,
            300,
            check_classify,
            &[
                ClassifyPath::NotAnError,
                ClassifyPath::Status413,
                ClassifyPath::NoOverflow,
                ClassifyPath::ContextLength,
                ClassifyPath::TooLarge,
            ],
        );
    }
}
