//! The one-pass engine: reads a text once, in pieces split anywhere on char
//! boundaries, and keeps only what the preview of a large text needs.
//!
//! # What it keeps
//!
//! With `W` = the budget's `max-bytes` and `K` = notable lines kept per pool
//! (a quarter of `W` over 12 bytes a line, at most 4096):
//!
//! - totals: bytes, LFs, the BLAKE3 digest (hashed as it goes, unless a
//!   stream hashes its file itself: [`OnePass::skip_digest`]), and a
//!   [`SampledTokens`] fed every piece, which gives exactly the
//!   `original-tokens` `cap` reports for the whole text however it was
//!   split ([`crate::token_sample`]: its samples, at most 256 of 256 bytes,
//!   or with `max-tokens` an exact count holding under
//!   [`MAX_SPAN`](crate::tokens::MAX_SPAN) + 64 KiB);
//! - the head: the first `W` bytes, and where the line that goes on past
//!   them ends (to state how much of it a cut hides);
//! - the tail: the last `W` bytes (a buffer of at most `2 W`), and where the
//!   line holding its first byte starts (a line may be 1 GiB long);
//! - the current line's first [`CLASSIFY_BYTES`], to classify it;
//! - notable lines ([`NotableScan`]): `3 K` lines of at most
//!   `min(4 KiB, max-line-bytes, W / 4)` bytes each, and the ends of the
//!   lines still within the last `W` bytes;
//! - the blocks of the best failures ([`BlockScan`]): the last 20 to 40
//!   KiB of the text, and up to 52 KiB around each of 4 failures until its
//!   block is found.
//!
//! So memory is `O(W + K x min(4 KiB, W / 4))` bytes, plus 250 KiB for the
//! blocks, plus the token counter's (at most 256 KiB, with the slack a growing buffer leaves),
//! whatever the text's size: under 2 MiB for the default 16 KiB budget.
//! Nothing depends on where the pieces were split, so a text read in any
//! chunking gives the same preview as the whole text given at once.

use std::sync::Arc;

use memchr::{memchr, memchr_iter, memrchr};

use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Capped, Capper};
use crate::error::CapError;
use crate::naming;
use crate::notice::Saved;
use crate::preview::notable::{self, Kind, Patterns};
use crate::preview::one_pass::{self, Retained};
use crate::preview::search;
use crate::refs::OverflowRef;
use crate::room::NoticeParts;
use crate::stream::blocks::{BlockScan, Failure, Looks};
use crate::stream::hits::HitScan;
use crate::stream::notables::{CLASSIFY_BYTES, Head, NotableScan};
use crate::token_sample::{SampledTokens, Sampling};
use crate::tokens::TokenEstimator;

/// Most notable lines kept per pool.
const MAX_KEEP: usize = 4096;

/// Bytes read at a time from a larger piece: each search of a part (digest,
/// notable patterns, LFs) then reads it while the one before left it in the
/// core's cache, not the whole piece from memory again (`cap` of a 64 MiB
/// log natively: 33 -> 29 ms; 1 MiB parts did no better, 64 KiB ones worse).
const PART_BYTES: usize = 256 << 10;

/// A text read once, and what its preview needs of it.
#[derive(Debug)]
pub struct OnePass {
    /// Secrets the stream's redaction replaced, for the report.
    redactions: Vec<(String, u64)>,
    /// The text is a lossy decoding of the saved bytes: the notice says so.
    lossy: bool,
    budget: Budget,
    call: Call,
    /// Shared, so that a piece's search can hold it while lines are noted.
    patterns: Arc<Patterns>,
    estimator: TokenEstimator,
    /// `max-bytes`: what the head keeps, and the tail.
    window: usize,
    total: u64,
    lfs: u64,
    last_byte: Option<u8>,
    /// The text's BLAKE3, unless the caller hashes the file's bytes itself
    /// ([`OnePass::skip_digest`]).
    hasher: Option<blake3::Hasher>,
    tokens: SampledTokens,
    head: Vec<u8>,
    /// The first LF at or after byte `window`.
    lf_after_head: Option<u64>,
    /// The last bytes, from `ring_start` on.
    ring: Vec<u8>,
    ring_start: u64,
    /// Start of the line holding byte `ring_start`.
    ring_line_start: u64,
    /// The line being read: its start, number and first bytes.
    line_start: u64,
    line_no: u64,
    line_head: String,
    line_head_full: bool,
    notables: NotableScan,
    /// The blocks of the best failures.
    blocks: BlockScan,
    /// The context lines of the best failures that have no block.
    contexts: BlockScan,
    /// Windows around the hits of the call's search, when it has one.
    hits: Option<HitScan>,
    /// Lines are read for notable ones: off when the session's preview
    /// shows none (`PreviewFeatures::notable`), which then costs what 0.1's
    /// did.
    classify_lines: bool,
    /// Lines that start and end within one piece are prefiltered by one
    /// search of the piece ([`Patterns::occurrences`]) instead of a check
    /// each; off only in tests, to compare with the check of every line.
    prefilter: bool,
}

