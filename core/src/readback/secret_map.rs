//! Where the secrets of a saved file lie, and how offsets of the file and
//! of its redacted view correspond (see [`super::RedactedFile`]).

use crate::redact::placeholder;

/// One secret: bytes `saved_start..saved_end` of the saved file, shown as
/// its kind's placeholder at `view_start` of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Edit {
    pub(super) saved_start: u64,
    pub(super) saved_end: u64,
    pub(super) view_start: u64,
    pub(super) kind: &'static str,
}

impl Edit {
    pub(super) fn view_end(&self) -> u64 {
        self.view_start + placeholder(self.kind).len() as u64
    }
}

/// Which end of a secret an offset inside its placeholder maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bias {
    /// The secret's first byte: where something that starts there starts.
    Start,
    /// Just past the secret: where what follows a cut placeholder goes on.
    End,
}

/// Where the secrets of a file are, and how offsets of the saved file and of
/// its redacted view correspond.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretMap {
    pub(super) edits: Vec<Edit>,
    pub(super) saved_size: u64,
    pub(super) view_size: u64,
}

impl SecretMap {
    /// Size of the saved file.
    pub fn saved_size(&self) -> u64 {
        self.saved_size
    }

    /// Size of the redacted view.
    pub fn view_size(&self) -> u64 {
        self.view_size
    }

    /// The view offset of saved offset `saved`; inside a secret, the start of
    /// its placeholder.
    pub fn to_view(&self, saved: u64) -> u64 {
        let i = self.edits.partition_point(|e| e.saved_end <= saved);
        if let Some(e) = self.edits.get(i)
            && e.saved_start <= saved
        {
            return e.view_start;
        }
        match i.checked_sub(1).map(|p| self.edits[p]) {
            Some(prev) => saved - prev.saved_end + prev.view_end(),
            None => saved,
        }
    }

    /// The saved offset of view offset `view`; strictly inside a
    /// placeholder, the secret's start or end as `bias` says.
    pub fn to_saved(&self, view: u64, bias: Bias) -> u64 {
        let i = self.edits.partition_point(|e| e.view_end() <= view);
        if let Some(e) = self.edits.get(i)
            && e.view_start < view
        {
            return match bias {
                Bias::Start => e.saved_start,
                Bias::End => e.saved_end,
            };
        }
        match i.checked_sub(1).map(|p| self.edits[p]) {
            Some(prev) => view - prev.view_end() + prev.saved_end,
            None => view,
        }
    }

    /// The start of the placeholder that view offset `view` is strictly
    /// inside, if any: where a page that would end at `view` should end.
    pub fn placeholder_start_before(&self, view: u64) -> Option<u64> {
        let i = self.edits.partition_point(|e| e.view_end() <= view);
        self.edits
            .get(i)
            .filter(|e| e.view_start < view)
            .map(|e| e.view_start)
    }

    /// Secrets that overlap saved bytes `from..to`, and by how many bytes
    /// the view of that range is longer (positive) or shorter than the saved
    /// bytes.
    pub fn within(&self, from: u64, to: u64) -> (u64, i64) {
        let first = self.edits.partition_point(|e| e.saved_end <= from);
        let mut n = 0;
        let mut delta = 0i64;
        for e in self.edits[first..]
            .iter()
            .take_while(|e| e.saved_start < to)
        {
            n += 1;
            delta += placeholder(e.kind).len() as i64 - (e.saved_end - e.saved_start) as i64;
        }
        (n, delta)
    }

    /// True when the file holds no secret: the view is the file.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}
