//! Reading MCP messages (newline-delimited JSON-RPC 2.0) only as far as
//! routing needs, and rewriting one member of a message while every other
//! member keeps its exact text.

use std::fmt;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The members of a message that decide where it goes, borrowed from its
/// line. Read strictly: a member written twice makes the message malformed,
/// since clients disagree on which of the two they read.
#[derive(Default, Debug)]
pub struct Envelope<'a> {
    pub id: Option<&'a RawValue>,
    /// The method, if it is a string.
    pub method: Option<String>,
    /// A `method` member that is not a string.
    pub odd_method: bool,
    pub params: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    pub error: Option<&'a RawValue>,
}

/// A line as the proxy reads it.
#[derive(Debug)]
pub enum Message<'a> {
    Object(Envelope<'a>),
    /// A JSON array (a JSON-RPC batch): its elements, each a message.
    Batch(Vec<&'a RawValue>),
    /// Valid JSON that is neither an object nor an array.
    Other,
}

/// Why a line is not a message the proxy can route.
#[derive(Debug)]
pub enum Malformed {
    /// Not JSON at all.
    NotJson(String),
    /// A member written twice (its name).
    Duplicate(String),
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Malformed::NotJson(why) => write!(f, "not valid JSON ({why})"),
            Malformed::Duplicate(name) => write!(f, "the member `{name}` is written twice"),
        }
    }
}

/// Reads `text` as a message.
pub fn parse(text: &str) -> Result<Message<'_>, Malformed> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let items: Vec<&RawValue> =
            serde_json::from_str(text).map_err(|e| Malformed::NotJson(e.to_string()))?;
        return Ok(Message::Batch(items));
    }
    if !trimmed.starts_with('{') {
        serde_json::from_str::<serde::de::IgnoredAny>(text)
            .map_err(|e| Malformed::NotJson(e.to_string()))?;
        return Ok(Message::Other);
    }
    let Members(members) =
        serde_json::from_str(text).map_err(|e| Malformed::NotJson(e.to_string()))?;
    if let Some(name) = first_duplicate(&members) {
        return Err(Malformed::Duplicate(name));
    }
    let mut envelope = Envelope::default();
    for (name, value) in members {
        match name.as_str() {
            "id" => envelope.id = Some(value),
            "method" => match serde_json::from_str::<String>(value.get()) {
                Ok(method) => envelope.method = Some(method),
                Err(_) => envelope.odd_method = true,
            },
            "params" => envelope.params = Some(value),
            "result" => envelope.result = Some(value),
            "error" => envelope.error = Some(value),
            _ => {}
        }
    }
    Ok(Message::Object(envelope))
}

fn first_duplicate(members: &[(String, &RawValue)]) -> Option<String> {
    let mut seen = std::collections::HashSet::with_capacity(members.len());
    members
        .iter()
        .find(|(name, _)| !seen.insert(name.as_str()))
        .map(|(name, _)| name.clone())
}

pub use super::duplicates::duplicate_anywhere;

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
    /// `tools/list`, `resources/list`: the page asked for.
    #[serde(default)]
    pub cursor: Option<Value>,
    /// `resources/read`: the resource.
    #[serde(default)]
    pub uri: Option<Value>,
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

    /// The protocol version a request states in its `_meta` (2026-07-28
    /// and later: every request, with no `initialize` before it).
    pub fn protocol_version(&self) -> Option<&str> {
        self.meta.as_ref()?.get(PROTOCOL_VERSION_META_KEY)?.as_str()
    }

    /// The progress token a request asks progress notifications under, as a key.
    pub fn request_progress_token(&self) -> Option<String> {
        let token = self.meta.as_ref()?.get("progressToken")?;
        (!token.is_null()).then(|| token.to_string())
    }
}

/// A JSON-RPC id (or progress token) in one canonical text, so that `1`
/// and ` 1`, `5` and `5.0` or `-0` and `0`, or `"a"` and `"\u0061"` are
/// the same key: a string stays a JSON string, a number with an integral
/// value is that integer.
pub fn key_of(raw: &RawValue) -> String {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::Number(number)) => number_key(&number),
        Ok(value) => value.to_string(),
        Err(_) => raw.get().to_owned(),
    }
}

