//! The first member written twice in any object of a JSON text, found in
//! one scan that skips string values without decoding them: a result's
//! 100 MiB text is passed over with `memchr`, never copied (a serde
//! visitor decodes every escaped string into a buffer as large).

use std::collections::HashSet;

use tool_output_cap::json_strings::string_end;

/// One open object or array, and its path (`content[0]`).
enum Frame {
    Object {
        path: String,
        keys: HashSet<String>,
        /// The next string is a key.
        at_key: bool,
    },
    Array {
        path: String,
        index: usize,
    },
}

/// The first member written twice in any object inside the JSON `text`
/// (the path to it, as `content[0].text`), or `None`. `text` is valid
/// JSON (anything else gives `None` or an arbitrary path, never a panic).
pub fn duplicate_anywhere(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let end = string_end(bytes, at + 1)?;
                if let Some(Frame::Object { path, keys, at_key }) = stack.last_mut()
                    && *at_key
                {
                    *at_key = false;
                    let key: String = serde_json::from_str(&text[at..=end]).ok()?;
                    if !keys.insert(key.clone()) {
                        return Some(join(path, &key));
                    }
                }
                at = end + 1;
                continue;
            }
            b'{' | b'[' => {
                let path = child_path(&stack, text, at);
                stack.push(match bytes[at] {
                    b'{' => Frame::Object {
                        path,
                        keys: HashSet::new(),
                        at_key: true,
                    },
                    _ => Frame::Array { path, index: 0 },
                });
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { at_key, .. }) => *at_key = true,
                Some(Frame::Array { index, .. }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        at += 1;
    }
    None
}

/// The path of a value opened at `at`: the key before it in an object, its
/// index in an array.
fn child_path(stack: &[Frame], text: &str, at: usize) -> String {
    match stack.last() {
        None => String::new(),
        Some(Frame::Array { path, index }) => format!("{path}[{index}]"),
        Some(Frame::Object { path, .. }) => join(path, &last_key(text, at)),
    }
}

/// `path.key`, or `key` at the top.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The key before the `:` that precedes `at` (the value's start).
fn last_key(text: &str, at: usize) -> String {
    let before = text[..at].trim_end();
    let before = before.strip_suffix(':').unwrap_or(before).trim_end();
    let Some(close) = before.len().checked_sub(1) else {
        return String::new();
    };
    // Back to the quote that opens the key: one not escaped.
    let bytes = before.as_bytes();
    let mut open = close;
    while let Some(at) = memchr::memrchr(b'"', &bytes[..open]) {
        let backslashes = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return serde_json::from_str(&before[at..=close]).unwrap_or_default();
        }
        open = at;
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::de::{MapAccess, Visitor};
    use std::fmt;

    /// The scan's reference: a serde visitor over every value (which
    /// decodes every string it passes).
    fn by_visitor(text: &str) -> Option<String> {
        struct Seek(Vec<String>);
        impl<'de> serde::de::DeserializeSeed<'de> for &mut Seek {
            type Value = Option<String>;
            fn deserialize<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
        impl<'de> Visitor<'de> for &mut Seek {
            type Value = Option<String>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut seen = std::collections::HashSet::new();
                let mut found = None;
                while let Some(name) = map.next_key::<String>()? {
                    let here = if self.0.is_empty() {
                        name.clone()
                    } else {
                        format!("{}.{name}", self.0.join(""))
                    };
                    if found.is_none() && !seen.insert(name.clone()) {
                        found = Some(here);
                    }
                    self.0.push(if self.0.is_empty() {
                        name
                    } else {
                        format!(".{name}")
                    });
                    let inner = map.next_value_seed(&mut *self)?;
                    self.0.pop();
                    found = found.or(inner);
                }
                Ok(found)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> Result<Self::Value, S::Error> {
                let mut found = None;
                let mut i = 0usize;
                loop {
                    self.0.push(format!("[{i}]"));
                    let next = seq.next_element_seed(&mut *self);
                    self.0.pop();
                    match next? {
                        Some(inner) => found = found.or(inner),
                        None => return Ok(found),
                    }
                    i += 1;
                }
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        serde::de::DeserializeSeed::deserialize(&mut Seek(Vec::new()), &mut deserializer)
            .ok()
            .flatten()
    }

    #[test]
    fn members_written_twice_are_found_with_their_path() {
        for (text, found) in [
            (
                r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
                Some("content[0].text"),
            ),
            (r#"{"a":{"b":1},"c":[{"b":2}]}"#, None),
            (r#"{"result":1,"result":2}"#, Some("result")),
            (r#"{"r\u0065sult":1,"result":2}"#, Some("result")),
            (r#"{"a":[[{"x":1}],{"k":"\"}","k":0}]}"#, Some("a[1].k")),
            (r#"{"a\\":{"b":"x\\","b":1}}"#, Some("a\\.b")),
            (r#"{"t":"{\"x\":1,\"x\":2}"}"#, None),
            (r#"[1,{"q":[],"q":{}}]"#, Some("[1].q")),
            (r#"{ "s" : { "d" : 1 , "d" : 2 } }"#, Some("s.d")),
        ] {
            assert_eq!(duplicate_anywhere(text).as_deref(), found, "{text}");
            assert_eq!(by_visitor(text).as_deref(), found, "{text}");
        }
    }

    #[test]
    fn broken_text_never_panics() {
        for text in [r#"{"a"#, r#"{"a\"#, "[[[", "}}]]", r#""\"#, r#"{"a":1,"a"#] {
            let _ = duplicate_anywhere(text);
        }
    }

    /// JSON whose keys repeat at times, nested a few levels, with strings
    /// that hold quotes, backslashes and JSON.
    fn any_json() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("a"),
            Just("b"),
            Just("t\\\"q"),
            Just("\\u0061"),
            Just("a\\\\")
        ];
        let leaf = prop_oneof![
            Just("1".to_owned()),
            Just("\"x\\\\\"".to_owned()),
            Just("\"{\\\"a\\\":1,\\\"a\\\":2}\"".to_owned()),
            Just("[]".to_owned()),
            Just("{}".to_owned()),
        ];
        leaf.prop_recursive(4, 40, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((key.clone(), inner), 0..4).prop_map(|v| {
                    let members: Vec<String> =
                        v.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
                    format!("{{ {} }}", members.join(" ,"))
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn the_scan_finds_what_a_visitor_finds(text in any_json()) {
            prop_assert!(serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok(), "{}", text);
            prop_assert_eq!(duplicate_anywhere(&text), by_visitor(&text), "{}", text);
        }
    }
}
