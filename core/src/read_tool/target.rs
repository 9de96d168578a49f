//! The file a call names: a genuine reference in the `path` argument, or a
//! path of this thread; and the sentences for files that cannot be opened.

use crate::error::CapError;
use crate::refs::RefScheme;

use super::render::{Cursor, json_string, preview};

/// File name of the example call in error sentences.
const EXAMPLE_FILE: &str = "call-1-0123456789abcdef.txt";
/// What every reference token holds, genuine or not.
const REF_SHAPE: &str = "(ref bytes=";
/// Characters a model may copy before a path: quotes and brackets (never
/// `.`, so that `../` stays what it is and is refused).
const BEFORE: &[char] = &['"', '\'', '`', '[', '(', '{', '<'];
/// Characters a model may copy after a path: quotes, brackets, and the
/// punctuation of the sentence that held it.
const AFTER: &[char] = &['"', '\'', '`', ']', ')', '}', '>', '.', ',', ';', ':'];
/// Bytes of the model's text quoted back in a sentence.
const QUOTED: usize = 80;
/// Bytes of a host's error message repeated in a sentence.
const HOST_MESSAGE: usize = 200;

/// `A correct call looks like {"path": ..., "line": 1}.`, with the path the
/// model gave when it names a file of this thread, else an example path.
pub fn example_call(scheme: &RefScheme, given: Option<&str>) -> String {
    let path = given
        .and_then(|g| locate(scheme, g).ok())
        .unwrap_or_else(|| scheme.display_path(EXAMPLE_FILE));
    let call = Cursor::new(&path).number("line", 1).finish();
    format!("A correct call looks like {call}.")
}

/// The canonical display path of the file `given` names, or a sentence
/// saying why it names none. The first genuine reference in `given` wins;
/// text shaped like a reference that does not verify is refused without
/// opening anything; a bare path must resolve to a file of this thread.
pub fn locate(scheme: &RefScheme, given: &str) -> Result<String, String> {
    if let Some(r) = scheme.find_refs(given).into_iter().next() {
        return Ok(r.path);
    }
    if given.contains(REF_SHAPE) {
        return Err(
            "The reference in \"path\" did not verify: it was altered, forged, or written \
                    by another session, so nothing was read. Use the path from a notice of this \
                    conversation."
                .to_owned(),
        );
    }
    let trimmed = given.trim();
    let last_word = trimmed
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or(trimmed);
    let candidates = [trimmed, unwrap(trimmed), unwrap(last_word)];
    for candidate in candidates {
        if let Ok(name) = scheme.resolve(candidate) {
            return Ok(scheme.display_path(name));
        }
    }
    Err(not_a_spill(scheme, trimmed))
}

/// `s` without the quotes, brackets and punctuation around it.
fn unwrap(s: &str) -> &str {
    s.trim_start_matches(BEFORE).trim_end_matches(AFTER)
}

fn not_a_spill(scheme: &RefScheme, path: &str) -> String {
    let folder = format!("{}/{}/", scheme.display_root(), scheme.thread_dir());
    let under_root = path
        .strip_prefix(scheme.display_root())
        .and_then(|rest| rest.strip_prefix('/'));
    let reason = if path.contains("..") {
        "a path with \"..\" is refused".to_owned()
    } else {
        match under_root.and_then(|rest| rest.split_once('/')) {
            Some((thread, _)) if thread != scheme.thread_dir() => {
                "it is in another session's folder".to_owned()
            }
            Some(_) => "it does not name a saved output file".to_owned(),
            None => format!("it is not in this conversation's folder {folder}"),
        }
    };
    format!(
        "{} is not a saved output of this conversation: {reason}. Saved outputs are files named \
         like call-1-0123456789abcdef.txt in {folder}; pass the path exactly as the notice gives \
         it after \"full content at\".",
        json_string(&preview(path, QUOTED))
    )
}

/// The sentence for a file that could not be opened.
pub fn open_failed(path: &str, error: &CapError) -> String {
    let message = preview(error.message(), HOST_MESSAGE);
    match error {
        // The host's sentence says whether the file expired or never
        // existed, and what to do.
        CapError::NotFound(_) => {
            let mut chars = message.chars();
            let first = chars.next().map(|c| c.to_uppercase().to_string());
            format!("{}{}.", first.unwrap_or_default(), chars.as_str())
        }
        CapError::OutsideRoot(_) => format!("{path} cannot be read: {message}."),
        CapError::NoSpillDir(_) => format!(
            "Saved outputs cannot be read now: the spill folder is not available ({message})."
        ),
        _ => format!(
            "Could not open {path} ({}: {message}). Try again later.",
            error.kind()
        ),
    }
}

/// The sentence for a file that was opened but could not be read.
pub fn read_failed(path: &str, error: &CapError) -> String {
    format!(
        "Could not read {path} ({}: {}). Try again later.",
        error.kind(),
        preview(error.message(), HOST_MESSAGE)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming::{content_digest, spill_file_name};

    fn scheme() -> RefScheme {
        RefScheme::new("/spill", "t", vec![7; 32]).unwrap()
    }

    #[test]
    fn genuine_references_and_paths_of_this_thread_are_located() {
        let s = scheme();
        let digest = content_digest(b"out");
        let name = spill_file_name("call-1", &digest);
        let r = s.make_ref(&name, 3, 1, &digest);
        let notice = format!(
            "[toolcap] cut.\n[full output saved; {}",
            RefScheme::token(&r)
        );
        assert_eq!(locate(&s, &notice), Ok(r.path.clone()));
        for given in [
            r.path.clone(),
            r.relative_path.clone(),
            format!("  `{}`. ", r.path),
            format!("full content at {}]", r.path),
        ] {
            assert_eq!(locate(&s, &given), Ok(r.path.clone()), "{given}");
        }
    }

    #[test]
    fn other_paths_are_refused_with_a_reason() {
        let s = scheme();
        let name = spill_file_name("c", &content_digest(b"x"));
        for (given, reason) in [
            (format!("/spill/t/../t/{name}"), "\"..\" is refused"),
            (format!("../spill/t/{name}"), "\"..\" is refused"),
            (format!("t/../t/{name}"), "\"..\" is refused"),
            (format!("/spill/u/{name}"), "another session's folder"),
            (
                "/spill/t/notes.txt".to_owned(),
                "does not name a saved output",
            ),
            (
                "/etc/passwd".to_owned(),
                "not in this conversation's folder /spill/t/",
            ),
        ] {
            let why = locate(&s, &given).unwrap_err();
            assert!(why.contains(reason), "{given}: {why}");
        }
    }
}
