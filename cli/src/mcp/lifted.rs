//! A huge server line read without its huge text. A large `tools/call`
//! result is mostly one string, its text; that string is taken out, found
//! by a search for quotes alone, and only the small rest (the skeleton) is
//! parsed and checked for members written twice. The text itself goes to
//! the component, which decodes it and refuses what a JSON string cannot
//! hold.
//!
//! The line is valid JSON exactly when its skeleton is and the string's
//! body is a valid body: the skeleton keeps every byte around the string,
//! so its quotes pair up as the line's do, and the string's place holds
//! `""`. Its members are the line's, as the string taken out is a value,
//! never a member's name.

use serde_json::value::RawValue;

use tool_output_cap::json_strings;

/// Lines shorter than this are parsed whole: a parse of the rest would
/// save too little to matter.
pub const LIFT_MIN_BYTES: usize = 1 << 20;

/// A line with its longest string written `""`.
#[derive(Debug)]
pub struct Lifted<'t> {
    /// The line with the string's body taken out.
    pub skeleton: String,
    /// The line as it came.
    line: &'t str,
    /// Where the string's opening quote is, in the line and the skeleton.
    quote: usize,
    /// Bytes of the string's body, between its quotes.
    body_bytes: usize,
}

impl<'t> Lifted<'t> {
    /// `line` without its longest string, when the line is a large JSON
    /// object and that string is a value holding most of it; `None`
    /// otherwise (the line is then parsed whole).
    pub fn of(line: &'t str) -> Option<Self> {
        if line.len() < LIFT_MIN_BYTES || !line.trim_start().starts_with('{') {
            return None;
        }
        let bytes = line.as_bytes();
        if !middle_may_be_in_a_long_string(bytes) {
            return None;
        }
        let (start, end) = json_strings::longest_string(bytes)?;
        let body_bytes = end - start - 1;
        if body_bytes <= line.len() / 2 {
            return None;
        }
        // A member's name is followed by `:`. Taken out, the skeleton's
        // names would not be the line's.
        let next = bytes[end + 1..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        if next == Some(&b':') {
            return None;
        }
        let mut skeleton = String::with_capacity(line.len() - body_bytes);
        skeleton.push_str(&line[..=start]);
        skeleton.push_str(&line[end..]);
        Some(Self {
            skeleton,
            line,
            quote: start,
            body_bytes,
        })
    }

    /// The text in the line of `value`, a value parsed from the skeleton
    /// that holds the string taken out; `None` for any other value.
    pub fn original(&self, value: &RawValue) -> Option<&'t str> {
        let start = (value.get().as_ptr() as usize).checked_sub(self.skeleton.as_ptr() as usize)?;
        let end = start.checked_add(value.get().len())?;
        let holds = start <= self.quote && self.quote + 2 <= end && end <= self.skeleton.len();
        if !holds {
            return None;
        }
        self.line.get(start..end + self.body_bytes)
    }
}

/// How far from the line's middle [`middle_may_be_in_a_long_string`] looks.
const MIDDLE_REACH: usize = 4096;

