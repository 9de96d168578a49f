//! The model-facing read tool: one implementation of the tool through which a
//! model reads the full output of a tool result that was cut, so that no host
//! writes its own and no agent re-runs a command to see what it printed.
//!
//! Two halves. [`spec`] describes the tool (name, description for the model,
//! JSON Schema of its arguments); [`run`] answers one call: it takes the JSON
//! arguments the model sent, finds the spilled file through [`SpillFiles`]
//! (the guest opens files through WASI, tests hold them in memory), reads it
//! with [`crate::readback`] and renders a bounded text for the model.
//!
//! A call never fails: every mistake of the model (malformed JSON, unknown
//! fields, wrong types, mixed modes, numbers out of range, a forged reference,
//! a path outside this thread, a file that expired) gives an output with
//! `is_error` set and a sentence saying what was wrong and what a correct call
//! looks like. [`run`] never panics, whatever `arguments` hold.
//!
//! The output is bounded by itself: at most `max_bytes` of file text (line
//! numbers included) plus a frame (header, cut marker, cursor or end line) of
//! at most [`FRAME_BYTES`] and twice the path; [`max_text_bytes`] is the
//! exact bound. Hosts must hand it to the model as it is and never cap it
//! again: capping a read result would spill the spill.
//!
//! One job per file: `args` (the arguments, checked), `target` (the file the
//! `path` argument names), `pages` (line and byte modes), `search` (grep
//! mode), `render` (line numbers, cursors, bounds) and `spec` (the tool's
//! description and schema).

mod args;
mod pages;
mod render;
mod search;
mod spec;
mod target;
mod verify;

use std::collections::HashMap;

use crate::error::CapError;
use crate::naming;
use crate::readback::{MemFile, RandomRead, RedactedFile};
use crate::refs::{OverflowRef, RefScheme};

pub use args::{
    DEFAULT_LINES, DEFAULT_MAX_BYTES, DEFAULT_MAX_MATCHES, MAX_GREP_CHARS, MAX_LINES, MAX_MATCHES,
    MAX_MAX_BYTES, MIN_MAX_BYTES,
};
pub use spec::{DEFAULT_TOOL_NAME, spec};

/// Bytes of an output's frame beyond `max_bytes` of file text and twice the
/// JSON form of the file's path: the header, the cut marker, the cursor (with
/// a grep pattern of up to [`MAX_GREP_CHARS`] characters, JSON-escaped) or
/// the end-of-file line; or an error's sentence and example call.
pub const FRAME_BYTES: usize = 2048;

/// The description of the read tool that a host registers with a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadToolSpec {
    /// The tool's name, as given to [`spec`].
    pub name: String,
    /// What the tool is for and how to call it, written for the model.
    pub description: String,
    /// JSON Schema (draft 2020-12) of the arguments, as compact JSON text.
    pub input_schema: String,
}

/// The answer to one call, handed to the model as the tool's result. Never
/// cap or spill it again: it is bounded by [`max_text_bytes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadToolOutput {
    /// The text for the model: a page, search results, or an error sentence.
    pub text: String,
    /// True when the call could not be answered; `text` says why and what a
    /// correct call looks like. Hosts pass it on as the tool result's error flag.
    pub is_error: bool,
}

impl ReadToolOutput {
    fn ok(text: String) -> Self {
        ReadToolOutput {
            text,
            is_error: false,
        }
    }

    fn error(text: String) -> Self {
        ReadToolOutput {
            text,
            is_error: true,
        }
    }
}

/// The spilled files of one session, as the read tool reaches them.
pub trait SpillFiles {
    /// An open spilled file.
    type File: RandomRead;
    /// The scheme of this session: resolves display/relative paths, finds
    /// references in text.
    fn scheme(&self) -> &RefScheme;
    /// Open a spilled file by the path the model gave (display path or
    /// `<thread>/<file>`), with the errors of `crate::readback`'s callers:
    /// `OutsideRoot`, `NotFound` (its message may already say the file
    /// expired), `Io`. [`run`] gives it the canonical display path of a file
    /// of this thread, after checking it with [`RefScheme::resolve`].
    fn open(&mut self, path: &str) -> Result<Self::File, CapError>;
    /// True when `path`, now of `bytes` bytes, was already found to match
    /// its reference in this session: [`run`] then serves it without
    /// reading it whole again. By default nothing is remembered (every call
    /// checks).
    fn was_checked(&mut self, path: &str, bytes: u64) -> bool {
        let _ = (path, bytes);
        false
    }
    /// Remember that `path`, of `bytes` bytes, matched its reference.
    fn mark_checked(&mut self, path: &str, bytes: u64) {
        let _ = (path, bytes);
    }
}

