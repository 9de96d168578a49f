//! `Mcp-Param-*` headers of MCP 2026-07-28: a tool's `inputSchema` may mark
//! an argument with `"x-mcp-header": "Name"`, and a client's `tools/call`
//! must then repeat that argument's value in the header `Mcp-Param-Name`,
//! which the server checks against the body (a call without it is refused
//! with HTTP 400). The marks are learned from the server's `tools/list`
//! answers, as the proxy passes them on; a tool whose marks break the
//! version's rules is dropped from a 2026-07-28 client's listing, as the
//! version has a client do (the official SDKs' clients drop it too).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::log;
use crate::mcp::message;

/// The mark's key in a property's schema.
const MARK: &str = "x-mcp-header";
/// What goes before the mark's name in the header's name.
const PREFIX: &str = "Mcp-Param-";

/// JSON Schema 2020-12 keywords whose value is a schema, a list of schemas
/// or a map of them: the places a mark may sit other than `properties`
/// (where none is allowed). Data (`default`, `const`, `enum`, `examples`)
/// is not entered, nor is a `$ref` followed.
const ONE_SCHEMA: [&str; 11] = [
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
const SCHEMA_LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAP: [&str; 4] = [
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// One marked argument: where it is in `arguments` (a chain of property
/// names), and its header's name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mark {
    path: Vec<String>,
    name: String,
}

/// The marked arguments of every tool the server listed.
#[derive(Debug, Default)]
pub struct ParamHeaders {
    tools: HashMap<String, Vec<Mark>>,
}

impl ParamHeaders {
    /// Notes the marked arguments of each tool a `tools/list` answer lists
    /// (a later page or listing replaces what an earlier one said of a
    /// tool). For a client of 2026-07-28 (`modern`), also the answer it
    /// gets when a tool's marks break that version's rules: the same
    /// answer without that tool, since the version has a client drop it
    /// (each one dropped is logged with why). `None`: it goes on as it is.
    pub fn learn(&mut self, answer: &[u8], modern: bool) -> Option<Vec<u8>> {
        #[derive(Deserialize)]
        struct Answer<'a> {
            #[serde(borrow)]
            result: Option<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct Listing<'a> {
            #[serde(borrow)]
            tools: Option<Vec<&'a RawValue>>,
        }
        let text = std::str::from_utf8(answer).ok()?;
        let result = serde_json::from_str::<Answer>(text).ok()?.result?;
        let tools = serde_json::from_str::<Listing>(result.get()).ok()?.tools?;
        let mut kept = Vec::with_capacity(tools.len());
        for tool in &tools {
            match self.learn_tool(tool) {
                Err((name, why)) if modern => log::line(&format!(
                    "left the server's tool `{name}` out of its tools/list answer: its \
                     input schema {why} (MCP 2026-07-28 has a client drop such a tool)"
                )),
                _ => kept.push(tool.get()),
            }
        }
        if kept.len() == tools.len() {
            return None;
        }
        let listing =
            message::replace_member(result.get(), "tools", &format!("[{}]", kept.join(",")))?;
        message::replace_member(text.trim(), "result", &listing).map(String::into_bytes)
    }

    /// Notes the marks of one listed tool; its name and why they break the
    /// rules when they do (it then has none).
    fn learn_tool(&mut self, tool: &RawValue) -> Result<(), (String, String)> {
        #[derive(Deserialize)]
        struct Tool {
            name: Option<Value>,
            #[serde(rename = "inputSchema")]
            input_schema: Option<Value>,
        }
        let Ok(Tool {
            name: Some(Value::String(name)),
            input_schema,
        }) = serde_json::from_str::<Tool>(tool.get())
        else {
            return Ok(());
        };
        match input_schema.as_ref().map_or(Ok(Vec::new()), marks_of) {
            Ok(marks) if !marks.is_empty() => {
                self.tools.insert(name, marks);
                Ok(())
            }
            Ok(_) => {
                self.tools.remove(&name);
                Ok(())
            }
            Err(why) => {
                self.tools.remove(&name);
                Err((name, why))
            }
        }
    }

    /// The headers (name, value as it is to be sent) a `tools/call` of
    /// `tool` with `arguments` carries: one per marked argument that has a
    /// value; none for an absent or `null` one.
    pub fn headers(&self, tool: &str, arguments: Option<&Value>) -> Vec<(String, String)> {
        let (Some(marks), Some(arguments)) = (self.tools.get(tool), arguments) else {
            return Vec::new();
        };
        marks
            .iter()
            .filter_map(|mark| {
                let value = mark
                    .path
                    .iter()
                    .try_fold(arguments, |node, key| node.get(key))?;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some((
                    format!("{PREFIX}{}", mark.name),
                    super::session::header_text(&text),
                ))
            })
            .collect()
    }
}

