//! What the one-pass engine ([`crate::stream`]) keeps of a text for its
//! preview: the first and last bytes, the notable lines and the failures'
//! blocks. The engine fills these in; [`super`] chooses from them.

use std::iter;

use crate::preview::render::Source;

/// The score of a window: above every notable line, as in `cap`.
pub(crate) const WINDOW_SCORE: u8 = u8::MAX;

/// A notable line, with as much of its text as a preview can show.
#[derive(Debug, Clone)]
pub(crate) struct Notable {
    /// Start of the line.
    pub(crate) start: u64,
    /// End of the line, after its LF (or the end of the text).
    pub(crate) end: u64,
    /// 1-based line number.
    pub(crate) line: u64,
    /// Confidence, 1 to 5.
    pub(crate) score: u8,
    /// [`crate::preview::notable::dedupe_key`] of its first bytes.
    pub(crate) key: u64,
    /// Lines alike merged into this one.
    pub(crate) similar: u64,
    /// Bytes of the line without its LF.
    pub(crate) content: u64,
    /// The bytes of the line kept, from byte `lead` of it on, whole chars:
    /// its first bytes, or a window around a search hit.
    pub(crate) prefix: String,
    /// Bytes of the line before those kept: 0 but for a window
    /// (`stream/hits.rs`).
    pub(crate) lead: u64,
}

/// A failure line and the other lines of its block, best first.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub(crate) failure: Notable,
    pub(crate) lines: Vec<Notable>,
    /// The lines are the failure's context, not a block (see `stream::blocks::Looks`).
    pub(crate) context: bool,
}

/// What the engine kept of a text.
#[derive(Debug)]
pub(crate) struct Retained<'a> {
    /// The text's first bytes, whole chars.
    pub(crate) head: &'a str,
    /// The text's last bytes, whole chars, from `ring_at` on.
    pub(crate) ring: &'a str,
    pub(crate) ring_at: u64,
    /// Start of the line holding byte `ring_at`.
    pub(crate) ring_line_start: u64,
    /// The first LF at or after the end of the kept head, if any.
    pub(crate) lf_after_head: Option<u64>,
    pub(crate) total: u64,
    pub(crate) lines: u64,
    pub(crate) notables: &'a [Notable],
    /// The blocks of the best failures, in no particular order.
    pub(crate) blocks: &'a [Block],
}

impl Retained<'_> {
    pub(super) fn ring_byte(&self, at: u64) -> u8 {
        self.ring.as_bytes()[(at - self.ring_at) as usize]
    }
}

/// The text's bytes a one-pass preview may show: its kept head, its kept
/// tail, and the kept bytes of the notable lines and of the failures'
/// blocks.
impl Source<u64> for Retained<'_> {
    fn slice(&self, a: u64, e: u64) -> &str {
        if e <= self.head.len() as u64 {
            return &self.head[a as usize..e as usize];
        }
        if a >= self.ring_at {
            return &self.ring[(a - self.ring_at) as usize..(e - self.ring_at) as usize];
        }
        let in_blocks = self
            .blocks
            .iter()
            .flat_map(|b| iter::once(&b.failure).chain(&b.lines));
        let kept = self.notables.iter().chain(in_blocks).find_map(|n| {
            let start = n.start + n.lead;
            let end = start + n.prefix.len() as u64;
            (start <= a && e <= end).then(|| &n.prefix[(a - start) as usize..(e - start) as usize])
        });
        kept.expect("a one-pass preview shows only bytes it kept")
    }
}
