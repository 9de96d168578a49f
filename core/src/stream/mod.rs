//! `cap-stream`: a tool result written in chunks as it is produced, capped
//! in bounded memory, with exactly the result [`Capper::cap_call`] gives for
//! the whole text.
//!
//! # Two regimes
//!
//! A text is *large* ([`is_large`]) when it is over [`LARGE_INPUT`] bytes
//! (twice that when it looks like JSON, so JSON documents up to
//! `JSON_MAX_INPUT` keep their valid-JSON preview), over `max-bytes`,
//! and the budget is at most an eighth of [`LARGE_INPUT`]. Below that, a
//! stream keeps the text (in blocks of 1 MiB, so that growing never copies
//! it) and caps it at the end as `cap` does. Once the text becomes large,
//! the stream writes what it has to the host's [`SpillWriter`], frees it,
//! and goes on with [`OnePass`], which keeps only what the preview needs:
//! memory is then bounded by the budget, not by the text (see
//! [`engine`]'s documentation for the bound). `cap` gives a large text the
//! same one-pass preview, so both agree on every text.
//!
//! # The one-pass preview
//!
//! The format of the whole-text preview (`cap`): head lines, then the gap marker
//! or the notable lines of the middle between their two markers, then tail
//! lines, then the notice, with the same exact accounting, chosen as `cap`
//! chooses them (notice form, a failed call leaning to the tail,
//! `head-percent`, notable lines within [`crate::preview::notable::SHARE_PERCENT`] of
//! the allowance, `max-lines`, `max-tokens`). A line too long for the
//! budget shows both of its ends when the head reaches the text's last
//! line: its start, the gap marker, and its end, as `cap`'s preview shows
//! them (a minified bundle keeps its final `sourceMappingURL`), and with
//! `fill` on the budget left over goes to the lines shown in part at the
//! gap. What it does not do: fold repeated lines, give JSON a JSON
//! preview, find the changes of a diff, show the lines a notable line
//! brings or the first failure's whole block, keep grapheme clusters whole
//! inside a cut line (cuts fall on char boundaries), let the budget left
//! over flow back to lines cut by `max-line-bytes`, or start new lines
//! with it. The head shows lines of the first `max-bytes` bytes only, the
//! tail lines of the last `max-bytes`; a notable line is found by its
//! first 4 KiB. `original-tokens` is what `cap` reports for the whole text
//! ([`crate::token_sample`]: from evenly spread samples, or counted whole
//! under `max-tokens` while within `max-bytes`), counted as it goes by a
//! [`SampledTokens`](crate::token_sample::SampledTokens).
//!
//! A disabled budget (`max-bytes` 0) returns the text unchanged, so the
//! stream keeps all of it.

use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Capped, Capper, Original, SpillStore};
use crate::error::CapError;
use crate::naming;
use redacting::PieceRedactor;

mod blocks;
mod decode;
pub mod engine;
mod hits;
mod memory;
mod notables;
pub(crate) mod redacting;

#[doc(hidden)]
pub use crate::capper::LARGE_INPUT;
pub use engine::OnePass;
pub use memory::MemoryWriter;

use decode::LossyDecoder;

/// Blocks in which a stream keeps a text that is not large.
const BLOCK: usize = 1 << 20;

/// Bytes gathered before one append to the spill.
const WRITE_BUFFER: usize = 64 << 10;

/// Whether a text of `text_len` bytes capped to `budget` gets the one-pass
/// preview: `large_input` is [`LARGE_INPUT`] but in tests, `looks_json`
/// from [`looks_json`].
pub fn is_large(text_len: usize, looks_json: bool, budget: &Budget, large_input: usize) -> bool {
    let threshold = if looks_json {
        large_input.saturating_mul(2)
    } else {
        large_input
    };
    !budget.is_disabled()
        && (budget.max_bytes as usize) <= LARGE_INPUT / 8
        && text_len > budget.max_bytes as usize
        && text_len > threshold
}

