//! The failure-line rules (`notable::classify`), whose phrases a line's
//! pairs of bytes rule out before a search, against the same rules with
//! every phrase searched for: the same class for any line.

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::preview::notable::{WARNING_SCORE, classify, classify_searching_every_phrase};

/// Phrases the rules search for (anywhere, ignoring case, or where a line
/// starts), forms that start failure lines, near misses of them, and bytes
/// a pair could straddle.
const PHRASES: [&str; 40] = [
    "Traceback (most recent call last)",
    " --- FAIL: ",
    "panicked at",
    "Segmentation fault",
    "segmentation fault",
    "(core dumped)",
    "dumped core",
    "No such file or directory",
    "No space left on device",
    "symbol(s) not found",
    "didn't exit successfully",
    "conflicting dependencies",
    "Permission denied",
    "permission denied",
    "Access is denied",
    "Operation not permitted",
    "EACCES",
    "Connection refused",
    "Could not resolve host",
    "Connection timed out",
    "ECONNREFUSED",
    "SSL certificate problem",
    "x509: certificate ",
    "non-zero exit",
    "exit code 2",
    "Exit Code: 0",
    "exited with status 1",
    ": warning: ",
    "warning: 0 errors",
    "3 errors generated",
    "error[E0308]: ",
    "error: ",
    "WARN",
    "Unhandled",
    "TypeError: x",
    "PASSED",
    " passed",
    "main.go:5:2: undefined: x",
    "\u{2716}",
    "\u{e9}",
];

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    pieces: Vec<Piece<'a>>,
}

#[derive(Arbitrary, Debug)]
enum Piece<'a> {
    /// An index into [`PHRASES`].
    Phrase(u8),
    /// The same, ASCII upper-cased.
    Shouted(u8),
    /// The same, ASCII lower-cased.
    Quiet(u8),
    /// The same, without its last byte (or char).
    Cut(u8),
    Raw(&'a str),
    /// A run of filler, so that lines too long to pair (and to classify
    /// whole) happen.
    Filler(u16),
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassPath {
    /// Not notable.
    Nothing,
    /// A warning, the second tier.
    Warning,
    /// A failure.
    Failure,
    /// A line longer than what is paired, notable or not.
    Long,
}

/// Shape `data` into a line and classify it both ways. Panics when the two
/// differ; `None` when `data` does not shape into an input.
pub fn check_notable_classify(data: &[u8]) -> Option<ClassPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let phrase = |i: &u8| PHRASES[usize::from(*i) % PHRASES.len()];
    let mut line = String::new();
    for piece in &input.pieces {
        match piece {
            Piece::Phrase(i) => line.push_str(phrase(i)),
            Piece::Shouted(i) => line.push_str(&phrase(i).to_ascii_uppercase()),
            Piece::Quiet(i) => line.push_str(&phrase(i).to_ascii_lowercase()),
            Piece::Cut(i) => {
                let p = phrase(i);
                line.push_str(&p[..p.floor_char_boundary(p.len() - 1)]);
            }
            Piece::Raw(s) => line.push_str(s),
            Piece::Filler(n) => line.push_str(&"z ".repeat(usize::from(*n) % 2500)),
        }
    }
    let class = classify(&line);
    assert_eq!(
        class,
        classify_searching_every_phrase(&line),
        "class of {line:?}"
    );
    Some(match class {
        _ if line.len() > 256 => ClassPath::Long,
        None => ClassPath::Nothing,
        Some((score, _)) if score <= WARNING_SCORE => ClassPath::Warning,
        Some(_) => ClassPath::Failure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x9A1F,
            20_000,
            300,
            check_notable_classify,
            &[
                ClassPath::Nothing,
                ClassPath::Warning,
                ClassPath::Failure,
                ClassPath::Long,
            ],
        );
    }
}
