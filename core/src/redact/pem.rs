//! PEM private-key blocks, the one secret that spans lines: the `BEGIN` and
//! `END` lines stay, each body line becomes `[redacted: private-key]` (its
//! indentation and line break kept), so the line count never changes.
//! Public keys and certificates are not secret and stay.
//!
//! A block written on one line (`"-----BEGIN PRIVATE KEY-----\nMIIE…\n-----END
//! PRIVATE KEY-----\n"` in a JSON string) keeps its markers and escapes; the
//! base64 between them is replaced.
//!
//! A block ends at its `END` line, or at the first line that is not base64
//! (nor, before the base64, a `Proc-Type:`-style header, kept as it is, or a
//! blank line), so a truncated key or a marker quoted in prose never
//! swallows what follows.

use super::{Span, kind, placeholder};

/// The anchor of a block.
pub(super) const BEGIN: &str = "-----BEGIN ";
const END: &str = "-----END ";
const DASHES: &[u8] = b"-----";
/// Longest label between `BEGIN ` and the dashes (`ENCRYPTED PRIVATE KEY`).
const MAX_LABEL: usize = 40;
/// Longest prefix of the `BEGIN` line (a log prefix such as `web-1  | `) kept
/// on every body line that repeats it.
const MAX_PREFIX: usize = 256;
/// First base64 line of a body: shorter ones are more likely prose.
const MIN_FIRST_LINE: usize = 16;
/// Base64 characters a one-line body holds at least.
const MIN_INLINE: usize = 32;

/// What a `BEGIN` marker starts.
#[derive(Debug)]
pub(super) enum Begin {
    /// Not a private key, or nothing to redact.
    No,
    /// A whole block on this line: redact its body.
    Inline(Span),
    /// A block whose body follows on the next lines; `prefix` is the offset of
    /// the marker, `rest` the base64 after it on this line, if any, and
    /// `body_seen` whether this line holds body already (that base64, or
    /// its placeholder: redacting a redacted text changes nothing).
    Open {
        prefix: usize,
        rest: Option<Span>,
        body_seen: bool,
    },
}

/// What a line inside an open block is.
#[derive(Debug)]
pub(super) enum Body {
    /// Blank, a header (`Proc-Type: ...`) before the base64, or already
    /// redacted: unchanged.
    Keep,
    /// A body line; `true` for the first redaction of the block.
    Redact(Span, bool),
    /// The `END` line or a line that is not part of a body: the block is
    /// closed, the line is scanned as any other.
    Closed,
}

/// The block a [`super::LineRedactor`] is inside, if any.
#[derive(Debug, Default)]
pub(super) struct State {
    open: bool,
    prefix: String,
    seen_body: bool,
    counted: bool,
}

impl State {
    pub(super) fn is_open(&self) -> bool {
        self.open
    }

    /// Enter a block whose `BEGIN` line starts with `prefix`; `counted`
    /// when that line's body was redacted and counted, `body_seen` when it
    /// holds body (redacted now or before: whenever `counted`).
    pub(super) fn open(&mut self, prefix: &str, counted: bool, body_seen: bool) {
        self.open = true;
        self.prefix.clear();
        if prefix.len() <= MAX_PREFIX {
            self.prefix.push_str(prefix);
        }
        self.seen_body = body_seen;
        self.counted = counted;
    }

    /// Classify `unit`, a line inside the block.
    pub(super) fn body_line(&mut self, unit: &str) -> Body {
        let content = content(unit);
        let b = content.as_bytes();
        if let Some(at) = content.find(END)
            && marker_end(b, at + END.len()).is_some()
        {
            self.open = false;
            return Body::Closed;
        }
        let start = if !self.prefix.is_empty() && content.starts_with(self.prefix.as_str()) {
            self.prefix.len()
        } else {
            content.len() - content.trim_ascii_start().len()
        };
        let rest = content[start..].trim_ascii_end();
        if rest.is_empty() {
            return Body::Keep;
        }
        if rest == placeholder(kind::PRIVATE_KEY) {
            self.seen_body = true;
            return Body::Keep;
        }
        let base64 = rest
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='));
        if !base64 && !self.seen_body && header(rest) {
            // `Proc-Type: 4,ENCRYPTED` and `DEK-Info: AES-128-CBC,<iv>` are
            // no secret, and say the key is encrypted. Kept as they are, a
            // second redaction sees them as the first did: a placeholder in
            // their place would read as body and take the next short line.
            return Body::Keep;
        }
        if !base64 || !(self.seen_body || rest.len() >= MIN_FIRST_LINE) {
            self.open = false;
            return Body::Closed;
        }
        self.seen_body = true;
        let first = !self.counted;
        self.counted = true;
        let span = Span {
            start,
            end: start + rest.len(),
            kind: kind::PRIVATE_KEY,
        };
        Body::Redact(span, first)
    }
}