/// Whether a text looks like JSON: its first byte that is not ASCII
/// whitespace, among its first `large_input` bytes, is `{` or `[`.
pub fn looks_json(text: &[u8], large_input: usize) -> bool {
    text.iter()
        .take(large_input)
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{' || b == b'[')
}

/// Where a stream writes the full output once it is large. The guest
/// writes a temporary file and renames it at commit.
pub trait SpillWriter {
    /// Start a new file in `thread_dir`.
    fn create(&mut self, thread_dir: &str) -> Result<(), CapError>;
    /// Add `bytes` to the file.
    fn append(&mut self, bytes: &[u8]) -> Result<(), CapError>;
    /// The file is complete: give it the name `<thread_dir>/<file_name>`,
    /// atomically.
    fn commit(&mut self, thread_dir: &str, file_name: &str) -> Result<(), CapError>;
    /// Give up the file after a failure: remove what was written.
    fn abort(&mut self);
}

/// `cap` of a large text: the one-pass preview, fed the whole text.
pub(crate) fn cap_whole(
    capper: &Capper,
    text: &str,
    budget: &Budget,
    call: &Call,
    store: &mut dyn SpillStore,
    original: Option<Original<'_>>,
) -> Result<Capped, CapError> {
    let mut one = OnePass::new(capper, budget, call);
    if original.is_some() {
        // The saved bytes are the original's, hashed below.
        one.skip_digest();
    }
    one.push(text);
    let (content, digest) = match original {
        None => (text.as_bytes(), one.digest().expect("a new engine hashes")),
        Some(o) => (o.bytes, naming::content_digest(o.bytes)),
    };
    one.set_lossy(original.is_some_and(|o| o.lossy));
    let saved =
        crate::capper::spill_output(capper.scheme(), store, call, content, &digest, one.lines());
    one.finish(capper, saved)
}

/// A tool result capped as it is written. Create it with [`CapStream::new`],
/// [`write`](CapStream::write) the output's bytes in any chunks, and
/// [`finish`](CapStream::finish): the result is what
/// [`Capper::cap_call`] gives for `String::from_utf8_lossy` of all the
/// bytes, and the bytes as written are saved, valid UTF-8 or not (unless
/// the session redacts spills: then the file holds the redacted text). The
/// reference's size and digest are the file's; the preview of an output
/// that is not valid UTF-8 shows each invalid sequence as U+FFFD, and a
/// full notice says so.
#[derive(Debug)]
pub struct CapStream {
    budget: Budget,
    call: Call,
    large_input: usize,
    written: u64,
    decoder: LossyDecoder,
    state: State,
    /// The bytes written so far, held only while the text is kept and
    /// once it is known not to be valid UTF-8 (otherwise the kept text is
    /// those bytes).
    raw: Option<Vec<u8>>,
}

#[derive(Debug)]
enum State {
    /// Not large yet: the text so far.
    Keeping(Kept),
    /// Large: written to the spill and read by the engine.
    Spilling(Box<Spilling>),
}

#[derive(Debug, Default)]
struct Kept {
    /// The text as written (`cap` redacts it at the end).
    blocks: Vec<String>,
    /// Bytes of the text as `cap` will see it: redacted, when the session
    /// redacts (`tracker` redacts as it goes, only to count).
    len: usize,
    /// Bytes of the text as written (in `blocks`).
    text_len: usize,
    /// Whether that text looks like JSON, once known.
    json: Option<bool>,
    /// Capacity of the first block when the text's size is known ahead
    /// ([`CapStream::expect_bytes`]): a text that fits it is kept whole, so
    /// `finish` hands it to `cap` without joining blocks.
    first_block: usize,
    tracker: Option<Box<PieceRedactor<'static>>>,
    /// The tracker's output of one piece, reused.
    scratch: String,
}

#[derive(Debug)]
struct Spilling {
    engine: OnePass,
    buffer: Vec<u8>,
    /// The first failure of the spill; nothing is written after it.
    error: Option<CapError>,
    /// With a redaction policy: the engine reads the redacted text.
    redaction: Option<Box<Redacting>>,
    /// The file holds the bytes as written (not the redacted text): their
    /// size and digest, for the reference. The stream appends them.
    raw_file: Option<RawFile>,
}

/// Size and digest of the bytes written to the file.
#[derive(Debug, Default)]
struct RawFile {
    hasher: blake3::Hasher,
    bytes: u64,
}

impl RawFile {
    fn digest(&self) -> String {
        naming::hex(&self.hasher.finalize().as_bytes()[..naming::DIGEST_HEX / 2])
    }
}

/// Where the input stood before a write: what the kept text and the
/// decoder's pending bytes were, which are the bytes written so far when
/// the text is valid UTF-8 so far.
#[derive(Debug, Clone, Copy)]
struct Before {
    text_len: usize,
    pending: [u8; 4],
    pending_len: usize,
}

impl Before {
    fn pending(&self) -> &[u8] {
        &self.pending[..self.pending_len]
    }
}

/// What redaction adds to a large stream.
#[derive(Debug)]
struct Redacting {
    pieces: PieceRedactor<'static>,
    /// The file gets the redacted text; otherwise the bytes as written,
    /// whose size and digest the reference then states.
    spill_redacted: bool,
    scratch: String,
}

/// What [`CapStream::decode`] is given: bytes, text, or the end.
enum Chunk<'a> {
    Bytes(&'a [u8]),
    Text(&'a str),
    End,
}

impl CapStream {
    /// A stream for a result of `call` capped to `budget`; fails with
    /// `invalid-budget` as `cap` does.
    pub fn new(capper: &Capper, budget: Budget, call: Call) -> Result<CapStream, CapError> {
        budget.validate(capper.room())?;
        call.validate()?;
        Ok(CapStream {
            budget,
            call,
            large_input: capper.large_input(),
            written: 0,
            decoder: LossyDecoder::default(),
            raw: None,
            state: State::Keeping(Kept {
                tracker: capper
                    .redactor()
                    .map(|r| Box::new(PieceRedactor::owned(r.clone()))),
                ..Kept::default()
            }),
        })
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Heap bytes this stream holds, about (for tests of the bound).
    #[doc(hidden)]
    pub fn retained_bytes(&self) -> usize {
        match &self.state {
            State::Keeping(k) => {
                k.blocks.iter().map(String::capacity).sum::<usize>()
                    + self.raw.as_ref().map_or(0, Vec::capacity)
            }
            State::Spilling(s) => {
                s.engine.retained_bytes()
                    + s.buffer.capacity()
                    + s.redaction
                        .as_ref()
                        .map_or(0, |r| r.pieces.retained_bytes() + r.scratch.capacity())
            }
        }
    }

    /// Blocks the kept text is in; 0 once large (for tests of
    /// [`expect_bytes`](Self::expect_bytes)).
    #[doc(hidden)]
    pub fn kept_blocks(&self) -> usize {
        match &self.state {
            State::Keeping(k) => k.blocks.len(),
            State::Spilling(_) => 0,
        }
    }

    /// The command ended with `code`: the call's exit code from now on, so
    /// [`finish`](Self::finish) gives what `cap_call` gives with it. Only
    /// the notice and the preview's head-and-tail split depend on the call,
    /// and both are chosen at the end, so it may come at any point.
    pub fn set_exit_code(&mut self, code: i32) {
        self.call.exit_code = Some(code);
        if let State::Spilling(s) = &mut self.state {
            s.engine.set_exit_code(code);
        }
    }

    /// The text will be about `bytes` long (at most [`LARGE_INPUT`] are
    /// taken): the stream keeps it in one block of that size instead of
    /// blocks of a MiB, which `finish` would copy into one text. Call it
    /// before the first write; a wrong size only costs memory or a copy.
    pub fn expect_bytes(&mut self, bytes: usize) {
        if let State::Keeping(kept) = &mut self.state
            && kept.blocks.is_empty()
        {
            kept.first_block = bytes.min(self.large_input);
        }
    }

    /// Write the next bytes of the output. A spill failure does not fail
    /// the write: it is reported by [`finish`](Self::finish).
    pub fn write(&mut self, capper: &Capper, chunk: &[u8], sink: &mut dyn SpillWriter) {
        self.written += chunk.len() as u64;
        self.decode(capper, Chunk::Bytes(chunk), sink);
    }

    /// [`write`](Self::write) of text already known to be UTF-8 (a decoded
    /// MCP text): the same result, without a second pass to validate it.
    pub fn write_text(&mut self, capper: &Capper, text: &str, sink: &mut dyn SpillWriter) {
        self.written += text.len() as u64;
        self.decode(capper, Chunk::Text(text), sink);
    }

    /// Decode `chunk` (or, at [`Chunk::End`], the end) into the kept text or
    /// the engine, and keep the bytes as written for the file: in `raw`
    /// while the text is kept and not valid UTF-8, or appended to the file
    /// once spilling.
    fn decode(&mut self, capper: &Capper, chunk: Chunk<'_>, sink: &mut dyn SpillWriter) {
        let mut before = Before {
            text_len: 0,
            pending: [0; 4],
            pending_len: self.decoder.pending().len(),
        };
        before.pending[..before.pending_len].copy_from_slice(self.decoder.pending());
        if let State::Keeping(kept) = &self.state {
            before.text_len = kept.text_len;
        }
        let mut input = Input {
            capper,
            budget: &self.budget,
            call: &self.call,
            large_input: self.large_input,
            state: &mut self.state,
            sink,
            raw: &mut self.raw,
            before,
        };
        let mut accept = |piece: &str| input.accept(piece);
        let chunk = match chunk {
            Chunk::Bytes(bytes) => {
                self.decoder.feed(bytes, &mut accept);
                bytes
            }
            Chunk::Text(text) => {
                self.decoder.feed_text(text, &mut accept);
                text.as_bytes()
            }
            Chunk::End => {
                self.decoder.finish(&mut accept);
                &[]
            }
        };
        match &mut self.state {
            State::Keeping(kept) => match &mut self.raw {
                Some(raw) => raw.extend_from_slice(chunk),
                None if self.decoder.is_lossy() => {
                    let mut raw = kept.prefix(before.text_len);
                    raw.extend_from_slice(before.pending());
                    raw.extend_from_slice(chunk);
                    self.raw = Some(raw);
                }
                None => {}
            },
            // The bytes before this chunk were written when it started.
            State::Spilling(s) => s.write_raw(chunk, sink),
        }
    }

    /// The capped result. A text that was not large is capped by
    /// [`Capper::cap_owned`], saving through `store`; a large one is
    /// committed in `sink`. Fails only for a budget the notice cannot fit
    /// within `max-tokens`, as `cap` does.
    pub fn finish(
        mut self,
        capper: &Capper,
        sink: &mut dyn SpillWriter,
        store: &mut dyn SpillStore,
    ) -> Result<Capped, CapError> {
        self.call.validate()?;
        self.decode(capper, Chunk::End, sink);
        match self.state {
            State::Keeping(kept) => {
                // Held only when not valid UTF-8: the file gets those bytes.
                let raw = self.raw;
                let text = kept.join();
                capper.cap_stream_text(text, raw.as_deref(), &self.budget, &self.call, store)
            }
            State::Spilling(mut s) => {
                let counts = s.finish_redaction(sink);
                s.flush(sink);
                let Spilling {
                    mut engine,
                    error,
                    raw_file,
                    ..
                } = *s;
                // The file's own size and digest: the bytes as written,
                // unless the file holds the redacted text the engine read.
                let (file_bytes, digest) = match &raw_file {
                    Some(f) => (f.bytes, f.digest()),
                    // Without a raw file the engine kept its digest.
                    None => (engine.bytes(), engine.digest().expect("the engine hashed")),
                };
                engine.set_lossy(self.decoder.is_lossy() && raw_file.is_some());
                engine.set_redactions(counts);
                let scheme = capper.scheme();
                let thread = scheme.thread_dir();
                // The thread may hold this output already: name that file.
                let existing = match error {
                    None => store.existing(thread, &digest, file_bytes),
                    Some(_) => None,
                };
                if let Some(name) = &existing {
                    sink.abort();
                    store.renew(thread, name, file_bytes, engine.lines());
                }
                let file_name = existing
                    .clone()
                    .unwrap_or_else(|| naming::spill_file_name(&self.call.id, &digest));
                let saved = match error {
                    Some(e) => Err(e),
                    None if existing.is_some() => {
                        Ok(scheme.make_ref(&file_name, file_bytes, engine.lines(), &digest))
                    }
                    None => match sink.commit(thread, &file_name) {
                        Ok(()) => {
                            Ok(scheme.make_ref(&file_name, file_bytes, engine.lines(), &digest))
                        }
                        Err(e) => {
                            sink.abort();
                            Err(e)
                        }
                    },
                };
                engine.finish(capper, saved)
            }
        }
    }
}

/// What one decoded piece goes through.
struct Input<'a> {
    capper: &'a Capper,
    budget: &'a Budget,
    call: &'a Call,
    large_input: usize,
    state: &'a mut State,
    sink: &'a mut dyn SpillWriter,
    /// The stream's bytes as written, if held (see [`CapStream::raw`]).
    raw: &'a mut Option<Vec<u8>>,
    before: Before,
}

impl Input<'_> {
    fn accept(&mut self, piece: &str) {
        match self.state {
            State::Keeping(kept) => {
                kept.push(piece, self.large_input);
                kept.track(piece, self.large_input);
                let json = kept.json.unwrap_or(false);
                if is_large(kept.len, json, self.budget, self.large_input) {
                    let kept = std::mem::take(kept);
                    let raw = self.raw.take();
                    *self.state = State::Spilling(Box::new(Spilling::start(
                        self.capper,
                        self.budget,
                        self.call,
                        kept,
                        (raw, self.before),
                        self.sink,
                    )));
                }
            }
            State::Spilling(s) => s.push(piece, self.sink),
        }
    }
}

impl Kept {
    /// Keep `piece`; count it as `cap` will see it.
    fn push(&mut self, piece: &str, large_input: usize) {
        if self.tracker.is_none() {
            self.look(piece, large_input);
        }
        self.store(piece);
    }

    /// With redaction, count the redacted text instead: the switch to the
    /// one-pass preview then happens exactly where `cap` would take it.
    fn track(&mut self, piece: &str, large_input: usize) {
        let Some(mut tracker) = self.tracker.take() else {
            return;
        };
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        tracker.push(piece, &mut out);
        self.look(&out, large_input);
        self.scratch = out;
        self.tracker = Some(tracker);
    }

    /// Count `piece` of the text `cap` sees, and learn whether it looks
    /// like JSON.
    fn look(&mut self, piece: &str, large_input: usize) {
        if self.json.is_none() {
            let seen = self.len.min(large_input);
            let look = &piece.as_bytes()[..piece.len().min(large_input - seen)];
            match look.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(&b) => self.json = Some(b == b'{' || b == b'['),
                None if seen + look.len() >= large_input => self.json = Some(false),
                None => {}
            }
        }
        self.len += piece.len();
    }

    /// The first `n` bytes of the kept text.
    fn prefix(&self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n);
        for block in &self.blocks {
            let take = (n - out.len()).min(block.len());
            out.extend_from_slice(&block.as_bytes()[..take]);
            if out.len() == n {
                break;
            }
        }
        out
    }

    fn store(&mut self, piece: &str) {
        self.text_len += piece.len();
        let mut rest = piece;
        while !rest.is_empty() {
            let full = match self.blocks.last() {
                Some(b) => b.len() >= self.limit(self.blocks.len() - 1),
                None => true,
            };
            if full {
                let capacity = if self.blocks.is_empty() && self.first_block > 0 {
                    self.first_block
                } else {
                    BLOCK.min(rest.len().max(64))
                };
                self.blocks.push(String::with_capacity(capacity));
            }
            let limit = self.limit(self.blocks.len() - 1);
            let block = self.blocks.last_mut().expect("just pushed");
            let room = limit.saturating_sub(block.len());
            let mut k = rest.floor_char_boundary(room.min(rest.len()));
            if k == 0 {
                // A char longer than the room left starts the next block.
                if block.is_empty() {
                    k = rest.ceil_char_boundary(1);
                } else {
                    self.blocks.push(String::new());
                    continue;
                }
            }
            block.push_str(&rest[..k]);
            rest = &rest[k..];
        }
    }

    /// Bytes block `index` holds when full: a MiB, or for the first the
    /// size expected, if larger.
    fn limit(&self, index: usize) -> usize {
        match index {
            0 => self.first_block.max(BLOCK),
            _ => BLOCK,
        }
    }

    /// The whole text, each block freed as soon as it is copied.
    fn join(self) -> String {
        if self.blocks.len() == 1 {
            return self.blocks.into_iter().next().expect("one block");
        }
        let mut text = String::with_capacity(self.len);
        for block in self.blocks {
            text.push_str(&block);
        }
        text
    }
}