/// Whether a string longer than half of `line` may hold its middle byte,
/// as one must. Not when a quote that ends or opens a string (one after an
/// even run of backslashes) is near the middle on each side: a string holds
/// no such quote, so one holding the middle would lie between the two. A
/// look at 8 KiB that spares a line of many short strings (a JSON
/// document's) the search through all its quotes.
fn middle_may_be_in_a_long_string(line: &[u8]) -> bool {
    let middle = line.len() / 2;
    let delimits = |at: usize| !json_strings::escaped(line, at);
    let before = middle.saturating_sub(MIDDLE_REACH);
    let after = (middle + MIDDLE_REACH).min(line.len());
    let quote_before =
        memchr::memrchr_iter(b'"', &line[before..middle]).any(|i| delimits(before + i));
    let quote_after = memchr::memchr_iter(b'"', &line[middle..after]).any(|i| delimits(middle + i));
    !(quote_before && quote_after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::message::{self, Message};
    use proptest::prelude::*;
    use serde::de::IgnoredAny;

    /// A tools/call answer whose text is `piece` repeated past the lift's
    /// minimum, written as JSON.
    fn answer(piece: &str) -> String {
        let text = piece.repeat(LIFT_MIN_BYTES / piece.len().max(1) + 1);
        let result = serde_json::json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"lines": 3, "path": "build.log"},
        });
        format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result}}}"#) + "\n"
    }

    fn valid(json: &str) -> bool {
        serde_json::from_str::<IgnoredAny>(json).is_ok()
    }

    #[test]
    fn the_skeleton_routes_as_the_line_and_gives_back_its_result() {
        let line = answer("error: \"quoted\" at C:\\build\\x\n\tcafé ");
        let lifted = Lifted::of(&line).expect("lifted");
        assert!(lifted.skeleton.len() < 200, "{}", lifted.skeleton);
        assert!(lifted.skeleton.contains(r#""text":"""#));
        let (Ok(Message::Object(whole)), Ok(Message::Object(rest))) =
            (message::parse(&line), message::parse(&lifted.skeleton))
        else {
            panic!("both parse as objects");
        };
        assert_eq!(whole.id.unwrap().get(), rest.id.unwrap().get());
        let result = rest.result.unwrap();
        assert_eq!(lifted.original(result), Some(whole.result.unwrap().get()));
        // A value that does not hold the text gives nothing back.
        assert_eq!(lifted.original(rest.id.unwrap()), None);
        let other = RawValue::from_string("{}".to_owned()).unwrap();
        assert_eq!(lifted.original(&other), None);
    }

    #[test]
    fn only_large_objects_whose_longest_string_is_most_of_them_are_lifted() {
        let small = r#"{"id":1,"result":{"content":[{"type":"text","text":"short"}]}}"#;
        assert!(Lifted::of(small).is_none());
        let line = answer("x");
        assert!(Lifted::of(&format!("[{line}]")).is_none(), "a batch");
        // Many strings, none most of the line.
        let many: Vec<String> = (0..100_000).map(|i| format!("item {i}")).collect();
        let many = serde_json::json!({"id": 1, "result": {"items": many}}).to_string();
        assert!(many.len() > LIFT_MIN_BYTES);
        assert!(Lifted::of(&many).is_none());
        // A member's name is never taken out, even the longest string.
        let name = "n".repeat(LIFT_MIN_BYTES);
        let keyed = format!(r#"{{"id":1,"result":{{"{name}" :1,"{name}":2}}}}"#);
        assert!(Lifted::of(&keyed).is_none());
        // A long string holding the middle, among many short ones.
        let short: Vec<String> = (0..20_000).map(|i| format!("item {i}")).collect();
        let long = "y".repeat(LIFT_MIN_BYTES);
        let mixed =
            serde_json::json!({"id": 1, "result": {"a": short.clone(), "text": long, "b": short}});
        let mixed = mixed.to_string();
        let lifted = Lifted::of(&mixed).expect("the long string is lifted");
        assert!(lifted.skeleton.contains(r#""text":"""#));
        // A string that never ends.
        let open = format!(r#"{{"id":1,"result":"{name}"#);
        assert!(Lifted::of(&open).is_none());
    }

    /// Bytes that change what a JSON text means, and some that do not.
    fn edit_byte() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "\"", "\\", "\u{1}", "\n", ":", ",", "{", "}", "[", "]", "u", "0", " ", "é", "\\u",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The module's claim, on answers edited anywhere (in the text or
        /// its rest): whenever a line is lifted, it is valid JSON exactly
        /// when its skeleton is and its string's body is a JSON string's.
        #[test]
        fn a_lifted_line_is_valid_exactly_when_its_skeleton_and_body_are(
            piece in "[a-z\"\\\\\n\t\u{1}é/]{1,12}",
            edits in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>(), edit_byte()), 0..4),
        ) {
            let mut line = answer(&piece);
            let text_at = line.find(r#""text":""#).unwrap() + 8;
            for (in_text, at, byte) in edits {
                let mut at = if in_text {
                    text_at + at.index(LIFT_MIN_BYTES)
                } else {
                    at.index(line.len())
                };
                while !line.is_char_boundary(at) {
                    at -= 1;
                }
                line.insert_str(at, byte);
            }
            let Some(lifted) = Lifted::of(&line) else { return Ok(()) };
            let body = &line[lifted.quote + 1..lifted.quote + 1 + lifted.body_bytes];
            prop_assert_eq!(
                valid(&line),
                valid(&lifted.skeleton) && valid(&format!("\"{body}\""))
            );
        }
    }
}