/// `unit` without its line break.
fn content(unit: &str) -> &str {
    let s = unit.strip_suffix('\n').unwrap_or(unit);
    s.strip_suffix('\r').unwrap_or(s)
}

/// `Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, `Version: …`.
fn header(s: &str) -> bool {
    let name = s
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'-')
        .count();
    name > 0 && s.as_bytes()[0].is_ascii_alphabetic() && s[name..].starts_with(": ")
}

/// End of `LABEL-----` at `from` when the label names a private key.
fn marker_end(b: &[u8], from: usize) -> Option<usize> {
    let label = b[from..]
        .iter()
        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b' ')
        .count();
    let name = &b[from..from + label];
    let private = name.windows(11).any(|w| w == b"PRIVATE KEY");
    (label <= MAX_LABEL && private && b[from + label..].starts_with(DASHES))
        .then_some(from + label + DASHES.len())
}

/// The `BEGIN` marker `unit[start..end]` (its label follows).
pub(super) fn begin(unit: &str, start: usize, end: usize) -> Begin {
    let b = unit.as_bytes();
    let Some(body) = marker_end(b, end) else {
        return Begin::No;
    };
    let mut from = body;
    while let Some(at) = unit[from..].find(END).map(|at| from + at) {
        if marker_end(b, at + END.len()).is_some() {
            let (s, e) = trim(b, body, at);
            return if inline_body(&b[s..e]) {
                Begin::Inline(Span {
                    start: s,
                    end: e,
                    kind: kind::PRIVATE_KEY,
                })
            } else {
                Begin::No
            };
        }
        from = at + END.len();
    }
    let (s, e) = trim(b, body, content(unit).len());
    let rest = &unit[s..e];
    if rest.is_empty() || rest == placeholder(kind::PRIVATE_KEY) {
        Begin::Open {
            prefix: start,
            rest: None,
            body_seen: !rest.is_empty(),
        }
    } else if inline_body(rest.as_bytes()) {
        let span = Span {
            start: s,
            end: e,
            kind: kind::PRIVATE_KEY,
        };
        Begin::Open {
            prefix: start,
            rest: Some(span),
            body_seen: true,
        }
    } else {
        Begin::No
    }
}

/// `b[from..to]` without blanks, escaped line breaks (`\n`, `\r`), and
/// trailing quotes and commas around it.
fn trim(b: &[u8], mut from: usize, mut to: usize) -> (usize, usize) {
    loop {
        if from < to && b[from].is_ascii_whitespace() {
            from += 1;
        } else if from + 1 < to && b[from] == b'\\' && matches!(b[from + 1], b'n' | b'r') {
            from += 2;
        } else {
            break;
        }
    }
    loop {
        if from < to
            && (b[to - 1].is_ascii_whitespace() || matches!(b[to - 1], b'"' | b'\'' | b','))
        {
            to -= 1;
        } else if from + 1 < to && b[to - 2] == b'\\' && matches!(b[to - 1], b'n' | b'r') {
            to -= 2;
        } else {
            break;
        }
    }
    (from, to)
}

/// A body written on one line: base64, blanks, escaped line breaks and
/// header punctuation, with enough base64 to be a key.
fn inline_body(s: &[u8]) -> bool {
    let mut base64 = 0;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == b'\\' {
            if !matches!(s.get(i + 1), Some(b'n' | b'r')) {
                return false;
            }
            i += 2;
            continue;
        }
        if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/') {
            base64 += 1;
        } else if !matches!(c, b'=' | b' ' | b'\t' | b':' | b',' | b'-') {
            return false;
        }
        i += 1;
    }
    base64 >= MIN_INLINE
}
