//! The whole blocks of the first failures of a text read once, as the
//! whole-text preview shows them ([`notable::blocks`]): a rustc error's
//! annotated source, a traceback down to its exception line, a pytest
//! section.
//!
//! A block lies around its failure line, before it (a pytest section, a Go
//! test's log) or after it. So the scan keeps the last [`KEEP_BEFORE`]
//! bytes of the text; when a failure line with a block ends, it copies the
//! [`BEFORE_BYTES`] before it and goes on copying up to [`AFTER_BYTES`]
//! after it, then finds the block in that copy; when all those bytes are in
//! the piece the line ends in (a text capped whole is one piece), it finds
//! the block there, with no copy. At most [`SLOTS`] failures
//! are held, the best by rank (confidence, then file order), and one whose
//! block turns out empty frees its slot. Memory is bounded whatever the
//! text's size, and nothing depends on where the pieces were split.
//!
//! The failures with no block (a plain error line, an ESLint error) are
//! held the same way by a scan of their own ([`Looks::Context`]), in slots
//! of their own so that they never take a block's: for the lines `cap`
//! shows with them (psql's `LINE 1:` and `^`, a `Detail:` line, the file an
//! ESLint error is in).

use memchr::{memchr, memrchr};

use crate::preview::notable::{self, Kind, WARNING_SCORE, blocks};
use crate::preview::one_pass::{Block, Notable};
use crate::stream::notables::CLASSIFY_BYTES;
use crate::text::{count_lfs, valid_prefix};

/// Bytes before a failure line looked at for its block.
const BEFORE_BYTES: usize = 16 * 1024;

/// Bytes after a failure line looked at for its block.
const AFTER_BYTES: u64 = 32 * 1024;

/// A longer failure line is not looked at for a block: the bytes before it
/// would no longer be kept.
const MAX_FAILURE_LINE: u64 = CLASSIFY_BYTES as u64;

/// Bytes kept of the text before the current piece.
const KEEP_BEFORE: usize = BEFORE_BYTES + MAX_FAILURE_LINE as usize + 1;

/// Failures held (with their blocks, or waiting for them), at most.
const SLOTS: usize = 4;

/// What a scan looks for around the failures it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Looks {
    /// The blocks of the failures that have one ([`blocks::block`]).
    Block,
    /// The context lines of the failures that have no block, plain and
    /// ESLint errors ([`notable::context_lines`]).
    Context,
}

impl Looks {
    fn takes(self, kind: Kind) -> bool {
        let blockless = matches!(kind, Kind::Plain | Kind::Eslint);
        blockless == (self == Looks::Context)
    }
}

/// A failure whose block is still being read.
#[derive(Debug)]
struct Capture {
    failure: Notable,
    kind: Kind,
    /// The text's bytes from `from` on (a line start).
    from: u64,
    bytes: Vec<u8>,
    /// The lines found with the failure, when every byte looked at was in
    /// the piece its line ended in (copying 48 KiB per failure line was an
    /// eighth of capping a large log). The capture holds its slot until
    /// the text passes its end all the same, as a copy would: which slots
    /// are free must not depend on how the text was split.
    found: Option<Vec<Notable>>,
}

impl Capture {
    fn read_to(&self) -> u64 {
        self.from + self.bytes.len() as u64
    }

    fn wants_to(&self) -> u64 {
        self.failure.end + AFTER_BYTES
    }
}

/// The blocks of a text's best failures, read once.
#[derive(Debug)]
pub(crate) struct BlockScan {
    /// The last bytes before the current piece, from `recent_at` on.
    recent: Vec<u8>,
    recent_at: u64,
    open: Vec<Capture>,
    done: Vec<Block>,
    /// Longest prefix kept of a line.
    prefix_cap: usize,
    looks: Looks,
}

impl BlockScan {
    pub(crate) fn new(prefix_cap: usize, looks: Looks) -> BlockScan {
        BlockScan {
            recent: Vec::new(),
            recent_at: 0,
            open: Vec::new(),
            done: Vec::new(),
            prefix_cap,
            looks,
        }
    }

