//! The URIs of spills as MCP resources: `toolcap://spill/<thread>/<file>
//! ?bytes=B&lines=L&tag=T[&offset=N]` written from a reference and read
//! back strictly, and the `resource_link` blocks of a capped result pointed
//! at them.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tool_output_cap::OverflowRef;

use super::message;

/// Every spill URI starts with this; the proxy answers every `resources/read` of it.
pub const URI_PREFIX: &str = "toolcap://spill/";

/// The digest in a spill file name: 16 hex digits before `.txt`.
const DIGEST_HEX: usize = 16;

/// The URI of spill `r`, or of its page at `offset`.
pub fn spill_uri(r: &OverflowRef, offset: Option<u64>) -> String {
    let mut uri = format!(
        "{URI_PREFIX}{}?bytes={}&lines={}&tag={}",
        r.relative_path, r.bytes, r.lines, r.tag
    );
    if let Some(offset) = offset {
        uri.push_str(&format!("&offset={offset}"));
    }
    uri
}

/// A spill page URI, read back.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct SpillUri {
    /// `<thread>/<file>`.
    pub(super) relative: String,
    pub(super) bytes: u64,
    pub(super) lines: u64,
    pub(super) tag: String,
    pub(super) offset: u64,
}

impl SpillUri {
    /// Reads `uri`, or says why it is not a spill URI. Only the characters
    /// the proxy writes are accepted (no percent-encoding, no `..`), so a
    /// URI names one file of one thread folder or nothing.
    pub(super) fn parse(uri: &str) -> Result<SpillUri, String> {
        let rest = uri
            .strip_prefix(URI_PREFIX)
            .ok_or_else(|| format!("it does not start with {URI_PREFIX}"))?;
        let (path, query) = rest
            .split_once('?')
            .ok_or("it has no reference (`?bytes=..&lines=..&tag=..`)")?;
        let safe = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
        let segments: Vec<&str> = path.split('/').collect();
        let [thread, file] = segments[..] else {
            return Err("its path is not <thread>/<file> (one folder and one file)".into());
        };
        for segment in [thread, file] {
            if segment.is_empty() || segment == "." || segment == ".." || !segment.chars().all(safe)
            {
                return Err(format!(
                    "its path segment {} is not a folder or file name of the spill folder",
                    json!(segment)
                ));
            }
        }
        if digest_of(file).is_none() {
            return Err(format!(
                "{} is not the name of a saved output (<call>-<16 hex digits>.txt)",
                json!(file)
            ));
        }
        let mut fields: HashMap<&str, &str> = HashMap::new();
        for pair in query.split('&') {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("its query part {} is not key=value", json!(pair)))?;
            if !["bytes", "lines", "tag", "offset"].contains(&key) {
                return Err(format!(
                    "its query names {}, which is not known",
                    json!(key)
                ));
            }
            if fields.insert(key, value).is_some() {
                return Err(format!("its query gives {} twice", json!(key)));
            }
        }
        let number = |key: &str| -> Result<u64, String> {
            let value = fields
                .get(key)
                .ok_or_else(|| format!("it has no `{key}`"))?;
            value
                .parse()
                .map_err(|_| format!("its `{key}` {} is not a number", json!(value)))
        };
        let tag = fields.get("tag").ok_or("it has no `tag`")?;
        Ok(SpillUri {
            relative: path.to_owned(),
            bytes: number("bytes")?,
            lines: number("lines")?,
            tag: (*tag).to_owned(),
            offset: if fields.contains_key("offset") {
                number("offset")?
            } else {
                0
            },
        })
    }

    /// The reference this URI states, for the session whose spill folder
    /// references name `display_root`.
    pub(super) fn reference(&self, display_root: &str) -> OverflowRef {
        let file = self.relative.rsplit('/').next().unwrap_or_default();
        OverflowRef {
            path: format!("{display_root}/{}", self.relative),
            relative_path: self.relative.clone(),
            bytes: self.bytes,
            lines: self.lines,
            digest: digest_of(file).unwrap_or_default().to_owned(),
            tag: self.tag.clone(),
        }
    }
}

/// The display path a read-tool `path` names when it is a spill URI (a
/// model copied a `resource_link` block's URI): `<display_root>/<thread>/
/// <file>`, its query dropped. The component then checks that the file is
/// one of its thread's, as for any path. `None` for any other path.
pub(super) fn display_path_of(path: &str, display_root: &str) -> Option<String> {
    let rest = path.trim().strip_prefix(URI_PREFIX)?;
    let relative = rest.split(['?', '#']).next().unwrap_or(rest);
    Some(format!("{display_root}/{relative}"))
}

/// The digest a spill file name `<call>-<16 hex>.txt` carries.
fn digest_of(file: &str) -> Option<&str> {
    let stem = file.strip_suffix(".txt")?;
    let (call, digest) = stem.rsplit_once('-')?;
    (!call.is_empty()
        && digest.len() == DIGEST_HEX
        && digest.bytes().all(|b| b.is_ascii_hexdigit()))
    .then_some(digest)
}