fn number_key(number: &serde_json::Number) -> String {
    if number.is_i64() || number.is_u64() {
        return number.to_string();
    }
    match number.as_f64() {
        Some(f) => float_key(f),
        None => number.to_string(),
    }
}

fn float_key(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30 {
        // `-0` is 0; 5.0 and 5e0 are 5.
        format!("{}", f.abs() as i128 * if f < 0.0 { -1 } else { 1 })
    } else {
        format!("{f:?}")
    }
}

/// Every key a client could read the id `raw` as: its own, and for a
/// string, the number it spells (clients match answers by number: the
/// TypeScript SDK with `Number(id)`, the Python SDK with `int(id)`), with
/// `0x`, `0o`, `0b` prefixes, `_` between digits, and the empty string as 0.
pub fn aliases_of(raw: &RawValue) -> Vec<String> {
    let mut keys = vec![key_of(raw)];
    if let Ok(Value::String(text)) = serde_json::from_str::<Value>(raw.get())
        && let Some(number) = number_in(&text)
        && !keys.contains(&number)
    {
        keys.push(number);
    }
    keys
}

/// The integer key of the number a string spells, as JavaScript's
/// `Number` or Python's `int` would read it.
fn number_in(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return Some("0".to_owned());
    }
    let (sign, digits) = match t.as_bytes()[0] {
        b'-' => (-1i128, &t[1..]),
        b'+' => (1, &t[1..]),
        _ => (1, t),
    };
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(rest) = digits.strip_prefix(prefix) {
            let rest = rest.replace('_', "");
            return i128::from_str_radix(&rest, radix)
                .ok()
                .map(|n| (sign * n).to_string());
        }
    }
    let plain = digits.replace('_', "");
    if let Ok(n) = plain.parse::<i128>() {
        return Some((sign * n).to_string());
    }
    let f: f64 = t.parse().ok()?;
    (f.is_finite() && f.fract() == 0.0).then(|| float_key(f))
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

