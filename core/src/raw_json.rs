//! The little JSON `cap-mcp` needs: objects as their keys in order with each
//! value as received (raw), strings decoded without a second copy, and the
//! writing of new values beside raw ones.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A JSON object's members in order, each value exactly as received.
#[derive(Debug, Default)]
pub(crate) struct Members<'a>(pub(crate) Vec<(String, &'a RawValue)>);

impl<'a> Members<'a> {
    /// The members of `raw`; `None` when it is not an object.
    pub(crate) fn of(raw: &'a RawValue) -> Option<Self> {
        if kind(raw) != Kind::Object {
            return None;
        }
        // `raw` is valid JSON already; only the recursion limit could fail.
        serde_json::from_str(raw.get()).ok()
    }

    /// The value of the last member named `key` (as JSON parsers read a
    /// repeated key).
    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// The members, a repeated key once, where it last was.
    pub(crate) fn unique(&self) -> impl Iterator<Item = (&str, &'a RawValue)> {
        self.0
            .iter()
            .enumerate()
            .filter(|(i, (k, _))| !self.0[i + 1..].iter().any(|(later, _)| later == k))
            .map(|(_, (k, v))| (k.as_str(), *v))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(MembersVisitor)
    }
}

/// The kind of a JSON value, for messages and dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    /// The kind with its article, as a message says it: "a string".
    pub(crate) fn phrase(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Bool => "a boolean",
            Kind::Null => "null",
        }
    }
}

/// The kind of a valid JSON value, from its first byte.
pub(crate) fn kind(raw: &RawValue) -> Kind {
    match raw.get().as_bytes().first() {
        Some(b'{') => Kind::Object,
        Some(b'[') => Kind::Array,
        Some(b'"') => Kind::String,
        Some(b't' | b'f') => Kind::Bool,
        Some(b'n') => Kind::Null,
        _ => Kind::Number,
    }
}

/// The elements of a JSON array, each as received; `None` when `raw` is not
/// an array.
pub(crate) fn elements(raw: &RawValue) -> Option<Vec<&RawValue>> {
    if kind(raw) != Kind::Array {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// The string a JSON string value holds; `None` when it is not a string.
/// Decoded in one pass into one allocation no larger than the raw text (a
/// string of 100 MiB is not copied twice). A lone surrogate escape, which a
/// UTF-8 string cannot hold, becomes U+FFFD.
pub(crate) fn string(raw: &RawValue) -> Option<String> {
    let text = raw.get();
    let body = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        let escape_text = &rest[at + 1..];
        let (c, used) = escape(escape_text)?;
        out.push(c);
        rest = &escape_text[used..];
    }
    out.push_str(rest);
    Some(out)
}

/// The character of the escape `escape` starts with (what follows its
/// backslash), and the bytes it used; `None` when it is not one. A lone
/// surrogate escape, which no character is, becomes U+FFFD.
pub(crate) fn escape(escape: &str) -> Option<(char, usize)> {
    escape_with(escape, LoneSurrogate::Replaced)
}

/// [`escape`] as serde_json decodes a string: a lone surrogate escape is
/// refused (`None`).
pub(crate) fn strict_escape(escape: &str) -> Option<(char, usize)> {
    escape_with(escape, LoneSurrogate::Refused)
}

/// The text an escape may take after its backslash (at most 11 bytes, all
/// ASCII) from bytes that need not be UTF-8 further on, for [`escape`] and
/// [`strict_escape`].
pub(crate) fn escape_head(after: &[u8]) -> Option<&str> {
    let head = &after[..after.len().min(11)];
    match std::str::from_utf8(head) {
        Ok(h) => Some(h),
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok(),
    }
}

/// What a `\u` escape of a lone surrogate decodes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoneSurrogate {
    Replaced,
    Refused,
}

fn escape_with(escape: &str, lone: LoneSurrogate) -> Option<(char, usize)> {
    Some(match escape.as_bytes().first()? {
        b'"' => ('"', 1),
        b'\\' => ('\\', 1),
        b'/' => ('/', 1),
        b'b' => ('\u{8}', 1),
        b'f' => ('\u{c}', 1),
        b'n' => ('\n', 1),
        b'r' => ('\r', 1),
        b't' => ('\t', 1),
        b'u' => unicode_escape(escape, lone)?,
        _ => return None,
    })
}

/// The character of a `uXXXX` escape (a surrogate pair takes the `\uXXXX`
/// after it too), and the bytes it used after the backslash. Exactly four
/// hex digits: `from_str_radix` alone would take `u+123`.
fn unicode_escape(escape: &str, lone: LoneSurrogate) -> Option<(char, usize)> {
    let hex = |s: &str| {
        s.get(1..5)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let first = hex(escape)?;
    if (0xD800..0xDC00).contains(&first)
        && let Some(pair) = escape.get(5..).filter(|p| p.starts_with("\\u"))
        && let Some(second) = hex(&pair[1..])
        && (0xDC00..0xE000).contains(&second)
    {
        let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        return Some((char::from_u32(c)?, 11));
    }
    match char::from_u32(first) {
        Some(c) => Some((c, 5)),
        None if lone == LoneSurrogate::Replaced => Some(('\u{FFFD}', 5)),
        None => None,
    }
}

/// Append `s` as a JSON string.
pub(crate) fn push_string(out: &mut String, s: &str) {
    out.push_str(&serde_json::to_string(s).expect("a string always serialises"));
}

/// Append `{"k":v,...}`: each member's key as a JSON string and its value
/// as already-written JSON.
pub(crate) fn push_object<'k>(
    out: &mut String,
    members: impl IntoIterator<Item = (&'k str, &'k str)>,
) {
    out.push('{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, key);
        out.push(':');
        out.push_str(value);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn strings_decode_as_serde_json_decodes_them() {
        for s in [
            r#""""#,
            r#""plain""#,
            r#""a\nb\t\"q\"\\ \/ \b\f\r""#,
            r#""\u00e9\u4e2d \ud83d\ude00 end""#,
            r#""é 中 😀 raw""#,
            r#""\u0000""#,
        ] {
            let want: String = serde_json::from_str(s).unwrap();
            assert_eq!(string(&raw(s)).as_deref(), Some(want.as_str()), "{s}");
        }
        assert_eq!(string(&raw(r#""\ud800 x""#)).as_deref(), Some("\u{FFFD} x"));
        assert_eq!(string(&raw("12")), None);
    }

    #[test]
    fn members_keep_their_order_and_raw_values() {
        let v = raw(r#"{"b": 1.50, "a" : [ 1 ,2 ], "b":{"x" :null}}"#);
        let m = Members::of(&v).unwrap();
        let keys: Vec<_> = m.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        assert_eq!(m.0[0].1.get(), "1.50");
        assert_eq!(m.get("a").unwrap().get(), "[ 1 ,2 ]");
        assert_eq!(m.get("b").unwrap().get(), r#"{"x" :null}"#);
        let unique: Vec<_> = m.unique().map(|(k, v)| (k, v.get())).collect();
        assert_eq!(unique, [("a", "[ 1 ,2 ]"), ("b", r#"{"x" :null}"#)]);
        assert!(Members::of(&raw("[1]")).is_none());
    }

    #[test]
    fn kinds_come_from_the_first_byte() {
        let cases = [
            ("{}", Kind::Object),
            ("[]", Kind::Array),
            ("\"s\"", Kind::String),
            ("-1", Kind::Number),
            ("true", Kind::Bool),
            ("false", Kind::Bool),
            ("null", Kind::Null),
        ];
        for (s, k) in cases {
            assert_eq!(kind(&raw(s)), k, "{s}");
        }
    }
}
