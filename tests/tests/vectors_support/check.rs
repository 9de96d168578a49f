//! Comparing one step's answer with its expectations, and BLESS.

use std::fmt::Debug;

use super::host::Failure;

/// Collects the failures of one step; in bless mode rewrites exact
/// expectations instead of failing on them.
pub struct Checker<'a> {
    label: String,
    failures: &'a mut Vec<String>,
    bless: bool,
    /// Set when an expectation was rewritten.
    pub blessed: bool,
    /// Set when the runtime failed (a trap): the session is unusable.
    pub trapped: bool,
}

impl<'a> Checker<'a> {
    pub fn new(label: String, failures: &'a mut Vec<String>, bless: bool) -> Self {
        Checker {
            label,
            failures,
            bless,
            blessed: false,
            trapped: false,
        }
    }

    pub fn fail(&mut self, message: impl AsRef<str>) {
        self.failures
            .push(format!("{}: {}", self.label, message.as_ref()));
    }

    /// Checks a condition that no expectation can change.
    pub fn ensure(&mut self, ok: bool, message: impl FnOnce() -> String) {
        if !ok {
            self.fail(message());
        }
    }

    /// The call's value if it succeeded as expected; otherwise records why
    /// not. `want_error` is the expected `cap-error` case, if any.
    pub fn outcome<T>(
        &mut self,
        want_error: Option<&str>,
        result: Result<T, Failure>,
    ) -> Option<T> {
        match (want_error, result) {
            (None, Ok(value)) => Some(value),
            (Some(want), Ok(_)) => {
                self.fail(format!("expected error {want}, but the call succeeded"));
                None
            }
            (want, Err(err)) => {
                let got = err.case.as_str();
                if got == "runtime" {
                    self.trapped = true;
                }
                if want != Some(got) {
                    let want = want.map_or("success".to_owned(), |w| format!("error {w}"));
                    self.fail(format!("expected {want}, got {err}"));
                }
                None
            }
        }
    }

    /// An exact expectation that BLESS may rewrite.
    pub fn exact<T: PartialEq + Clone + Debug>(
        &mut self,
        field: &str,
        want: &mut Option<T>,
        got: &T,
    ) {
        let Some(expected) = want else { return };
        if expected == got {
            return;
        }
        if self.bless {
            *expected = got.clone();
            self.blessed = true;
        } else {
            let message = format!("{field}: expected {expected:?}, got {got:?}");
            self.fail(message);
        }
    }

    /// An exact text expectation that BLESS may rewrite; the failure shows
    /// where the texts part.
    pub fn text(&mut self, field: &str, want: &mut Option<String>, got: &str) {
        let Some(expected) = want else { return };
        if expected == got {
            return;
        }
        if self.bless {
            *expected = got.to_owned();
            self.blessed = true;
        } else {
            let message = format!("{field} differs: {}", describe_difference(expected, got));
            self.fail(message);
        }
    }

    /// An expectation BLESS never rewrites (a decision, not a rendering).
    pub fn fixed<T: PartialEq + Debug>(&mut self, field: &str, want: Option<&T>, got: &T) {
        if let Some(expected) = want
            && expected != got
        {
            self.fail(format!("{field}: expected {expected:?}, got {got:?}"));
        }
    }

    /// `text_contains` and `text_not_contains`.
    pub fn substrings(&mut self, contains: &[String], not_contains: &[String], got: &str) {
        for needle in contains {
            if !got.contains(needle.as_str()) {
                let message = format!("text does not contain {needle:?}: {}", excerpt(got));
                self.fail(message);
            }
        }
        for needle in not_contains {
            if got.contains(needle.as_str()) {
                let message = format!("text contains {needle:?}: {}", excerpt(got));
                self.fail(message);
            }
        }
    }
}

/// Where two texts part, with a little context and both sizes.
pub fn describe_difference(want: &str, got: &str) -> String {
    let common = want
        .char_indices()
        .zip(got.chars())
        .find(|((_, a), b)| a != b)
        .map_or(want.len().min(got.len()), |((i, _), _)| i);
    let context = |s: &str| {
        let start = s.floor_char_boundary(common.saturating_sub(40));
        let end = s.ceil_char_boundary((common + 80).min(s.len()));
        format!("{:?}", &s[start..end])
    };
    format!(
        "expected {} bytes, got {} bytes; first difference at byte {common}: expected ...{}..., got ...{}...",
        want.len(),
        got.len(),
        context(want),
        context(got)
    )
}

/// The start and end of a possibly huge text, for failure messages.
pub fn excerpt(text: &str) -> String {
    const EACH: usize = 300;
    if text.len() <= 2 * EACH {
        return format!("{text:?}");
    }
    let head = &text[..text.floor_char_boundary(EACH)];
    let tail = &text[text.ceil_char_boundary(text.len() - EACH)..];
    format!("{head:?} ... {tail:?} ({} bytes)", text.len())
}
