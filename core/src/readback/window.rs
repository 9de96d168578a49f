//! The bytes of the file that grep holds while it searches, which an
//! excerpt uses before reading again.

use super::to_index;

/// The bytes of the file range `pos..pos + bytes.len()` that grep holds.
#[derive(Debug, Default)]
pub(super) struct Window {
    /// File offset of `bytes[0]`.
    pub(super) pos: u64,
    /// The bytes held.
    pub(super) bytes: Vec<u8>,
}

impl Window {
    /// File offset just past the bytes held.
    pub(super) fn end(&self) -> u64 {
        self.pos + self.bytes.len() as u64
    }

    /// The file range `from..to`, if held whole.
    pub(super) fn slice(&self, from: u64, to: u64) -> Option<&[u8]> {
        let lo = to_index(from.checked_sub(self.pos)?);
        let hi = to_index(to.checked_sub(self.pos)?);
        self.bytes.get(lo..hi)
    }

    /// Forget the bytes before file offset `at`.
    pub(super) fn drop_before(&mut self, at: u64) {
        let n = to_index(at.saturating_sub(self.pos)).min(self.bytes.len());
        self.bytes.drain(..n);
        self.pos += n as u64;
    }
}
