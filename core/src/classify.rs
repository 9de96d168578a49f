//! Error classification: did a provider (or a proxy in front of it) reject a request because
//! of its size?
//!
//! A host that gets `Some(..)` back can prune old tool outputs and retry; any other failure
//! (bad key, rate limit, outage, malformed request) is not ours to fix by shrinking, so it
//! yields `None`.
//!
//! Matching is ASCII case-insensitive substring search against a fixed table of messages that
//! providers really send. Each entry names its source. Phrases are chosen to be specific: a lone
//! word such as "large", "context" or "tokens" never decides anything.

use std::borrow::Cow;

/// Why a provider rejected a request, when the cause was its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverflowKind {
    /// The request body was too large in bytes (HTTP 413 and the like).
    RequestTooLarge,
    /// The prompt exceeded the model's context window in tokens.
    ContextLengthExceeded,
}

/// One known size-rejection message: every part must occur in the body, in this order.
///
/// Parts are lowercase ASCII because the body is ASCII-lowercased before the search.
struct Pattern {
    parts: &'static [&'static str],
    kind: OverflowKind,
}

const fn ctx(parts: &'static [&'static str]) -> Pattern {
    Pattern {
        parts,
        kind: OverflowKind::ContextLengthExceeded,
    }
}

const fn bytes(parts: &'static [&'static str]) -> Pattern {
    Pattern {
        parts,
        kind: OverflowKind::RequestTooLarge,
    }
}

