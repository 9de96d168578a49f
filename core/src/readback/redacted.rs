//! Reading a spilled file as the model is shown it: with the session's
//! redaction applied, while offsets stay those of the file as saved.
//!
//! [`RedactedFile`] redacts the whole file once, in one bounded pass, exactly
//! as the capper redacts a text (each line in context, PEM blocks across
//! lines), and keeps only where each secret lies. It then serves reads of the
//! redacted text (its "view") by reading the saved file and putting each
//! placeholder in place of its secret. So a page, a line page or a grep
//! excerpt never shows a secret, whatever its bounds: a secret split across
//! two pages is still one secret, found with its whole line around it.
//!
//! The entry points of [`crate::readback`] take and give offsets of the
//! saved file: they map them to the view and back through
//! [`RandomRead::redactions`]. An offset inside a secret maps to its
//! placeholder's start; a page never ends inside a placeholder when it can
//! end before it.

use super::secret_map::{Bias, Edit, SecretMap};
use super::source::RandomRead;
use crate::error::CapError;
use crate::redact::{Redactor, placeholder};
use crate::stream::redacting::PieceRedactor;

/// Bytes read per step of the redaction pass.
const PASS_CHUNK: usize = 1 << 20;

/// Most secrets one file may hold for a redacted read: beyond that the read
/// fails rather than hold an index of unbounded size (or show the file).
pub const MAX_SECRETS: usize = 1 << 20;

/// A spilled file read as redacted: see the module docs. As a
/// [`RandomRead`], its offsets and size are those of the redacted view; the
/// functions of [`crate::readback`] map them to the saved file's.
#[derive(Debug)]
pub struct RedactedFile<F> {
    file: F,
    map: SecretMap,
    /// False without a redactor: the file is read as it is.
    redacting: bool,
}

impl<F: RandomRead> RedactedFile<F> {
    /// Redact `file` as `redactor` does (one pass over it), or, without a
    /// redactor, read it as it is. `Io` when it holds more than
    /// [`MAX_SECRETS`] secrets.
    pub fn new(mut file: F, redactor: Option<&Redactor>) -> Result<Self, CapError> {
        let saved_size = file.size()?;
        let mut map = SecretMap {
            edits: Vec::new(),
            saved_size,
            view_size: saved_size,
        };
        if let Some(redactor) = redactor {
            map.edits = find_secrets(&mut file, saved_size, redactor)?;
            let (_, delta) = map.within(0, saved_size);
            map.view_size = saved_size.saturating_add_signed(delta);
        }
        Ok(RedactedFile {
            file,
            map,
            redacting: redactor.is_some(),
        })
    }

    /// The file, as it was given.
    pub fn into_inner(self) -> F {
        self.file
    }
}

