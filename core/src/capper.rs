//! The capper of one session: its settings, reference scheme, notable
//! patterns, token estimator and redactor, built once; what a cap gives
//! back; and where full outputs go. The capping itself is in `cap`
//! (whole texts) and `stream` (large ones).

use crate::budget::NoticeRoom;
use crate::call::Call;
use crate::error::CapError;
use crate::naming;
use crate::preview::notable::Patterns;
use crate::redact::Redactor;
use crate::refs::{OverflowRef, RefScheme};
use crate::room::worst_room;
use crate::settings::PreviewSettings;
use crate::tokens::TokenEstimator;

/// Size above which a text gets the one-pass preview of `stream` (twice
/// that for what looks like JSON) rather than the whole-text one.
pub const LARGE_INPUT: usize = 4 << 20;

/// Where full outputs go. The guest writes through WASI; tests use memory or
/// real directories.
pub trait SpillStore {
    /// Save `content` as `<thread_dir>/<file_name>`, atomically: a reader
    /// never sees a partial file under that name.
    fn save(&mut self, thread_dir: &str, file_name: &str, content: &[u8]) -> Result<(), CapError>;

    /// [`save`](Self::save) the output of `call` (of `lines` lines): a store
    /// with a catalog notes where it came from. By default, just `save`.
    fn save_call(
        &mut self,
        thread_dir: &str,
        file_name: &str,
        content: &[u8],
        call: &Call,
        lines: u64,
    ) -> Result<(), CapError> {
        let _ = (call, lines);
        self.save(thread_dir, file_name, content)
    }

    /// The name of a file of `thread_dir` already holding exactly this
    /// output (its digest and size), to name instead of writing a second
    /// copy. By default none.
    fn existing(&mut self, thread_dir: &str, digest: &str, bytes: u64) -> Option<String> {
        let _ = (thread_dir, digest, bytes);
        None
    }

    /// `file_name`, found by [`existing`](Self::existing), is named again by
    /// a new notice: a store that keeps promises renews the file's (its note
    /// then promises what the new notice says, from now), so that no sweep
    /// deletes the file the new reference points at. By default nothing.
    fn renew(&mut self, thread_dir: &str, file_name: &str, bytes: u64, lines: u64) {
        let _ = (thread_dir, file_name, bytes, lines);
    }
}

/// A tool result fitted to a budget. Mirrors WIT `capped`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    /// Text for the model.
    pub text: String,
    /// True when `text` is a preview.
    pub truncated: bool,
    /// Size of the input.
    pub original_bytes: u64,
    /// Lines of the input.
    pub original_lines: u64,
    /// Input bytes not in the preview.
    pub omitted_bytes: u64,
    /// Input lines of which no byte is in the preview.
    pub omitted_lines: u64,
    /// 1-based line of the first omitted byte.
    pub gap_line: Option<u64>,
    /// Notable (failure) lines of the omitted part shown in the preview.
    pub notable_lines: u64,
    /// Lines of the preview folded into repetition markers.
    pub folded_lines: u64,
    /// Estimated tokens of the input.
    pub original_tokens: u64,
    /// Estimated tokens of `text`.
    pub tokens: u64,
    /// Where the full output was saved.
    pub spill: Option<OverflowRef>,
    /// Why it could not be saved.
    pub spill_error: Option<String>,
    /// Secrets the session's redaction replaced, per kind. When any, the
    /// sizes and the preview are those of the redacted text.
    pub redactions: Vec<(String, u64)>,
}

/// Caps results for one session.
#[derive(Debug)]
pub struct Capper {
    pub(crate) scheme: RefScheme,
    pub(crate) settings: PreviewSettings,
    pub(crate) room: NoticeRoom,
    pub(crate) patterns: Patterns,
    pub(crate) estimator: TokenEstimator,
    /// Size above which a text gets the one-pass preview.
    pub(crate) large_input: usize,
    /// The redaction policy's detectors, and whether spills are redacted.
    pub(crate) redactor: Option<Redactor>,
    pub(crate) redact_spill: bool,
}