/// The marks of a tool's input schema, or why they break the rules of MCP
/// 2026-07-28: each must be on a property reached from the root through
/// `properties` alone (a mark anywhere else, under `items`, `anyOf` or
/// `$defs`, is one no client can follow), of type string, integer or
/// boolean, its name an HTTP token no other mark has in any case.
fn marks_of(schema: &Value) -> Result<Vec<Mark>, String> {
    let mut marks: Vec<Mark> = Vec::new();
    // Each schema and its chain of `properties` names from the root
    // (`None` once another keyword was crossed). A stack, not recursion:
    // any depth serde_json parses is walked.
    let mut stack: Vec<(Option<Vec<String>>, &Value)> = vec![(Some(Vec::new()), schema)];
    while let Some((path, node)) = stack.pop() {
        let Some(object) = node.as_object() else {
            continue;
        };
        if let Some(mark) = object.get(MARK) {
            marks.push(mark_at(path.as_deref(), object, mark)?);
        }
        for (keyword, value) in object {
            let keyword = keyword.as_str();
            if keyword == "properties" {
                for (name, property) in value.as_object().into_iter().flatten() {
                    let chain = path
                        .as_ref()
                        .map(|p| [p.as_slice(), std::slice::from_ref(name)].concat());
                    stack.push((chain, property));
                }
            } else if ONE_SCHEMA.contains(&keyword) {
                stack.push((None, value));
            } else if SCHEMA_LIST.contains(&keyword) {
                stack.extend(value.as_array().into_iter().flatten().map(|s| (None, s)));
            } else if SCHEMA_MAP.contains(&keyword) {
                stack.extend(
                    value
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(_, s)| (None, s)),
                );
            }
        }
    }
    let mut names: Vec<String> = marks.iter().map(|m| m.name.to_ascii_lowercase()).collect();
    names.sort_unstable();
    if let Some(twice) = names.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!("marks two arguments `{MARK}: {}`", twice[0]));
    }
    Ok(marks)
}

/// The mark `mark` of the schema `object` at `path`, or why it breaks the rules.
fn mark_at(
    path: Option<&[String]>,
    object: &serde_json::Map<String, Value>,
    mark: &Value,
) -> Result<Mark, String> {
    let path = match path {
        Some(path) if !path.is_empty() => path,
        _ => {
            return Err(format!(
                "has `{MARK}: {mark}` where no argument is (only properties reached through \
                 `properties` alone may be marked)"
            ));
        }
    };
    let at = path.join(".");
    let Some(name) = mark.as_str().filter(|name| is_token(name)) else {
        return Err(format!(
            "marks `{at}` with `{mark}`, which is no HTTP header name"
        ));
    };
    match object.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(Mark {
            path: path.to_vec(),
            name: name.to_owned(),
        }),
        kind => Err(format!(
            "marks `{at}` (`{MARK}: {name}`), of type {}, where only a string, integer or \
             boolean may be",
            kind.map_or_else(|| "unstated".to_owned(), |k| format!("`{k}`"))
        )),
    }
}