impl<F: RandomRead> RandomRead for RedactedFile<F> {
    fn size(&mut self) -> Result<u64, CapError> {
        if !self.redacting {
            return self.file.size();
        }
        Ok(self.map.view_size)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, CapError> {
        if !self.redacting {
            return self.file.read_at(offset, len);
        }
        let edits = &self.map.edits;
        let end = offset.saturating_add(len as u64).min(self.map.view_size);
        let mut out = Vec::new();
        let mut pos = offset;
        let mut i = edits.partition_point(|e| e.view_end() <= pos);
        while pos < end {
            match edits.get(i) {
                Some(e) if e.view_start <= pos => {
                    let text = placeholder(e.kind).as_bytes();
                    let from = (pos - e.view_start) as usize;
                    let to = (end.min(e.view_end()) - e.view_start) as usize;
                    out.extend_from_slice(&text[from..to]);
                    pos = e.view_start + to as u64;
                    i += 1;
                }
                next => {
                    let gap_end = next.map_or(end, |e| e.view_start.min(end));
                    let saved = self.map.to_saved(pos, Bias::Start);
                    let want = (gap_end - pos) as usize;
                    let bytes = self.file.read_at(saved, want)?;
                    let short = bytes.len() < want;
                    out.extend_from_slice(&bytes);
                    if short {
                        // The file shrank while being read: stop here.
                        break;
                    }
                    pos = gap_end;
                }
            }
        }
        Ok(out)
    }

    fn redactions(&self) -> Option<&SecretMap> {
        self.redacting.then_some(&self.map)
    }

    fn saved(&mut self) -> &mut dyn RandomRead {
        &mut self.file
    }
}

/// Every secret of the file, in order, with its place in the view: the
/// file read in chunks, invalid UTF-8 bytes seen as NUL (same length, never
/// part of a secret's anchor), redacted unit by unit as
/// [`Redactor::redact`] does.
fn find_secrets(
    file: &mut impl RandomRead,
    size: u64,
    redactor: &Redactor,
) -> Result<Vec<Edit>, CapError> {
    let mut pieces = PieceRedactor::owned(redactor.clone());
    let mut edits: Vec<Edit> = Vec::new();
    let mut too_many = false;
    let mut delta: i64 = 0;
    let mut found = |start: u64, end: u64, kind: &'static str| {
        if edits.len() >= MAX_SECRETS {
            too_many = true;
            return;
        }
        edits.push(Edit {
            saved_start: start,
            saved_end: end,
            view_start: start.saturating_add_signed(delta),
            kind,
        });
        delta += placeholder(kind).len() as i64 - (end - start) as i64;
    };
    let mut carry: Vec<u8> = Vec::new();
    let mut at = 0;
    let mut text = String::new();
    while at < size {
        let bytes = file.read_at(at, PASS_CHUNK)?;
        if bytes.is_empty() {
            break;
        }
        at += bytes.len() as u64;
        carry.extend_from_slice(&bytes);
        text.clear();
        let keep = sanitize(&carry, at >= size, &mut text);
        carry.drain(..carry.len() - keep);
        pieces.push_spans(&text, &mut found);
    }
    if !carry.is_empty() {
        text.clear();
        sanitize(&carry, true, &mut text);
        pieces.push_spans(&text, &mut found);
    }
    pieces.finish_spans(&mut found);
    if too_many {
        return Err(CapError::Io(format!(
            "the file holds more than {MAX_SECRETS} secrets; this session redacts what it \
             shows, so it does not show this file"
        )));
    }
    Ok(edits)
}

