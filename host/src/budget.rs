//! Budget defaults a host can start from.

use crate::{Budget, types::Keep};

/// Default byte limit of one result: a useful preview, small next to a context window.
pub const DEFAULT_MAX_BYTES: u32 = 16 * 1024;
/// Default line limit: enough for a useful preview, small next to a context window.
pub const DEFAULT_MAX_LINES: u32 = 400;
/// Default cut for single preview lines (minified bundles are one huge line).
pub const DEFAULT_MAX_LINE_BYTES: u32 = 2000;
/// Default share of the preview given to the head; the tail gets the rest,
/// because logs put their errors and summaries last.
pub const DEFAULT_HEAD_PERCENT: u8 = 40;

impl Budget {
    /// A budget of `max_bytes` with the defaults: at most 400 lines, preview
    /// lines cut at 2000 bytes, head and tail kept (40% head), no token
    /// limit. Override
    /// fields with struct update syntax:
    /// `Budget { max_lines: Some(200), ..Budget::new(16 * 1024) }`.
    pub fn new(max_bytes: u32) -> Self {
        Budget {
            max_bytes,
            max_lines: Some(DEFAULT_MAX_LINES),
            max_line_bytes: Some(DEFAULT_MAX_LINE_BYTES),
            keep: Keep::HeadAndTail,
            head_percent: DEFAULT_HEAD_PERCENT,
            max_tokens: None,
        }
    }
}

impl Default for Budget {
    /// [`Budget::new`] of [`DEFAULT_MAX_BYTES`] (16 KiB).
    fn default() -> Self {
        Budget::new(DEFAULT_MAX_BYTES)
    }
}
