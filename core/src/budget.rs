//! The budget a tool result must fit, and its validation.

use crate::error::CapError;

/// Which part of an oversized result the preview keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// The first lines.
    Head,
    /// The last lines.
    Tail,
    /// Both ends, split by `head_percent`.
    #[default]
    HeadAndTail,
}

/// Limits for one tool result, notice included. Mirrors WIT `budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Most bytes of returned text; 0 disables capping.
    pub max_bytes: u32,
    /// Most lines of returned text; `None` means no line limit.
    pub max_lines: Option<u32>,
    /// Longest preview line before it is shortened; `None` keeps lines whole.
    pub max_line_bytes: Option<u32>,
    /// Which part the preview keeps.
    pub keep: Keep,
    /// Head share of a head-and-tail preview, 0 to 100.
    pub head_percent: u8,
    /// Most estimated tokens of returned text, notice included (the
    /// session's estimator, [`crate::tokens`]); `None` means no token limit.
    pub max_tokens: Option<u32>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_bytes: 16 * 1024,
            max_lines: Some(400),
            max_line_bytes: Some(400),
            keep: Keep::HeadAndTail,
            head_percent: 40,
            max_tokens: None,
        }
    }
}

/// The room a notice needs; sessions derive it from their display root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoticeRoom {
    /// Bytes of the longest possible notice and gap marker.
    pub bytes: usize,
    /// Lines of the longest possible notice and gap marker.
    pub lines: u64,
    /// Least `max-tokens`: what the densest notice and gap marker can take
    /// by the session's estimate, with a margin.
    pub tokens: u64,
}

impl Budget {
    /// True when this budget disables capping.
    pub fn is_disabled(&self) -> bool {
        self.max_bytes == 0
    }

    /// Check every field; `room` is what the notice needs at worst.
    pub fn validate(&self, room: NoticeRoom) -> Result<(), CapError> {
        if self.is_disabled() {
            return Ok(());
        }
        if (self.max_bytes as usize) < room.bytes {
            return Err(CapError::InvalidBudget(format!(
                "max-bytes {} leaves no room for the notice: it must be 0 (no cap) or at least {} \
                 for this session",
                self.max_bytes, room.bytes
            )));
        }
        if let Some(lines) = self.max_lines
            && u64::from(lines) < room.lines
        {
            return Err(CapError::InvalidBudget(format!(
                "max-lines {lines} leaves no room for the notice: it must be at least {}",
                room.lines
            )));
        }
        if let Some(tokens) = self.max_tokens
            && u64::from(tokens) < room.tokens
        {
            return Err(CapError::InvalidBudget(format!(
                "max-tokens {tokens} leaves no room for the notice: it must be at least {} for \
                 this session, or none",
                room.tokens
            )));
        }
        if self.max_line_bytes == Some(0) {
            return Err(CapError::InvalidBudget(
                "max-line-bytes must be at least 1, or none to keep lines whole".into(),
            ));
        }
        if self.head_percent > 100 {
            return Err(CapError::InvalidBudget(format!(
                "head-percent {} is above 100",
                self.head_percent
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOM: NoticeRoom = NoticeRoom {
        bytes: 500,
        lines: 4,
        tokens: 300,
    };

    #[test]
    fn default_budget_is_valid() {
        assert_eq!(Budget::default().validate(ROOM), Ok(()));
    }

    #[test]
    fn zero_bytes_disables_everything_else() {
        // As wit/types.wit says: no other field is checked, max-lines included.
        let b = Budget {
            max_bytes: 0,
            max_lines: Some(0),
            max_line_bytes: Some(0),
            keep: Keep::Head,
            head_percent: 250,
            max_tokens: Some(0),
        };
        assert!(b.is_disabled());
        assert_eq!(b.validate(ROOM), Ok(()));
    }

    #[test]
    fn rejects_each_bad_field() {
        let bad = [
            Budget {
                max_bytes: 499,
                ..Budget::default()
            },
            Budget {
                max_lines: Some(3),
                ..Budget::default()
            },
            Budget {
                max_line_bytes: Some(0),
                ..Budget::default()
            },
            Budget {
                head_percent: 101,
                ..Budget::default()
            },
            Budget {
                max_tokens: Some(299),
                ..Budget::default()
            },
        ];
        for b in bad {
            assert!(
                matches!(b.validate(ROOM), Err(CapError::InvalidBudget(_))),
                "{b:?}"
            );
        }
        let edge = Budget {
            max_bytes: 500,
            max_lines: Some(4),
            max_tokens: Some(300),
            ..Budget::default()
        };
        assert_eq!(edge.validate(ROOM), Ok(()));
    }
}
