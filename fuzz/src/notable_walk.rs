//! The failure lines' automaton walked parts at once (what wasm runs, where
//! no SIMD searcher runs ahead of it) against its own search and against the
//! searches per anchor: the same occurrences, the same lines, for any text
//! and host pattern.

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::preview::notable::Patterns;

/// Words the anchors and rare signs are made of, near misses of them, level
/// anchors where a level is written and where it is not, a host pattern,
/// multi-byte characters and line breaks.
const PIECES: [&str; 24] = [
    "error",
    "Error: ",
    "rro",
    "FAILED",
    "ai",
    "crit",
    "[crit]",
    "level=crit",
    "E   ",
    "\nE   x",
    "exception",
    "exit 1",
    "xit",
    "Killed",
    "\u{2716}",
    "\u{25cf}",
    "\u{2700}",
    "timed out",
    "not found",
    "QUOTA",
    "é",
    "\n",
    "\r\n",
    " ",
];

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    /// A host pattern, if any: one of its pieces' words or any text.
    host: Option<Host<'a>>,
    pieces: Vec<Piece<'a>>,
    /// Lines of the text skipped before the walk starts.
    skip_lines: u8,
}

#[derive(Arbitrary, Debug)]
enum Host<'a> {
    Known,
    Any(&'a str),
}

#[derive(Arbitrary, Debug)]
enum Piece<'a> {
    /// An index into [`PIECES`].
    Known(u8),
    Raw(&'a str),
    /// A run of filler, so that parts and long lines happen.
    Filler(u16),
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalkPath {
    /// Nothing occurs.
    Nothing,
    /// Occurrences, and lines found.
    Found,
    /// A host pattern the walks cannot stand in for (a line break in it).
    NoWalk,
}

/// Shape `data` into a text and a host pattern and compare the answers.
/// Panics when they differ; `None` when `data` does not shape into an input.
pub fn check_notable_walk(data: &[u8]) -> Option<WalkPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let mut text = String::new();
    for piece in &input.pieces {
        match piece {
            Piece::Known(i) => text.push_str(PIECES[usize::from(*i) % PIECES.len()]),
            Piece::Raw(s) => text.push_str(s),
            Piece::Filler(n) => text.push_str(&"z".repeat(usize::from(*n) % 5000)),
        }
    }
    let host: Vec<String> = match input.host {
        None => Vec::new(),
        Some(Host::Known) => vec!["QUOTA".to_owned()],
        Some(Host::Any(s)) if !s.is_empty() => vec![s.to_owned()],
        Some(Host::Any(_)) => Vec::new(),
    };
    let lo = text
        .match_indices('\n')
        .nth(usize::from(input.skip_lines % 8))
        .map_or(0, |(i, _)| i + 1);
    let oracle = Patterns::new(&host).walk_oracle(&text, lo);
    assert_eq!(oracle.walked_lines, oracle.each_lines, "lines of {text:?}");
    if !oracle.walks {
        return Some(WalkPath::NoWalk);
    }
    assert_eq!(
        oracle.walked_starts, oracle.searched_starts,
        "occurrences in {text:?}"
    );
    if oracle.fingerprinted {
        assert_eq!(
            oracle.fingerprinted_starts, oracle.searched_starts,
            "occurrences of fingerprints in {text:?}"
        );
    }
    Some(if oracle.searched_starts.is_empty() {
        WalkPath::Nothing
    } else {
        WalkPath::Found
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x3A1C,
            20_000,
            400,
            check_notable_walk,
            &[WalkPath::Nothing, WalkPath::Found, WalkPath::NoWalk],
        );
    }
}