impl OnePass {
    /// An engine for a result of `call` capped to `budget` (a valid budget
    /// with `max-bytes` > 0) by `capper`'s session.
    pub fn new(capper: &Capper, budget: &Budget, call: &Call) -> OnePass {
        let window = budget.max_bytes as usize;
        let share_bytes = window * notable::SHARE_PERCENT / 100;
        let share_lines = budget
            .max_lines
            .map_or(usize::MAX, |m| m as usize * notable::SHARE_PERCENT / 100);
        // As many distinct lines as could ever be shown, twice over.
        let keep = share_lines.min(share_bytes / 12).clamp(1, MAX_KEEP / 2) * 2;
        let prefix_cap = CLASSIFY_BYTES
            .min(share_bytes)
            .min(budget.max_line_bytes.map_or(usize::MAX, |m| m as usize));
        OnePass {
            redactions: Vec::new(),
            lossy: false,
            budget: *budget,
            call: call.clone(),
            patterns: Arc::new(capper.patterns().clone()),
            estimator: capper.estimator().clone(),
            window,
            total: 0,
            lfs: 0,
            last_byte: None,
            hasher: Some(blake3::Hasher::new()),
            tokens: SampledTokens::new(Sampling::under(budget, Sampling::REPORT)),
            head: Vec::new(),
            lf_after_head: None,
            ring: Vec::new(),
            ring_start: 0,
            ring_line_start: 0,
            line_start: 0,
            line_no: 1,
            line_head: String::new(),
            line_head_full: false,
            notables: NotableScan::new(window as u64, keep, prefix_cap),
            blocks: BlockScan::new(prefix_cap, Looks::Block),
            contexts: BlockScan::new(prefix_cap, Looks::Context),
            hits: hit_scan(call, share_bytes, budget),
            classify_lines: capper.settings().features.notable,
            prefilter: true,
        }
    }

    /// The caller hashes what the file holds (a stream's bytes as
    /// written): no digest of the text read. Hashing the same bytes twice
    /// was a tenth of a stream's time in the component.
    pub fn skip_digest(&mut self) {
        self.hasher = None;
    }

    /// Read lines for notable ones even when the preview shows none (tests
    /// check that skipping them changes nothing).
    #[doc(hidden)]
    pub fn set_classify_lines(&mut self, on: bool) {
        self.classify_lines = on;
    }

    /// Check every line for notable patterns, as without the prefilter
    /// (tests compare both).
    #[doc(hidden)]
    pub fn set_line_prefilter(&mut self, on: bool) {
        self.prefilter = on;
    }

    /// The command ended with `code` (see [`CapStream::set_exit_code`]):
    /// nothing kept so far depends on the call.
    ///
    /// [`CapStream::set_exit_code`]: crate::CapStream::set_exit_code
    pub fn set_exit_code(&mut self, code: i32) {
        self.call.exit_code = Some(code);
    }

    /// What the stream's redaction replaced, for the report.
    pub fn set_redactions(&mut self, redactions: Vec<(String, u64)>) {
        self.redactions = redactions;
    }

    /// The text read is a lossy decoding of the output (not valid UTF-8):
    /// a full notice says so.
    pub fn set_lossy(&mut self, lossy: bool) {
        self.lossy = lossy;
    }

    /// Read the next piece of the text.
    pub fn push(&mut self, piece: &str) {
        // In parts, which the result does not depend on (see the module).
        let mut rest = piece;
        while !rest.is_empty() {
            let k = rest.ceil_char_boundary(PART_BYTES.min(rest.len()));
            self.push_part(&rest[..k]);
            rest = &rest[k..];
        }
    }

