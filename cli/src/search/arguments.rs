//! The search of an MCP `tools/call`, from its arguments: the string
//! values (or arrays of strings) of the configured top-level keys. How a
//! value is read goes by its key: `regex` and `grep` are regexes,
//! `pattern` a regex or a glob (file-search tools such as
//! `search_files`), any other key literal text.

use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use super::pattern::{self, Dialect};

/// The argument keys searched by default, in the order their values are taken.
pub const DEFAULT_KEYS: &[&str] = &["pattern", "query", "search", "regex", "grep", "q"];

/// The search of a call whose `arguments` (a JSON object) are given, from
/// the values of `keys`; fitted to the component's limits.
pub fn search_of(arguments: &RawValue, keys: &[String]) -> Option<String> {
    if keys.is_empty() {
        return None;
    }
    // The other members (a file's content to write...) stay unparsed.
    let members: HashMap<String, &RawValue> = serde_json::from_str(arguments.get()).ok()?;
    let mut literals = Vec::new();
    for key in keys {
        let Some(raw) = members.get(key.as_str()) else {
            continue;
        };
        let values = match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::String(text)) => vec![text],
            Ok(Value::Array(items)) => items
                .into_iter()
                .filter_map(|item| match item {
                    Value::String(text) => Some(text),
                    _ => None,
                })
                .collect(),
            _ => continue,
        };
        for value in values {
            literals.extend(pattern::literals(&value, dialect_of(key, &value)));
        }
    }
    super::fit(literals)
}

/// How the value of `key` is read.
fn dialect_of(key: &str, value: &str) -> Dialect {
    match key {
        "regex" | "grep" => Dialect::Perl,
        "pattern" => pattern::guess_dialect(value),
        _ => Dialect::Fixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<String> {
        DEFAULT_KEYS.iter().map(|k| (*k).to_owned()).collect()
    }

    fn search(arguments: &str) -> Option<String> {
        let raw: Box<RawValue> = serde_json::from_str(arguments).unwrap();
        search_of(&raw, &keys())
    }

    #[test]
    fn each_key_read_its_way() {
        assert_eq!(
            search(r#"{"path": "/srv", "pattern": "needle"}"#).as_deref(),
            Some("needle")
        );
        // search_files' glob.
        assert_eq!(
            search(r#"{"path": "/srv", "pattern": "**/*needle*.txt"}"#).as_deref(),
            Some("needle")
        );
        // A grep tool's regex.
        assert_eq!(
            search(r#"{"pattern": "fn\\s+main|impl Foo"}"#).as_deref(),
            Some("main\nimpl Foo")
        );
        assert_eq!(
            search(r#"{"regex": "error: .*[0-9]+ failed"}"#).as_deref(),
            Some("error: ")
        );
        // A query is literal text, metacharacters and all.
        assert_eq!(
            search(r#"{"query": "what is a.b*c?"}"#).as_deref(),
            Some("what is a.b*c?")
        );
        assert_eq!(search(r#"{"q": "x"}"#).as_deref(), Some("x"));
    }

    #[test]
    fn keys_in_order_arrays_of_strings_and_other_values_skipped() {
        assert_eq!(
            search(r#"{"q": "last", "query": ["one", 2, "two"], "pattern": "first"}"#).as_deref(),
            Some("first\none\ntwo\nlast")
        );
        assert_eq!(search(r#"{"query": {"nested": "x"}, "search": 5}"#), None);
        assert_eq!(search(r#"{"content": "needle", "path": "needle"}"#), None);
        assert_eq!(search(r#"{"nested": {"query": "needle"}}"#), None);
        assert_eq!(search("[1]"), None);
        assert_eq!(search(r#"{"pattern": "*.?s"}"#), None);
    }

    #[test]
    fn configured_keys_replace_the_default_and_none_turns_it_off() {
        let raw: Box<RawValue> =
            serde_json::from_str(r#"{"pattern": "a", "needle": "b", "regex": "c.*def"}"#).unwrap();
        assert_eq!(
            search_of(&raw, &["needle".to_owned(), "regex".to_owned()]).as_deref(),
            Some("b\ndef")
        );
        assert_eq!(search_of(&raw, &[]), None);
    }

    #[test]
    fn limits_are_kept_by_dropping_extras() {
        let many: Vec<String> = (0..30).map(|i| format!("term{i}")).collect();
        let arguments = serde_json::json!({ "query": many, "q": "x".repeat(1000) }).to_string();
        let search = search(&arguments).unwrap();
        assert_eq!(search.lines().count(), 16);
        assert!(search.lines().all(|l| l.len() <= 256));
    }
}