/// A capped `CallToolResult` (JSON) whose `resource_link` blocks to the
/// spills `refs` (as `file://` URIs of their display paths) name their spill
/// resources instead; `None` when no block changed.
pub fn link_resources(result: &str, refs: &[OverflowRef]) -> Option<String> {
    #[derive(Deserialize)]
    struct Link {
        #[serde(rename = "type")]
        kind: Option<Value>,
        uri: Option<Value>,
    }
    let members: HashMap<String, &RawValue> = serde_json::from_str(result).ok()?;
    let blocks: Vec<&RawValue> = serde_json::from_str(members.get("content")?.get()).ok()?;
    let mut changed = false;
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let link: Option<Link> = serde_json::from_str(block.get()).ok();
        let spill = link
            .filter(|l| l.kind.as_ref().and_then(Value::as_str) == Some("resource_link"))
            .and_then(|l| l.uri?.as_str().map(str::to_owned))
            .and_then(|uri| refs.iter().find(|r| names_file(&uri, r)));
        let edited = spill.and_then(|r| {
            message::replace_member(block.get(), "uri", &json!(spill_uri(r, None)).to_string())
        });
        changed |= edited.is_some();
        out.push(edited.unwrap_or_else(|| block.get().to_owned()));
    }
    changed
        .then(|| message::replace_member(result, "content", &format!("[{}]", out.join(","))))
        .flatten()
}

/// Whether `uri` is the `file://` URI the component writes for spill `r`:
/// `file://`, its display path percent-encoded (the relative part, a thread
/// folder and a spill file name, has only unreserved characters).
fn names_file(uri: &str, r: &OverflowRef) -> bool {
    uri.starts_with("file://")
        && uri.ends_with(&format!("/{}", r.relative_path))
        && uri.len() > "file://".len() + r.relative_path.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> OverflowRef {
        OverflowRef {
            path: "/spill/t/big-1-0123456789abcdef.txt".into(),
            relative_path: "t/big-1-0123456789abcdef.txt".into(),
            bytes: 120,
            lines: 4,
            digest: "0123456789abcdef".into(),
            tag: "fedcba9876543210".into(),
        }
    }

    #[test]
    fn spill_uris_read_back_and_odd_ones_are_refused_with_a_reason() {
        let r = reference();
        let uri = spill_uri(&r, Some(64));
        let spill = SpillUri::parse(&uri).unwrap();
        assert_eq!(spill.offset, 64);
        assert_eq!(spill.reference("/spill"), r);
        assert_eq!(SpillUri::parse(&spill_uri(&r, None)).unwrap().offset, 0);
        for (bad, why) in [
            (
                "toolcap://spill/t/big-1-0123456789abcdef.txt",
                "no reference",
            ),
            (
                "toolcap://spill/../t/big-1-0123456789abcdef.txt?bytes=1&lines=1&tag=0",
                "<thread>/<file>",
            ),
            (
                "toolcap://spill/../big-1-0123456789abcdef.txt?bytes=1&lines=1&tag=0",
                "segment",
            ),
            (
                "toolcap://spill/t/x/big-1-0123456789abcdef.txt?bytes=1&lines=1&tag=0",
                "<thread>/<file>",
            ),
            (
                "toolcap://spill/t/.expired?bytes=1&lines=1&tag=0",
                "not the name",
            ),
            ("toolcap://spill/t/%2e%2e?bytes=1&lines=1&tag=0", "segment"),
            (
                "toolcap://spill/t/big-1-0123456789abcdef.txt?bytes=1&lines=1",
                "no `tag`",
            ),
            (
                "toolcap://spill/t/big-1-0123456789abcdef.txt?bytes=1&bytes=2&lines=1&tag=0",
                "twice",
            ),
            (
                "toolcap://spill/t/big-1-0123456789abcdef.txt?bytes=x&lines=1&tag=0",
                "not a number",
            ),
            (
                "toolcap://spill/t/big-1-0123456789abcdef.txt?bytes=1&lines=1&tag=0&path=/etc",
                "not known",
            ),
        ] {
            let err = SpillUri::parse(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn a_read_tool_path_that_is_a_spill_uri_names_its_display_path() {
        let uri = "toolcap://spill/t/c-0123456789abcdef.txt?bytes=3&lines=1&tag=ab";
        for given in [
            uri,
            " toolcap://spill/t/c-0123456789abcdef.txt ",
            &format!("{uri}#x"),
        ] {
            assert_eq!(
                display_path_of(given, "/home/me/spill").as_deref(),
                Some("/home/me/spill/t/c-0123456789abcdef.txt"),
                "{given}"
            );
        }
        for other in [
            "/home/me/spill/t/c.txt",
            "file:///x",
            "see toolcap://spill/t/x",
        ] {
            assert_eq!(display_path_of(other, "/home/me/spill"), None, "{other}");
        }
    }

    #[test]
    fn resource_links_to_spills_name_their_resource() {
        let r = reference();
        let result = r#"{"content":[{"type":"text","text":"file:///spill/t/big-1-0123456789abcdef.txt"},{"type":"resource_link","uri":"file:///spill/t/big-1-0123456789abcdef.txt","name":"big-1-0123456789abcdef.txt","size":120},{"type":"resource_link","uri":"file:///elsewhere.txt","name":"x"}],"isError":false}"#;
        let linked = link_resources(result, std::slice::from_ref(&r)).unwrap();
        let expected = result.replacen(
            r#""uri":"file:///spill/t/big-1-0123456789abcdef.txt""#,
            &format!(r#""uri":"{}""#, spill_uri(&r, None)),
            1,
        );
        assert_eq!(linked, expected);
        assert_eq!(link_resources(result, &[]), None);
    }
}
