//! Short, actionable words for `wasi:filesystem` error codes.

use toolcap_core::CapError;
use wasi::filesystem::types::ErrorCode;

/// A phrase for `code`, for notices and errors.
pub fn describe(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::NoEntry => "no such file or directory",
        ErrorCode::Access | ErrorCode::NotPermitted => "permission denied",
        ErrorCode::ReadOnly => "read-only file system",
        ErrorCode::InsufficientSpace => "no space left on device",
        ErrorCode::Quota => "disk quota exceeded",
        ErrorCode::FileTooLarge => "file too large",
        ErrorCode::Exist => "already exists",
        ErrorCode::NotDirectory => "not a directory",
        ErrorCode::IsDirectory => "is a directory",
        ErrorCode::Loop => "symbolic link refused",
        ErrorCode::NotEmpty => "directory not empty",
        ErrorCode::Busy => "resource busy",
        ErrorCode::Io => "I/O error",
        ErrorCode::Unsupported => "operation not supported by the host",
        ErrorCode::InsufficientMemory => "out of memory",
        ErrorCode::NameTooLong => "file name too long",
        _ => "file-system error",
    }
}

/// `code` while doing `what`, as the `cap-error` a caller can act on.
pub fn to_cap_error(what: &str, code: ErrorCode) -> CapError {
    let msg = format!("{what}: {}", describe(code));
    match code {
        ErrorCode::NoEntry => CapError::NotFound(msg),
        ErrorCode::Loop | ErrorCode::NotDirectory | ErrorCode::IsDirectory => {
            CapError::OutsideRoot(msg)
        }
        ErrorCode::ReadOnly | ErrorCode::Access | ErrorCode::NotPermitted => {
            CapError::NoSpillDir(msg)
        }
        _ => CapError::Io(msg),
    }
}
