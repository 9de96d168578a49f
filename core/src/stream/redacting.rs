//! Redaction of a text that arrives in pieces, with exactly the result of
//! [`Redactor::redact`] on the whole: the pieces are cut again into the
//! units `redact` works on (each line, and each [`UNIT`] bytes of a longer
//! line, from the line's start, moved back to a character's start), so
//! memory stays within a unit whatever the line's length.

use memchr::memchr;

use crate::redact::{LineRedactor, Redactions, Redactor, UNIT};

/// Pieces in, redacted text out.
#[derive(Debug)]
pub struct PieceRedactor<'r> {
    lines: LineRedactor<'r>,
    /// The unit so far: it starts at `unit_start` bytes into its line.
    pending: String,
    unit_start: usize,
    /// Where in its line the current unit's nominal end lies.
    nominal: usize,
    /// Bytes of the text in the units handed on so far.
    done: u64,
}

impl PieceRedactor<'static> {
    /// A redactor of its own, for a stream kept across calls.
    pub fn owned(redactor: Redactor) -> Self {
        PieceRedactor {
            lines: redactor.into_stream(),
            pending: String::new(),
            unit_start: 0,
            nominal: UNIT,
            done: 0,
        }
    }

    /// Take the text's next characters; append what is redacted so far.
    pub fn push(&mut self, piece: &str, out: &mut String) {
        self.pending.push_str(piece);
        self.drain(|lines, unit| lines.push_unit(unit, out));
    }

    /// The last unit (a line without a line break); the counts.
    pub fn finish(mut self, out: &mut String) -> Redactions {
        if !self.pending.is_empty() {
            let unit = std::mem::take(&mut self.pending);
            self.lines.push_unit(&unit, out);
        }
        self.lines.counts().clone()
    }

    /// Take the text's next characters, and report each redaction of the
    /// units completed so far as `(start, end, kind)`, offsets counted from
    /// the start of the text: what [`push`](Self::push) would replace, for a
    /// caller that keeps the original and maps offsets.
    pub fn push_spans(&mut self, piece: &str, found: &mut impl FnMut(u64, u64, &'static str)) {
        self.pending.push_str(piece);
        let mut at = self.done;
        self.drain(|lines, unit| {
            for (s, e, kind) in lines.spans_of_unit(unit) {
                found(at + s as u64, at + e as u64, kind);
            }
            at += unit.len() as u64;
        });
        self.done = at;
    }

    /// [`push_spans`](Self::push_spans) of the last unit.
    pub fn finish_spans(mut self, found: &mut impl FnMut(u64, u64, &'static str)) {
        if !self.pending.is_empty() {
            let unit = std::mem::take(&mut self.pending);
            for (s, e, kind) in self.lines.spans_of_unit(&unit) {
                found(self.done + s as u64, self.done + e as u64, kind);
            }
        }
    }

    /// Heap bytes held.
    pub fn retained_bytes(&self) -> usize {
        self.pending.capacity()
    }

    /// Hand every unit completed so far to `each`, with the line redactor,
    /// then drop them from `pending` at once: dropping each unit as it went
    /// copied the rest of the piece once per line, quadratic in the piece
    /// (a 1 MiB piece of 45-byte lines copied about 12 GB).
    fn drain(&mut self, mut each: impl FnMut(&mut LineRedactor<'static>, &str)) {
        let mut from = 0;
        loop {
            let rest = &self.pending[from..];
            let room = self.nominal - self.unit_start;
            let look = &rest.as_bytes()[..rest.len().min(room)];
            let end = if let Some(lf) = memchr(b'\n', look) {
                // The line ends within this unit.
                lf + 1
            } else if rest.len() >= room {
                // The line goes on past the nominal end: cut there, on a
                // character's start (`redact` does the same).
                rest.floor_char_boundary(room)
            } else {
                break;
            };
            let unit = &rest[..end];
            each(&mut self.lines, unit);
            from += end;
            if unit.ends_with('\n') {
                self.unit_start = 0;
                self.nominal = UNIT;
            } else {
                self.unit_start += end;
                self.nominal += UNIT;
            }
        }
        self.pending.drain(..from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pieces() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            6 => "[a-z0-9 =_:.\\-\\n]{0,30}",
            2 => Just("GITHUB_TOKEN=ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f\n".to_owned()),
            1 => Just("-----BEGIN PRIVATE KEY-----\nMIIEFAKEfakeFAKEfake\nFAKEfake\n-----END PRIVATE KEY-----\n".to_owned()),
            1 => Just("password=hunter2-corp-literal ".to_owned()),
            1 => (1usize..3 * UNIT).prop_map(|n| "é".repeat(n / 2)),
            1 => (1usize..3 * UNIT).prop_map(|n| "x".repeat(n)),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    /// A unit after one moved back to a character's start is longer than
    /// [`UNIT`]; cut again, it split a token `redact` finds whole, and the
    /// pieces let the secret through (found by the property below).
    #[test]
    fn a_unit_longer_than_unit_bytes_is_redacted_whole() {
        let token = "ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f";
        let text = format!("={}GITHUB_TOKEN={token}\n", "é".repeat(65509));
        let redactor = Redactor::new(&[]).unwrap();
        let (whole, counts) = redactor.redact(&text);
        assert!(!whole.contains(token));
        for cut in [1, 2, 70_000, text.len() - 1] {
            let mut stream = PieceRedactor::owned(redactor.clone());
            let mut out = String::new();
            for piece in crate::test_support::pieces(&text, &[cut]) {
                stream.push(piece, &mut out);
            }
            assert_eq!(stream.finish(&mut out), counts);
            assert!(out == whole.as_ref(), "cut at {cut}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn pieces_redact_as_the_whole_does(
            text in pieces(),
            cuts in prop::collection::vec(1usize..100_000, 1..12),
        ) {
            let redactor = Redactor::new(&["hunter2-corp-literal".to_owned()]).unwrap();
            let (whole, counts) = redactor.redact(&text);
            let mut stream = PieceRedactor::owned(redactor.clone());
            let mut out = String::new();
            for piece in crate::test_support::pieces(&text, &cuts) {
                stream.push(piece, &mut out);
                prop_assert!(stream.retained_bytes() <= 2 * (UNIT + 100_000));
            }
            let got_counts = stream.finish(&mut out);
            prop_assert!(out == whole.as_ref());
            prop_assert_eq!(got_counts, counts);
        }
    }
}