    /// The line `start..end` (number `line`), classified `score` and
    /// `kind`, has ended in `piece`, which starts at byte `base` (an empty
    /// piece at the text's end when the last line ends there).
    pub(crate) fn failure(&mut self, at: Failure, piece: &[u8], base: u64) {
        let Failure {
            start,
            end,
            score,
            kind,
            ..
        } = at;
        if score <= WARNING_SCORE || !self.looks.takes(kind) || end - start > MAX_FAILURE_LINE + 1 {
            return;
        }
        // The blocks read to their end before this line's end are settled
        // now, however the text was split: which slots are free depends on
        // the text alone.
        self.settle(piece, base, end - 1);
        let rank = (std::cmp::Reverse(score), start);
        if self.open.len() + self.done.len() >= SLOTS && !self.evict_worse_than(rank) {
            return;
        }
        let want_from = start.saturating_sub(BEFORE_BYTES as u64);
        let have_to = base + piece.len() as u64;
        if want_from >= base && end + AFTER_BYTES <= have_to {
            let window = &piece[(want_from - base) as usize..(end + AFTER_BYTES - base) as usize];
            let skip = line_start_skip(want_from, &window[..(start - want_from) as usize]);
            let (from, bytes) = (want_from + skip as u64, &window[skip..]);
            let failure = self.failure_line(at, from, bytes);
            let found = self.lines_around(&failure, kind, from, bytes, false);
            self.open.push(Capture {
                failure,
                kind,
                from,
                bytes: Vec::new(),
                found: Some(found),
            });
            return;
        }
        let mut bytes = Vec::new();
        if want_from < base {
            let skip = (want_from.max(self.recent_at) - self.recent_at) as usize;
            bytes.extend_from_slice(&self.recent[skip..]);
        }
        let from = want_from.max(self.recent_at);
        let take_to = have_to.min(end + AFTER_BYTES);
        let piece_from = from.max(base);
        bytes.extend_from_slice(&piece[(piece_from - base) as usize..(take_to - base) as usize]);
        let skip = line_start_skip(from, &bytes[..(start - from) as usize]);
        bytes.drain(..skip);
        let from = from + skip as u64;
        let failure = self.failure_line(at, from, &bytes);
        let capture = Capture {
            failure,
            kind,
            from,
            bytes,
            found: None,
        };
        self.open.push(capture);
    }

    /// The failure line `at`, in `bytes` (the text's from `from` on).
    fn failure_line(&self, at: Failure, from: u64, bytes: &[u8]) -> Notable {
        let Failure {
            start,
            end,
            line,
            score,
            ..
        } = at;
        let content = end - start - u64::from(bytes.get((end - from - 1) as usize) == Some(&b'\n'));
        let own = &bytes[(start - from) as usize..(start - from + content) as usize];
        Notable {
            start,
            end,
            line,
            score,
            key: 0,
            similar: 0,
            content,
            prefix: prefix_of(own, self.prefix_cap),
            lead: 0,
        }
    }

    /// Drop the worst failure held if it ranks below `rank`; whether one
    /// was dropped.
    fn evict_worse_than(&mut self, rank: (std::cmp::Reverse<u8>, u64)) -> bool {
        let worst_open = self
            .open
            .iter()
            .enumerate()
            .map(|(i, c)| (c.failure.rank(), true, i));
        let worst_done = self
            .done
            .iter()
            .enumerate()
            .map(|(i, b)| (b.failure.rank(), false, i));
        let Some((worst, open, i)) = worst_open.chain(worst_done).max() else {
            return true;
        };
        if worst < rank {
            return false;
        }
        if open {
            self.open.swap_remove(i);
        } else {
            self.done.swap_remove(i);
        }
        true
    }

    /// The piece starting at `base` has been read: the blocks being read
    /// take what they need of it, and it becomes the recent bytes.
    pub(crate) fn end_piece(&mut self, piece: &[u8], base: u64) {
        let have_to = base + piece.len() as u64;
        self.settle(piece, base, have_to);
        if piece.len() >= KEEP_BEFORE {
            self.recent.clear();
            self.recent
                .extend_from_slice(&piece[piece.len() - KEEP_BEFORE..]);
        } else {
            self.recent.extend_from_slice(piece);
            // Drop the front seldom: up to twice the bytes kept.
            if self.recent.len() > 2 * KEEP_BEFORE {
                self.recent.drain(..self.recent.len() - KEEP_BEFORE);
            }
        }
        self.recent_at = have_to - self.recent.len() as u64;
    }

