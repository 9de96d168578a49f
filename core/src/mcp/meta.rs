//! What a capped MCP result carries besides its notice: the reference and
//! accounting under `_meta["tool-output-cap/cap"]`, and `resource_link`
//! blocks to the spilled files for clients that open files themselves.

use serde_json::{Map, Value, json};

use crate::capper::Capped;
use crate::refs::OverflowRef;

/// The `_meta` key of the record.
pub const META_KEY: &str = "tool-output-cap/cap";

/// What became of a dropped `structuredContent`.
#[derive(Debug, Clone)]
pub(crate) struct DroppedStructured {
    /// Its size as received.
    pub(crate) bytes: u64,
    /// Where it was saved, or why it could not be.
    pub(crate) saved: Result<OverflowRef, String>,
}

/// The record: the accounting of the texts in camelCase, `spill` or
/// `spillError`, `redactions` when any, and `structuredContent` when it was
/// dropped.
pub(crate) fn record(report: &Capped, structured: Option<&DroppedStructured>) -> String {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_owned(), v);
    };
    put("truncated", json!(report.truncated));
    put("originalBytes", json!(report.original_bytes));
    put("originalLines", json!(report.original_lines));
    put("omittedBytes", json!(report.omitted_bytes));
    put("omittedLines", json!(report.omitted_lines));
    put("gapLine", json!(report.gap_line));
    put("notableLines", json!(report.notable_lines));
    put("foldedLines", json!(report.folded_lines));
    put("originalTokens", json!(report.original_tokens));
    put("tokens", json!(report.tokens));
    if let Some(r) = &report.spill {
        put("spill", reference(r));
    }
    if let Some(e) = &report.spill_error {
        put("spillError", json!(e));
    }
    if !report.redactions.is_empty() {
        let counts: Map<String, Value> = report
            .redactions
            .iter()
            .map(|(kind, n)| (kind.clone(), json!(n)))
            .collect();
        put("redactions", Value::Object(counts));
    }
    if let Some(s) = structured {
        let mut d = Map::new();
        d.insert("dropped".into(), json!(true));
        d.insert("bytes".into(), json!(s.bytes));
        match &s.saved {
            Ok(r) => d.insert("spill".into(), reference(r)),
            Err(e) => d.insert("spillError".into(), json!(e)),
        };
        put("structuredContent", Value::Object(d));
    }
    Value::Object(m).to_string()
}

fn reference(r: &OverflowRef) -> Value {
    json!({
        "path": r.path,
        "relativePath": r.relative_path,
        "bytes": r.bytes,
        "lines": r.lines,
        "digest": r.digest,
        "tag": r.tag,
    })
}

/// A `resource_link` block to the spilled file `r`.
pub(crate) fn resource_link(r: &OverflowRef, mime_type: &str) -> String {
    let name = r.path.rsplit('/').next().unwrap_or(&r.path);
    json!({
        "type": "resource_link",
        "uri": file_uri(&r.path),
        "name": name,
        "mimeType": mime_type,
        "size": r.bytes,
    })
    .to_string()
}

/// `file://` and the path, percent-encoded but for unreserved characters
/// and `/` (a path without a leading `/` gets one).
pub fn file_uri(path: &str) -> String {
    let mut uri = String::from("file://");
    if !path.starts_with('/') {
        uri.push('/');
    }
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_encode_all_but_unreserved_bytes_and_slashes() {
        assert_eq!(
            file_uri("/home/me/spill/t/c-1.txt"),
            "file:///home/me/spill/t/c-1.txt"
        );
        assert_eq!(file_uri("/a b/é%~_.txt"), "file:///a%20b/%C3%A9%25~_.txt");
        assert_eq!(file_uri("C:\\spill/x"), "file:///C%3A%5Cspill/x");
    }
}
