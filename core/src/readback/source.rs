//! Where read-back reads from: the [`RandomRead`] trait and the in-memory
//! sources.

use super::secret_map::SecretMap;
use crate::error::CapError;

/// Random access to one spilled file.
pub trait RandomRead {
    /// File size in bytes.
    fn size(&mut self) -> Result<u64, CapError>;
    /// Read up to `len` bytes at `offset`; fewer only at end of file.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError>;
    /// For a redacted view of a file ([`super::RedactedFile`]): where its
    /// secrets are, so that offsets given and returned by the functions of
    /// [`crate::readback`] stay those of the saved file. `None` (a plain
    /// file): the view is the file.
    fn redactions(&self) -> Option<&SecretMap> {
        None
    }
    /// The file as saved, under any view of it (a redacted view reads
    /// through to it): what its size and digest are checked against.
    fn saved(&mut self) -> &mut dyn RandomRead
    where
        Self: Sized,
    {
        self
    }
}

impl RandomRead for &[u8] {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.len() as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        Ok(slice_at(self, offset, len).to_vec())
    }
}

/// A file held in memory, for tests and for callers that already have the
/// bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemFile(pub Vec<u8>);

impl RandomRead for MemFile {
    fn size(&mut self) -> Result<u64, CapError> {
        Ok(self.0.len() as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        Ok(slice_at(&self.0, offset, len).to_vec())
    }
}

/// The part of `bytes` that `len` bytes at `offset` cover; empty past the end.
fn slice_at(bytes: &[u8], offset: u64, len: usize) -> &[u8] {
    let start = usize::try_from(offset).map_or(bytes.len(), |o| o.min(bytes.len()));
    let end = start.saturating_add(len).min(bytes.len());
    &bytes[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readback::testing::mem;

    #[test]
    fn sources_read_within_bounds() {
        let mut slice: &[u8] = b"hello";
        assert_eq!(slice.size().unwrap(), 5);
        assert_eq!(slice.read_at(1, 3).unwrap(), b"ell");
        assert_eq!(slice.read_at(3, 100).unwrap(), b"lo");
        assert!(slice.read_at(9, 2).unwrap().is_empty());
        assert!(slice.read_at(u64::MAX, usize::MAX).unwrap().is_empty());
        let mut file = mem("hello");
        assert_eq!(file.read_at(4, usize::MAX).unwrap(), b"o");
    }
}