/// An HTTP field name's token (RFC 9110): what a header's name may hold.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(tools: Value) -> ParamHeaders {
        let mut headers = ParamHeaders::default();
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}});
        assert_eq!(headers.learn(answer.to_string().as_bytes(), false), None);
        headers
    }

    fn property(kind: &str, mark: &str) -> Value {
        json!({"type": kind, "x-mcp-header": mark})
    }

    #[test]
    fn marked_arguments_with_a_value_are_mirrored_and_encoded() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": property("string", "Region"),
                "count": property("integer", "Count"),
                "dry": property("boolean", "Dry-Run"),
                "target": {"type": "object", "properties": {"zone": property("string", "Zone")}},
                "text": {"type": "string"},
            },
        });
        let headers = listed(json!([{"name": "deploy", "inputSchema": schema}]));
        let arguments = json!({
            "region": "us-west1", "count": 3, "dry": false,
            "target": {"zone": "zürich-1"}, "text": "not mirrored",
        });
        let mut got = headers.headers("deploy", Some(&arguments));
        got.sort();
        assert_eq!(
            got,
            [
                ("Mcp-Param-Count".into(), "3".into()),
                ("Mcp-Param-Dry-Run".into(), "false".into()),
                ("Mcp-Param-Region".into(), "us-west1".into()),
                ("Mcp-Param-Zone".into(), "=?base64?esO8cmljaC0x?=".into()),
            ]
        );
        // Absent, null or not a scalar: no header.
        let sparse = json!({"region": null, "target": "flat", "count": [1]});
        assert!(headers.headers("deploy", Some(&sparse)).is_empty());
        assert!(headers.headers("deploy", None).is_empty());
        assert!(headers.headers("other", Some(&arguments)).is_empty());
    }

    /// Schemas whose marks break the rules of 2026-07-28, each with a word
    /// of the reason given.
    fn bad_schemas() -> Vec<(Value, &'static str)> {
        let with = |properties: Value| json!({"type": "object", "properties": properties});
        vec![
            (with(json!({"a": property("number", "A")})), "`number`"),
            (with(json!({"a": {"x-mcp-header": "A"}})), "unstated"),
            (
                with(json!({"a": property("string", "A B")})),
                "no HTTP header name",
            ),
            (
                with(json!({"a": property("string", "")})),
                "no HTTP header name",
            ),
            (
                with(json!({"a": {"type": "string", "x-mcp-header": 7}})),
                "no HTTP header name",
            ),
            (
                with(json!({"a": property("string", "Same"), "b": property("string", "same")})),
                "two arguments",
            ),
            (
                json!({"type": "string", "x-mcp-header": "Root"}),
                "where no argument is",
            ),
            (
                json!({"type": "array", "items": property("string", "Item")}),
                "where no argument is",
            ),
            (
                with(json!({"a": {"anyOf": [property("string", "A")]}})),
                "where no argument is",
            ),
            (
                json!({"$defs": {"d": {"properties": {"a": property("string", "A")}}}}),
                "where no argument is",
            ),
        ]
    }

    #[test]
    fn a_schema_with_a_bad_mark_mirrors_nothing() {
        for (schema, why) in bad_schemas() {
            let reason = marks_of(&schema).expect_err("a bad mark");
            assert!(reason.contains(why), "{schema}: {reason}");
            let headers = listed(json!([{"name": "t", "inputSchema": schema}]));
            let arguments = json!({"a": "x", "b": "y"});
            assert!(
                headers.headers("t", Some(&arguments)).is_empty(),
                "{schema}"
            );
        }
        // Data is not schema, and a mark deep down `properties` is followed.
        let mut deep = property("string", "Deep");
        for _ in 0..40 {
            deep = json!({"type": "object", "properties": {"n": deep}});
        }
        deep["properties"]["e"] = json!({"type": "string", "enum": [{"x-mcp-header": 1}]});
        let marks = marks_of(&deep).unwrap();
        assert_eq!((marks.len(), marks[0].path.len()), (1, 40));
    }

    #[test]
    fn a_client_of_2026_07_28_gets_the_listing_without_the_tools_it_must_drop() {
        let good = json!({"properties": {"region": property("string", "Region")}});
        let answer = json!({
            "jsonrpc": "2.0", "id": 4,
            "result": {
                "tools": [
                    {"name": "first", "inputSchema": bad_schemas()[0].0},
                    {"name": "kept", "inputSchema": good, "description": "ünï \"q\""},
                    {"name": "last", "inputSchema": bad_schemas()[7].0},
                ],
                "nextCursor": "p2",
            },
        });
        let text = answer.to_string();
        let mut headers = ParamHeaders::default();
        // An older client's listing is passed on whole: the marks mean
        // nothing to its version.
        assert_eq!(headers.learn(text.as_bytes(), false), None);
        let kept = headers
            .learn(text.as_bytes(), true)
            .expect("two tools dropped");
        let kept: Value = serde_json::from_slice(&kept).unwrap();
        let mut expected = answer.clone();
        expected["result"]["tools"] = json!([answer["result"]["tools"][1]]);
        assert_eq!(kept, expected);
        let arguments = json!({"region": "eu", "a": "x"});
        assert_eq!(headers.headers("kept", Some(&arguments)).len(), 1);
        assert!(headers.headers("first", Some(&arguments)).is_empty());
        // Nothing to drop: it goes on as it came.
        let fine = json!({"id": 5, "result": {"tools": [{"name": "kept", "inputSchema": good}]}});
        assert_eq!(headers.learn(fine.to_string().as_bytes(), true), None);
    }

    #[test]
    fn a_later_listing_replaces_a_tools_marks_and_odd_answers_change_nothing() {
        let marked =
            json!([{"name": "t", "inputSchema": {"properties": {"a": property("string", "A")}}}]);
        let mut headers = listed(marked);
        let arguments = json!({"a": "x"});
        assert_eq!(headers.headers("t", Some(&arguments)).len(), 1);
        for odd in [
            &b"not json"[..],
            br#"{"result":{"tools":{}}}"#,
            br#"{"error":{}}"#,
        ] {
            assert_eq!(headers.learn(odd, true), None);
        }
        assert_eq!(headers.headers("t", Some(&arguments)).len(), 1);
        let unmarked = json!({"result": {"tools": [{"name": "t", "inputSchema": {}}, {"x": 1}]}});
        headers.learn(unmarked.to_string().as_bytes(), true);
        assert!(headers.headers("t", Some(&arguments)).is_empty());
    }
}
