//! `Mcp-Param-*` headers of MCP 2026-07-28: a tool's `inputSchema` may mark
//! an argument with `"x-mcp-header": "Name"`, and a client's `tools/call`
//! must then repeat that argument's value in the header `Mcp-Param-Name`,
//! which the server checks against the body (a call without it is refused
//! with HTTP 400). The marks are learned from the server's `tools/list`
//! answers, as the proxy passes them on.

use std::collections::HashMap;

use serde_json::Value;

/// The mark's key in a property's schema.
const MARK: &str = "x-mcp-header";
/// What goes before the mark's name in the header's name.
const PREFIX: &str = "Mcp-Param-";
/// Nesting of `properties` followed; deeper marks are not mirrored.
const MAX_DEPTH: usize = 16;

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
    /// (a later page or listing replaces what an earlier one said of a tool).
    pub fn learn(&mut self, answer: &[u8]) {
        let Ok(answer) = serde_json::from_slice::<Value>(answer) else {
            return;
        };
        let Some(tools) = answer.pointer("/result/tools").and_then(Value::as_array) else {
            return;
        };
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let marks = tool.get("inputSchema").map(marks_of).unwrap_or_default();
            if marks.is_empty() {
                self.tools.remove(name);
            } else {
                self.tools.insert(name.to_owned(), marks);
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

/// The marks of a tool's input schema: on properties reached from the root
/// through `properties` alone, of type string, integer or boolean, each
/// name an HTTP token. A schema whose marks break these rules or repeat a
/// name (in any case) is one no server accepts: nothing is mirrored for it.
fn marks_of(schema: &Value) -> Vec<Mark> {
    let mut marks = Vec::new();
    if !collect(schema, &mut Vec::new(), &mut marks) {
        return Vec::new();
    }
    let mut names: Vec<String> = marks.iter().map(|m| m.name.to_ascii_lowercase()).collect();
    names.sort_unstable();
    names.dedup();
    if names.len() < marks.len() {
        return Vec::new();
    }
    marks
}

/// Adds the marks under `schema` (at `path`) to `marks`; `false` for a bad one.
fn collect(schema: &Value, path: &mut Vec<String>, marks: &mut Vec<Mark>) -> bool {
    if let Some(mark) = schema.get(MARK) {
        let allowed = matches!(
            schema.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        );
        match mark.as_str() {
            Some(name) if !path.is_empty() && allowed && is_token(name) => marks.push(Mark {
                path: path.clone(),
                name: name.to_owned(),
            }),
            _ => return false,
        }
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return true;
    };
    if path.len() >= MAX_DEPTH {
        return true;
    }
    properties.iter().all(|(key, property)| {
        path.push(key.clone());
        let fine = collect(property, path, marks);
        path.pop();
        fine
    })
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
        headers.learn(answer.to_string().as_bytes());
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

    #[test]
    fn a_schema_with_a_bad_mark_mirrors_nothing() {
        let with = |properties: Value| json!({"type": "object", "properties": properties});
        for schema in [
            with(json!({"a": property("number", "A")})),
            with(json!({"a": property("string", "A B")})),
            with(json!({"a": property("string", "")})),
            with(json!({"a": {"type": "string", "x-mcp-header": 7}})),
            with(json!({"a": property("string", "Same"), "b": property("string", "same")})),
            json!({"type": "string", "x-mcp-header": "Root"}),
        ] {
            let headers = listed(json!([{"name": "t", "inputSchema": schema}]));
            let arguments = json!({"a": "x", "b": "y"});
            assert!(
                headers.headers("t", Some(&arguments)).is_empty(),
                "{schema}"
            );
        }
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
            headers.learn(odd);
        }
        assert_eq!(headers.headers("t", Some(&arguments)).len(), 1);
        let unmarked = json!({"result": {"tools": [{"name": "t", "inputSchema": {}}, {"x": 1}]}});
        headers.learn(unmarked.to_string().as_bytes());
        assert!(headers.headers("t", Some(&arguments)).is_empty());
    }
}
