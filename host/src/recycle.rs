//! Giving memory back. Wasm linear memory never shrinks: after one 64 MiB
//! cap an instance holds about 65 MiB for good. A long-running host would
//! ratchet up to the largest output each session ever saw, so a session
//! swaps its instance for a fresh one after a call that left it large.

/// Default recycling threshold: 16 MiB of linear memory.
///
/// A session holds about a megabyte after opening and that plus the input
/// after a `cap` (`make bench`, memory suite). Outputs up to about 14 MiB keep
/// their instance; a larger one costs one fresh instance and `open`, small
/// next to the call that grew it. An idle session then holds at most 16 MiB.
pub const DEFAULT_RECYCLE_ABOVE: usize = 16 << 20;

/// When a session replaces its instance to give linear memory back.
///
/// The replacement is transparent: it is opened with the same settings and
/// key, so references issued before it stay valid, and spilled files stay
/// where they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recycling {
    /// After any call that leaves the linear memory larger than this many bytes.
    Above(usize),
    /// Never: a session keeps the memory of its largest call until dropped.
    Never,
}

impl Default for Recycling {
    fn default() -> Self {
        Recycling::Above(DEFAULT_RECYCLE_ABOVE)
    }
}

impl Recycling {
    /// Whether an instance holding `memory_bytes` should be replaced.
    pub(crate) fn wants(self, memory_bytes: usize) -> bool {
        matches!(self, Recycling::Above(limit) if memory_bytes > limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycles_only_above_the_threshold() {
        let default = Recycling::default();
        assert!(!default.wants(DEFAULT_RECYCLE_ABOVE));
        assert!(default.wants(DEFAULT_RECYCLE_ABOVE + 1));
        assert!(!Recycling::Never.wants(usize::MAX));
    }
}
