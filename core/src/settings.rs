//! What a session chooses about its previews: which refinements are on,
//! the notice's style, the host's notable patterns, the media costs, and
//! redaction.

use crate::error::CapError;
use crate::notice::NoticeStyle;
use crate::tokens::MediaCosts;

/// Which of the preview's refinements are on. All are by default; the
/// benchmarks turn them off to measure the 0.1 preview (plain head and tail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewFeatures {
    /// Notable (failure) lines of the omitted middle are shown.
    pub notable: bool,
    /// Runs of repeated lines are folded.
    pub fold: bool,
    /// A whole JSON document gets a valid JSON preview.
    pub json: bool,
    /// Budget left over flows back to long lines, so the preview uses it,
    /// and cuts inside a line keep extended grapheme clusters whole (0.1 cut
    /// on char boundaries only).
    pub fill: bool,
    /// The compact notice for small budgets, and a tail-leaning preview of a
    /// failed call.
    pub adaptive_notice: bool,
}

impl PreviewFeatures {
    /// Every refinement on: what sessions use.
    pub const ALL: PreviewFeatures = PreviewFeatures {
        notable: true,
        fold: true,
        json: true,
        fill: true,
        adaptive_notice: true,
    };
    /// Every refinement off: the 0.1 preview, for comparison.
    pub const NONE: PreviewFeatures = PreviewFeatures {
        notable: false,
        fold: false,
        json: false,
        fill: false,
        adaptive_notice: false,
    };
}

impl Default for PreviewFeatures {
    fn default() -> Self {
        PreviewFeatures::ALL
    }
}

/// What a session chooses about its previews and notices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreviewSettings {
    /// How notices point into a spill.
    pub notice: NoticeStyle,
    /// The host's own notable-line patterns: literal substrings, matched
    /// case-sensitively, in addition to the built-in failure patterns.
    pub notable_patterns: Vec<String>,
    /// Which refinements are on.
    pub features: PreviewFeatures,
    /// What the token estimator counts for media parts.
    pub media: MediaCosts,
    /// Opt-in secret redaction.
    pub redaction: Option<RedactionSettings>,
}

/// A session's redaction policy. Mirrors WIT `redaction-policy`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedactionSettings {
    /// Host-supplied secrets, redacted wherever they occur.
    pub literals: Vec<String>,
    /// Also redact the saved file; otherwise it keeps the output as it was.
    pub spill: bool,
}

/// Longest host pattern for notable lines.
pub const MAX_PATTERN_BYTES: usize = 200;

/// Most host patterns for notable lines.
pub const MAX_PATTERNS: usize = 64;

impl PreviewSettings {
    /// Checks the read tool's name and the host's patterns.
    pub fn validate(&self) -> Result<(), CapError> {
        self.notice.validate()?;
        if self.notable_patterns.len() > MAX_PATTERNS {
            return Err(CapError::InvalidSettings(format!(
                "at most {MAX_PATTERNS} notable-patterns, got {}",
                self.notable_patterns.len()
            )));
        }
        for pattern in &self.notable_patterns {
            if pattern.is_empty()
                || pattern.len() > MAX_PATTERN_BYTES
                || pattern.contains(['\n', '\r'])
            {
                return Err(CapError::InvalidSettings(format!(
                    "each notable pattern must be 1 to {MAX_PATTERN_BYTES} bytes on one line, \
                     got {:?}",
                    crate::text::truncate_str(pattern, MAX_PATTERN_BYTES)
                )));
            }
        }
        Ok(())
    }
}
