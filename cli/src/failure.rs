//! Why `toolcap` stops, and with which exit status.

use std::fmt::Display;

/// Exit status for a mistake in the options or the config file (as clap uses).
pub const USAGE: u8 = 2;
/// Exit status when toolcap itself fails after it started.
pub const FAILED: u8 = 1;

/// A reason to stop, told on standard error, and the exit status to stop with.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    /// A mistake the user can fix in the command line or the config file.
    pub fn usage(message: impl Display) -> Self {
        Self {
            code: USAGE,
            message: message.to_string(),
        }
    }

    /// Toolcap could not do its job.
    pub fn failed(message: impl Display) -> Self {
        Self {
            code: FAILED,
            message: message.to_string(),
        }
    }
}

/// A session the component would not open: settings it refused (an empty
/// `--thread`) are the user's to fix, anything else is toolcap's failure.
pub fn session_failure(e: tool_output_cap::Error) -> Failure {
    match e.cap_error() {
        Some(tool_output_cap::CapError::InvalidSettings(message)) => {
            Failure::usage(format!("the settings cannot be used: {message}"))
        }
        _ => Failure::failed(format!("cannot open a session: {e}")),
    }
}
