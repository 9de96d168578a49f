//! The body of a JSON string (what is between its quotes) decoded as it
//! arrives, in pieces split anywhere: an escape cut between two pieces
//! waits for the rest. It decodes as [`json::string`](crate::raw_json::string)
//! does (a lone surrogate becomes U+FFFD) and refuses what a JSON string
//! cannot hold: a bare quote, a control character, an unknown escape.

use crate::error::CapError;

/// The longest escape, backslash included: a surrogate pair `\uXXXX\uXXXX`.
const LONGEST_ESCAPE: usize = 12;

#[derive(Debug, Default)]
pub(crate) struct BodyDecoder {
    /// An escape not known to be complete at the end of the last piece
    /// (it starts with its backslash; shorter than [`LONGEST_ESCAPE`]).
    carry: String,
    /// Bytes of the body read so far, to say where a fault is.
    read: u64,
}

impl BodyDecoder {
    /// Decode `piece`, appending the text to `out`.
    pub(crate) fn feed(&mut self, piece: &str, out: &mut String) -> Result<(), CapError> {
        let mut from = 0;
        // An escape that waited is decoded with the piece's first bytes
        // (a whole character more than the longest escape); what is then
        // still short waits again.
        while !self.carry.is_empty() && from < piece.len() {
            let mut to = (from + LONGEST_ESCAPE).min(piece.len());
            while !piece.is_char_boundary(to) {
                to += 1;
            }
            let mut joined = std::mem::take(&mut self.carry);
            joined.push_str(&piece[from..to]);
            from = to;
            self.decode(&joined, false, out)?;
        }
        self.decode(&piece[from..], false, out)
    }

    /// The body ended: decode what waited. Fails when it ends inside an escape.
    pub(crate) fn finish(&mut self, out: &mut String) -> Result<(), CapError> {
        let carry = std::mem::take(&mut self.carry);
        self.decode(&carry, true, out)
    }

    /// Decode `text`; `last`: nothing follows, so an escape at its end is
    /// complete or bad.
    fn decode(&mut self, mut text: &str, last: bool, out: &mut String) -> Result<(), CapError> {
        // One pass for what may not appear unescaped, over the whole text.
        if has_control(text.as_bytes()) {
            let at = text.bytes().position(|b| b < 0x20).unwrap_or(0);
            return Err(self.fault(at, "holds a control character that is not escaped"));
        }
        out.reserve(text.len());
        loop {
            let special = memchr::memchr2(b'\\', b'"', text.as_bytes()).unwrap_or(text.len());
            // Both are ASCII: the split is on a character boundary.
            let (plain, tail) = text.split_at(special);
            out.push_str(plain);
            self.read += plain.len() as u64;
            text = tail;
            let after = match text.as_bytes() {
                [] => return Ok(()),
                [b'"', ..] => return Err(self.fault(0, "holds a quote that is not escaped")),
                [_, after @ ..] => after,
            };
            let simple = match after.first() {
                Some(b'"') => Some('"'),
                Some(b'\\') => Some('\\'),
                Some(b'/') => Some('/'),
                Some(b'n') => Some('\n'),
                Some(b't') => Some('\t'),
                Some(b'r') => Some('\r'),
                Some(b'b') => Some('\u{8}'),
                Some(b'f') => Some('\u{c}'),
                _ => None,
            };
            if let Some(c) = simple {
                out.push(c);
                self.read += 2;
                text = &text[2..];
                continue;
            }
            if !last && !complete(after) {
                // Short of the longest escape: it waits for the next piece.
                self.carry.push_str(text);
                return Ok(());
            }
            let (c, used) = escape(after).ok_or_else(|| self.bad_escape())?;
            out.push(c);
            self.read += 1 + used as u64;
            // An escape is ASCII: what follows starts on a boundary.
            text = &text[1 + used..];
        }
    }

    fn bad_escape(&self) -> CapError {
        self.fault(0, "holds an escape JSON does not have, or ends inside one")
    }

    fn fault(&self, offset: usize, what: &str) -> CapError {
        CapError::InvalidArgument(format!(
            "the streamed text is not the body of a JSON string: at byte {} it {what}",
            self.read + offset as u64
        ))
    }
}

/// Whether `after` (what follows a backslash) holds the whole escape, or
/// enough to know it is bad: a high surrogate may be followed by its pair.
fn complete(after: &[u8]) -> bool {
    match after.first() {
        None => false,
        Some(b'u') if after.len() < 5 => false,
        Some(b'u') => {
            let unit = std::str::from_utf8(&after[1..5])
                .ok()
                .and_then(|h| u16::from_str_radix(h, 16).ok());
            let high = unit.is_some_and(|u| (0xD800..0xDC00).contains(&u));
            !high
                || after.len() >= LONGEST_ESCAPE - 1
                || after.get(5).is_some_and(|&b| b != b'\\')
                || after.get(6).is_some_and(|&b| b != b'u')
        }
        Some(_) => true,
    }
}