/// Answer one call of the read tool. `arguments` is the JSON object the model
/// sent. Never panics and never fails: a mistake gives `is_error` and a
/// sentence. See the module docs for the output's bound.
pub fn run(arguments: &str, files: &mut impl SpillFiles) -> ReadToolOutput {
    let scheme = files.scheme();
    let request = match args::parse(arguments) {
        Ok(request) => request,
        Err(rejected) => {
            let example = target::example_call(scheme, rejected.path.as_deref());
            return ReadToolOutput::error(format!("{} {example}", rejected.why));
        }
    };
    let path = match target::locate(scheme, &request.path) {
        Ok(path) => path,
        Err(why) => {
            let example = target::example_call(scheme, None);
            return ReadToolOutput::error(format!("{why} {example}"));
        }
    };
    let mut file = match files.open(&path) {
        Ok(file) => file,
        Err(e) => return ReadToolOutput::error(target::open_failed(&path, &e)),
    };
    if let Err(output) = check(files, &mut file, &path, &request.path) {
        return output;
    }
    let answer = match &request.mode {
        args::Mode::Lines { line, lines } => {
            pages::lines(&mut file, &path, *line, *lines, request.max_bytes)
        }
        args::Mode::Bytes { offset } => pages::bytes(&mut file, &path, *offset, request.max_bytes),
        args::Mode::Grep {
            pattern,
            max_matches,
        } => search::grep(&mut file, &path, pattern, *max_matches, request.max_bytes),
    };
    match answer {
        Ok(Ok(text)) => ReadToolOutput::ok(text),
        Ok(Err(why)) => ReadToolOutput::error(why),
        Err(e) => ReadToolOutput::error(target::read_failed(&path, &e)),
    }
}

/// Refuses a file that no longer matches its reference (the size in the
/// genuine reference the model gave, if any, and the digest in its name),
/// once per session per file.
fn check<F: SpillFiles>(
    files: &mut F,
    file: &mut F::File,
    path: &str,
    given: &str,
) -> Result<(), ReadToolOutput> {
    // The saved bytes, not what the model is shown of them (a redacted view
    // has another size and digest).
    let file = file.saved();
    let size = file
        .size()
        .map_err(|e| ReadToolOutput::error(target::read_failed(path, &e)))?;
    let scheme = files.scheme();
    let bytes = scheme.find_refs(given).first().map(|r| r.bytes);
    let Ok(name) = scheme.resolve(path).map(str::to_owned) else {
        return Ok(());
    };
    if bytes.is_none_or(|b| b == size) && files.was_checked(path, size) {
        return Ok(());
    }
    match verify::matches(file, path, &name, bytes) {
        Ok(Ok(())) => {
            files.mark_checked(path, size);
            Ok(())
        }
        Ok(Err(why)) => Err(ReadToolOutput::error(why)),
        Err(e) => Err(ReadToolOutput::error(target::read_failed(path, &e))),
    }
}

/// The most bytes [`run`] returns in this session for a call whose
/// `max_bytes` is `max_bytes` (the default is [`DEFAULT_MAX_BYTES`]; an error
/// stays within `max_text_bytes(scheme, 0)`): the file text, the frame, and
/// twice the JSON form of the longest path a spilled file can have.
pub fn max_text_bytes(scheme: &RefScheme, max_bytes: u32) -> usize {
    let longest_name = naming::MAX_SAFE_NAME + 1 + naming::DIGEST_HEX + naming::SPILL_SUFFIX.len();
    let longest_path = render::json_string(&scheme.display_path("")).len() + longest_name;
    max_bytes as usize + FRAME_BYTES + 2 * longest_path
}

/// Spilled files held in memory, keyed by `<thread>/<file>`: for tests,
/// fuzzing, and callers that already hold the bytes.
#[derive(Debug)]
pub struct MemSpill {
    scheme: RefScheme,
    redactor: Option<crate::redact::Redactor>,
    /// The files, by their path relative to the spill directory.
    pub files: HashMap<String, Vec<u8>>,
}

impl MemSpill {
    /// No files yet, for the session of `scheme`.
    pub fn new(scheme: RefScheme) -> Self {
        MemSpill {
            scheme,
            redactor: None,
            files: HashMap::new(),
        }
    }

    /// Read the files as a session with this redaction shows them.
    pub fn redacting(mut self, redactor: crate::redact::Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Spill `content` as the full output of call `call_id`, as the capper
    /// names it, and return its genuine reference.
    pub fn spill(&mut self, call_id: &str, content: &[u8]) -> OverflowRef {
        let digest = naming::content_digest(content);
        let name = naming::spill_file_name(call_id, &digest);
        let lines = crate::text::count_lines(content);
        let r = self
            .scheme
            .make_ref(&name, content.len() as u64, lines, &digest);
        self.files.insert(r.relative_path.clone(), content.to_vec());
        r
    }
}

impl SpillFiles for MemSpill {
    type File = RedactedFile<MemFile>;

    fn scheme(&self) -> &RefScheme {
        &self.scheme
    }

    fn open(&mut self, path: &str) -> Result<Self::File, CapError> {
        let name = self.scheme.resolve(path)?;
        let key = format!("{}/{name}", self.scheme.thread_dir());
        match self.files.get(&key) {
            Some(bytes) => RedactedFile::new(MemFile(bytes.clone()), self.redactor.as_ref()),
            None => Err(CapError::NotFound(crate::catalog::unknown_message(path))),
        }
    }
}

#[cfg(test)]
mod tests;