    fn push_part(&mut self, piece: &str) {
        let b = piece.as_bytes();
        if b.is_empty() {
            return;
        }
        let base = self.total;
        if let Some(hasher) = &mut self.hasher {
            hasher.update(b);
        }
        self.tokens.push(&self.estimator, piece);
        if self.head.len() < self.window {
            let take = (self.window - self.head.len()).min(b.len());
            self.head.extend_from_slice(&b[..take]);
        }
        self.push_ring(b, base);
        if let Some(hits) = &mut self.hits {
            hits.push(b, base);
        }
        let mut seg = 0;
        // Where notable patterns occur in the piece's whole lines (up to its
        // last LF: a piece with none, a long line's middle, is not searched),
        // consumed as the lines go by: a line before the next one holds none.
        let patterns = Arc::clone(&self.patterns);
        let whole_lines = memrchr(b'\n', b).filter(|_| self.prefilter && self.classify_lines);
        let mut found = whole_lines.map(|last| patterns.occurrences(&piece[..=last]));
        let mut next_found = found.as_mut().and_then(Iterator::next);
        loop {
            // Lines that need no look, counted in one search rather than a
            // step each: every line when none is classified, else the whole
            // lines that end before the next occurrence of a pattern.
            let plain_until = match &mut found {
                _ if !self.classify_lines => Some(b.len()),
                Some(found) if self.line_start == base + seg as u64 => {
                    while next_found.is_some_and(|f| f < seg) {
                        next_found = found.next();
                    }
                    // A line is looked at when an occurrence lies before
                    // its LF: the LF at the occurrence ends one that is not.
                    Some(next_found.map_or(b.len(), |f| f + 1))
                }
                _ => None,
            };
            if let Some(until) = plain_until {
                seg = self.skip_plain_lines(b, base, seg, until);
            }
            let Some(i) = memchr(b'\n', &b[seg..]).map(|i| seg + i) else {
                break;
            };
            let at = base + i as u64;
            self.note_lf(at);
            if found.is_some() && self.line_start == base + seg as u64 {
                // The lines before the next occurrence were counted above:
                // this one holds it.
                debug_assert!(next_found.is_some_and(|f| seg <= f && f < i));
                let line = &piece[seg..i];
                let head = &line[..line.floor_char_boundary(CLASSIFY_BYTES)];
                // No pattern spans a LF: a head that is the whole line holds
                // the occurrence whole.
                let head = if head.len() == line.len() {
                    Head::HoldsPattern(head)
                } else {
                    Head::Unsearched(head)
                };
                self.end_line_with(at + 1, 1, head, b, base);
            } else {
                self.take_line_head(&piece[seg..i]);
                self.end_line(at + 1, 1, b, base);
            }
            seg = i + 1;
        }
        self.take_line_head(&piece[seg..]);
        self.blocks.end_piece(b, base);
        self.contexts.end_piece(b, base);
        self.total += b.len() as u64;
        self.last_byte = b.last().copied();
    }

    /// A LF at `at`: counted, and noted if it is the first past the head.
    fn note_lf(&mut self, at: u64) {
        if self.lf_after_head.is_none() && at >= self.window as u64 {
            self.lf_after_head = Some(at);
        }
        self.lfs += 1;
    }

    /// The lines of `b` (which starts at `base`) that end at its LFs in
    /// `from..until`, none of which is looked at, each as a step of its own
    /// would leave them: counted, the notable lines older than the tail
    /// settled, the next line started after the last. Returns where that
    /// line starts (`from` when there is no LF).
    fn skip_plain_lines(&mut self, b: &[u8], base: u64, from: usize, until: usize) -> usize {
        let range = &b[from..until.min(b.len())];
        let Some(last) = memrchr(b'\n', range) else {
            return from;
        };
        let lfs = memchr_iter(b'\n', &range[..last]).count() as u64 + 1;
        if self.lf_after_head.is_none() {
            let last = from + last;
            let past_head = usize::try_from((self.window as u64).saturating_sub(base))
                .unwrap_or(usize::MAX)
                .max(from);
            if past_head <= last {
                let first = memchr(b'\n', &b[past_head..=last]).map(|i| past_head + i);
                self.lf_after_head = first.map(|i| base + i as u64);
            }
        }
        self.lfs += lfs;
        let end = base + (from + last) as u64 + 1;
        if self.classify_lines {
            // Settling is monotone in its time: once at the last LF is
            // every LF's settling, as nothing else happens between them.
            self.notables.settle(end);
        }
        self.next_line(end);
        self.line_no += lfs - 1;
        from + last + 1
    }

