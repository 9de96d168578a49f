//! A simulated provider behind a proxy: it answers over "HTTP" with the same
//! rejections real ones send, so the host meets them as bytes, not as enums.

use serde_json::json;

use super::conversation::{Completion, Message, Request};
use super::model::ScriptedModel;
use tool_output_cap::Session;

/// nginx's default `client_max_body_size`.
pub const MAX_BODY_BYTES: usize = 1 << 20;
/// The model's context window, in tokens.
pub const CONTEXT_TOKENS: usize = 128_000;

/// An HTTP response: status and body.
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// Estimated tokens of a request body: about 4 bytes a token.
pub fn estimated_tokens(body_bytes: usize) -> usize {
    body_bytes.div_ceil(4)
}

/// Sends `body` through the proxy to the model: 413 from the proxy when the
/// body is too large, 400 from the API when the prompt exceeds the window,
/// otherwise 200 with the model's next message.
pub fn send(body: &str, model: &ScriptedModel, session: Option<&mut Session>) -> Response {
    if body.len() > MAX_BODY_BYTES {
        return Response {
            status: 413,
            body: NGINX_413.to_owned(),
        };
    }
    let tokens = estimated_tokens(body.len());
    if tokens > CONTEXT_TOKENS {
        let error = json!({ "error": {
            "message": format!(
                "This model's maximum context length is {CONTEXT_TOKENS} tokens. However, \
                 your messages resulted in {tokens} tokens. Please reduce the length of the \
                 messages."
            ),
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }});
        return Response {
            status: 400,
            body: error.to_string(),
        };
    }
    let request: Request = match serde_json::from_str(body) {
        Ok(request) => request,
        Err(err) => {
            return Response {
                status: 400,
                body: format!("bad request: {err}"),
            };
        }
    };
    let message: Message = model.respond(&request.messages, &request.tools, session);
    let completion = serde_json::to_string(&Completion { message }).expect("plain JSON");
    Response {
        status: 200,
        body: completion,
    }
}

const NGINX_413: &str = "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n\
<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n\
<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n";