/// Append `bytes` to `out` as text of the same length: each invalid byte
/// becomes NUL. An incomplete character at the end is left out unless
/// `last`; returns how many bytes were left out.
fn sanitize(bytes: &[u8], last: bool, out: &mut String) -> usize {
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return 0;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                // Safe: `valid_up_to` bytes are valid UTF-8.
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                match e.error_len() {
                    Some(n) => {
                        out.extend(std::iter::repeat_n('\0', n));
                        rest = &after[n..];
                    }
                    None if last => {
                        out.extend(std::iter::repeat_n('\0', after.len()));
                        return 0;
                    }
                    None => return after.len(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readback::{self, MemFile};

    const TOKEN: &str = "ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f";
    const AWS: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    fn redactor() -> Redactor {
        Redactor::new(&["hunter2-corp-literal".to_owned()]).unwrap()
    }

    /// A file with a secret of every shape the pass must carry: a token, an
    /// AWS secret key, a Bearer header, a literal, and a PEM block.
    fn text() -> String {
        let mut t = String::new();
        for i in 1..=40 {
            t.push_str(&format!("request {i} ok\n"));
        }
        t.push_str(&format!("GITHUB_TOKEN={TOKEN}\n"));
        t.push_str(&format!("aws_secret_access_key = {AWS}\n"));
        t.push_str("Authorization: Bearer opaqueFAKEtoken0opaqueFAKEtoken0opaqueFA\n");
        t.push_str("db host literal hunter2-corp-literal here\n");
        t.push_str("-----BEGIN PRIVATE KEY-----\n");
        t.push_str("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCFAKEMIIEvQIBADANBgkqhkiG9w0BAQEF\n");
        t.push_str("fakeFAKEdummy0000fakeFAKEdummy0000fakeFAKEdummy0000fakeFAKEdummy\n");
        t.push_str("-----END PRIVATE KEY-----\n");
        t.push_str("done\n");
        t
    }

    /// Every secret of [`text`], and pieces of them long enough to matter.
    fn leaks(shown: &str) -> Vec<&'static str> {
        [
            TOKEN,
            &TOKEN[..20],
            &TOKEN[20..],
            AWS,
            &AWS[..20],
            &AWS[20..],
            "opaqueFAKEtoken0",
            "hunter2",
            "MIIEvQIBADAN",
            "fakeFAKEdummy",
        ]
        .into_iter()
        .filter(|s| shown.contains(s))
        .collect()
    }

    fn open(text: &str) -> RedactedFile<MemFile> {
        RedactedFile::new(MemFile(text.as_bytes().to_vec()), Some(&redactor())).unwrap()
    }

    #[test]
    fn the_view_is_the_redacted_text_and_offsets_map_both_ways() {
        let text = text();
        let mut file = open(&text);
        let whole = redactor().redact(&text).0.into_owned();
        let size = file.size().unwrap();
        assert_eq!(size, whole.len() as u64);
        assert_eq!(file.read_at(0, usize::MAX).unwrap(), whole.as_bytes());
        let map = file.redactions().unwrap().clone();
        assert_eq!(map.saved_size(), text.len() as u64);
        // Outside secrets, an offset maps to the same byte both ways.
        let at = text.find("done").unwrap() as u64;
        assert_eq!(map.to_view(at), whole.find("done").unwrap() as u64);
        assert_eq!(map.to_saved(map.to_view(at), Bias::Start), at);
        // Inside a secret: its placeholder's start, and back to either end.
        let secret = text.find(TOKEN).unwrap() as u64;
        let placeholder = whole.find("[redacted: github-token]").unwrap() as u64;
        assert_eq!(map.to_view(secret + 5), placeholder);
        assert_eq!(map.to_saved(placeholder + 3, Bias::Start), secret);
        assert_eq!(
            map.to_saved(placeholder + 3, Bias::End),
            secret + TOKEN.len() as u64
        );
        // Pieces of the view at every offset and length agree with the whole.
        for offset in (0..size).step_by(7) {
            for len in [1, 5, 30, 200] {
                let got = file.read_at(offset, len).unwrap();
                let end = (offset as usize + len).min(whole.len());
                assert_eq!(got, &whole.as_bytes()[offset as usize..end]);
            }
        }
    }

    #[test]
    fn byte_pages_never_show_a_secret_whatever_their_bounds() {
        let text = text();
        let mut file = open(&text);
        for max in [4, 5, 9, 17, 26, 33, 64, 100] {
            for start in (0..text.len() as u64).step_by(3) {
                let page = readback::read_page(&mut file, start, max).unwrap();
                assert_eq!(leaks(&page.text), Vec::<&str>::new(), "{start} {max}");
                assert!(page.text.len() <= max as usize);
                assert_eq!(page.total_bytes, text.len() as u64);
            }
            // Paging through shows every line, every secret as a placeholder.
            let (mut at, mut shown) = (0, String::new());
            loop {
                let page = readback::read_page(&mut file, at, max).unwrap();
                shown.push_str(&page.text);
                match page.next_offset {
                    Some(next) => {
                        assert!(next > at, "{max}: stuck at {at}");
                        at = next;
                    }
                    None => break,
                }
            }
            assert_eq!(leaks(&shown), Vec::<&str>::new());
            assert_eq!(shown.lines().count(), text.lines().count(), "{max}");
            if max >= 26 {
                // Pages long enough for any placeholder never cut one.
                assert_eq!(shown, redactor().redact(&text).0, "{max}");
            }
        }
    }

    #[test]
    fn offsets_are_those_of_the_saved_file() {
        let text = text();
        let mut file = open(&text);
        let done = text.find("done").unwrap() as u64;
        let page = readback::read_page(&mut file, done, 100).unwrap();
        assert_eq!((page.offset, page.text.as_str()), (done, "done\n"));
        // A line page after the secrets: offsets and line of the saved file.
        let line = text[..done as usize].matches('\n').count() as u64 + 1;
        let page = readback::read_lines(&mut file, line, 1, 100).unwrap();
        assert_eq!((page.offset, page.first_line), (done, line));
        // A page that starts inside a secret starts at it.
        let secret = text.find(TOKEN).unwrap() as u64;
        let page = readback::read_page(&mut file, secret + 10, 25).unwrap();
        assert_eq!(page.offset, secret);
        assert!(page.text.starts_with("[redacted: github-token]"));
        assert_eq!(page.next_offset, Some(secret + TOKEN.len() as u64 + 1));
        // Past the end is an error in saved bytes.
        assert!(readback::read_page(&mut file, text.len() as u64 + 1, 10).is_err());
        assert!(readback::read_page(&mut file, text.len() as u64, 10).is_ok());
    }

    #[test]
    fn a_page_that_starts_inside_a_pem_body_is_redacted() {
        let text = text();
        let mut file = open(&text);
        let body = text.find("fakeFAKEdummy").unwrap() as u64;
        let line = text[..body as usize].matches('\n').count() as u64 + 1;
        let page = readback::read_lines(&mut file, line, 1, 1000).unwrap();
        assert_eq!(page.text, "[redacted: private-key]\n");
        let page = readback::read_page(&mut file, body + 7, 1000).unwrap();
        assert_eq!(leaks(&page.text), Vec::<&str>::new());
    }

    #[test]
    fn grep_searches_the_redacted_text() {
        let text = text();
        let mut file = open(&text);
        // A guess at a secret is never confirmed.
        for guess in [TOKEN, "ghp_", "ghp_FAKE", "hunter2", "opaqueFAKE", "MIIE"] {
            let found = readback::grep(&mut file, guess, 5).unwrap();
            assert_eq!(found.total_matches, 0, "{guess}");
        }
        let found = readback::grep(&mut file, "GITHUB_TOKEN", 5).unwrap();
        assert_eq!(found.total_matches, 1);
        let m = &found.matches[0];
        assert_eq!(m.excerpt, "GITHUB_TOKEN=[redacted: github-token]");
        assert_eq!(m.offset, text.find("GITHUB_TOKEN").unwrap() as u64);
        assert_eq!(m.line, 41);
        let found = readback::grep(&mut file, "done", 5).unwrap();
        assert_eq!(found.matches[0].offset, text.find("done").unwrap() as u64);
        let found = readback::grep(&mut file, "[redacted: ", 10).unwrap();
        assert_eq!(found.total_matches, 6);
    }

    #[test]
    fn a_secret_across_chunks_and_long_lines_is_found_as_redact_finds_it() {
        // A line longer than the pass's chunk, with secrets around the cut.
        let mut text = "x ".repeat(PASS_CHUNK / 2 - 20);
        text.push_str(&format!(" token={TOKEN} and more\n"));
        text.push_str(&format!("{}\nend {TOKEN}\n", "é".repeat(70_000)));
        let mut file = open(&text);
        let whole = redactor().redact(&text).0.into_owned();
        assert_eq!(file.read_at(0, usize::MAX).unwrap(), whole.as_bytes());
        assert!(!whole.contains(TOKEN));
    }

    #[test]
    fn invalid_utf8_never_panics_and_keeps_offsets() {
        let mut bytes = b"\xff\xfe password=hunter2-corp-literal \xc3\n".to_vec();
        bytes.extend_from_slice(b"x\xe2\x82 ");
        bytes.extend_from_slice(format!("{TOKEN}\n").as_bytes());
        let mut file = RedactedFile::new(MemFile(bytes.clone()), Some(&redactor())).unwrap();
        for max in 4..40 {
            for start in 0..bytes.len() as u64 {
                let page = readback::read_page(&mut file, start, max).unwrap();
                assert!(!page.text.contains("hunter2") && !page.text.contains("FAKE0fake"));
            }
        }
    }

    #[test]
    fn without_a_redactor_the_file_is_read_as_it_is() {
        let text = text();
        let mut file = RedactedFile::new(MemFile(text.clone().into_bytes()), None).unwrap();
        assert!(file.redactions().is_none());
        let page = readback::read_page(&mut file, 0, u32::MAX).unwrap();
        assert_eq!(page.text, text);
    }
}