    /// Bytes read.
    pub fn bytes(&self) -> u64 {
        self.total
    }

    /// Lines read, as [`crate::text::count_lines`] counts them.
    pub fn lines(&self) -> u64 {
        match self.last_byte {
            None => 0,
            Some(b'\n') => self.lfs,
            Some(_) => self.lfs + 1,
        }
    }

    /// The content digest of what was read ([`naming::content_digest`]);
    /// `None` after [`skip_digest`](Self::skip_digest).
    pub fn digest(&self) -> Option<String> {
        let hash = self.hasher.as_ref()?.finalize();
        Some(naming::hex(&hash.as_bytes()[..naming::DIGEST_HEX / 2]))
    }

    /// Heap bytes held, about: what the module documentation bounds.
    pub fn retained_bytes(&self) -> usize {
        self.tokens.retained_bytes()
            + self.head.capacity()
            + self.ring.capacity()
            + self.line_head.capacity()
            + self.notables.retained_bytes()
            + self.blocks.retained_bytes()
            + self.contexts.retained_bytes()
            + self.hits.as_ref().map_or(0, HitScan::retained_bytes)
    }

    /// The capped result: the one-pass preview, within `budget`'s
    /// `max-tokens` too, with the outcome of the spill.
    pub fn finish(
        mut self,
        capper: &Capper,
        saved: Result<OverflowRef, CapError>,
    ) -> Result<Capped, CapError> {
        if self.line_start < self.total && self.classify_lines {
            self.end_line(self.total, 0, &[], self.total);
        }
        if self.ring.len() > self.window {
            let drop = self.ring.len() - self.window;
            self.drop_ring_front(drop);
        }
        let lines = self.lines();
        let head_valid = crate::text::valid_prefix(&self.head);
        // The tail starts on a char boundary: skip a split char's last bytes.
        let skip = self
            .ring
            .iter()
            .take(3)
            .take_while(|&&b| b & 0xC0 == 0x80)
            .count();
        let ring = std::str::from_utf8(&self.ring[skip..]).expect("pieces are whole chars");
        let notables = std::mem::replace(&mut self.notables, NotableScan::new(0, 1, 0));
        let mut notables = notables.into_lines();
        if let Some(hits) = self.hits.take() {
            notables.extend(hits.into_notables(self.total));
        }
        let mut blocks =
            std::mem::replace(&mut self.blocks, BlockScan::new(0, Looks::Block)).into_blocks();
        blocks.extend(
            std::mem::replace(&mut self.contexts, BlockScan::new(0, Looks::Context)).into_blocks(),
        );
        let view = Retained {
            head: head_valid,
            ring,
            ring_at: self.ring_start + skip as u64,
            ring_line_start: self.ring_line_start,
            lf_after_head: self.lf_after_head,
            total: self.total,
            lines,
            notables: &notables,
            blocks: &blocks,
        };
        let outcome = match &saved {
            Ok(r) => Saved::Spilled(r),
            Err(e) => Saved::Failed(e.message()),
        };
        let settings = capper.settings();
        let parts = NoticeParts {
            call: &self.call,
            style: &settings.notice,
            features: settings.features,
            lossy: self.lossy,
        };
        let preview =
            capper.within_tokens(&self.budget, |b| one_pass::build(&view, b, outcome, &parts))?;
        let (spill, spill_error) = match saved {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Capped {
            text: preview.text,
            truncated: true,
            original_bytes: self.total,
            original_lines: lines,
            omitted_bytes: preview.loss.omitted_bytes,
            omitted_lines: preview.loss.omitted_lines,
            gap_line: Some(preview.loss.gap_line),
            notable_lines: preview.notable,
            folded_lines: 0,
            original_tokens: self.tokens.finish(&self.estimator),
            tokens: preview.tokens,
            spill,
            spill_error,
            redactions: self.redactions,
        })
    }

