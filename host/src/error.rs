//! One error type a caller can match: the component's answer, a limit, a
//! poisoned session, or the runtime itself.

use std::fmt;

use crate::CapError;
use crate::limits::LimitExceeded;

/// Why a call into the component failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The component ran and returned a `cap-error`: a bad argument, a path
    /// outside the spill folder, a missing file. The session stays usable.
    Cap(CapError),
    /// A [`Limits`](crate::Limits) stopped the call. With
    /// [`LimitExceeded::InputTooLarge`] nothing ran and the session stays
    /// usable; otherwise the call was stopped inside the component and the
    /// session is poisoned.
    LimitExceeded(LimitExceeded),
    /// An earlier call of this session trapped, so its instance can no
    /// longer be entered. Drop the session and open a new one.
    Poisoned {
        /// Why the earlier call failed, in one line.
        reason: String,
    },
    /// The runtime failed: the component could not be compiled or
    /// instantiated, a directory could not be granted, or the guest trapped
    /// (which poisons the session).
    Runtime(RuntimeError),
}

impl Error {
    /// Which of the session's [`Limits`](crate::Limits) stopped the call, if one did.
    pub fn limit_exceeded(&self) -> Option<&LimitExceeded> {
        match self {
            Error::LimitExceeded(limit) => Some(limit),
            _ => None,
        }
    }

    /// The component's `cap-error`, if the component answered with one.
    pub fn cap_error(&self) -> Option<&CapError> {
        match self {
            Error::Cap(err) => Some(err),
            _ => None,
        }
    }

    /// Wraps a failure of the runtime or of the host's own I/O.
    pub(crate) fn runtime(err: impl Into<anyhow::Error>) -> Self {
        Error::Runtime(RuntimeError(err.into()))
    }
}

/// A failure of the wasm runtime or of the host around it, with its chain of
/// causes. Its text is for logs; match on [`Error`]'s other cases to act.
pub struct RuntimeError(anyhow::Error);

impl RuntimeError {
    /// The innermost cause, in one line (no wasm backtrace).
    pub fn root_cause(&self) -> String {
        let cause = self.0.root_cause().to_string();
        cause.lines().next().unwrap_or_default().to_owned()
    }
}

impl fmt::Debug for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cap(err) => {
                let (kind, message) = describe(err);
                write!(f, "{kind}: {message}")
            }
            Error::LimitExceeded(limit) => write!(f, "limit exceeded: {limit}"),
            Error::Poisoned { reason } => write!(
                f,
                "this session can no longer be used, an earlier call failed ({reason}); \
                 open a new session"
            ),
            Error::Runtime(err) => write!(f, "wasm runtime: {err}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Cap(err) => Some(err),
            Error::LimitExceeded(limit) => Some(limit),
            Error::Poisoned { .. } => None,
            Error::Runtime(err) => Some(err),
        }
    }
}

impl From<wasmtime::Error> for Error {
    fn from(err: wasmtime::Error) -> Self {
        Error::runtime(err)
    }
}

impl From<LimitExceeded> for Error {
    fn from(limit: LimitExceeded) -> Self {
        Error::LimitExceeded(limit)
    }
}

impl From<CapError> for Error {
    fn from(err: CapError) -> Self {
        Error::Cap(err)
    }
}

impl CapError {
    /// The WIT case name (`invalid-budget`, `not-found`, ...), as JS and
    /// Python give it in `.case`: what to match on across hosts.
    pub fn case(&self) -> &'static str {
        describe(self).0
    }

    /// The sentence the component wrote for a human or a model.
    pub fn message(&self) -> &str {
        describe(self).1
    }
}

/// The WIT case name and its sentence.
fn describe(err: &CapError) -> (&'static str, &str) {
    match err {
        CapError::InvalidBudget(m) => ("invalid-budget", m),
        CapError::InvalidSettings(m) => ("invalid-settings", m),
        CapError::InvalidArgument(m) => ("invalid-argument", m),
        CapError::OutsideRoot(m) => ("outside-root", m),
        CapError::NotFound(m) => ("not-found", m),
        CapError::NoSpillDir(m) => ("no-spill-dir", m),
        CapError::Io(m) => ("io", m),
        CapError::Other(m) => ("other", m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_error_names_its_wit_case() {
        let err = CapError::NotFound("expired".into());
        assert_eq!((err.case(), err.message()), ("not-found", "expired"));
        assert_eq!(CapError::NoSpillDir(String::new()).case(), "no-spill-dir");
    }
}
