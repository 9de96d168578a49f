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
    candidates
        .into_iter()
        .find_map(|candidate| resolved(scheme, candidate))
        .ok_or_else(|| not_a_spill(scheme, &explained(scheme, trimmed)))
}

/// What a refusal quotes and explains: the path a `file://` URI or a
/// Markdown link names, else the text as given.
fn explained(scheme: &RefScheme, given: &str) -> String {
    let target = link_target(unwrap(given)).unwrap_or(unwrap(given));
    match file_uri_path(target) {
        // The `/` a URI adds before a display root that has none.
        Some(path) if !scheme.display_root().starts_with('/') => {
            path.strip_prefix('/').unwrap_or(&path).to_owned()
        }
        Some(path) => path,
        None if target != unwrap(given) => target.to_owned(),
        None => given.to_owned(),
    }
}

/// The display path of the file of this thread that `candidate` names: its
/// path, its file name alone, a `file://` URI of it (as a `resource_link`
/// block gives it), or a Markdown link to any of these.
fn resolved(scheme: &RefScheme, candidate: &str) -> Option<String> {
    let target = link_target(candidate).unwrap_or(candidate);
    if let Ok(name) = scheme.resolve(target) {
        return Some(scheme.display_path(name));
    }
    // A spill's file name alone (`call-1-0123456789abcdef.txt`): this
    // thread's file of that name.
    if !target.contains(['/', '\\']) {
        let in_thread = format!("{}/{target}", scheme.thread_dir());
        if let Ok(name) = scheme.resolve(&in_thread) {
            return Some(scheme.display_path(name));
        }
    }
    let path = file_uri_path(target)?;
    // A URI's path starts with `/` even when the display root does not
    // (`C:\spill`): `file_uri` adds one.
    [path.as_str(), path.strip_prefix('/').unwrap_or(&path)]
        .into_iter()
        .find_map(|p| scheme.resolve(p).ok().map(|name| scheme.display_path(name)))
}

/// The target of a Markdown link `[text](target)` (its `)` may be gone
/// already, trimmed as the sentence's punctuation).
fn link_target(s: &str) -> Option<&str> {
    let (_, target) = s.split_once("](")?;
    Some(target.strip_suffix(')').unwrap_or(target))
}

/// The path of a `file://` URI (`file:///p` or `file://localhost/p`),
/// percent-decoded; `None` for anything else or a bad escape.
fn file_uri_path(uri: &str) -> Option<String> {
    const SCHEME: &str = "file://";
    let rest = uri
        .get(..SCHEME.len())
        .filter(|s| s.eq_ignore_ascii_case(SCHEME))
        .map(|_| &uri[SCHEME.len()..])?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let mut iter = rest.bytes();
    while let Some(b) = iter.next() {
        if b != b'%' {
            bytes.push(b);
            continue;
        }
        let hex = [iter.next()?, iter.next()?];
        let digit = |h: u8| char::from(h).to_digit(16);
        bytes.push(u8::try_from(digit(hex[0])? * 16 + digit(hex[1])?).ok()?);
    }
    String::from_utf8(bytes).ok()
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
    fn file_uris_and_markdown_links_to_a_spill_are_located() {
        let s = scheme();
        let name = spill_file_name("call-1", &content_digest(b"out"));
        let path = s.display_path(&name);
        let uri = crate::mcp::meta::file_uri(&path);
        for given in [
            uri.clone(),
            format!("<{uri}>"),
            format!("file://localhost{path}"),
            uri.replace("call", "%63%61ll"),
            format!("[{name}]({path})"),
            format!("see [the log]({uri})."),
            name.clone(),
            format!("`{name}`"),
        ] {
            assert_eq!(locate(&s, &given), Ok(path.clone()), "{given}");
        }
        // A display root that is no absolute path: the URI adds a `/`.
        let windows = RefScheme::new("C:\\spill", "t", vec![7; 32]).unwrap();
        let path = windows.display_path(&name);
        let uri = crate::mcp::meta::file_uri(&path);
        assert!(uri.starts_with("file:///C%3A%5Cspill/t/"), "{uri}");
        assert_eq!(locate(&windows, &uri), Ok(path));
    }

    #[test]
    fn file_uris_and_links_elsewhere_are_refused() {
        let s = scheme();
        let name = spill_file_name("c", &content_digest(b"x"));
        for given in [
            format!("file:///spill/u/{name}"),
            format!("file:///spill/t/..%2Fu/{name}"),
            format!("file:///spill/t/%2E%2E/t/{name}"),
            "file:///etc/passwd".to_owned(),
            format!("file:///spill/t/{name}%"),
            format!("file:///spill/t/{name}%zz"),
            format!("file:///spill/t/{name}%C3"),
            format!("http://example.com/spill/t/{name}"),
            format!("[x](/spill/u/{name})"),
            // A file name that is no spill's, or one with a path.
            "notes.txt".to_owned(),
            format!("..\\{name}"),
        ] {
            assert!(locate(&s, &given).is_err(), "{given}");
        }
        // The refusal explains the path the URI or the link names.
        for given in [
            format!("file:///spill/u/{name}"),
            format!("[x](/spill/u/{name})"),
        ] {
            let why = locate(&s, &given).unwrap_err();
            assert!(why.starts_with(&format!("\"/spill/u/{name}\"")), "{why}");
            assert!(why.contains("another session's folder"), "{why}");
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