/// The character of the escape after a backslash, and the bytes it used.
fn escape(after: &[u8]) -> Option<(char, usize)> {
    super::lift::escape(after)
}

/// Whether any byte is under 0x20, eight at a time: a byte under 0x20 is
/// the only one whose subtraction of 0x20 borrows into a clear high bit
/// (bytes from 0x80 are masked out by `!x`). The byte loop it replaced cost
/// a fifth of the component's `cap-mcp` of 4 MiB (10.8 -> 9.1 ms).
fn has_control(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    let mut words = bytes.chunks_exact(8);
    let below = words.by_ref().fold(0, |acc, w| {
        let x = u64::from_ne_bytes(w.try_into().expect("8 bytes"));
        acc | (x.wrapping_sub(0x20 * ONES) & !x & (0x80 * ONES))
    });
    below != 0 || words.remainder().iter().any(|&b| b < 0x20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::value::RawValue;

    /// `body` decoded in pieces cut at `cuts` (byte offsets, moved to char
    /// boundaries).
    fn decoded(body: &str, cuts: &[usize]) -> Result<String, CapError> {
        let mut at: Vec<usize> = cuts
            .iter()
            .map(|&c| {
                let mut c = c.min(body.len());
                while !body.is_char_boundary(c) {
                    c -= 1;
                }
                c
            })
            .collect();
        at.sort_unstable();
        let mut decoder = BodyDecoder::default();
        let mut out = String::new();
        let mut from = 0;
        for cut in at.into_iter().chain([body.len()]) {
            decoder.feed(&body[from..cut], &mut out)?;
            from = cut;
        }
        decoder.finish(&mut out)?;
        Ok(out)
    }

    fn expected(body: &str) -> Option<String> {
        let raw = RawValue::from_string(format!("\"{body}\"")).ok()?;
        crate::raw_json::string(&raw)
    }

    #[test]
    fn escapes_cut_anywhere_decode_whole() {
        let body = r#"a\nb\\\"\ud83d\ude00\u00e9\ud800x\ud83d\u0041 end\\"#;
        let whole = expected(body).unwrap();
        for cut in 0..=body.len() {
            assert_eq!(decoded(body, &[cut]).unwrap(), whole, "cut at {cut}");
            for second in cut..=body.len() {
                assert_eq!(decoded(body, &[cut, second]).unwrap(), whole);
            }
        }
    }

    #[test]
    fn what_a_json_string_cannot_hold_is_refused() {
        for (body, fault) in [
            ("a\"b", "quote"),
            ("a\nb", "control character"),
            ("tab\there", "control character"),
            (r"\x41", "escape"),
            (r"\u12G4", "escape"),
            (r"\u+123", "escape"),
            (r"\u-123", "escape"),
            (r"ends in \u12", "escape"),
            (r"ends in \", "escape"),
        ] {
            for cut in [0, 1, 3, body.len() - 1] {
                let e = decoded(body, &[cut]).unwrap_err();
                assert!(e.to_string().contains(fault), "{body}: {e}");
            }
        }
    }

    #[test]
    fn a_fault_says_where() {
        let e = decoded(r#"0123456789\q"#, &[4]).unwrap_err();
        assert!(e.to_string().contains("at byte 10"), "{e}");
    }

    proptest! {
        /// Eight bytes at a time, exactly the bytewise answer, wherever the
        /// control byte is and whatever bytes are around it.
        #[test]
        fn has_control_is_the_bytewise_answer(
            bytes in proptest::collection::vec(
                prop_oneof![Just(0u8), Just(0x1f), Just(0x20), Just(0x21), Just(0x7f), Just(0x80), Just(0xa0), any::<u8>()],
                0..40,
            ),
        ) {
            prop_assert_eq!(has_control(&bytes), bytes.iter().any(|&b| b < 0x20));
        }

        #[test]
        fn any_body_cut_anywhere_decodes_as_json_does(
            pieces in proptest::collection::vec(crate::mcp::lift::tests::piece(), 0..40),
            cuts in proptest::collection::vec(0usize..400, 0..6),
        ) {
            let body: String = pieces.concat();
            prop_assert_eq!(decoded(&body, &cuts).ok(), expected(&body));
        }
    }
}