    /// The blocks being read take what they need of `piece` (which starts
    /// at `base`) up to byte `known_to`; those whose bytes end by then are
    /// looked at.
    fn settle(&mut self, piece: &[u8], base: u64, known_to: u64) {
        let mut i = 0;
        while i < self.open.len() {
            let c = &mut self.open[i];
            let (next, to) = (c.read_to(), c.wants_to().min(known_to));
            if c.found.is_none() && next < to {
                let (a, e) = ((next - base) as usize, (to - base) as usize);
                c.bytes.extend_from_slice(&piece[a..e]);
            }
            if c.wants_to() <= known_to {
                let c = self.open.swap_remove(i);
                self.finish(c, false);
            } else {
                i += 1;
            }
        }
    }

    /// The blocks found, once the text has ended.
    pub(crate) fn into_blocks(mut self) -> Vec<Block> {
        for c in std::mem::take(&mut self.open) {
            self.finish(c, true);
        }
        self.done
    }

    /// Heap bytes held, about.
    pub(crate) fn retained_bytes(&self) -> usize {
        let line = |n: &Notable| size_of::<Notable>() + n.prefix.capacity();
        self.recent.capacity()
            + self
                .open
                .iter()
                .map(|c| {
                    let found = c.found.iter().flatten().map(line).sum::<usize>();
                    c.bytes.capacity() + line(&c.failure) + found
                })
                .sum::<usize>()
            + self
                .done
                .iter()
                .map(|b| line(&b.failure) + b.lines.iter().map(line).sum::<usize>())
                .sum::<usize>()
    }

    /// Find the block of `c`, all its bytes read (or the text `ended`):
    /// kept if it has lines.
    fn finish(&mut self, c: Capture, ended: bool) {
        let lines = match c.found {
            Some(found) => found,
            None => self.lines_around(&c.failure, c.kind, c.from, &c.bytes, ended),
        };
        if lines.is_empty() {
            return;
        }
        self.done.push(Block {
            failure: c.failure,
            lines,
            context: self.looks == Looks::Context,
        });
    }

    /// The block's or context's lines of `failure` in `bytes`, the text's
    /// from `from` (a line start) to where the failure looks (or to the
    /// text's end, when `ended`); none when it has none.
    fn lines_around(
        &self,
        failure: &Notable,
        kind: Kind,
        from: u64,
        bytes: &[u8],
        ended: bool,
    ) -> Vec<Notable> {
        let start = (failure.start - from) as usize;
        let end = (failure.end - from) as usize;
        let b = match ended {
            true => bytes,
            // Whole lines only: the last may go on past what was read.
            false => &bytes[..memrchr(b'\n', &bytes[end..]).map_or(end, |i| end + i + 1)],
        };
        let found = match self.looks {
            Looks::Block => blocks::block(b, start, end, kind, 0, b.len()),
            Looks::Context => notable::context_lines(b, start, end, kind, 0, b.len()),
        };
        found
            .into_iter()
            .map(|(a, e)| {
                let line = if a < start {
                    failure.line - count_lfs(&b[a..start])
                } else {
                    failure.line + 1 + count_lfs(&b[end..a])
                };
                let content = (e - a - usize::from(b[e - 1] == b'\n')) as u64;
                Notable {
                    start: from + a as u64,
                    end: from + e as u64,
                    line,
                    score: failure.score,
                    key: 0,
                    similar: 0,
                    content,
                    prefix: prefix_of(&b[a..a + content as usize], self.prefix_cap),
                    lead: 0,
                }
            })
            .collect()
    }
}

/// Bytes to skip of `before`, the text's from `from` to a failure line,
/// to start at a line: past the first LF, which ends the partial line
/// `from` is in (there is one: more than [`BEFORE_BYTES`] are kept before
/// any failure line); none at the text's start.
fn line_start_skip(from: u64, before: &[u8]) -> usize {
    match from {
        0 => 0,
        _ => memchr(b'\n', before).map_or(before.len(), |lf| lf + 1),
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Failure {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) line: u64,
    pub(crate) score: u8,
    pub(crate) kind: Kind,
}

/// The first `cap` bytes of a line, whole chars.
fn prefix_of(line: &[u8], cap: usize) -> String {
    let s = valid_prefix(&line[..line.len().min(cap + 3)]);
    s[..s.floor_char_boundary(cap)].to_owned()
}
