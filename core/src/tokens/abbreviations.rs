//! Words without a vowel that are no random letters: `https`, `msgstr`
//! (every gettext entry has one), `npmjs`, `xmlns`. The estimator prices a
//! vowel-less word of five letters or more as random letters (a token
//! every 1.5 letters); o200k_base holds these as one or two tokens, so a
//! URL or a `.po` catalog came out 5-10% over.

/// Abbreviations that are one o200k_base token each, lowercase; a
/// vowel-less word made of them costs a token each. The bench checks each
/// against the tokenizer (bench/src/suite/tokens/table.rs).
pub const PIECES: &[&[u8]] = &[
    b"http", b"https", b"www", b"msg", b"str", b"ctx", b"npm", b"js", b"stmt", b"html", b"xml",
    b"ns", b"src", b"dst", b"cmd", b"cmp", b"pkg", b"cfg", b"tmp", b"ptr", b"std", b"sql", b"css",
    b"svg", b"png", b"px", b"rgb", b"dll", b"lst", b"nth",
];

/// Longest word looked up: a longer one is priced as random letters,
/// which never costs less than this price of its prefix did.
const MAX_LETTERS: usize = 32;

/// Tokens of `word` (ASCII letters, one case, no vowel) as [`PIECES`] and
/// single letters, at fewest; its last piece may be the start of a piece
/// (`msgst` costs what `msgstr` does), so a letter more never lowers it.
/// `None` past [`MAX_LETTERS`].
pub(super) fn tokens(word: &[u8]) -> Option<u64> {
    let n = word.len();
    if n > MAX_LETTERS {
        return None;
    }
    // fewest[j]: fewest whole pieces (single letters included) of word[..j].
    let mut fewest = [u8::MAX; MAX_LETTERS + 1];
    fewest[0] = 0;
    let mut best = u8::MAX;
    for j in 0..n {
        let before = fewest[j];
        let rest = &word[j..];
        fewest[j + 1] = fewest[j + 1].min(before + 1);
        for piece in PIECES {
            let whole =
                rest.len() >= piece.len() && rest[..piece.len()].eq_ignore_ascii_case(piece);
            if whole {
                let end = j + piece.len();
                fewest[end] = fewest[end].min(before + 1);
            } else if rest.len() < piece.len() && piece[..rest.len()].eq_ignore_ascii_case(rest) {
                // The word ends inside this piece.
                best = best.min(before + 1);
            }
        }
    }
    Some(u64::from(best.min(fewest[n])))
}

#[cfg(test)]
mod tests {
    use super::tokens;

    #[test]
    fn words_of_abbreviations_cost_a_token_each() {
        assert_eq!(tokens(b"https"), Some(1));
        assert_eq!(tokens(b"HTTPS"), Some(1));
        assert_eq!(tokens(b"msgstr"), Some(2));
        assert_eq!(tokens(b"npmjs"), Some(2));
        assert_eq!(tokens(b"msgctxt"), Some(3));
        // Unknown letters cost one each.
        assert_eq!(tokens(b"bcdfg"), Some(5));
    }

    #[test]
    fn a_letter_more_never_lowers_the_count() {
        for word in [
            &b"msgstr"[..],
            b"httpsxml",
            b"stmtsnpmjs",
            b"xhtmlns",
            b"cmdptrsql",
        ] {
            let mut last = 0;
            for end in 1..=word.len() {
                let now = tokens(&word[..end]).unwrap();
                assert!(now >= last, "{:?}", std::str::from_utf8(&word[..end]));
                last = now;
            }
        }
    }

    #[test]
    fn long_words_are_not_looked_up() {
        assert_eq!(tokens(&[b'x'; 33]), None);
        assert!(tokens(&[b'x'; 32]).is_some());
    }
}
