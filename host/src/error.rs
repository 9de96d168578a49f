//! One error type that keeps the component's answer apart from a runtime failure.

use std::fmt;

use crate::CapError;
use crate::limits::LimitExceeded;

/// Why a call into the component failed.
#[derive(Debug)]
pub enum Error {
    /// The component ran and returned a `cap-error`: a bad argument, a path
    /// outside the spill folder, a missing file. The session stays usable.
    Cap(CapError),
    /// The runtime failed: the component could not be compiled or
    /// instantiated, a preopen could not be opened, a resource limit stopped
    /// the call ([`Error::limit_exceeded`] says which), or the guest trapped.
    /// After a trap the session is poisoned and must be replaced
    /// ([`Session::is_poisoned`](crate::Session::is_poisoned)).
    Runtime(anyhow::Error),
}

impl Error {
    /// Which of the session's [`Limits`](crate::Limits) stopped the call, if one did.
    pub fn limit_exceeded(&self) -> Option<&LimitExceeded> {
        match self {
            Error::Runtime(err) => err.downcast_ref(),
            Error::Cap(_) => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cap(err) => {
                let (kind, message) = describe(err);
                write!(f, "{kind}: {message}")
            }
            Error::Runtime(err) => write!(f, "wasm runtime: {err:#}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Cap(err) => Some(err),
            Error::Runtime(err) => Some(err.as_ref()),
        }
    }
}

impl From<anyhow::Error> for Error {
    fn from(err: anyhow::Error) -> Self {
        Error::Runtime(err)
    }
}

impl From<wasmtime::Error> for Error {
    fn from(err: wasmtime::Error) -> Self {
        Error::Runtime(err.into())
    }
}

impl From<LimitExceeded> for Error {
    fn from(limit: LimitExceeded) -> Self {
        Error::Runtime(limit.into())
    }
}

impl From<CapError> for Error {
    fn from(err: CapError) -> Self {
        Error::Cap(err)
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
