//! Reading MCP messages (newline-delimited JSON-RPC 2.0) only as far as
//! routing needs, and rewriting one member of a message while every other
//! member keeps its exact text.

use std::fmt;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The members of a message that decide where it goes, borrowed from its line.
#[derive(Deserialize, Default)]
pub struct Peek<'a> {
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
}

/// The members of a request's or notification's `params` the proxy uses.
/// Missing or mistyped members read as absent: a strange message is
/// forwarded, not refused.
#[derive(Deserialize, Default)]
pub struct Params<'a> {
    /// `tools/call`: the tool.
    #[serde(default)]
    pub name: Option<Value>,
    /// `tools/call`: its arguments.
    #[serde(borrow, default)]
    pub arguments: Option<&'a RawValue>,
    /// `tools/list`: the page asked for.
    #[serde(default)]
    pub cursor: Option<Value>,
    /// `notifications/cancelled`: the request cancelled.
    #[serde(rename = "requestId", default)]
    pub request_id: Option<Value>,
    /// `notifications/progress`: the token of the request it is about.
    #[serde(rename = "progressToken", default)]
    pub progress_token: Option<Value>,
    /// A request's `_meta`, which carries its progress token.
    #[serde(rename = "_meta", default)]
    pub meta: Option<Value>,
}

impl<'a> Params<'a> {
    pub fn of(params: Option<&'a RawValue>) -> Self {
        params
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default()
    }

    /// The tool a `tools/call` names.
    pub fn tool_name(&self) -> Option<&str> {
        self.name.as_ref()?.as_str()
    }

    /// The progress token a request asks progress notifications under, as a key.
    pub fn request_progress_token(&self) -> Option<String> {
        let token = self.meta.as_ref()?.get("progressToken")?;
        (!token.is_null()).then(|| token.to_string())
    }
}

/// A JSON-RPC id (or progress token) in one canonical text, so that `1`
/// and ` 1` or `"a"` and `"\u0061"` are the same key.
pub fn key_of(raw: &RawValue) -> String {
    serde_json::from_str::<Value>(raw.get())
        .map(|value| value.to_string())
        .unwrap_or_else(|_| raw.get().to_owned())
}

/// The `id` of a line that is not valid JSON but looks like a message
/// (`{"jsonrpc":"2.0","id":7,"result":{...` cut short), if one can be read.
pub fn salvage_id(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("\"id\"") {
        rest = &rest[at + 4..];
        let Some(value) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let mut values =
            serde_json::Deserializer::from_str(value.trim_start()).into_iter::<Value>();
        if let Some(Ok(id @ (Value::Number(_) | Value::String(_)))) = values.next() {
            return Some(id.to_string());
        }
    }
    None
}

/// An object's members in order, each value as its exact text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for MembersVisitor<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Members<'a>, M::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

/// `object` (the text of a JSON object) with the value of its member `key`
/// replaced by the JSON text `value`. Every other member keeps its text and
/// place; only the whitespace between members goes. `None` if `object` is
/// not an object or has no such member.
pub fn replace_member(object: &str, key: &str, value: &str) -> Option<String> {
    let Members(members) = serde_json::from_str(object).ok()?;
    if !members.iter().any(|(name, _)| name == key) {
        return None;
    }
    let mut out = String::with_capacity(object.len() + value.len());
    out.push('{');
    for (i, (name, raw)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(name).ok()?);
        out.push(':');
        out.push_str(if name == key { value } else { raw.get() });
    }
    out.push('}');
    Some(out)
}

/// A `tools/list` result without a `tools` list.
#[derive(Debug)]
pub struct NoToolList;

/// A `tools/list` result as the proxy changed it.
#[derive(Debug)]
pub struct EditedToolList {
    /// The new result; `None` when nothing changed.
    pub result: Option<String>,
    /// The server already has a tool of the name to add: it was not added.
    pub name_taken: bool,
}