impl Capper {
    /// A capper for the session described by `scheme`, with the default
    /// settings.
    pub fn new(scheme: RefScheme) -> Self {
        Capper::with_settings(scheme, PreviewSettings::default())
            .expect("the default settings are valid")
    }

    /// A capper with explicit settings; fails with `invalid-settings` for a
    /// bad read tool name or notable pattern.
    pub fn with_settings(scheme: RefScheme, settings: PreviewSettings) -> Result<Self, CapError> {
        settings.validate()?;
        let estimator = TokenEstimator::new(settings.media);
        let room = worst_room(&scheme, &settings, &estimator);
        let patterns = Patterns::new(&settings.notable_patterns);
        let redactor = settings
            .redaction
            .as_ref()
            .map(|r| Redactor::new(&r.literals))
            .transpose()?;
        let redact_spill = settings.redaction.as_ref().is_some_and(|r| r.spill);
        Ok(Capper {
            redactor,
            redact_spill,
            scheme,
            settings,
            room,
            patterns,
            estimator,
            large_input: LARGE_INPUT,
        })
    }

    /// Move the size above which a text gets the one-pass preview (and the
    /// JSON one, twice that), so that tests reach it with small texts.
    #[doc(hidden)]
    pub fn set_large_input(&mut self, bytes: usize) {
        self.large_input = bytes;
    }

    /// The size above which a text gets the one-pass preview.
    pub(crate) fn large_input(&self) -> usize {
        self.large_input
    }

    /// The session's notable-line searches.
    pub(crate) fn patterns(&self) -> &Patterns {
        &self.patterns
    }

    /// The session's token estimator.
    pub fn estimator(&self) -> &TokenEstimator {
        &self.estimator
    }

    /// Start the estimator from `scale` (clamped; see
    /// [`TokenEstimator::set_scale`]); the least token budget follows.
    pub fn set_token_scale(&mut self, scale: f64) {
        self.estimator.set_scale(scale);
        self.room = worst_room(&self.scheme, &self.settings, &self.estimator);
    }

    /// Teach the estimator what a provider counted for `text`
    /// ([`TokenEstimator::calibrate`]); returns the new scale. The least
    /// token budget follows the new scale.
    pub fn calibrate(&mut self, text: &str, actual_tokens: u64) -> f64 {
        let scale = self.estimator.calibrate(text, actual_tokens);
        self.room = worst_room(&self.scheme, &self.settings, &self.estimator);
        scale
    }

    /// The session's preview settings.
    pub fn settings(&self) -> &PreviewSettings {
        &self.settings
    }

    /// The session's reference scheme.
    pub fn scheme(&self) -> &RefScheme {
        &self.scheme
    }

    /// The least budget this session accepts.
    pub fn room(&self) -> NoticeRoom {
        self.room
    }
}

/// Save `content`, the whole output of `call` (its digest and lines given),
/// through `store`, unless the thread already holds the same output: then
/// the reference names that file and nothing is written twice.
pub(crate) fn spill_output(
    scheme: &RefScheme,
    store: &mut dyn SpillStore,
    call: &Call,
    content: &[u8],
    digest: &str,
    lines: u64,
) -> Result<OverflowRef, CapError> {
    let thread = scheme.thread_dir();
    let bytes = content.len() as u64;
    let file_name = match store.existing(thread, digest, bytes) {
        Some(name) => {
            store.renew(thread, &name, bytes, lines);
            name
        }
        None => {
            let name = naming::spill_file_name(&call.id, digest);
            store.save_call(thread, &name, content, call, lines)?;
            name
        }
    };
    Ok(scheme.make_ref(&file_name, bytes, lines, digest))
}

/// What the spill file holds when it is not the text the preview shows:
/// the output as it was, beside its redacted text, or the bytes of an
/// output that was not valid UTF-8 (the text being their lossy decoding).
/// Its lines are the text's: a lossy decoding keeps every line break.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Original<'a> {
    pub(crate) bytes: &'a [u8],
    /// The text is a lossy decoding of `bytes`: a full notice says so.
    pub(crate) lossy: bool,
}
