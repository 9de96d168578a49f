//! The one error type of the core; the guest maps it 1:1 onto WIT `cap-error`.

use std::fmt;

/// Why an operation failed. One case per thing a caller can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapError {
    /// A budget field is out of range.
    InvalidBudget(String),
    /// A session setting is unusable.
    InvalidSettings(String),
    /// Another argument is unusable.
    InvalidArgument(String),
    /// A path outside the session's spill folder, or not a spill file name.
    OutsideRoot(String),
    /// The spilled file does not exist.
    NotFound(String),
    /// The spill directory is not available.
    NoSpillDir(String),
    /// A file-system operation failed.
    Io(String),
    /// Anything else.
    Other(String),
}

impl CapError {
    /// The human-readable message, without the case name.
    pub fn message(&self) -> &str {
        match self {
            CapError::InvalidBudget(m)
            | CapError::InvalidSettings(m)
            | CapError::InvalidArgument(m)
            | CapError::OutsideRoot(m)
            | CapError::NotFound(m)
            | CapError::NoSpillDir(m)
            | CapError::Io(m)
            | CapError::Other(m) => m,
        }
    }

    /// The case name as written in the WIT (`invalid-budget`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            CapError::InvalidBudget(_) => "invalid-budget",
            CapError::InvalidSettings(_) => "invalid-settings",
            CapError::InvalidArgument(_) => "invalid-argument",
            CapError::OutsideRoot(_) => "outside-root",
            CapError::NotFound(_) => "not-found",
            CapError::NoSpillDir(_) => "no-spill-dir",
            CapError::Io(_) => "io",
            CapError::Other(_) => "other",
        }
    }
}

impl fmt::Display for CapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl std::error::Error for CapError {}
