//! What the remote client needs to know of a message: its id and method,
//! to answer a request itself when the server cannot, and whether a
//! message from the server is the answer it waits for; and, for a client
//! of MCP 2026-07-28, what its request's headers must repeat.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::mcp::message;

#[derive(Deserialize, Default)]
pub struct Peek {
    pub id: Option<Box<RawValue>>,
    pub method: Option<String>,
    #[serde(default)]
    params: Option<Box<RawValue>>,
}

/// A message of a client of MCP 2026-07-28 and later, which names its
/// protocol version in its own `_meta`: it goes to the server as one
/// exchange, without a session.
#[derive(Debug, PartialEq, Eq)]
pub struct Modern {
    pub version: String,
    /// The `name` (or `uri`) the `Mcp-Name` header repeats, for the
    /// methods whose body carries one.
    pub name: Option<String>,
}

impl Peek {
    /// The id and method of `message`; empty when it is no JSON object.
    pub fn of(message: &[u8]) -> Self {
        serde_json::from_slice(message).unwrap_or_default()
    }

    /// A request: it has a method and an id, and waits for an answer.
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    pub fn method_is(&self, method: &str) -> bool {
        self.method.as_deref() == Some(method)
    }

    /// The message's protocol version and name when its client speaks 2026-07-28 or later.
    pub fn modern(&self) -> Option<Modern> {
        let params = message::Params::of(self.params.as_deref());
        let version = params
            .protocol_version()
            .filter(|v| message::has_result_type(v))?;
        let named = match self.method.as_deref() {
            Some("tools/call" | "prompts/get") => params.name.as_ref(),
            Some("resources/read") => params.uri.as_ref(),
            _ => None,
        };
        Some(Modern {
            version: version.to_owned(),
            name: named.and_then(|n| n.as_str().map(str::to_owned)),
        })
    }

    /// Whether `message` is the answer to this request: its id, no method.
    pub fn answered_by(&self, message: &Peek) -> bool {
        match (&self.id, &message.id) {
            (Some(asked), Some(answered)) => {
                message.method.is_none() && asked.get() == answered.get()
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_of_2026_07_28_is_told_by_its_meta() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let call = format!(r#"{{"id":1,"method":"tools/call","params":{{"name":"grep",{meta}}}}}"#);
        let modern = Peek::of(call.as_bytes()).modern().unwrap();
        assert_eq!(modern.version, "2026-07-28");
        assert_eq!(modern.name.as_deref(), Some("grep"));
        let read = format!(
            r#"{{"id":2,"method":"resources/read","params":{{"uri":"file:///a",{meta}}}}}"#
        );
        assert_eq!(
            Peek::of(read.as_bytes()).modern().unwrap().name.as_deref(),
            Some("file:///a")
        );
        let discover = format!(r#"{{"id":0,"method":"server/discover","params":{{{meta}}}}}"#);
        assert_eq!(Peek::of(discover.as_bytes()).modern().unwrap().name, None);
        for older in [
            r#"{"id":1,"method":"tools/call","params":{"name":"grep"}}"#,
            r#"{"id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28"}}"#,
            r#"{"id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#,
            r#"{"id":1,"method":"ping","params":[1]}"#,
            r#"{"id":1,"result":{}}"#,
        ] {
            assert_eq!(Peek::of(older.as_bytes()).modern(), None, "{older}");
        }
        // Positional params keep the id and method readable.
        assert!(Peek::of(br#"{"id":1,"method":"ping","params":[1]}"#).is_request());
    }

    #[test]
    fn requests_and_their_answers_are_told_apart() {
        let request = Peek::of(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#);
        assert!(request.is_request() && request.method_is("tools/call"));
        assert!(request.answered_by(&Peek::of(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#)));
        assert!(!request.answered_by(&Peek::of(br#"{"id":8,"result":{}}"#)));
        assert!(!request.answered_by(&Peek::of(br#"{"id":7,"method":"ping"}"#)));
        assert!(!Peek::of(br#"{"method":"notifications/initialized"}"#).is_request());
        assert!(!Peek::of(b"not json").is_request());
    }
}