    /// Keep the last `window` bytes (and up to as many more, so that bytes
    /// move seldom).
    fn push_ring(&mut self, b: &[u8], base: u64) {
        let w = self.window;
        if b.len() >= w {
            self.note_dropped(0, self.ring.len());
            let skipped = b.len() - w;
            if let Some(i) = memrchr(b'\n', &b[..skipped]) {
                self.ring_line_start = base + i as u64 + 1;
            }
            self.ring.clear();
            self.ring.extend_from_slice(&b[skipped..]);
            self.ring_start = base + skipped as u64;
        } else {
            self.ring.extend_from_slice(b);
            if self.ring.len() > 2 * w {
                let drop = self.ring.len() - w;
                self.drop_ring_front(drop);
            }
        }
    }

    fn drop_ring_front(&mut self, drop: usize) {
        self.note_dropped(0, drop);
        self.ring.drain(..drop);
        self.ring_start += drop as u64;
    }

    /// The ring's bytes `from..to` leave it: a LF among them moves the
    /// start of the line that holds the ring's first byte.
    fn note_dropped(&mut self, from: usize, to: usize) {
        if let Some(i) = memrchr(b'\n', &self.ring[from..to]) {
            self.ring_line_start = self.ring_start + (from + i) as u64 + 1;
        }
    }

    /// Keep the first [`CLASSIFY_BYTES`] of the current line, whole chars.
    fn take_line_head(&mut self, seg: &str) {
        if self.line_head_full || seg.is_empty() {
            return;
        }
        let room = CLASSIFY_BYTES - self.line_head.len();
        if seg.len() <= room {
            self.line_head.push_str(seg);
        } else {
            self.line_head
                .push_str(&seg[..seg.floor_char_boundary(room)]);
            self.line_head_full = true;
        }
    }

    /// The current line ends at `end`, with `lf` LF bytes (0 or 1), in
    /// `piece` (which starts at `base`); its first bytes are in `line_head`.
    fn end_line(&mut self, end: u64, lf: u64, piece: &[u8], base: u64) {
        let content = end - lf - self.line_start;
        let class = self.notables.line(
            self.line_start,
            end,
            self.line_no,
            content,
            Head::Unsearched(&self.line_head),
            &self.patterns,
        );
        self.note_failure(class, end, piece, base);
        self.next_line(end);
    }

    /// The current line, read whole within `piece` (which starts at
    /// `base`), ends at `end` with `lf` LF bytes; `head` is its first
    /// [`CLASSIFY_BYTES`].
    fn end_line_with(&mut self, end: u64, lf: u64, head: Head<'_>, piece: &[u8], base: u64) {
        let content = end - lf - self.line_start;
        let class = self.notables.line(
            self.line_start,
            end,
            self.line_no,
            content,
            head,
            &self.patterns,
        );
        self.note_failure(class, end, piece, base);
        self.next_line(end);
    }

    /// The current line, ending at `end`, was classified `class`: a failure
    /// may have a block to look for.
    fn note_failure(&mut self, class: Option<(u8, Kind)>, end: u64, piece: &[u8], base: u64) {
        if let Some((score, kind)) = class {
            let failure = Failure {
                start: self.line_start,
                end,
                line: self.line_no,
                score,
                kind,
            };
            self.blocks.failure(failure, piece, base);
            self.contexts.failure(failure, piece, base);
        }
    }

    /// The next line starts at `end`.
    fn next_line(&mut self, end: u64) {
        self.line_head.clear();
        self.line_head_full = false;
        self.line_start = end;
        self.line_no += 1;
    }
}

/// The scan for the hits of `call`'s search, if it has one: each window as
/// wide as in `cap`'s preview ([`search::window_bytes`]) for a notable share
/// of `share_bytes`.
fn hit_scan(call: &Call, share_bytes: usize, budget: &Budget) -> Option<HitScan> {
    let terms = call.search_terms().ok().filter(|t| !t.is_empty())?;
    let max_line = budget.max_line_bytes.map(|m| m as usize);
    let width = search::window_bytes(share_bytes, terms.len(), max_line, 0);
    Some(HitScan::new(&terms, width))
}
