//! What the remote client needs to know of a message: its id and method,
//! to answer a request itself when the server cannot, and whether a
//! message from the server is the answer it waits for.

use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize, Default)]
pub struct Peek {
    pub id: Option<Box<RawValue>>,
    pub method: Option<String>,
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