/// Known messages, token patterns first: when a body carries both kinds of wording, the explicit
/// token count is the more precise diagnosis.
const PATTERNS: &[Pattern] = &[
    // --- Tokens: the prompt does not fit the model's context window. ---
    // OpenAI, Azure OpenAI, Groq, OpenRouter, LiteLLM: the error `code` of a context overflow.
    ctx(&["context_length_exceeded"]),
    // OpenAI / Azure / DeepSeek / vLLM: "This model's maximum context length is N tokens";
    // OpenRouter: "This endpoint's maximum context length ..."; Mistral: "too large for model
    // with N maximum context length"; Fireworks: "model maximum context length: N".
    ctx(&["maximum context length"]),
    // OpenAI / Azure / Groq closing sentence, sometimes sent without the numbers.
    ctx(&["reduce the length of the messages"]),
    // OpenAI legacy completions: "Please reduce your prompt; or completion length."
    ctx(&["reduce your prompt"]),
    // OpenAI Responses API: "Your input exceeds the context window of this model."
    ctx(&["exceeds the context window"]),
    // OpenAI: one message string over the per-string limit ("string too long. Expected a string
    // with maximum length ..."). Counted in characters, but the cure is the same as for a full
    // context: shrink the tool outputs.
    ctx(&["string_above_max_length"]),
    // Anthropic (direct, Bedrock, Vertex): "prompt is too long: 210000 tokens > 200000 maximum";
    // Fireworks: "The prompt is too long: N, model maximum context length: M".
    ctx(&["prompt is too long"]),
    // Anthropic: "input length and `max_tokens` exceed context limit: 187254 + 20000 > 200000".
    ctx(&["exceed context limit"]),
    // Gemini / Vertex AI: "The input token count (N) exceeds the maximum number of tokens
    // allowed (M)."
    ctx(&["exceeds the maximum number of tokens"]),
    // Vertex AI: "Unable to submit request because the input token count is N but model only
    // supports up to M."
    ctx(&["input token count", "only supports up to"]),
    // AWS Bedrock: "Input is too long for requested model."
    ctx(&["input is too long"]),
    // AWS Bedrock (Titan, Converse): "Too many input tokens. Max input tokens: N ..."
    ctx(&["too many input tokens"]),
    // AWS Bedrock: a ValidationException about the input length (wording varies by model).
    ctx(&["validationexception", "input length"]),
    // Mistral: "Prompt contains N tokens and 0 draft tokens, too large for model with M
    // maximum context length".
    ctx(&["too large for model with"]),
    // Ollama: "the input length exceeds the context length".
    ctx(&["exceeds the context length"]),
    // llama.cpp server: "the request exceeds the available context size, try increasing it",
    // type "exceed_context_size_error".
    ctx(&["exceeds the available context size"]),
    ctx(&["exceed_context_size_error"]),
    // Cohere: "too many tokens: total number of tokens in the prompt cannot exceed N" and
    // "too many tokens: size limit exceeded by N tokens". The colon matters: Bedrock throttling
    // says "Too many tokens, please wait before trying again", which is a rate limit.
    ctx(&["too many tokens:"]),
    // xAI: "This model's maximum prompt length is 131072 but the request contains N tokens."
    ctx(&["maximum prompt length"]),
    // Moonshot (Kimi): "Your request exceeded model token limit: 8192".
    ctx(&["exceeded model token limit"]),
    // Alibaba DashScope (Qwen): "Range of input length should be [1, 30720]".
    ctx(&["range of input length should be"]),
    // Hugging Face TGI, Together: "`inputs` tokens + `max_new_tokens` must be <= N" and
    // "`inputs` must have less than N tokens".
    ctx(&["`inputs` tokens + `max_new_tokens` must be"]),
    ctx(&["`inputs` must have less than"]),
    // LiteLLM proxy: the exception name survives even when the provider message is rewritten.
    ctx(&["contextwindowexceedederror"]),
    // --- Bytes: the HTTP request itself is over a size limit. ---
    // nginx, openresty, Cloudflare, Express body-parser: "413 Request Entity Too Large".
    bytes(&["entity too large"]),
    // AWS: "RequestEntityTooLargeException".
    bytes(&["entitytoolarge"]),
    // HTTP 413 reason phrase: "Payload Too Large" (RFC 7231), "Content Too Large" (RFC 9110).
    bytes(&["payload too large"]),
    bytes(&["content too large"]),
    // Vercel: "FUNCTION_PAYLOAD_TOO_LARGE".
    bytes(&["payload_too_large"]),
    // Anthropic error type "request_too_large"; OpenAI / Groq "Request too large for gpt-4o in
    // organization ... on tokens per min (TPM)": a single request bigger than the whole
    // per-minute budget can never pass, so it is a size problem, not a wait-and-retry one.
    bytes(&["request_too_large"]),
    bytes(&["request too large"]),
    // Generic gateways: "The request is too large".
    bytes(&["request is too large"]),
    // Go net/http "http: request body too large"; ASP.NET Kestrel "Request body too large.";
    // Fastify "Request body is too large" / "FST_ERR_CTP_BODY_TOO_LARGE".
    bytes(&["body too large"]),
    bytes(&["body is too large"]),
    bytes(&["body_too_large"]),
    // Gemini: "Request payload size exceeds the limit: 20971520 bytes."
    bytes(&["payload size exceeds"]),
    // "Maximum request body size 1048576 exceeded".
    bytes(&["maximum request body size"]),
    // Next.js server actions: "Body exceeded 1 MB limit."
    bytes(&["body exceeded"]),
    // AWS API Gateway: "HTTP content length exceeded 10485760 bytes."
    bytes(&["content length exceeded"]),
    // Anthropic 413 message: "Request exceeds the maximum allowed number of bytes."
    bytes(&["exceeds the maximum allowed number of bytes"]),
    // AWS Lambda: "Request must be smaller than 6291456 bytes for the InvokeFunction operation".
    bytes(&["request must be smaller than"]),
];

/// Classify an HTTP error response: `Some` when a provider or proxy rejected the request for its
/// size.
///
/// - `status < 400` is never an error, whatever the body says: `None`.
/// - `413` is always [`OverflowKind::RequestTooLarge`], whatever the body (JSON, HTML page of
///   a proxy, empty).
/// - Any other status is decided by the body alone, matched ASCII case-insensitively against
///   known provider messages: token overflows give [`OverflowKind::ContextLengthExceeded`],
///   byte-size rejections [`OverflowKind::RequestTooLarge`], anything else `None`.
///
/// Parameter errors about the output budget alone (OpenAI "max_tokens is too large: N. This model
/// supports at most M completion tokens", Anthropic "max_tokens: N > M, which is the maximum
/// allowed number of output tokens") are `None`: shrinking the prompt cannot fix them.
///
/// Runs in time linear in `body.len()`, allocates at most one lowercase copy of the body, and
/// never panics.
pub fn classify(status: u16, body: &str) -> Option<OverflowKind> {
    match status {
        0..400 => None,
        413 => Some(OverflowKind::RequestTooLarge),
        _ => matching_pattern(body).map(|p| p.kind),
    }
}

