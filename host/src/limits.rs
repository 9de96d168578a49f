//! What one session may use: linear memory and time per call, and how a call
//! that hits either is reported.

use std::fmt;
use std::time::Duration;

pub use crate::recycle::{DEFAULT_RECYCLE_ABOVE, Recycling};

/// Default memory limit: 256 MiB of linear memory. A cap of a 64 MiB output
/// grows the component to about 65 MiB, and `cap_parts` or `prune` of 64 MiB
/// to about 130 MiB (the text is copied once more), so every function handles
/// 64 MiB inputs with room to spare, and a single `cap` about 250 MiB.
pub const DEFAULT_MEMORY_LIMIT: usize = 256 << 20;

/// Default call deadline: 30 s. Capping 64 MiB takes well under a second on
/// a slow machine, so only a runaway call gets near it.
pub const DEFAULT_CALL_DEADLINE: Duration = Duration::from_secs(30);

/// Resource limits of one session's store (and of a `classify` call).
///
/// A call that would exceed them fails with [`Error::LimitExceeded`](crate::Error::LimitExceeded), which
/// says which limit and by how much. An input that
/// cannot fit in the memory limit is refused before the component sees it,
/// and the session stays usable; a call stopped inside the component leaves
/// the session poisoned (see [`Session::is_poisoned`](crate::Session::is_poisoned)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest size, in bytes, the component's linear memory may grow to.
    /// `None`: no limit beyond wasm32's 4 GiB. Default [`DEFAULT_MEMORY_LIMIT`].
    pub memory_bytes: Option<usize>,
    /// Longest wall-clock time one call may run, measured to a precision of
    /// 10 ms. Only code running in the component is interrupted: a call stuck
    /// in a host file operation stops when that operation returns. `None`: no
    /// deadline. Default [`DEFAULT_CALL_DEADLINE`].
    pub call_deadline: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: Some(DEFAULT_MEMORY_LIMIT),
            call_deadline: Some(DEFAULT_CALL_DEADLINE),
        }
    }
}

/// Which limit stopped a call: [`Error::LimitExceeded`](crate::Error::LimitExceeded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitExceeded {
    /// Refused before the call: the input plus the component's own memory
    /// (its data and stack) does not fit in the limit. Nothing ran, and the
    /// session is still usable: cut the input on the host, or raise the limit.
    InputTooLarge {
        /// Bytes of the input (for `cap_parts`, of all its parts).
        input_bytes: u64,
        /// Bytes of linear memory the component has before any input.
        own_bytes: u64,
        /// The session's memory limit.
        limit_bytes: u64,
    },
    /// The component asked to grow its memory beyond the limit and trapped.
    /// The session is poisoned: open a new one.
    Memory {
        /// The memory size it asked for.
        requested_bytes: u64,
        /// The session's memory limit.
        limit_bytes: u64,
    },
    /// The call ran past its deadline and was interrupted. The session is
    /// poisoned: open a new one.
    Deadline {
        /// The session's call deadline.
        deadline: Duration,
    },
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LimitExceeded::InputTooLarge {
                input_bytes,
                own_bytes,
                limit_bytes,
            } => write!(
                f,
                "input of {} exceeds this session's {} memory limit ({} of it is the \
                 component's own); the call was refused and the session is still usable",
                mib(input_bytes),
                mib(limit_bytes),
                mib(own_bytes)
            ),
            LimitExceeded::Memory {
                requested_bytes,
                limit_bytes,
            } => write!(
                f,
                "the component needed more than this session's {} memory limit (it asked \
                 for {}) and was stopped",
                mib(limit_bytes),
                mib(requested_bytes)
            ),
            LimitExceeded::Deadline { deadline } => write!(
                f,
                "the call ran past this session's {deadline:?} deadline and was interrupted"
            ),
        }
    }
}

impl std::error::Error for LimitExceeded {}

/// `bytes` in MiB with one decimal, as limits are usually chosen.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}