impl Spilling {
    /// The text became large: write what was kept and read it once.
    /// `before` holds the bytes written before the current write when the
    /// stream held them (`raw`), else where the kept text stood then: the
    /// file starts with those bytes, the engine reads all of `kept`.
    fn start(
        capper: &Capper,
        budget: &Budget,
        call: &Call,
        kept: Kept,
        (raw, before): (Option<Vec<u8>>, Before),
        sink: &mut dyn SpillWriter,
    ) -> Spilling {
        let error = sink.create(capper.scheme().thread_dir()).err();
        if error.is_some() {
            sink.abort();
        }
        let spill_redacted = capper.redactor().is_some() && capper.redacts_spill();
        let mut s = Spilling {
            engine: OnePass::new(capper, budget, call),
            buffer: Vec::new(),
            redaction: capper.redactor().map(|r| {
                Box::new(Redacting {
                    pieces: PieceRedactor::owned(r.clone()),
                    spill_redacted,
                    scratch: String::new(),
                })
            }),
            error,
            raw_file: (!spill_redacted).then(RawFile::default),
        };
        if s.raw_file.is_some() {
            // The raw file's digest is the reference's.
            s.engine.skip_digest();
        }
        match raw {
            Some(raw) => s.write_raw(&raw, sink),
            None => {
                // Valid UTF-8 so far: the text before this write is the bytes.
                let mut left = before.text_len;
                for block in &kept.blocks {
                    let take = left.min(block.len());
                    s.write_raw(&block.as_bytes()[..take], sink);
                    left -= take;
                }
                s.write_raw(before.pending(), sink);
            }
        }
        for block in kept.blocks {
            s.push(&block, sink);
        }
        s
    }

