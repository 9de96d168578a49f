//! A result's one huge text, decoded where its JSON was: without it, the
//! component would hold the result's JSON and the decoded text side by side
//! (twice a 100 MiB result) for as long as it caps them.
//!
//! The largest textual string of a result (a `text` block's `text`, or an
//! embedded resource's `text`) that must be cut whatever else the result
//! holds is *lifted*: the rest of the JSON, with that string written `""`,
//! is copied out (it is small), and the string is decoded in place in the
//! result's own buffer, which then becomes the text. Decoding never makes a
//! string longer, so it fits where it was read.
//!
//! A lifted text is always cut: the budget is not disabled and the text is
//! longer than its bytes. So a result with a lifted text never comes back
//! as received, the one output that needed the JSON as it was.

use serde_json::value::RawValue;

use super::blocks::{self, McpResult};
use super::json;
use crate::budget::Budget;

/// Raw strings shorter than this are decoded as any other (the copy is
/// small, and the JSON left is not parsed a second time).
pub(crate) const LIFT_MIN_BYTES: usize = 256 << 10;

/// Which string to lift: its place in the result's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target {
    /// The content block whose text it is.
    pub(crate) block: usize,
    /// Byte offsets of the raw string, quotes included.
    start: usize,
    end: usize,
}

/// The result's JSON without its lifted text, and that text.
#[derive(Debug)]
pub(crate) struct Lifted {
    /// The JSON, the lifted string written as `""`.
    pub(crate) json: String,
    /// The offset of that `""` in `json`.
    pub(crate) at: usize,
    /// The content block whose text was lifted.
    pub(crate) block: usize,
    /// The decoded text.
    pub(crate) text: String,
}

/// The string to lift in `parsed` (parsed from `json`) under `budget`: the
/// largest of at least `min` bytes (raw), if it is sure to be cut.
pub(crate) fn target(
    json: &str,
    parsed: &McpResult<'_>,
    budget: &Budget,
    min: usize,
) -> Option<Target> {
    if budget.is_disabled() {
        return None;
    }
    let base = json.as_ptr() as usize;
    parsed
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, block)| block.get().len() >= min)
        .filter_map(|(i, block)| Some((i, blocks::text_string(block)?)))
        .filter(|(_, raw)| raw.get().len() >= min)
        .max_by_key(|(i, raw)| (raw.get().len(), std::cmp::Reverse(*i)))
        .filter(|(_, raw)| decodes_longer_than(raw, budget.max_bytes))
        .map(|(i, raw)| {
            let start = raw.get().as_ptr() as usize - base;
            Target {
                block: i,
                start,
                end: start + raw.get().len(),
            }
        })
}

/// Take the target's string out of `json`, decoded in `json`'s own buffer.
pub(crate) fn lift(json: String, target: Target) -> Lifted {
    let Target { block, start, end } = target;
    let mut rest = String::with_capacity(json.len() - (end - start) + 2);
    rest.push_str(&json[..start]);
    rest.push_str("\"\"");
    rest.push_str(&json[end..]);
    let mut buf = json.into_bytes();
    let len = unescape_in_place(&mut buf, start + 1, end - 1);
    buf.truncate(len);
    buf.shrink_to_fit();
    // Valid by construction (escapes become whole characters, and the rest
    // is copied between ASCII bytes); checked rather than trusted.
    let text = String::from_utf8(buf)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Lifted {
        json: rest,
        at: start,
        block,
        text,
    }
}

/// `json` (a result lifted of a text) with `text` written back where the
/// `""` at `at` stands: a JSON string equal in value, though not byte for
/// byte, to what was received.
pub(crate) fn restore(json: &str, at: usize, text: &str) -> String {
    let mut out = String::with_capacity(json.len() + text.len() + 2);
    out.push_str(&json[..at]);
    json::push_string(&mut out, text);
    out.push_str(&json[at + 2..]);
    out
}

/// Whether the string `raw` decodes to more than `max` bytes: surely when
/// its body is over six times that (no escape is longer than 6 bytes per
/// byte it decodes to), else counted.
fn decodes_longer_than(raw: &RawValue, max: u32) -> bool {
    let body = raw.get().len().saturating_sub(2) as u64;
    body / 6 > u64::from(max) || decoded_len(raw) > u64::from(max)
}

/// The length of the string `raw` decodes to (as [`json::string`] decodes
/// it), counted without decoding.
fn decoded_len(raw: &RawValue) -> u64 {
    let bytes = raw.get().as_bytes();
    let Some(mut rest) = bytes.get(1..bytes.len().saturating_sub(1)) else {
        return 0;
    };
    let mut len = 0u64;
    while let Some(at) = memchr::memchr(b'\\', rest) {
        len += at as u64;
        let Some((c, used)) = escape(&rest[at + 1..]) else {
            return len;
        };
        len += c.len_utf8() as u64;
        rest = &rest[at + 1 + used..];
    }
    len + rest.len() as u64
}