/// A `tools/list` result (`{"tools":[...],...}`) with `outputSchema` removed
/// from every tool for which `strips_schema(name)` holds and, if `add` is
/// `(tool, name)`, the tool `tool` (the JSON of a `Tool`, named `name`) added
/// at the end unless the server has a tool of that name. Every other member
/// and every other tool keeps its exact text.
pub fn edit_tool_list(
    result: &str,
    add: Option<(&str, &str)>,
    strips_schema: &dyn Fn(&str) -> bool,
) -> Result<EditedToolList, NoToolList> {
    let Members(members) = serde_json::from_str(result).map_err(|_| NoToolList)?;
    let (_, tools) = members
        .iter()
        .find(|(member, _)| member == "tools")
        .ok_or(NoToolList)?;
    let tools: Vec<&RawValue> = serde_json::from_str(tools.get()).map_err(|_| NoToolList)?;
    let mut changed = false;
    let mut name_taken = false;
    let mut entries: Vec<String> = Vec::with_capacity(tools.len() + 1);
    for entry in &tools {
        let name = tool_name(entry);
        name_taken |= add.is_some_and(|(_, added)| name.as_deref() == Some(added));
        let stripped = name
            .as_deref()
            .filter(|name| strips_schema(name))
            .and_then(|_| without_member(entry.get(), "outputSchema"));
        changed |= stripped.is_some();
        entries.push(stripped.unwrap_or_else(|| entry.get().to_owned()));
    }
    if let Some((tool, _)) = add.filter(|_| !name_taken) {
        entries.push(tool.to_owned());
        changed = true;
    }
    let result = changed
        .then(|| replace_member(result, "tools", &format!("[{}]", entries.join(","))))
        .flatten();
    Ok(EditedToolList { result, name_taken })
}

/// A tool entry's `name`, if it is a string.
fn tool_name(entry: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct Named {
        name: Option<Value>,
    }
    let named: Named = serde_json::from_str(entry.get()).ok()?;
    named.name?.as_str().map(str::to_owned)
}

/// `object` without its member `key`, every other member verbatim; `None`
/// if it is not an object or has no such member.
fn without_member(object: &str, key: &str) -> Option<String> {
    let Members(members) = serde_json::from_str(object).ok()?;
    if !members.iter().any(|(name, _)| name == key) {
        return None;
    }
    let mut kept = Vec::with_capacity(members.len());
    for (name, raw) in members.iter().filter(|(name, _)| name != key) {
        kept.push(format!(
            "{}:{}",
            serde_json::to_string(name).ok()?,
            raw.get()
        ));
    }
    Some(format!("{{{}}}", kept.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_member_keeps_every_other_member_verbatim() {
        let line =
            r#"{"id": 7 ,"result":{"b":1,"a":[1.50, "\u0041"]},"jsonrpc":"2.0","x":{"z":1,"y":2}}"#;
        let out = replace_member(line, "result", r#"{"new":true}"#).unwrap();
        assert_eq!(
            out,
            r#"{"id":7,"result":{"new":true},"jsonrpc":"2.0","x":{"z":1,"y":2}}"#
        );
        assert!(replace_member(line, "error", "1").is_none());
        assert!(replace_member("[1]", "result", "1").is_none());
    }

    #[test]
    fn edit_tool_list_adds_at_the_end_and_refuses_a_taken_name() {
        let none = |_: &str| false;
        let result =
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c2"}"#;
        let out = edit_tool_list(result, Some((r#"{"name":"read"}"#, "read")), &none).unwrap();
        assert_eq!(
            out.result.unwrap(),
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"read"}],"nextCursor":"c2"}"#
        );
        let empty = edit_tool_list(
            r#"{"tools":[]}"#,
            Some((r#"{"name":"read"}"#, "read")),
            &none,
        );
        assert_eq!(
            empty.unwrap().result.unwrap(),
            r#"{"tools":[{"name":"read"}]}"#
        );
        let taken = edit_tool_list(result, Some(("{}", "a")), &none).unwrap();
        assert!(taken.name_taken && taken.result.is_none());
        assert!(edit_tool_list(r#"{"tools":3}"#, Some(("{}", "x")), &none).is_err());
    }

    #[test]
    fn edit_tool_list_strips_output_schemas_of_capped_tools_only() {
        let result = r#"{"tools":[{"name":"big","outputSchema":{"type":"object"},"x" : 1},{"name":"raw","outputSchema":{}}]}"#;
        let capped = |name: &str| name == "big";
        let out = edit_tool_list(result, None, &capped).unwrap();
        assert_eq!(
            out.result.unwrap(),
            r#"{"tools":[{"name":"big","x":1},{"name":"raw","outputSchema":{}}]}"#
        );
        let untouched = edit_tool_list(result, None, &|_: &str| false).unwrap();
        assert!(untouched.result.is_none() && !untouched.name_taken);
    }

    #[test]
    fn keys_are_canonical_and_ids_are_salvaged() {
        let raw: Box<RawValue> = serde_json::from_str(r#""\u0061""#).unwrap();
        assert_eq!(key_of(&raw), r#""a""#);
        assert_eq!(
            salvage_id(r#"{"jsonrpc":"2.0","id":12,"result":{"content":[{"te"#),
            Some("12".into())
        );
        assert_eq!(
            salvage_id(r#"{"x":"\"id\"","id" : "q-1","#),
            Some(r#""q-1""#.into())
        );
        assert_eq!(salvage_id(r#"{"result":{"#), None);
    }
}