    /// Append bytes as written to the file, when it holds them.
    fn write_raw(&mut self, bytes: &[u8], sink: &mut dyn SpillWriter) {
        let Some(file) = &mut self.raw_file else {
            return;
        };
        file.hasher.update(bytes);
        file.bytes += bytes.len() as u64;
        self.write_file(bytes, sink);
    }

    /// The engine reads `piece` (redacted, if the session redacts); the
    /// file gets it only when it holds the redacted text (otherwise the
    /// stream appends the bytes as written).
    fn push(&mut self, piece: &str, sink: &mut dyn SpillWriter) {
        let Some(mut r) = self.redaction.take() else {
            self.engine.push(piece);
            return;
        };
        r.scratch.clear();
        r.pieces.push(piece, &mut r.scratch);
        self.engine.push(&r.scratch);
        if r.spill_redacted {
            self.write_file(r.scratch.as_bytes(), sink);
        }
        self.redaction = Some(r);
    }

    /// Flush the redacted text's last unit; the counts.
    fn finish_redaction(&mut self, sink: &mut dyn SpillWriter) -> Vec<(String, u64)> {
        let Some(r) = self.redaction.take() else {
            return Vec::new();
        };
        let Redacting {
            pieces,
            spill_redacted,
            mut scratch,
        } = *r;
        scratch.clear();
        let counts = pieces.finish(&mut scratch);
        self.engine.push(&scratch);
        if spill_redacted {
            self.write_file(scratch.as_bytes(), sink);
        }
        counts.iter().map(|(k, n)| (k.to_owned(), n)).collect()
    }

    /// Append `piece` to the file, through the write buffer.
    fn write_file(&mut self, piece: &[u8], sink: &mut dyn SpillWriter) {
        if self.error.is_some() {
            return;
        }
        if self.buffer.is_empty() && piece.len() >= WRITE_BUFFER {
            self.append(piece, sink);
            return;
        }
        self.buffer.extend_from_slice(piece);
        if self.buffer.len() >= WRITE_BUFFER {
            self.flush(sink);
        }
    }

    fn flush(&mut self, sink: &mut dyn SpillWriter) {
        if !self.buffer.is_empty() && self.error.is_none() {
            let buffer = std::mem::take(&mut self.buffer);
            self.append(&buffer, sink);
            self.buffer = buffer;
        }
        self.buffer.clear();
    }

    fn append(&mut self, bytes: &[u8], sink: &mut dyn SpillWriter) {
        if let Err(e) = sink.append(bytes) {
            sink.abort();
            self.error = Some(e);
        }
    }
}