/// Decode the body of a JSON string, `buf[from..to]` (between its quotes),
/// into `buf[..n]`, and return `n`. What is written never passes what is
/// still to be read: each escape decodes to fewer bytes than it takes.
/// Decodes as [`json::string`] does (a lone surrogate becomes U+FFFD); the
/// input is valid JSON, so a bad escape cannot occur; one would end the
/// text there.
fn unescape_in_place(buf: &mut [u8], from: usize, to: usize) -> usize {
    let (mut read, mut write) = (from, 0);
    while read < to {
        let next = memchr::memchr(b'\\', &buf[read..to]).map_or(to, |at| read + at);
        buf.copy_within(read..next, write);
        write += next - read;
        read = next;
        if read == to {
            break;
        }
        let Some((c, used)) = escape(&buf[read + 1..to]) else {
            break;
        };
        let mut utf8 = [0; 4];
        let encoded = c.encode_utf8(&mut utf8).as_bytes();
        buf[write..write + encoded.len()].copy_from_slice(encoded);
        write += encoded.len();
        read += 1 + used;
    }
    write
}

/// The character of the escape after a backslash, and the bytes it used.
pub(crate) fn escape(after: &[u8]) -> Option<(char, usize)> {
    json::escape(json::escape_head(after)?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The text lifted from `"…"` (`body` written as received), and what
    /// `json::string` decodes from the same.
    fn both(body: &str) -> (String, Option<String>) {
        let raw = format!("\"{body}\"");
        let old = json::string(&RawValue::from_string(raw.clone()).unwrap());
        let before = r#"{"a":1,"t":"#;
        let json = format!("{before}{raw},\"z\":[]}}");
        // The value's place, not a search for it: a body `t` is also the key.
        let start = before.len();
        let lifted = lift(
            json,
            Target {
                block: 0,
                start,
                end: start + raw.len(),
            },
        );
        assert_eq!(lifted.json, r#"{"a":1,"t":"","z":[]}"#);
        (lifted.text, old)
    }

    #[test]
    fn lifted_texts_decode_as_strings_do() {
        for body in [
            "",
            "plain",
            r#"a\nb\t\"q\"\\ \/ \b\f\r"#,
            r#"\u00e9\u4e2d \ud83d\ude00 end"#,
            "é 中 😀 raw",
            r#"\u0000"#,
            r#"\ud800 x"#,
            r#"\udc00\ud800"#,
            r#"\ud83d\u0041"#,
            r#"\\u0041"#,
            r#"end\\"#,
        ] {
            let (new, old) = both(body);
            assert_eq!(Some(new.clone()), old, "{body}");
            let raw = RawValue::from_string(format!("\"{body}\"")).unwrap();
            assert_eq!(decoded_len(&raw), new.len() as u64, "{body}");
        }
    }

    #[test]
    fn a_lifted_text_is_written_back_as_the_same_value() {
        let json = r#"{"content":[{"type":"text","text":"a\nb\u00e9"}],"x":1}"#.to_owned();
        let start = json.find("\"a\\n").unwrap();
        let end = json.find("}]").unwrap();
        let lifted = lift(
            json.clone(),
            Target {
                block: 0,
                start,
                end,
            },
        );
        assert_eq!(lifted.text, "a\nbé");
        let restored = restore(&lifted.json, lifted.at, &lifted.text);
        let back: serde_json::Value = serde_json::from_str(&restored).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<serde_json::Value>(&json).unwrap()
        );
    }

    /// One piece of a JSON string body: raw text, or an escape of it.
    pub(crate) fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()
                [1..serde_json::to_string(&s).unwrap().len() - 1]
                .to_owned()),
            Just(r"\n".to_owned()),
            Just(r#"\""#.to_owned()),
            Just(r"\\".to_owned()),
            Just(r"\/".to_owned()),
            Just(r"\b\f\r\t".to_owned()),
            any::<char>().prop_map(|c| {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            }),
            any::<char>().prop_map(|c| {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04X}"))
                    .collect()
            }),
            (0xD800u32..0xE000).prop_map(|u| format!("\\u{u:04x}")),
            "[a-zé中😀 ]{0,8}",
        ]
    }

    proptest! {
        #[test]
        fn lifting_decodes_any_string_as_json_string_does(
            pieces in proptest::collection::vec(piece(), 0..40)
        ) {
            let body: String = pieces.concat();
            let (new, old) = both(&body);
            prop_assert_eq!(Some(new.clone()), old);
            let raw = RawValue::from_string(format!("\"{body}\"")).unwrap();
            prop_assert_eq!(decoded_len(&raw), new.len() as u64);
        }
    }
}
