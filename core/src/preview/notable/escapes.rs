//! Terminal escape sequences taken out of a line before it is classified.
//! Tools colour their failures when a terminal (or `FORCE_COLOR`) asks them
//! to: cargo writes `ESC[1;31merror ESC[0m ESC[1m: could not compile`, in
//! which `error` is no word of its own until the sequences are gone.

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// `line` without its escape sequences: CSI (`ESC [` parameters and one
/// final byte: colours, bold, cursor moves), OSC (`ESC ]` up to BEL or
/// `ESC \`: hyperlinks, titles) and the short ones (`ESC ( B`, `ESC =`). A sequence
/// cut short ends where a byte no sequence holds (or the line) does; every
/// byte it drops is ASCII, so what is left is still UTF-8.
pub(super) fn without_escapes(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut kept_from = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr(ESC, &b[i..]).map(|at| i + at) {
        out.push_str(&line[kept_from..at]);
        i = sequence_end(b, at);
        kept_from = i;
    }
    out.push_str(&line[kept_from..]);
    out
}

/// Where the sequence starting with the ESC at `at` ends (exclusive).
fn sequence_end(b: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    match b.get(i) {
        Some(b'[') => {
            i += 1;
            // Parameters and intermediates, then the final byte.
            while b.get(i).is_some_and(|c| (0x20..0x40).contains(c)) {
                i += 1;
            }
            if b.get(i).is_some_and(|c| (0x40..0x7f).contains(c)) {
                i += 1;
            }
            i
        }
        Some(b']') => {
            i += 1;
            while let Some(&c) = b.get(i) {
                if c == BEL {
                    return i + 1;
                }
                if c == ESC {
                    return if b.get(i + 1) == Some(&b'\\') {
                        i + 2
                    } else {
                        i
                    };
                }
                if !c.is_ascii() {
                    return i;
                }
                i += 1;
            }
            i
        }
        _ => {
            // Intermediates, then the final byte: `ESC ( B`, `ESC =`.
            while b.get(i).is_some_and(|c| (0x20..0x30).contains(c)) {
                i += 1;
            }
            if b.get(i).is_some_and(|c| (0x30..0x7f).contains(c)) {
                i += 1;
            }
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn colours_links_and_short_sequences_are_taken_out() {
        let cases = [
            (
                "\x1b[1;31merror\x1b[0m\x1b[1m: could not compile\x1b[0m",
                "error: could not compile",
            ),
            ("\x1b[31mFAIL\x1b[39m src/a.test.ts", "FAIL src/a.test.ts"),
            (
                "see \x1b]8;;https://x.example/\x07the docs\x1b]8;;\x07 now",
                "see the docs now",
            ),
            ("a\x1b]8;;u\x1b\\b\x1b]8;;\x1b\\c", "abc"),
            ("\x1b(Bplain", "plain"),
            ("cut \x1b[31", "cut "),
            ("ü\x1b[1mü\x1b", "üü"),
            ("\x1b[3é", "é"),
            ("no escapes", "no escapes"),
        ];
        for (line, plain) in cases {
            assert_eq!(without_escapes(line), plain, "{line:?}");
        }
    }

    proptest! {
        /// Escapes put between the pieces of a line leave the line as it was.
        #[test]
        fn escapes_between_pieces_leave_the_line(
            pieces in proptest::collection::vec("[^\x1b]{0,12}", 1..6),
            escapes in proptest::collection::vec(
                proptest::sample::select(vec!["\x1b[0m", "\x1b[1;31m", "\x1b[38;5;196m", "\x1b]8;;https://x/\x07", "\x1b]0;t\x1b\\", "\x1b(B", "\x1b[2K"]),
                6,
            ),
        ) {
            let mut line = String::new();
            for (piece, escape) in pieces.iter().zip(&escapes) {
                line.push_str(escape);
                line.push_str(piece);
            }
            prop_assert_eq!(without_escapes(&line), pieces.concat());
        }
    }
}