/// `text` with `value`, a JSON value [`parse`] borrowed from it (a
/// member's value), written `replacement` instead: every other byte stays
/// as it came, so `text` is the message without its line break. One copy
/// and no second parse: a huge result is read once. `None` if `value` is
/// not a part of `text`.
pub fn splice_value(text: &str, value: &RawValue, replacement: &str) -> Option<String> {
    let start = (value.get().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(value.get().len())?;
    let (before, after) = (text.get(..start)?, text.get(end..)?);
    let mut out = String::with_capacity(before.len() + replacement.len() + after.len());
    out.push_str(before);
    out.push_str(replacement);
    out.push_str(after);
    Some(out)
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

/// The `_meta` key of a tool by which Claude Code lets a server raise the
/// size (in characters) above which it saves a result to a file instead of
/// showing it (50,000 by default).
pub const MAX_RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";

/// A `tools/list` result (`{"tools":[...],...}`) in which every tool whose
/// results are capped (`cap_bytes(name)` is its byte budget) loses its
/// `outputSchema` and gets `_meta[MAX_RESULT_SIZE_KEY]` (see
/// [`max_result_chars`]), and, if `add` is `(tool, name)`, the tool `tool`
/// (the JSON of a `Tool`, named `name`) added at the end unless the server
/// has a tool of that name. Every other member and every other tool keeps
/// its exact text.
pub fn edit_tool_list(
    result: &str,
    add: Option<(&str, &str)>,
    cap_bytes: &dyn Fn(&str) -> Option<u32>,
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
            .and_then(cap_bytes)
            .and_then(|bytes| capped_tool(entry.get(), max_result_chars(bytes)));
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

/// Where a request of 2026-07-28 and later states its protocol version.
const PROTOCOL_VERSION_META_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Whether results of protocol `version` carry `resultType`: it came with
/// 2026-07-28 (dated versions compare as text).
pub fn has_result_type(version: &str) -> bool {
    version >= "2026-07-28"
}

/// The protocol version an `initialize` result agreed on.
pub fn protocol_version(message: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Answer {
        result: Initialized,
    }
    #[derive(Deserialize)]
    struct Initialized {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    serde_json::from_slice::<Answer>(message)
        .ok()
        .map(|a| a.result.protocol_version)
}

/// The result size a host may show whole for a tool capped to `bytes`: the
/// budget (characters never outnumber bytes) plus a quarter, and at least
/// 4 KiB, for what a capped result carries beside its texts (a kept
/// `structuredContent`, block wrappers); so a capped result is never saved
/// to a file a second time by the host.
pub fn max_result_chars(bytes: u32) -> u64 {
    u64::from(bytes) + (u64::from(bytes) / 4).max(4096)
}

/// A tool entry without `outputSchema` and with `_meta[MAX_RESULT_SIZE_KEY]`
/// set to `chars` (its other `_meta` members kept), every other member
/// verbatim; `None` if it is not an object.
fn capped_tool(object: &str, chars: u64) -> Option<String> {
    let Members(members) = serde_json::from_str(object).ok()?;
    let meta = members
        .iter()
        .rev()
        .find(|(name, _)| name == "_meta")
        .and_then(|(_, raw)| serde_json::from_str::<Members<'_>>(raw.get()).ok());
    let mut meta_members: Vec<String> = Vec::new();
    for (name, raw) in meta.iter().flat_map(|m| &m.0) {
        if name != MAX_RESULT_SIZE_KEY {
            meta_members.push(format!(
                "{}:{}",
                serde_json::to_string(name).ok()?,
                raw.get()
            ));
        }
    }
    meta_members.push(format!(
        "{}:{chars}",
        serde_json::to_string(MAX_RESULT_SIZE_KEY).ok()?
    ));
    let meta = format!("{{{}}}", meta_members.join(","));
    let mut kept = Vec::with_capacity(members.len() + 1);
    for (name, raw) in members
        .iter()
        .filter(|(name, _)| name != "outputSchema" && name != "_meta")
    {
        kept.push(format!(
            "{}:{}",
            serde_json::to_string(name).ok()?,
            raw.get()
        ));
    }
    kept.push(format!("\"_meta\":{meta}"));
    Some(format!("{{{}}}", kept.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_of_2026_07_28_states_its_version_in_meta() {
        let raw = |text: &str| RawValue::from_string(text.to_owned()).unwrap();
        let modern =
            raw(r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#);
        let params = Params::of(Some(&modern));
        assert_eq!(params.protocol_version(), Some("2026-07-28"));
        assert!(params.protocol_version().is_some_and(has_result_type));
        for older in [r#"{"name":"t"}"#, r#"{"_meta":{"progressToken":1}}"#] {
            assert_eq!(Params::of(Some(&raw(older))).protocol_version(), None);
        }
        assert!(!has_result_type("2025-11-25") && has_result_type("2027-01-01"));
    }

    #[test]
    fn the_protocol_version_of_an_initialize_answer_is_read() {
        let answer = br#"{"id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
        assert_eq!(protocol_version(answer).as_deref(), Some("2025-06-18"));
        for other in [
            &br#"{"id":0,"error":{"code":-32602,"message":"no"}}"#[..],
            br#"{"id":0,"result":{}}"#,
            b"not json",
        ] {
            assert_eq!(protocol_version(other), None);
        }
    }

    #[test]
    fn messages_with_a_member_written_twice_are_malformed() {
        let twice = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]},"result":{}}"#;
        assert!(matches!(parse(twice), Err(Malformed::Duplicate(name)) if name == "result"));
        let escaped = r#"{"id":1,"id":2}"#;
        assert!(matches!(parse(escaped), Err(Malformed::Duplicate(_))));
        let Ok(Message::Object(envelope)) = parse(r#"{"id":null,"method":"m","error":{}}"#) else {
            panic!()
        };
        assert_eq!(envelope.id.map(RawValue::get), Some("null"));
        assert!(envelope.error.is_some() && envelope.method.as_deref() == Some("m"));
        assert!(matches!(parse("[1, {}]"), Ok(Message::Batch(items)) if items.len() == 2));
        assert!(matches!(parse("7"), Ok(Message::Other)));
        assert!(matches!(parse("{"), Err(Malformed::NotJson(_))));
        assert_eq!(
            duplicate_anywhere(r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#),
            Some("content[0].text".to_owned())
        );
        assert_eq!(duplicate_anywhere(r#"{"a":{"b":1},"c":[{"b":2}]}"#), None);
    }

    #[test]
    fn splice_value_replaces_only_the_value_it_was_given() {
        let line = r#"{"id": 7 ,"result" : {"b":1,"a":[1.50, "\u0041"]},"jsonrpc":"2.0"}"#;
        let Ok(Message::Object(envelope)) = parse(line) else {
            panic!("an object")
        };
        let out = splice_value(line, envelope.result.unwrap(), r#"{"new":true}"#).unwrap();
        assert_eq!(out, r#"{"id": 7 ,"result" : {"new":true},"jsonrpc":"2.0"}"#);
        let out = splice_value(line, envelope.id.unwrap(), r#""a""#).unwrap();
        assert!(out.starts_with(r#"{"id": "a" ,"result""#), "{out}");
        // A value of another text is no part of this one.
        let other = line.to_owned();
        assert_eq!(splice_value(&other, envelope.result.unwrap(), "1"), None);
        let far = RawValue::from_string("1".to_owned()).unwrap();
        assert_eq!(splice_value(line, &far, "2"), None);
    }

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
        let none = |_: &str| None;
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
    fn capped_tools_lose_their_output_schema_and_state_a_result_size() {
        let result = r#"{"tools":[{"name":"big","outputSchema":{"type":"object"},"x" : 1,"_meta":{"own":true,"anthropic/maxResultSizeChars":9}},{"name":"raw","outputSchema":{}}]}"#;
        let capped = |name: &str| (name == "big").then_some(24_576);
        let out = edit_tool_list(result, None, &capped).unwrap();
        assert_eq!(
            out.result.unwrap(),
            r#"{"tools":[{"name":"big","x":1,"_meta":{"own":true,"anthropic/maxResultSizeChars":30720}},{"name":"raw","outputSchema":{}}]}"#
        );
        let untouched = edit_tool_list(result, None, &|_: &str| None).unwrap();
        assert!(untouched.result.is_none() && !untouched.name_taken);
        // A small budget still leaves room for what is beside the texts.
        assert_eq!(max_result_chars(1000), 5096);
    }

    #[test]
    fn keys_are_canonical_and_ids_are_salvaged() {
        let raw: Box<RawValue> = serde_json::from_str(r#""\u0061""#).unwrap();
        assert_eq!(key_of(&raw), r#""a""#);
        let key = |text: &str| key_of(&serde_json::from_str::<Box<RawValue>>(text).unwrap());
        for five in ["5", "5.0", "5e0", "0.5e1", "5.000"] {
            assert_eq!(key(five), "5", "{five}");
        }
        assert_eq!(key("-0"), "0");
        assert_eq!(key("-0.0"), "0");
        assert_eq!(key("5.5"), "5.5");
        assert_eq!(key(r#""5""#), r#""5""#);
        let aliases =
            |text: &str| aliases_of(&serde_json::from_str::<Box<RawValue>>(text).unwrap());
        for five in [
            r#""5""#,
            r#"" 5 ""#,
            r#""0x5""#,
            r#""5.0""#,
            r#""+5""#,
            r#""0b101""#,
        ] {
            assert!(aliases(five).contains(&"5".to_owned()), "{five}");
        }
        assert_eq!(aliases(r#""""#)[1], "0");
        assert_eq!(aliases(r#""abc""#).len(), 1);
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