/// The first pattern of [`PATTERNS`] found in `body`, if any.
fn matching_pattern(body: &str) -> Option<&'static Pattern> {
    // One lowercase copy for all patterns; none at all when the body has no ASCII uppercase.
    // ASCII lowercasing keeps UTF-8 valid and never changes the length.
    let lower: Cow<'_, str> = if body.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(body.to_ascii_lowercase())
    } else {
        Cow::Borrowed(body)
    };
    PATTERNS.iter().find(|p| contains_in_order(&lower, p.parts))
}

/// Whether every part occurs in `hay`, each one after the end of the previous.
///
/// `str::find` is a Two-Way search (linear), and each part only scans what is left after the
/// previous one, so a pattern costs O(len) and the whole table O(PATTERNS.len() * len).
fn contains_in_order(hay: &str, parts: &[&str]) -> bool {
    let mut rest = hay;
    for part in parts {
        match rest.find(part) {
            // `find` returns a char boundary and `part` is valid UTF-8, so the end of the
            // match is a char boundary too: `get` cannot fail, but stays panic-free anyway.
            Some(at) => match rest.get(at + part.len()..) {
                Some(after) => rest = after,
                None => return false,
            },
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use OverflowKind::{ContextLengthExceeded as Ctx, RequestTooLarge as Big};

    /// (name, status, body, expected)
    type Case = (&'static str, u16, &'static str, Option<OverflowKind>);

    /// The error page nginx-family proxies send, with their `server` line.
    macro_rules! proxy_page {
        ($code:literal, $reason:literal, $server:literal) => {
            concat!(
                "<html>\r\n<head><title>",
                $code,
                " ",
                $reason,
                "</title></head>\r\n<body>\r\n<center><h1>",
                $code,
                " ",
                $reason,
                "</h1></center>\r\n<hr><center>",
                $server,
                "</center>\r\n</body>\r\n</html>\r\n"
            )
        };
    }

    const NGINX_413: &str = proxy_page!("413", "Request Entity Too Large", "nginx/1.25.3");
    const OPENRESTY_413: &str = proxy_page!("413", "Request Entity Too Large", "openresty");
    const CLOUDFLARE_413: &str = proxy_page!("413", "Request Entity Too Large", "cloudflare");
    const NGINX_404: &str = proxy_page!("404", "Not Found", "nginx");
    const NGINX_414: &str = proxy_page!("414", "Request-URI Too Large", "nginx");
    const NGINX_504: &str = proxy_page!("504", "Gateway Time-out", "nginx");

    // nginx's 400 for oversized headers has an extra line under the title.
    const NGINX_400_HEADER: &str = "<html>\r\n\
<head><title>400 Request Header Or Cookie Too Large</title></head>\r\n<body>\r\n\
<center><h1>400 Bad Request</h1></center>\r\n\
<center>Request Header Or Cookie Too Large</center>\r\n\
<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

    const CLOUDFLARE_502: &str = r#"<!DOCTYPE html>
<html lang="en-US">
<head><title>api.example.com | 502: Bad gateway</title></head>
<body><div id="cf-error-details"><h1>Bad gateway</h1><span>Error code 502</span>
<p>The web server reported a bad gateway error.</p>
<p>Cloudflare Ray ID: <strong>8f1a2b3c4d5e6f70</strong></p></div></body></html>"#;

    const CASES: &[Case] = &[
        // ---------- Positives: tokens ----------
        (
            "openai chat context_length_exceeded",
            400,
            r#"{
  "error": {
    "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 131392 tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "context_length_exceeded"
  }
}"#,
            Some(Ctx),
        ),
        (
            "openai messages + completion",
            400,
            r#"{"error":{"message":"This model's maximum context length is 4097 tokens. However, you requested 4358 tokens (3358 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            Some(Ctx),
        ),
        (
            "openai legacy completions",
            400,
            r#"{"error":{"message":"This model's maximum context length is 2049 tokens, however you requested 2500 tokens (500 in your prompt; 2000 for the completion). Please reduce your prompt; or completion length.","type":"invalid_request_error","param":null,"code":null}}"#,
            Some(Ctx),
        ),
        (
            "openai responses api",
            400,
            r#"{
  "error": {
    "message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "type": "invalid_request_error",
    "param": "input",
    "code": "context_length_exceeded"
  }
}"#,
            Some(Ctx),
        ),
        (
            "openai responses stream response.failed",
            400,
            r#"event: response.failed
data: {"type":"response.failed","response":{"status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model. Please adjust your input and try again."}}}"#,
            Some(Ctx),
        ),
        (
            "openai string_above_max_length",
            400,
            r#"{"error":{"message":"Invalid 'messages[3].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12582912 instead.","type":"invalid_request_error","param":"messages[3].content","code":"string_above_max_length"}}"#,
            Some(Ctx),
        ),
        (
            "azure openai",
            400,
            r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9342 tokens. Please reduce the length of the messages.","param":"messages","type":"invalid_request_error"}}"#,
            Some(Ctx),
        ),
        (
            "groq without numbers",
            400,
            r#"{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            Some(Ctx),
        ),
        (
            "anthropic prompt is too long",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210384 tokens > 200000 maximum"},"request_id":"req_011CSHqYvT9hN2kQpXz7aBcD"}"#,
            Some(Ctx),
        ),
        (
            "anthropic input + max_tokens",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 187254 + 20000 > 200000, decrease input length or `max_tokens` and try again"}}"#,
            Some(Ctx),
        ),
        (
            "gemini input token count",
            400,
            r#"{
  "error": {
    "code": 400,
    "message": "The input token count (1205312) exceeds the maximum number of tokens allowed (1048576).",
    "status": "INVALID_ARGUMENT"
  }
}"#,
            Some(Ctx),
        ),
        (
            "vertex ai only supports up to",
            400,
            r#"{
  "error": {
    "code": 400,
    "message": "Unable to submit request because the input token count is 1205312 but model only supports up to 1048576. Reduce the input token count and try again. You can also use the CountTokens API to calculate prompt token count and billable characters. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/send-request-overview",
    "status": "INVALID_ARGUMENT"
  }
}"#,
            Some(Ctx),
        ),
        (
            "bedrock input is too long",
            400,
            r#"{"message":"Input is too long for requested model."}"#,
            Some(Ctx),
        ),
        (
            "bedrock too many input tokens",
            400,
            r#"{"message":"Too many input tokens. Max input tokens: 8192, request input tokens: 9214"}"#,
            Some(Ctx),
        ),
        (
            "bedrock validationexception input length (boto text)",
            400,
            "An error occurred (ValidationException) when calling the Converse operation: \
The model returned the following errors: Input length 140012 exceeds the model limit of 131072",
            Some(Ctx),
        ),
        (
            "bedrock anthropic through converse",
            400,
            r#"{"message":"ValidationException: The model returned the following errors: input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input length or `max_tokens` and try again"}"#,
            Some(Ctx),
        ),
        (
            "mistral",
            400,
            r#"{"object":"error","message":"Prompt contains 40164 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","param":null,"code":null}"#,
            Some(Ctx),
        ),
        (
            "vllm",
            400,
            r#"{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 34000 tokens (30000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
            Some(Ctx),
        ),
        (
            // Judgement call: input + max_tokens over the window counts as an overflow.
            "vllm max_tokens against the window",
            400,
            r#"{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 32768 tokens and your request has 30000 input tokens (8192 > 32768 - 30000). None","type":"BadRequestError","param":null,"code":400}}"#,
            Some(Ctx),
        ),
        (
            "ollama",
            400,
            r#"{"error":"the input length exceeds the context length"}"#,
            Some(Ctx),
        ),
        (
            "llama.cpp server",
            400,
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#,
            Some(Ctx),
        ),
        (
            "llama.cpp server, type only",
            400,
            r#"{"error":{"code":400,"message":"context overflow","type":"exceed_context_size_error"}}"#,
            Some(Ctx),
        ),
        (
            "cohere v1 generate",
            400,
            r#"{"id":"4c5e8a4e-2f1b-4c7d-9f0a-3b2e1d6c5a4f","message":"too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5234. Try using a shorter prompt, or enabling prompt truncating. See https://docs.cohere.com/reference/generate for more details."}"#,
            Some(Ctx),
        ),
        (
            "cohere v2 chat",
            400,
            r#"{"id":"b7e2c1a0-9d3f-4e5b-8a6c-1f2e3d4c5b6a","message":"too many tokens: size limit exceeded by 11296 tokens. Try using shorter or fewer inputs, or setting prompt_truncation='AUTO'."}"#,
            Some(Ctx),
        ),
        (
            "xai",
            400,
            r#"{"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 150234 tokens."}"#,
            Some(Ctx),
        ),
        (
            "openrouter",
            400,
            r#"{"error":{"message":"This endpoint's maximum context length is 200000 tokens. However, you requested about 231045 tokens (223045 of text input, 8000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}}"#,
            Some(Ctx),
        ),
        (
            "deepseek",
            400,
            r#"{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70123 tokens (62123 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#,
            Some(Ctx),
        ),
        (
            "moonshot kimi",
            400,
            r#"{"error":{"message":"Invalid request: Your request exceeded model token limit: 8192","type":"invalid_request_error"}}"#,
            Some(Ctx),
        ),
        (
            "dashscope qwen",
            400,
            r#"{"code":"InvalidParameter","message":"Range of input length should be [1, 30720]","request_id":"3a9c2e1f-7b6d-4c5a-9e8f-0d1c2b3a4f5e"}"#,
            Some(Ctx),
        ),
        (
            "huggingface tgi inputs + max_new_tokens",
            422,
            r#"{"error":"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 7800 `inputs` tokens and 1024 `max_new_tokens`","error_type":"validation"}"#,
            Some(Ctx),
        ),
        (
            "huggingface tgi inputs only",
            422,
            r#"{"error":"Input validation error: `inputs` must have less than 4096 tokens. Given: 5120","error_type":"validation"}"#,
            Some(Ctx),
        ),
        (
            "fireworks",
            400,
            r#"{"error":{"object":"error","type":"invalid_request_error","message":"The prompt is too long: 40000, model maximum context length: 32768"}}"#,
            Some(Ctx),
        ),
        (
            "litellm proxy",
            400,
            r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: AzureException - upstream error. Received Model Group=gpt-4o\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}"#,
            Some(Ctx),
        ),
        // ---------- Positives: bytes ----------
        ("nginx 413 html", 413, NGINX_413, Some(Big)),
        ("openresty 413 html", 413, OPENRESTY_413, Some(Big)),
        ("cloudflare 413 html", 413, CLOUDFLARE_413, Some(Big)),
        ("413 empty body", 413, "", Some(Big)),
        (
            "413 with an unrelated body still counts",
            413,
            r#"{"error":{"message":"Something went wrong","type":"server_error"}}"#,
            Some(Big),
        ),
        (
            "anthropic 413",
            413,
            r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
            Some(Big),
        ),
        (
            "anthropic request_too_large re-mapped to 400 by a gateway",
            400,
            r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
            Some(Big),
        ),
        (
            "openai 429 request too large for TPM",
            429,
            r#"{
  "error": {
    "message": "Request too large for gpt-4o in organization org-Xy12AbC on tokens per min (TPM): Limit 30000, Requested 41234. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.",
    "type": "tokens",
    "param": null,
    "code": "rate_limit_exceeded"
  }
}"#,
            Some(Big),
        ),
        (
            "groq 413 request too large",
            413,
            r#"{"error":{"message":"Request too large for model `llama-3.3-70b-versatile` in organization `org_01hx` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Requested 18542, please reduce your message size and try again.","type":"tokens","code":"rate_limit_exceeded"}}"#,
            Some(Big),
        ),
        (
            "gemini payload size",
            400,
            r#"{
  "error": {
    "code": 400,
    "message": "Request payload size exceeds the limit: 20971520 bytes.",
    "status": "INVALID_ARGUMENT"
  }
}"#,
            Some(Big),
        ),
        (
            "generic gateway 'request is too large'",
            400,
            r#"{"error":{"code":400,"message":"The request is too large.","status":"FAILED_PRECONDITION"}}"#,
            Some(Big),
        ),
        (
            "express body-parser behind a 500 handler",
            500,
            "PayloadTooLargeError: request entity too large\n    at readStream \
(/app/node_modules/raw-body/index.js:163:17)",
            Some(Big),
        ),
        (
            "starlette content too large (RFC 9110 phrase) behind a 400",
            400,
            r#"{"detail":"Content Too Large"}"#,
            Some(Big),
        ),
        (
            "go net/http MaxBytesReader",
            400,
            "http: request body too large\n",
            Some(Big),
        ),
        (
            "fastify",
            413,
            r#"{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Payload Too Large","message":"Request body is too large"}"#,
            Some(Big),
        ),
        (
            "fastify message only, status re-mapped",
            400,
            r#"{"message":"Request body is too large"}"#,
            Some(Big),
        ),
        (
            "vercel",
            413,
            "Request Entity Too Large\n\nFUNCTION_PAYLOAD_TOO_LARGE\n\n\
sfo1::6kx2p-1717171717171-a1b2c3d4e5f6\n",
            Some(Big),
        ),
        (
            "vercel code only behind 502",
            502,
            r#"{"error":{"code":"FUNCTION_PAYLOAD_TOO_LARGE","message":"An error occurred"}}"#,
            Some(Big),
        ),
        (
            "maximum request body size",
            400,
            "Maximum request body size 1048576 exceeded, actual body size 4194304",
            Some(Big),
        ),
        (
            "next.js server action",
            500,
            "Error: Body exceeded 1 MB limit.\n\
To configure the body size limit for Server Actions, see: \
https://nextjs.org/docs/app/api-reference/next-config-js/serverActions#bodysizelimit",
            Some(Big),
        ),
        (
            "aws api gateway",
            413,
            r#"{"message":"HTTP content length exceeded 10485760 bytes."}"#,
            Some(Big),
        ),
        (
            "aws api gateway behind 400",
            400,
            r#"{"message":"HTTP content length exceeded 10485760 bytes."}"#,
            Some(Big),
        ),
        (
            "aws lambda through api gateway",
            502,
            "An error occurred (RequestEntityTooLargeException) when calling the Invoke operation: \
Request must be smaller than 6291456 bytes for the InvokeFunction operation",
            Some(Big),
        ),
        // ---------- Negatives ----------
        (
            "openai model not found (contains 'large')",
            404,
            r#"{"error":{"message":"The model `gpt-5-large` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
            None,
        ),
        (
            "openai bad json",
            400,
            r#"{"error":{"message":"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)","type":"invalid_request_error","param":null,"code":null}}"#,
            None,
        ),
        (
            "openai invalid api key",
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
            None,
        ),
        (
            "openai unsupported region",
            403,
            r#"{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}}"#,
            None,
        ),
        (
            "openai 429 rate limit reached (tokens per min)",
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-Xy12AbC on tokens per min (TPM): Limit 30000, Used 28000, Requested 4000. Please try again in 4.2s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
            None,
        ),
        (
            "openai insufficient quota",
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            None,
        ),
        (
            // Judgement call: the output budget alone is over the model's limit; pruning the
            // prompt cannot fix it, so it is a parameter error.
            "openai max_tokens too large",
            400,
            r#"{"error":{"message":"max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.","type":"invalid_request_error","param":"max_tokens","code":null}}"#,
            None,
        ),
        (
            "anthropic max_tokens over output limit",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 300000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514"}}"#,
            None,
        ),
        (
            "max_tokens must be less than",
            400,
            r#"{"object":"error","message":"max_tokens must be less than or equal to 8192","type":"invalid_request_error","param":"max_tokens","code":null}"#,
            None,
        ),
        (
            "deepseek max_tokens range",
            400,
            r#"{"error":{"message":"Invalid max_tokens value, the valid range of max_tokens is [1, 8192]","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#,
            None,
        ),
        (
            "openai array too long (message count, not size)",
            400,
            r#"{"error":{"message":"Invalid 'messages': array too long. Expected an array with maximum length 2048, but got an array with length 2050 instead.","type":"invalid_request_error","param":"messages","code":"array_above_max_length"}}"#,
            None,
        ),
        (
            "openai unknown parameter named context",
            400,
            r#"{"error":{"message":"Unrecognized request argument supplied: context","type":"invalid_request_error","param":null,"code":null}}"#,
            None,
        ),
        (
            "anthropic 429 input tokens per minute",
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (1b2c3d4e) of 40,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits."}}"#,
            None,
        ),
        (
            "anthropic 529 overloaded",
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            None,
        ),
        (
            "anthropic credit balance",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}"#,
            None,
        ),
        (
            "anthropic empty text block",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages: text content blocks must be non-empty"}}"#,
            None,
        ),
        (
            "openai 500",
            500,
            r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#,
            None,
        ),
        ("cloudflare 502 html", 502, CLOUDFLARE_502, None),
        ("nginx 504 html", 504, NGINX_504, None),
        ("nginx 404 html", 404, NGINX_404, None),
        (
            // Headers, not the body: pruning tool outputs would not help.
            "nginx 400 request header or cookie too large",
            400,
            NGINX_400_HEADER,
            None,
        ),
        ("nginx 414 request-uri too large", 414, NGINX_414, None),
        (
            "431 request header fields too large",
            431,
            "Request Header Fields Too Large",
            None,
        ),
        (
            "gemini 503 overloaded",
            503,
            r#"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#,
            None,
        ),
        (
            "gemini invalid api key",
            400,
            r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#,
            None,
        ),
        (
            "gemini invalid argument",
            400,
            r#"{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}"#,
            None,
        ),
        (
            // The Cohere phrase without its colon is Bedrock throttling.
            "bedrock throttling too many tokens",
            429,
            r#"{"message":"Too many tokens, please wait before trying again."}"#,
            None,
        ),
        (
            "bedrock throttling too many requests",
            429,
            r#"{"message":"Too many requests, please wait before trying again."}"#,
            None,
        ),
        (
            "bedrock validationexception about something else",
            400,
            "An error occurred (ValidationException) when calling the InvokeModel operation: \
The provided model identifier is invalid.",
            None,
        ),
        (
            "openrouter credits mention requested tokens",
            402,
            r#"{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 1200. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402,"metadata":{"provider_name":null}}}"#,
            None,
        ),
        (
            "go context deadline exceeded",
            500,
            r#"{"error":"rpc error: code = DeadlineExceeded desc = context deadline exceeded"}"#,
            None,
        ),
        (
            "plain 429 too many requests",
            429,
            "Too Many Requests",
            None,
        ),
        ("empty 500", 500, "", None),
        // ---------- Success statuses: never an overflow ----------
        (
            "200 whose body quotes an overflow",
            200,
            r#"{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens."}}"#,
            None,
        ),
        ("200 with a 413 page", 200, NGINX_413, None),
        (
            "304 with overflow text",
            304,
            "prompt is too long: 9 tokens > 8 maximum",
            None,
        ),
        ("399 edge", 399, "request entity too large", None),
    ];

    #[test]
    fn table() {
        let mut failures = Vec::new();
        for &(name, status, body, expected) in CASES {
            let got = classify(status, body);
            if got != expected {
                failures.push(format!(
                    "{name} ({status}): expected {expected:?}, got {got:?}"
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "misclassified:\n{}",
            failures.join("\n")
        );
    }

    #[test]
    fn table_is_big_enough() {
        let negatives = CASES.iter().filter(|c| c.3.is_none()).count();
        let ctx = CASES.iter().filter(|c| c.3 == Some(Ctx)).count();
        let big = CASES.iter().filter(|c| c.3 == Some(Big)).count();
        assert!(CASES.len() >= 40, "only {} cases", CASES.len());
        assert!(negatives >= 15, "only {negatives} negatives");
        assert!(ctx >= 10 && big >= 10, "ctx {ctx}, big {big}");
    }

    #[test]
    fn every_pattern_is_lowercase_ascii_and_non_empty() {
        for p in PATTERNS {
            assert!(!p.parts.is_empty());
            for part in p.parts {
                assert!(!part.is_empty());
                assert!(
                    part.is_ascii() && !part.bytes().any(|b| b.is_ascii_uppercase()),
                    "pattern part {part:?} would never match the lowercased body"
                );
            }
        }
    }

    #[test]
    fn every_pattern_is_exercised_by_the_table() {
        // No dead entries: each pattern must match at least one sample it is meant for.
        for p in PATTERNS {
            let hit = CASES.iter().any(|&(_, _, body, expected)| {
                expected == Some(p.kind) && contains_in_order(&body.to_ascii_lowercase(), p.parts)
            });
            assert!(hit, "no table case exercises {:?}", p.parts);
        }
    }

    #[test]
    fn status_rules_override_the_body() {
        for status in [0, 100, 200, 204, 301, 399] {
            assert_eq!(
                classify(status, "prompt is too long: 9 > 8"),
                None,
                "{status}"
            );
        }
        assert_eq!(classify(413, ""), Some(Big));
        assert_eq!(classify(413, "prompt is too long: 9 > 8"), Some(Big));
        for status in [400, 422, 429, 500, 599, 600, u16::MAX] {
            assert_eq!(
                classify(status, "prompt is too long: 9 > 8"),
                Some(Ctx),
                "{status}"
            );
            assert_eq!(classify(status, "Payload Too Large"), Some(Big), "{status}");
            assert_eq!(classify(status, "all good"), None, "{status}");
        }
    }

    #[test]
    fn parts_must_appear_in_order() {
        let vertex = "input token count is 9 but model only supports up to 8";
        assert_eq!(classify(400, vertex), Some(Ctx));
        let reversed = "model only supports up to 8; input token count is 9";
        assert_eq!(classify(400, reversed), None);
        let bedrock_reversed = "input length is fine. ValidationException: bad model id";
        assert_eq!(classify(400, bedrock_reversed), None);
    }

    #[test]
    fn case_insensitive() {
        assert_eq!(
            classify(400, "PROMPT IS TOO LONG: 9 TOKENS > 8 MAXIMUM"),
            Some(Ctx)
        );
        assert_eq!(
            classify(400, "Request Payload Size Exceeds The Limit"),
            Some(Big)
        );
        assert_eq!(classify(400, "CoNtExT_LeNgTh_ExCeEdEd"), Some(Ctx));
    }

    #[test]
    fn token_wording_wins_over_byte_wording() {
        let both = "request too large: prompt is too long: 9 tokens > 8 maximum";
        assert_eq!(classify(400, both), Some(Ctx));
    }

    #[test]
    fn match_deep_inside_a_large_body() {
        // A near miss repeated over 2 MiB, then the real message at the very end.
        let filler = "prompt is too lon context deadline exceeded Request Too Larg é😀 ";
        let mut body = filler.repeat((2 << 20) / filler.len());
        assert_eq!(classify(400, &body), None);
        body.push_str("Prompt Is Too Long: 300000 tokens > 200000 maximum");
        assert_eq!(classify(400, &body), Some(Ctx));
    }

    /// xorshift64*: deterministic, std only.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Random text mixing multi-byte characters, case-folding oddities (Kelvin sign, dotted I),
    /// JSON punctuation and fragments of real patterns.
    fn random_body(rng: &mut Rng, max_len: usize) -> String {
        const PIECES: &[&str] = &[
            "a",
            "Z",
            " ",
            "\"",
            "{",
            "}",
            ":",
            ",",
            "\\",
            "\n",
            "\0",
            "é",
            "ß",
            "İ",
            "\u{212a}",
            "😀",
            "中",
            "\u{feff}",
            "\u{10ffff}",
            "too",
            "large",
            "context",
            "tokens",
            "prompt",
            "length",
            "exceed",
            "request",
            "entity",
            "body",
            "`inputs`",
            "max_tokens",
            "413",
            "Prompt is too",
            "maximum context",
            "payload size",
            "input token count",
        ];
        let len = rng.below(max_len + 1);
        let mut s = String::new();
        for _ in 0..len {
            if rng.below(4) == 0 {
                // Any Unicode scalar value.
                let c = char::from_u32(rng.next() as u32 % 0x11_0000).unwrap_or('\u{fffd}');
                s.push(c);
            } else {
                s.push_str(PIECES[rng.below(PIECES.len())]);
            }
        }
        s
    }

    #[test]
    fn arbitrary_input_never_panics_and_keeps_invariants() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for i in 0..3000 {
            let body = random_body(&mut rng, if i % 100 == 0 { 5000 } else { 60 });
            for status in [200, 400, 500] {
                let got = classify(status, &body);
                if status < 400 {
                    assert_eq!(got, None, "success status classified: {body:?}");
                }
                // ASCII case never matters.
                assert_eq!(
                    got,
                    classify(status, &body.to_ascii_uppercase()),
                    "{body:?}"
                );
                assert_eq!(
                    got,
                    classify(status, &body.to_ascii_lowercase()),
                    "{body:?}"
                );
            }
            assert_eq!(classify(413, &body), Some(Big));
            // A real message spliced into noise is always found.
            let bounds: Vec<usize> = (0..=body.len())
                .filter(|&k| body.is_char_boundary(k))
                .collect();
            let at = bounds[rng.below(bounds.len())];
            let spliced_ctx = format!("{}prompt is too long: 9 > 8{}", &body[..at], &body[at..]);
            assert_eq!(classify(400, &spliced_ctx), Some(Ctx), "{spliced_ctx:?}");
            let spliced_big = format!("{}Payload Too Large{}", &body[..at], &body[at..]);
            assert!(classify(500, &spliced_big).is_some(), "{spliced_big:?}");
        }
    }
}
