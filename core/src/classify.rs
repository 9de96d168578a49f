//! Error classification: did a provider (or a proxy in front of it) reject a request because
//! of its size, and by how much?
//!
//! A host that gets `Some(..)` back can prune old tool outputs and retry; any other failure
//! (bad key, rate limit, outage, malformed request) is not ours to fix by shrinking, so it
//! yields `None`. The answer carries the numbers the body states, so that a host can shed just
//! enough: the limit, what the request needed, and their unit (tokens, bytes or characters).
//!
//! Two tables, both read against the ASCII-lowercased body, each entry naming its source:
//!
//! - `PATTERNS` decides *whether* the body is a size rejection, and of which
//!   [`OverflowKind`]. Phrases are chosen to be specific: a lone word such as "large",
//!   "context" or "tokens" never decides anything.
//! - `RULES` reads the numbers. A rule names an anchor phrase (where the message starts) and,
//!   for each number, the phrase it follows ("maximum context length is", "resulted in") or
//!   the JSON field that holds it (`"n_ctx"`). The first rule that finds a number wins and sets
//!   the unit. Rules never decide the kind, and they run only on bodies already classified.
//!
//! Numbers are never guessed. A number is read only right after its phrase (past at most a few
//! spaces, colons, quotes or brackets), within a short window after the anchor, so a request
//! id, a timestamp or a URL elsewhere in the body is never taken. Thousands separators are
//! understood (`128,000`, `1,048,576`); anything that is not a whole count in the rule's unit
//! gives no number at all: a decimal (`4.2`), a number glued to a word (`128k`, `1mb`), a
//! scaled size (`1 MB`, `2 million`), a malformed grouping (`30000,45000`) or a value beyond
//! `u64`. Sizes in KB or MB are not converted (is a megabyte 10^6 or 2^20 bytes?): they give
//! `None`, as does every number whose unit the body does not state.
//!
//! The real bodies behind both tables, and the near misses they must not catch, are the shared
//! vectors `tests/vectors/classify-*.json`, which the Rust, JS and Python hosts all run, and
//! which this module's tests check against [`classify`] directly.

use std::borrow::Cow;

use memchr::memmem;

/// Why a provider rejected a request, when the cause was its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverflowKind {
    /// The request was too large as a whole: its HTTP body in bytes (HTTP 413 from a provider,
    /// a proxy or a gateway, whatever the page says), or its tokens for the account's
    /// per-minute budget (OpenAI and Groq "Request too large for gpt-4o ... on tokens per min
    /// (TPM): Limit 30000, Requested 45000"), which no wait can fix but shedding input can.
    RequestTooLarge,
    /// The prompt (with the output it reserves) exceeded the model's context window, or one
    /// message string exceeded the provider's per-string limit.
    ContextLengthExceeded,
}

/// The unit in which a rejection states its sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeUnit {
    /// Model tokens, by the provider's own tokenizer.
    Tokens,
    /// Bytes of the HTTP request body.
    Bytes,
    /// Characters of one string of the request (OpenAI's per-string limit).
    Characters,
}

/// A size rejection, with the numbers its body states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    /// Why the request was rejected.
    pub kind: OverflowKind,
    /// The limit the body states, in `unit` (e.g. 128000 tokens, 1048576 bytes).
    pub limit: Option<u64>,
    /// What the request needed by the body's account, in `unit` (e.g. 412933).
    ///
    /// When the body counts the input and the output it reserves separately, this is their
    /// total (Anthropic "187254 + 20000 > 200000" is 207254): the same figure the limit is
    /// compared with. A body that states only by how much the limit was exceeded (Cohere
    /// "size limit exceeded by 11296 tokens", Ollama "exceeded max context length by 4
    /// tokens") leaves this `None`.
    pub requested: Option<u64>,
    /// Unit of `limit` and `requested`; `None` when the body gives neither. A size the body
    /// states only in a scaled unit ("Body exceeded 1 MB limit") is not converted: it gives
    /// `None` here and in both numbers.
    pub unit: Option<SizeUnit>,
}

/// One known size-rejection message: every part must occur in the body, in this order.
///
/// Parts are lowercase ASCII because the body is ASCII-lowercased before the search.
struct Pattern {
    parts: &'static [&'static str],
    kind: OverflowKind,
    /// Words that, found anywhere in the body, mean the pattern does not
    /// apply: the size refused is not one shrinking the outputs cures.
    unless: &'static [&'static str],
}

const fn ctx(parts: &'static [&'static str]) -> Pattern {
    Pattern {
        parts,
        kind: OverflowKind::ContextLengthExceeded,
        unless: &[],
    }
}

const fn big(parts: &'static [&'static str]) -> Pattern {
    Pattern {
        parts,
        kind: OverflowKind::RequestTooLarge,
        unless: &[],
    }
}

/// The names of a request's output budget: a body that names one and only says a window was
/// exceeded may be about the output alone.
const OUTPUT_BUDGET: &[&str] = &[
    "max_tokens",
    "max_completion_tokens",
    "max_new_tokens",
    "max_output_tokens",
    "maxoutputtokens",
];

/// Known messages, token patterns first: when a body carries both kinds of wording, the explicit
/// token count is the more precise diagnosis.
const PATTERNS: &[Pattern] = &[
    // --- Tokens: the prompt does not fit the model's context window. ---
    // OpenAI, Azure OpenAI, Groq, OpenRouter, LiteLLM, Cerebras: the error `code` of a context
    // overflow.
    ctx(&["context_length_exceeded"]),
    // The same in words, from OpenAI-compatible servers and proxies: "context length exceeded",
    // "maximum context length exceeded".
    ctx(&["context length exceeded"]),
    // OpenAI / Azure / DeepSeek / vLLM: "This model's maximum context length is N tokens";
    // OpenRouter: "This endpoint's maximum context length ..."; Mistral: "too large for model
    // with N maximum context length"; Fireworks: "model maximum context length: N"; SGLang:
    // "Requested token count exceeds the model's maximum context length of N tokens".
    ctx(&["maximum context length"]),
    // OpenAI / Azure / Groq / Cerebras closing sentence, sometimes sent without the numbers.
    ctx(&["reduce the length of the messages"]),
    // OpenAI legacy completions: "Please reduce your prompt; or completion length."
    ctx(&["reduce your prompt"]),
    // OpenAI Responses API: "Your input exceeds the context window of this model."
    ctx(&["exceeds the context window"]),
    // Other servers and gateways in fewer words: "Input exceeds context window", "Your prompt
    // exceeds the model's context window", oMLX "Prompt too long: N tokens exceeds max context
    // window of M tokens". Not when the body is about the output's budget ("max_tokens ...
    // exceeds the model's context window"): a shorter prompt does not fix that.
    Pattern {
        unless: OUTPUT_BUDGET,
        ..ctx(&["exceeds context window"])
    },
    Pattern {
        unless: OUTPUT_BUDGET,
        ..ctx(&["exceeds the model's context window"])
    },
    Pattern {
        unless: OUTPUT_BUDGET,
        ..ctx(&["exceeds max context window"])
    },
    // OpenAI (GPT-5 family): "Input tokens exceed the configured limit of 272000 tokens. Your
    // messages resulted in 509178 tokens."
    ctx(&["input tokens exceed the configured limit"]),
    // OpenAI: one message string over the per-string limit ("string too long. Expected a string
    // with maximum length ..."). Counted in characters, but the cure is the same as for a full
    // context: shrink the tool outputs. Not when the string is a tool's or function's
    // definition (a description over 1,024 characters), the metadata or the instructions: the
    // error names it (`Invalid 'tools[0].function.description'`, `param`), and no output is it.
    Pattern {
        unless: &[
            "'tools[",
            "\"tools[",
            "'functions[",
            "\"functions[",
            "'metadata",
            "\"metadata",
            "'instructions'",
            "\"instructions\"",
        ],
        ..ctx(&["string_above_max_length"])
    },
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
    // AWS Bedrock: "Input is too long for requested model."; Hugging Face pipelines: "Input is
    // too long for this model, shorten your input ...".
    ctx(&["input is too long"]),
    // AWS Bedrock (Titan, Converse): "Too many input tokens. Max input tokens: N ..."
    ctx(&["too many input tokens"]),
    // AWS Bedrock: a ValidationException about the input length (wording varies by model).
    ctx(&["validationexception", "input length"]),
    // The same over HTTP, where the exception's name is a header and the body only says
    // "Input length 140012 exceeds the model limit of 131072". (Not "The maximum tokens you
    // requested exceeds the model limit": that is the output's budget.)
    ctx(&["input length", "exceeds the model limit"]),
    // AWS Bedrock schema check on a prompt string: "Malformed input request: expected
    // maxLength: 42000, actual: 46735".
    ctx(&["malformed input request", "expected maxlength"]),
    // Mistral: "Prompt contains N tokens and 0 draft tokens, too large for model with M
    // maximum context length".
    ctx(&["too large for model with"]),
    // Together, SGLang, vLLM: "The input (N tokens) is longer than the model's context length
    // (M tokens)."
    ctx(&["is longer than the model's context length"]),
    // Ollama: "the input length exceeds the context length" and "prompt too long; exceeded max
    // context length by N tokens"; Z.ai (GLM), code 1261: "Prompt too long".
    ctx(&["exceeds the context length"]),
    ctx(&["exceeded max context length"]),
    ctx(&["prompt too long"]),
    // vLLM: "The decoder prompt (length N) is longer than the maximum model length of M."
    ctx(&["longer than the maximum model length"]),
    // llama-cpp-python: "Requested tokens (N) exceed context window of M".
    ctx(&["exceed context window of"]),
    // Poolside (through OpenRouter): "Input length N exceeds the maximum allowed input length
    // of M tokens."; OpenAI-compatible servers: "Requested input length N exceeds maximum input
    // length M".
    ctx(&["exceeds the maximum allowed input length"]),
    ctx(&["exceeds maximum input length"]),
    // TensorRT-LLM (behind Triton, NIM, Dynamo): "Prompt length (N) exceeds maximum input length
    // (M)." and "Prompt length + number of draft tokens (N + D) exceeds maximum input length
    // (M)." (matched by the line above).
    // DS4 server: "Prompt has N tokens, but the configured context size is M tokens", and in
    // its other build "Prompt tokens (N) exceeds context size (M)" (type "context_exceeded"),
    // the words other local servers use too ("request exceeds context size").
    ctx(&["but the configured context size is"]),
    ctx(&["exceeds context size"]),
    // Z.ai: its finish reason for a prompt over the window, surfaced as an error.
    ctx(&["model_context_window_exceeded"]),
    // llama.cpp server: "request (N tokens) exceeds the available context size (M tokens), try
    // increasing it", type "exceed_context_size_error".
    ctx(&["exceeds the available context size"]),
    ctx(&["exceed_context_size_error"]),
    // LM Studio: "Trying to keep the first N tokens when context the overflows. However, the
    // model is loaded with context length of only M tokens" (other builds: "when context
    // overflows", "with a context length of only"), "The number of tokens to keep from the
    // initial prompt is greater than the context length." and, for a model that cannot shift
    // its context mid-generation, "Reached context length of N tokens with model (arch:
    // gpt-oss) that does not currently support mid-generation context overflow".
    ctx(&["loaded with context length of only"]),
    ctx(&["trying to keep the first", "tokens when context"]),
    ctx(&["is greater than the context length"]),
    ctx(&["reached context length of", "context overflow"]),
    // Cohere: "too many tokens: total number of tokens in the prompt cannot exceed N" and
    // "too many tokens: size limit exceeded by N tokens". The colon matters: Bedrock throttling
    // says "Too many tokens, please wait before trying again", which is a rate limit.
    ctx(&["too many tokens:"]),
    // xAI: "This model's maximum prompt length is 131072 but the request contains N tokens",
    // and its newer "[input_too_large] Current message (N tokens) exceeds budget (M tokens)".
    ctx(&["maximum prompt length"]),
    ctx(&["input_too_large"]),
    // GitHub Copilot: "prompt token count of N exceeds the limit of M", code
    // "model_max_prompt_tokens_exceeded".
    ctx(&["prompt token count of", "exceeds the limit of"]),
    ctx(&["model_max_prompt_tokens_exceeded"]),
    // Moonshot (Kimi): "Your request exceeded model token limit: 8192".
    ctx(&["exceeded model token limit"]),
    // Alibaba DashScope (Qwen): "Range of input length should be [1, 30720]".
    ctx(&["range of input length should be"]),
    // SambaNova: "Requested generation length 1 is not possible! The provided prompt is 4309
    // tokens long, so generating 1 tokens requires a sequence length of 4310, but the maximum
    // supported sequence length is just 4096!": a shorter prompt fits.
    ctx(&["maximum supported sequence length"]),
    // SiliconFlow, code 20015: "length of prompt_tokens (163280) must be less than max_seq_len
    // (32768)."
    ctx(&["length of prompt_tokens", "max_seq_len"]),
    // MiniMax: "invalid params, context window exceeds limit".
    ctx(&["context window exceeds limit"]),
    // Z.ai (GLM), code 1261: "Prompt exceeds max length".
    ctx(&["prompt exceeds max length"]),
    // Hugging Face TGI and TEI, Together: "`inputs` tokens + `max_new_tokens` must be <= N"
    // and "`inputs` must have less than N tokens".
    ctx(&["`inputs` tokens + `max_new_tokens` must be"]),
    ctx(&["`inputs` must have less than"]),
    // LiteLLM proxy: the exception name survives even when the provider message is rewritten.
    ctx(&["contextwindowexceedederror"]),
    // --- Bytes: the HTTP request itself is over a size limit. ---
    // nginx, openresty, Cloudflare, ALB, Azure Application Gateway, Google Front End, Express
    // body-parser: "413 Request Entity Too Large".
    big(&["entity too large"]),
    // AWS: "RequestEntityTooLargeException".
    big(&["entitytoolarge"]),
    // HTTP 413 reason phrase: "Payload Too Large" (RFC 7231, Envoy), "Content Too Large"
    // (RFC 9110).
    big(&["payload too large"]),
    big(&["content too large"]),
    // Vercel: "FUNCTION_PAYLOAD_TOO_LARGE".
    big(&["payload_too_large"]),
    // Anthropic error type "request_too_large"; OpenAI / Groq "Request too large for gpt-4o in
    // organization ... on tokens per min (TPM)": a single request bigger than the whole
    // per-minute budget can never pass, so it is a size problem, not a wait-and-retry one.
    big(&["request_too_large"]),
    big(&["request too large"]),
    // Generic gateways: "The request is too large"; AWS API Gateway: "Request Too Long".
    big(&["request is too large"]),
    big(&["request too long"]),
    // Go net/http "http: request body too large" (Caddy, Traefik); ASP.NET Kestrel "Request
    // body too large."; Fastify "Request body is too large" / "FST_ERR_CTP_BODY_TOO_LARGE".
    big(&["body too large"]),
    big(&["body is too large"]),
    big(&["body_too_large"]),
    // Gemini: "Request payload size exceeds the limit: 20971520 bytes."
    big(&["payload size exceeds"]),
    // "Maximum request body size 1048576 exceeded".
    big(&["maximum request body size"]),
    // Next.js server actions: "Body exceeded 1 MB limit."
    big(&["body exceeded"]),
    // AWS API Gateway: "HTTP content length exceeded 10485760 bytes."
    big(&["content length exceeded"]),
    // Anthropic 413 message: "Request exceeds the maximum allowed number of bytes."
    big(&["exceeds the maximum allowed number of bytes"]),
    // AWS Lambda: "Request must be smaller than 6291456 bytes for the InvokeFunction operation".
    big(&["request must be smaller than"]),
    // OpenAI (uploads, audio): "Maximum content size limit (26214400) exceeded (26358048 bytes
    // read)".
    big(&["maximum content size limit"]),
    // Kong request-size-limiting plugin: "Request size limit exceeded".
    big(&["request size limit exceeded"]),
    // Alibaba DashScope: "Exceeded limit on max bytes to request body : 6291456".
    big(&["exceeded limit on max bytes"]),
];

/// Where a rule reads one number, in the window after its anchor.
#[derive(Clone, Copy)]
enum Num {
    /// The message never states this number.
    Unstated,
    /// The number right after the first of these phrases that is followed by one.
    After(&'static [&'static str]),
    /// The sum of the numbers right after each of these phrases, each phrase searched after the
    /// previous number; all must be found (Anthropic "187254 + 20000").
    Sum(&'static [&'static str]),
    /// The number of this JSON field (given as `"name`, quote included), anywhere in the body:
    /// field order is the server's to choose.
    Field(&'static str),
    /// The first of these ways that reads a number: for a message whose wordings differ in
    /// which numbers they state.
    FirstOf(&'static [Num]),
}

/// How to read the numbers of one known message.
struct Rule {
    /// Where the message starts; the phrases of [`Num::After`] and [`Num::Sum`] are searched in
    /// the [`WINDOW`] bytes from here.
    at: &'static str,
    unit: SizeUnit,
    limit: Num,
    requested: Num,
    /// A word each number must be followed by, when the message may also state the size in
    /// another unit ("1048576 bytes", not "1 MB").
    then: Option<&'static str>,
    /// Words that, right before an occurrence of `at`, make it part of another phrase: "input
    /// length" in "maximum input length" names the limit, not the request.
    not_after: &'static [&'static str],
}

const fn rule(at: &'static str, unit: SizeUnit, limit: Num, requested: Num) -> Rule {
    Rule {
        at,
        unit,
        limit,
        requested,
        then: None,
        not_after: &[],
    }
}

/// A rule whose numbers are each followed by the word "tokens": for anchors that are common
/// words ("request (", "the input ("), the unit word keeps stray numbers out.
const fn tokens(at: &'static str, limit: Num, requested: Num) -> Rule {
    Rule {
        at,
        unit: SizeUnit::Tokens,
        limit,
        requested,
        then: Some("tokens"),
        not_after: &[],
    }
}

/// A rule whose numbers are each followed by the word "bytes".
const fn bytes(at: &'static str, limit: Num, requested: Num) -> Rule {
    Rule {
        at,
        unit: SizeUnit::Bytes,
        limit,
        requested,
        then: Some("bytes"),
        not_after: &[],
    }
}

use Num::{After, Field, FirstOf, Sum, Unstated};
use SizeUnit::{Characters, Tokens};

/// How far after its anchor a rule looks for its phrases, in bytes. Real messages state their
/// numbers within about 200 bytes of their first words.
const WINDOW: usize = 512;

/// How many occurrences of its anchor a rule tries before giving up: the first is almost always
/// the message; a few more cover a body that quotes the phrase before the numbers.
const MAX_ANCHORS: usize = 4;

/// Number-reading rules, most specific first. The first rule that finds at least one number
/// decides `limit`, `requested` and the unit.
const RULES: &[Rule] = &[
    // --- Tokens ---
    // vLLM: "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum
    // context length is 32768 tokens and your request has 30000 input tokens (8192 > 32768 -
    // 30000)." The request needs input plus output: 38192.
    rule(
        "max_completion_tokens' is too large:",
        Tokens,
        After(&["maximum context length is"]),
        Sum(&["is too large:", "your request has"]),
    ),
    // OpenAI, Azure, Groq, DeepSeek, vLLM, OpenRouter ("you requested about N"), Perplexity:
    // "This model's maximum context length is 128000 tokens. However, your messages resulted
    // in 412933 tokens" / "you requested 130000 tokens (120000 in the messages, 10000 in the
    // completion)" (the total) / vLLM "your request has N input tokens". vLLM (and Bedrock
    // and LiteLLM in front of it) also says "However, you requested 8192 output tokens and your
    // prompt contains at least 24577 input tokens, for a total of at least 32769 tokens": its
    // first number is the output alone, so the total is read first, else the sum.
    rule(
        "maximum context length is",
        Tokens,
        After(&["maximum context length is"]),
        FirstOf(&[
            After(&["for a total of at least"]),
            Sum(&[
                "you requested",
                "output tokens and your prompt contains at least",
            ]),
            After(&[
                "resulted in",
                "you requested",
                "you requested about",
                "your request has",
            ]),
        ]),
    ),
    // SGLang, Fireworks: "Requested token count exceeds the model's maximum context length of
    // 131072 tokens. You requested a total of 140000 tokens: ..."
    rule(
        "maximum context length of",
        Tokens,
        After(&["maximum context length of"]),
        After(&["requested a total of"]),
    ),
    // OpenAI: "Input tokens exceed the configured limit of 272000 tokens. Your messages
    // resulted in 509178 tokens."
    rule(
        "configured limit of",
        Tokens,
        After(&["configured limit of"]),
        After(&["resulted in"]),
    ),
    // Mistral: "Prompt contains 40164 tokens and 0 draft tokens, too large for model with
    // 32768 maximum context length".
    rule(
        "prompt contains",
        Tokens,
        After(&["too large for model with"]),
        After(&["prompt contains"]),
    ),
    // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"; Fireworks: "The prompt
    // is too long: 40000, model maximum context length: 32768".
    rule(
        "prompt is too long",
        Tokens,
        After(&[">", "maximum context length:"]),
        After(&["prompt is too long"]),
    ),
    // Anthropic: "input length and `max_tokens` exceed context limit: 187254 + 20000 > 200000".
    rule(
        "exceed context limit",
        Tokens,
        After(&[">"]),
        Sum(&["exceed context limit", "+"]),
    ),
    // Gemini: "The input token count (1205312) exceeds the maximum number of tokens allowed
    // (1048576)."; Vertex AI: "the input token count is 1205312 but model only supports up to
    // 1048576".
    rule(
        "input token count",
        Tokens,
        After(&["tokens allowed", "only supports up to"]),
        After(&["input token count", "input token count is"]),
    ),
    // Together, SGLang, vLLM: "The input (250000 tokens) is longer than the model's context
    // length (200000 tokens)."
    tokens(
        "the input (",
        After(&["context length"]),
        After(&["the input ("]),
    ),
    // xAI: "This model's maximum prompt length is 131072 but the request contains 150234
    // tokens."
    rule(
        "maximum prompt length is",
        Tokens,
        After(&["maximum prompt length is"]),
        After(&["request contains"]),
    ),
    // xAI: "[input_too_large] Current message (1149677 tokens) exceeds budget (975424 tokens)".
    tokens(
        "input_too_large",
        After(&["exceeds budget"]),
        After(&["current message"]),
    ),
    // GitHub Copilot: "prompt token count of 391491 exceeds the limit of 128000".
    rule(
        "prompt token count of",
        Tokens,
        After(&["exceeds the limit of"]),
        After(&["prompt token count of"]),
    ),
    // Cohere: "too many tokens: total number of tokens in the prompt cannot exceed 4081 -
    // received 5234." ("size limit exceeded by N tokens" states only the excess).
    rule(
        "too many tokens:",
        Tokens,
        After(&["cannot exceed"]),
        After(&["received"]),
    ),
    // Moonshot (Kimi): "Your request exceeded model token limit: 262144 (requested: 300000)".
    rule(
        "exceeded model token limit",
        Tokens,
        After(&["exceeded model token limit"]),
        After(&["requested"]),
    ),
    // Alibaba DashScope: "Range of input length should be [1, 30720]".
    rule(
        "range of input length should be",
        Tokens,
        After(&["should be [1,"]),
        Unstated,
    ),
    // Hugging Face TGI, Together: "`inputs` tokens + `max_new_tokens` must be <= 8192. Given:
    // 7800 `inputs` tokens and 1024 `max_new_tokens`".
    rule(
        "`inputs` tokens + `max_new_tokens` must be",
        Tokens,
        After(&["must be <="]),
        Sum(&["given:", "`inputs` tokens and"]),
    ),
    // Hugging Face TGI and TEI: "`inputs` must have less than 4096 tokens. Given: 5120".
    rule(
        "`inputs` must have less than",
        Tokens,
        After(&["`inputs` must have less than"]),
        After(&["given:"]),
    ),
    // llama.cpp server: `"type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192`.
    rule(
        "exceed_context_size_error",
        Tokens,
        Field("\"n_ctx"),
        Field("\"n_prompt_tokens"),
    ),
    // llama.cpp server, message only: "request (41533 tokens) exceeds the available context
    // size (32768 tokens)".
    tokens(
        "request (",
        After(&["available context size"]),
        After(&["request ("]),
    ),
    // vLLM: "The decoder prompt (length 12324) is longer than the maximum model length of
    // 8192." (and "The encoder prompt ...").
    rule(
        "prompt (length",
        Tokens,
        After(&["maximum model length of"]),
        After(&["prompt (length"]),
    ),
    // oMLX: "Prompt too long: 41066 tokens exceeds max context window of 32768 tokens".
    tokens(
        "prompt too long:",
        After(&["context window of"]),
        After(&["prompt too long:"]),
    ),
    // llama-cpp-python: "Requested tokens (9437) exceed context window of 8192".
    rule(
        "requested tokens (",
        Tokens,
        After(&["context window of"]),
        After(&["requested tokens ("]),
    ),
    // DS4 server: "Prompt has 256468 tokens, but the configured context size is 256000 tokens".
    tokens(
        "prompt has",
        After(&["configured context size is"]),
        After(&["prompt has"]),
    ),
    // DS4 server: "Prompt tokens (9000) exceeds context size (8192)".
    rule(
        "prompt tokens (",
        Tokens,
        After(&["exceeds context size"]),
        After(&["prompt tokens ("]),
    ),
    // SambaNova: "... The provided prompt is 4309 tokens long, so generating 1 tokens requires
    // a sequence length of 4310, but the maximum supported sequence length is just 4096!": the
    // sequence is the prompt and the generation, what the limit is compared with.
    rule(
        "requires a sequence length of",
        Tokens,
        After(&["maximum supported sequence length is just"]),
        After(&["requires a sequence length of"]),
    ),
    // SiliconFlow: "length of prompt_tokens (163280) must be less than max_seq_len (32768)."
    rule(
        "length of prompt_tokens",
        Tokens,
        After(&["max_seq_len"]),
        After(&["length of prompt_tokens"]),
    ),
    // LM Studio: "Trying to keep the first 14538 tokens when context the overflows. However,
    // the model is loaded with context length of only 2048 tokens".
    rule(
        "trying to keep the first",
        Tokens,
        After(&["context length of only"]),
        After(&["keep the first"]),
    ),
    // LM Studio: "Reached context length of 32000 tokens with model (arch: gpt-oss) that does
    // not currently support mid-generation context overflow": the window, and no request.
    tokens(
        "reached context length of",
        After(&["reached context length of"]),
        Unstated,
    ),
    // Cerebras: "Please reduce the length of the messages or completion. Current length is
    // 42328 while limit is 40000".
    rule(
        "current length is",
        Tokens,
        After(&["while limit is"]),
        After(&["current length is"]),
    ),
    // AWS Bedrock (Titan): "Too many input tokens. Max input tokens: 8192, request input
    // tokens: 9214".
    rule(
        "max input tokens",
        Tokens,
        After(&["max input tokens"]),
        After(&["request input tokens"]),
    ),
    // TensorRT-LLM: "Prompt length (9000) exceeds maximum input length (8192)." and "Prompt
    // length + number of draft tokens (9000 + 4) exceeds maximum input length (8192)." (the
    // request is both). Before the rule below, which would read the limit as the request.
    rule(
        "prompt length",
        Tokens,
        After(&["maximum input length"]),
        FirstOf(&[Sum(&["draft tokens", "+"]), After(&["prompt length"])]),
    ),
    // AWS Bedrock: "Input length 140012 exceeds the model limit of 131072"; OpenAI-compatible
    // servers: "Input length (265330) exceeds model's maximum context length (262144)." and
    // "Requested input length 600010 exceeds maximum input length 131071"; Poolside (through
    // OpenRouter): "Input length 131393 exceeds the maximum allowed input length of 131040
    // tokens." Never from "maximum input length N": that number is the limit.
    Rule {
        not_after: &["maximum ", "max ", "allowed "],
        ..rule(
            "input length",
            Tokens,
            After(&[
                "model limit of",
                "maximum context length",
                "maximum allowed input length of",
                "maximum input length",
            ]),
            After(&["input length"]),
        )
    },
    // OpenAI, Groq: "Request too large for gpt-4o in organization org-x on tokens per min
    // (TPM): Limit 30000, Requested 45000." (a request bigger than the per-minute budget).
    rule(
        "on tokens per min",
        Tokens,
        After(&["limit"]),
        After(&["requested"]),
    ),
    // --- Characters ---
    // OpenAI: "string too long. Expected a string with maximum length 10485760, but got a
    // string with length 12000000 instead."
    rule(
        "string too long",
        Characters,
        After(&["maximum length"]),
        After(&["with length"]),
    ),
    // AWS Bedrock: "Malformed input request: expected maxLength: 42000, actual: 46735".
    rule(
        "expected maxlength",
        Characters,
        After(&["expected maxlength"]),
        After(&["actual"]),
    ),
    // --- Bytes ---
    // OpenAI: "Maximum content size limit (26214400) exceeded (26358048 bytes read)": the limit
    // has no unit word of its own, the phrase names it.
    rule(
        "maximum content size limit",
        SizeUnit::Bytes,
        After(&["maximum content size limit"]),
        After(&["exceeded"]),
    ),
    // Gemini: "Request payload size exceeds the limit: 20971520 bytes."
    bytes(
        "payload size exceeds the limit",
        After(&["payload size exceeds the limit"]),
        Unstated,
    ),
    // AWS API Gateway: "HTTP content length exceeded 10485760 bytes."
    bytes(
        "content length exceeded",
        After(&["content length exceeded"]),
        Unstated,
    ),
    // AWS Lambda: "Request must be smaller than 6291456 bytes for the InvokeFunction operation".
    bytes(
        "request must be smaller than",
        After(&["request must be smaller than"]),
        Unstated,
    ),
    // ASP.NET Kestrel: "Request body too large. The max request body size is 30000000 bytes."
    bytes(
        "max request body size is",
        After(&["max request body size is"]),
        Unstated,
    ),
    // Generic gateways: "Maximum allowed size is 1048576 bytes per request."
    bytes(
        "maximum allowed size is",
        After(&["maximum allowed size is"]),
        Unstated,
    ),
    // Alibaba DashScope: "Exceeded limit on max bytes to request body : 6291456": the phrase
    // names the unit.
    rule(
        "max bytes to request body",
        SizeUnit::Bytes,
        After(&["max bytes to request body"]),
        Unstated,
    ),
];

/// Classify an HTTP error response: `Some` when a provider or proxy rejected the request for its
/// size, with the limit and the request's size when the body states them.
///
/// - `status < 400` is never an error, whatever the body says: `None`.
/// - `413` is always [`OverflowKind::RequestTooLarge`], whatever the body (JSON, HTML page of
///   a proxy, empty). Its sizes are read like any other body's: in bytes only when the body
///   says bytes, in tokens when it counts tokens (Groq sends its TPM rejection as a 413).
/// - Any other status is decided by the body alone, matched ASCII case-insensitively against
///   known provider messages: token overflows give [`OverflowKind::ContextLengthExceeded`],
///   byte-size rejections [`OverflowKind::RequestTooLarge`], anything else `None`.
///
/// Deliberate decisions:
///
/// - **OpenAI / Groq TPM.** "Request too large for gpt-4o in organization org-x on tokens per
///   min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced in
///   order to run successfully." arrives as a 429 with code `rate_limit_exceeded`, yet waiting
///   never helps: the one request is larger than the whole per-minute budget. Shedding input
///   does, so it is [`OverflowKind::RequestTooLarge`] with `limit` 30000, `requested` 45000,
///   unit [`SizeUnit::Tokens`]. The ordinary "Rate limit reached ... Used 28000, Requested
///   4000" stays `None`.
/// - **Output budget alone.** Parameter errors about `max_tokens` alone (OpenAI "max_tokens is
///   too large: 100000. This model supports at most 16384 completion tokens", Anthropic
///   "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens",
///   Bedrock "The maximum tokens you requested exceeds the model limit") are `None`: shrinking
///   the prompt cannot fix them. Input plus `max_tokens` over the context window (Anthropic
///   "exceed context limit", vLLM, TGI) is a context overflow: shedding input fixes it.
/// - **Rate limits, quotas, auth, overloads and server errors** are `None`, even when they count
///   tokens (Anthropic `rate_limit_error`, Gemini `RESOURCE_EXHAUSTED`).
///
/// Runs in time linear in `body.len()`, allocates at most one lowercase copy of the body, and
/// never panics, whatever the input.
pub fn classify(status: u16, body: &str) -> Option<Overflow> {
    if status < 400 {
        return None;
    }
    // One lowercase copy for all patterns and rules; none at all when the body has no ASCII
    // uppercase. ASCII lowercasing keeps UTF-8 valid and never changes the length.
    let lower: Cow<'_, str> = if body.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(body.to_ascii_lowercase())
    } else {
        Cow::Borrowed(body)
    };
    let kind = if status == 413 {
        OverflowKind::RequestTooLarge
    } else {
        matching_pattern(&lower)?.kind
    };
    let sizes = stated_sizes(lower.as_bytes());
    Some(Overflow {
        kind,
        limit: sizes.limit,
        requested: sizes.requested,
        unit: sizes.unit,
    })
}

/// The first pattern of [`PATTERNS`] found in the lowercased body, if any.
fn matching_pattern(lower: &str) -> Option<&'static Pattern> {
    PATTERNS.iter().find(|p| {
        contains_in_order(lower, p.parts) && !p.unless.iter().any(|word| lower.contains(word))
    })
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

/// The numbers a body states, and their unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Sizes {
    limit: Option<u64>,
    requested: Option<u64>,
    unit: Option<SizeUnit>,
}

/// The sizes stated by the lowercased body: those of the first rule of [`RULES`] that finds a
/// number, or none.
fn stated_sizes(hay: &[u8]) -> Sizes {
    RULES
        .iter()
        .find_map(|rule| read_rule(hay, rule))
        .unwrap_or_default()
}

/// The numbers of `rule` in `hay`, from the first of its anchors (at most [`MAX_ANCHORS`], none
/// right after its `not_after` words) after which it finds at least one.
fn read_rule(hay: &[u8], rule: &Rule) -> Option<Sizes> {
    memmem::find_iter(hay, rule.at.as_bytes())
        .filter(|&at| {
            !rule
                .not_after
                .iter()
                .any(|w| hay[..at].ends_with(w.as_bytes()))
        })
        .take(MAX_ANCHORS)
        .find_map(|at| {
            let window = at..hay.len().min(at.saturating_add(WINDOW));
            let limit = read_num(hay, window.clone(), rule.limit, rule.then);
            let requested = read_num(hay, window, rule.requested, rule.then);
            (limit.is_some() || requested.is_some()).then_some(Sizes {
                limit,
                requested,
                unit: Some(rule.unit),
            })
        })
}

/// One number of a rule, read from the `window` of `hay` (fields: from anywhere in `hay`).
fn read_num(
    hay: &[u8],
    window: std::ops::Range<usize>,
    num: Num,
    then: Option<&str>,
) -> Option<u64> {
    match num {
        Unstated => None,
        After(phrases) => phrases
            .iter()
            .find_map(|phrase| number_after_phrase(hay, window.clone(), phrase, then))
            .map(|(value, _)| value),
        Sum(phrases) => {
            let mut from = window.start;
            let mut total: u64 = 0;
            for phrase in phrases {
                let (value, end) = number_after_phrase(hay, from..window.end, phrase, then)?;
                total = total.checked_add(value)?;
                from = end;
            }
            Some(total)
        }
        Field(name) => number_after_phrase(hay, 0..hay.len(), name, then).map(|(value, _)| value),
        FirstOf(ways) => ways
            .iter()
            .find_map(|&way| read_num(hay, window.clone(), way, then)),
    }
}

/// The number right after the first occurrence of `phrase` in `hay[within]` that is followed by
/// one (see [`number_at`]), and the end of that number.
///
/// The phrase must lie inside `within`; the number may run past its end (a window never cuts a
/// number in two).
fn number_after_phrase(
    hay: &[u8],
    within: std::ops::Range<usize>,
    phrase: &str,
    then: Option<&str>,
) -> Option<(u64, usize)> {
    let start = within.start;
    let region = hay.get(within)?;
    memmem::find_iter(region, phrase.as_bytes())
        .find_map(|at| number_at(hay, start + at + phrase.len(), then))
}

/// Bytes that may stand between a phrase and its number: spaces, and the punctuation of
/// `key: N`, `key=N`, `(N)`, `[N`, `"key":N`, `\"key\":N` (JSON inside a JSON string) and
/// `` `N` ``.
fn is_gap(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b':' | b'=' | b'(' | b'[' | b'"' | b'\'' | b'`' | b'\\'
    )
}

/// At most this many gap bytes between a phrase and its number.
const MAX_GAP: usize = 4;

/// The whole number that starts at `at`, past at most [`MAX_GAP`] gap bytes, and its end; see
/// [`parse_count`]. With `then`, the number must be followed by that word ("bytes").
fn number_at(hay: &[u8], at: usize, then: Option<&str>) -> Option<(u64, usize)> {
    let gap = hay
        .get(at..)?
        .iter()
        .take(MAX_GAP)
        .take_while(|&&b| is_gap(b))
        .count();
    let (value, end) = parse_count(hay, at + gap)?;
    match then {
        Some(word) if !followed_by_word(hay, end, word) => None,
        _ => Some((value, end)),
    }
}

/// More digits than this cannot be a `u64`.
const MAX_DIGITS: usize = 20;

/// A whole count written at `start` of the lowercased `hay`: ASCII digits, optionally grouped by
/// thousands separators (`128,000`, `1,048,576`). Returns the value and the end of its text.
///
/// `None` when the text there is not a count in the rule's unit: no digit; a value beyond `u64`;
/// a malformed grouping (`1,2345`, `30000,45000`); a decimal (`4.2`); a number glued to a
/// word or an underscore (`128k`, `1mb`, `0x1f`, `10_000`); a scale word after it (`1 mb`,
/// `2 million`). Never reads more than a few bytes past the number.
fn parse_count(hay: &[u8], start: usize) -> Option<(u64, usize)> {
    let digits_at = |from: usize| -> usize {
        hay.get(from..).map_or(0, |s| {
            s.iter()
                .take(MAX_DIGITS + 1)
                .take_while(|b| b.is_ascii_digit())
                .count()
        })
    };
    let first = digits_at(start);
    if first == 0 || first > MAX_DIGITS {
        return None;
    }
    let mut end = start + first;
    if first <= 3 {
        while hay.get(end) == Some(&b',') && digits_at(end + 1) == 3 {
            end += 4;
            if end - start > 2 * MAX_DIGITS {
                return None;
            }
        }
    }
    match hay.get(end) {
        // A grouping that does not fit the rules above.
        Some(b',') if hay.get(end + 1).is_some_and(u8::is_ascii_digit) => return None,
        Some(b'.') if hay.get(end + 1).is_some_and(u8::is_ascii_digit) => return None,
        Some(&b) if b.is_ascii_alphanumeric() || b == b'_' => return None,
        _ => {}
    }
    if scaled(hay, end) {
        return None;
    }
    let mut value: u64 = 0;
    for &b in hay.get(start..end)? {
        if b.is_ascii_digit() {
            value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        }
    }
    Some((value, end))
}

/// Words that scale the number before them: such a size is not a count of its unit.
const SCALES: &[&str] = &[
    "k",
    "kb",
    "kib",
    "m",
    "mb",
    "mib",
    "g",
    "gb",
    "gib",
    "t",
    "tb",
    "tib",
    "kilobytes",
    "megabytes",
    "gigabytes",
    "thousand",
    "million",
    "billion",
];

/// Whether the word after `end` (past one space) scales the number that ends there.
fn scaled(hay: &[u8], end: usize) -> bool {
    let from = if hay.get(end) == Some(&b' ') {
        end + 1
    } else {
        end
    };
    let word = word_at(hay, from);
    !word.is_empty() && SCALES.iter().any(|s| s.as_bytes() == word)
}

/// Whether `word` follows `end`, past one space, as a whole word.
fn followed_by_word(hay: &[u8], end: usize, word: &str) -> bool {
    let from = if hay.get(end) == Some(&b' ') {
        end + 1
    } else {
        end
    };
    word_at(hay, from) == word.as_bytes()
}

/// The run of ASCII letters at `from` (at most 16 of them: no unit word is longer).
fn word_at(hay: &[u8], from: usize) -> &[u8] {
    let rest = hay.get(from..).unwrap_or_default();
    let len = rest
        .iter()
        .take(17)
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    rest.get(..len).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use OverflowKind::{ContextLengthExceeded as Ctx, RequestTooLarge as Big};
    use serde_json::Value;

    /// One `classify` step of the shared vectors.
    struct Step {
        /// `file.json#index`, for messages.
        at: String,
        status: u16,
        body: String,
        expect: Option<Overflow>,
    }

    /// A text argument of a vector: a plain string or a `{"gen": [...]}` generator (README of
    /// `tests/vectors`).
    fn vector_text(value: &Value) -> String {
        if let Some(text) = value.as_str() {
            return text.to_owned();
        }
        let segments = value["gen"].as_array().expect("a string or a generator");
        let mut out = String::new();
        for seg in segments {
            if let Some(text) = seg.get("text") {
                let times = seg.get("times").and_then(Value::as_u64).unwrap_or(1);
                for _ in 0..times {
                    out.push_str(text.as_str().expect("text"));
                }
            } else {
                let template = seg["lines"].as_str().expect("text or lines");
                let from = seg.get("from").and_then(Value::as_u64).unwrap_or(1);
                let count = seg["count"].as_u64().expect("count");
                for n in from..from + count {
                    out.push_str(&template.replace("{n}", &n.to_string()));
                    out.push('\n');
                }
            }
        }
        out
    }

    fn kind_of(name: &str) -> OverflowKind {
        match name {
            "request-too-large" => Big,
            "context-length-exceeded" => Ctx,
            other => panic!("unknown kind {other:?}"),
        }
    }

    fn unit_of(name: &str) -> SizeUnit {
        match name {
            "tokens" => Tokens,
            "bytes" => SizeUnit::Bytes,
            "characters" => Characters,
            other => panic!("unknown unit {other:?}"),
        }
    }

    /// Every `classify` step of `tests/vectors/classify-*.json`, with its expectation in full.
    ///
    /// A step that expects an overflow must state all four fields (`kind`, `limit`,
    /// `requested`, `unit`), so that the corpus pins every number; one that expects none
    /// states `{"kind": null}` alone.
    fn vector_steps() -> Vec<Step> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect("the shared vectors folder")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                name.starts_with("classify-") && name.ends_with(".json")
            })
            .collect();
        paths.sort();
        let mut steps = Vec::new();
        for path in paths {
            let file = path.file_name().unwrap_or_default().to_string_lossy();
            let text = std::fs::read_to_string(&path).expect("a readable vector");
            let doc: Value = serde_json::from_str(&text).expect("a JSON vector");
            assert_eq!(
                Some(file.trim_end_matches(".json")),
                doc["name"].as_str(),
                "{file}: name"
            );
            for (i, step) in doc["steps"].as_array().expect("steps").iter().enumerate() {
                let at = format!("{file}#{i}");
                assert_eq!(
                    step["op"], "classify",
                    "{at}: a classify file has classify steps"
                );
                let status = u16::try_from(step["status"].as_u64().expect("status")).expect("u16");
                let body = vector_text(&step["body"]);
                let e = step["expect"].as_object().expect("expect");
                let expect = match e.get("kind").expect("expect.kind") {
                    Value::Null => {
                        assert_eq!(
                            e.len(),
                            1,
                            "{at}: a non-overflow expects {{\"kind\": null}}"
                        );
                        None
                    }
                    kind => {
                        assert_eq!(e.len(), 4, "{at}: kind, limit, requested and unit");
                        let num = |key: &str| match &e[key] {
                            Value::Null => None,
                            n => Some(n.as_u64().expect("a count")),
                        };
                        Some(Overflow {
                            kind: kind_of(kind.as_str().expect("kind")),
                            limit: num("limit"),
                            requested: num("requested"),
                            unit: e["unit"].as_str().map(unit_of),
                        })
                    }
                };
                steps.push(Step {
                    at,
                    status,
                    body,
                    expect,
                });
            }
        }
        steps
    }

    #[test]
    fn classify_meets_every_shared_vector() {
        let steps = vector_steps();
        let failures: Vec<String> = steps
            .iter()
            .filter_map(|s| {
                let got = classify(s.status, &s.body);
                (got != s.expect).then(|| format!("{}: got {got:?}, expected {:?}", s.at, s.expect))
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn the_shared_vectors_are_a_real_corpus() {
        let steps = vector_steps();
        let count =
            |f: &dyn Fn(&Option<Overflow>) -> bool| steps.iter().filter(|s| f(&s.expect)).count();
        let ctx = count(&|e| e.is_some_and(|o| o.kind == Ctx));
        let big = count(&|e| e.is_some_and(|o| o.kind == Big));
        let negatives = count(&|e| e.is_none());
        let with_numbers = count(&|e| e.is_some_and(|o| o.unit.is_some()));
        let without = count(&|e| e.is_some_and(|o| o.unit.is_none()));
        assert!(steps.len() >= 180, "only {} classify steps", steps.len());
        assert!(negatives >= 60, "only {negatives} negatives");
        assert!(ctx >= 60 && big >= 35, "ctx {ctx}, big {big}");
        assert!(
            with_numbers >= 60 && without >= 20,
            "numbers {with_numbers}, none {without}"
        );
        for unit in [Tokens, SizeUnit::Bytes, Characters] {
            let n = count(&|e| e.is_some_and(|o| o.unit == Some(unit)));
            assert!(n >= 2, "{unit:?}: {n}");
        }
    }

    #[test]
    fn every_pattern_is_exercised_by_the_shared_vectors() {
        // No dead entries: each pattern must occur in a real body expected to be of its kind.
        let steps = vector_steps();
        for p in PATTERNS {
            let hit = steps.iter().any(|s| {
                s.expect.is_some_and(|o| o.kind == p.kind)
                    && contains_in_order(&s.body.to_ascii_lowercase(), p.parts)
            });
            assert!(hit, "no vector exercises {:?}", p.parts);
        }
    }

    #[test]
    fn every_rule_decides_the_numbers_of_a_shared_vector() {
        // No dead rules, and none shadowed by an earlier one: each rule must be the first to
        // find the numbers of at least one real body, and find exactly the expected ones.
        let steps = vector_steps();
        for (i, rule) in RULES.iter().enumerate() {
            let decides = steps.iter().any(|s| {
                let lower = s.body.to_ascii_lowercase();
                let hay = lower.as_bytes();
                let first = RULES.iter().position(|r| read_rule(hay, r).is_some());
                first == Some(i)
                    && s.expect.is_some_and(|o| {
                        read_rule(hay, rule)
                            == Some(Sizes {
                                limit: o.limit,
                                requested: o.requested,
                                unit: o.unit,
                            })
                    })
            });
            assert!(decides, "no vector is decided by the rule at {:?}", rule.at);
        }
    }

    #[test]
    fn no_pattern_is_shadowed_by_one_of_the_other_kind() {
        // An earlier pattern of the other kind must not catch the bare phrase of a later one.
        for p in PATTERNS {
            let phrase = p.parts.join(" ... ");
            assert_eq!(
                classify(400, &phrase).map(|o| o.kind),
                Some(p.kind),
                "{phrase:?}"
            );
        }
    }

    #[test]
    fn every_phrase_is_lowercase_ascii_and_non_empty() {
        let lowercase =
            |s: &str| !s.is_empty() && s.is_ascii() && !s.bytes().any(|b| b.is_ascii_uppercase());
        for p in PATTERNS {
            assert!(!p.parts.is_empty());
            for part in p.parts {
                assert!(
                    lowercase(part),
                    "pattern part {part:?} would never match the lowercased body"
                );
            }
        }
        for rule in RULES {
            assert!(lowercase(rule.at), "{:?}", rule.at);
            assert!(rule.then.is_none_or(lowercase), "{:?}", rule.then);
            for num in [rule.limit, rule.requested] {
                check_num(num, rule.at, &lowercase);
            }
        }
    }

    fn check_num(num: Num, at: &str, lowercase: &dyn Fn(&str) -> bool) {
        match num {
            Unstated => {}
            After(phrases) | Sum(phrases) => {
                assert!(!phrases.is_empty(), "{at:?}");
                assert!(phrases.iter().all(|p| lowercase(p)), "{phrases:?}");
            }
            Field(name) => assert!(lowercase(name) && name.starts_with('"'), "{name:?}"),
            FirstOf(ways) => {
                assert!(ways.len() > 1, "{at:?}");
                for &way in ways {
                    check_num(way, at, lowercase);
                }
            }
        }
    }

    /// The sizes `classify(400, body)` reads, for a body some pattern recognises.
    fn sizes(body: &str) -> (Option<u64>, Option<u64>, Option<SizeUnit>) {
        let o = classify(400, body).expect("an overflow");
        (o.limit, o.requested, o.unit)
    }

    #[test]
    fn status_rules_override_the_body() {
        for status in [0, 100, 200, 204, 301, 399] {
            assert_eq!(
                classify(status, "prompt is too long: 9 tokens > 8 maximum"),
                None,
                "{status}"
            );
        }
        let bare = Overflow {
            kind: Big,
            limit: None,
            requested: None,
            unit: None,
        };
        assert_eq!(classify(413, ""), Some(bare));
        assert_eq!(classify(413, "all good"), Some(bare));
        // A 413 keeps its kind, and reads the numbers the body states, in their own unit.
        assert_eq!(
            classify(413, "prompt is too long: 9 tokens > 8 maximum"),
            Some(Overflow {
                kind: Big,
                limit: Some(8),
                requested: Some(9),
                unit: Some(Tokens),
            })
        );
        for status in [400, 422, 429, 500, 599, 600, u16::MAX] {
            let got = classify(status, "prompt is too long: 9 tokens > 8 maximum");
            assert_eq!(got.map(|o| o.kind), Some(Ctx), "{status}");
            assert_eq!(
                classify(status, "Payload Too Large"),
                Some(bare),
                "{status}"
            );
            assert_eq!(classify(status, "all good"), None, "{status}");
        }
    }

    #[test]
    fn parts_must_appear_in_order() {
        let vertex = "input token count is 9 but model only supports up to 8";
        assert_eq!(classify(400, vertex).map(|o| o.kind), Some(Ctx));
        let reversed = "model only supports up to 8; input token count is 9";
        assert_eq!(classify(400, reversed), None);
        let bedrock_reversed = "input length is fine. ValidationException: bad model id";
        assert_eq!(classify(400, bedrock_reversed), None);
    }

    #[test]
    fn case_insensitive() {
        assert_eq!(
            sizes("PROMPT IS TOO LONG: 9 TOKENS > 8 MAXIMUM"),
            (Some(8), Some(9), Some(Tokens))
        );
        assert_eq!(
            classify(
                400,
                "Request Payload Size Exceeds The Limit: 20971520 BYTES"
            ),
            Some(Overflow {
                kind: Big,
                limit: Some(20_971_520),
                requested: None,
                unit: Some(SizeUnit::Bytes),
            })
        );
        assert_eq!(
            classify(400, "CoNtExT_LeNgTh_ExCeEdEd").map(|o| o.kind),
            Some(Ctx)
        );
    }

    #[test]
    fn token_wording_wins_over_byte_wording() {
        let both = "request too large: prompt is too long: 9 tokens > 8 maximum";
        assert_eq!(classify(400, both).map(|o| o.kind), Some(Ctx));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(
            sizes("prompt is too long: 210,384 tokens > 200,000 maximum"),
            (Some(200_000), Some(210_384), Some(Tokens))
        );
        assert_eq!(
            sizes(
                "This model's maximum context length is 1,048,576 tokens. However, your messages resulted in 1,205,312 tokens."
            ),
            (Some(1_048_576), Some(1_205_312), Some(Tokens))
        );
        assert_eq!(
            classify(413, "HTTP content length exceeded 10,485,760 bytes.").and_then(|o| o.limit),
            Some(10_485_760)
        );
        // Groups must be of three digits, after a head of one to three.
        for bad in ["1,2345", "1,23", "30000,45000", "1234,567", "12,345,67"] {
            let body = format!("prompt is too long: {bad} tokens > 8 maximum");
            assert_eq!(sizes(&body), (Some(8), None, Some(Tokens)), "{bad}");
        }
        // A comma that ends a number is punctuation, not a separator.
        assert_eq!(
            sizes("The prompt is too long: 40000, model maximum context length: 32768"),
            (Some(32_768), Some(40_000), Some(Tokens))
        );
        assert_eq!(
            sizes("Range of input length should be [1, 30720]"),
            (Some(30_720), None, Some(Tokens))
        );
    }

    #[test]
    fn several_numbers_in_one_body() {
        // The total, not either of its parts.
        let openai = "This model's maximum context length is 4097 tokens. However, you requested \
                      4358 tokens (3358 in the messages, 1000 in the completion).";
        assert_eq!(sizes(openai), (Some(4097), Some(4358), Some(Tokens)));
        // A sum the body spells out.
        let anthropic = "input length and `max_tokens` exceed context limit: 187254 + 20000 > 200000, \
                         decrease input length or `max_tokens` and try again";
        assert_eq!(
            sizes(anthropic),
            (Some(200_000), Some(207_254), Some(Tokens))
        );
        // Only one of the two stated.
        assert_eq!(
            sizes(
                "This model's maximum context length is 8192 tokens. Please reduce the length of the messages."
            ),
            (Some(8192), None, Some(Tokens))
        );
        assert_eq!(
            sizes("too many tokens: size limit exceeded by 11296 tokens."),
            (None, None, None)
        );
        // The same message twice: the first one's numbers.
        let twice =
            "prompt is too long: 9 tokens > 8 maximum; prompt is too long: 99 tokens > 88 maximum";
        assert_eq!(sizes(twice), (Some(8), Some(9), Some(Tokens)));
    }

    #[test]
    fn a_maximum_input_length_is_never_read_as_the_request() {
        // "input length" inside "maximum input length" starts no request: the number after it
        // is the limit, which a rule reads only after the words that name it.
        let limit_only = "Input exceeds maximum input length (8192)";
        assert_eq!(sizes(limit_only), (None, None, None));
        let later = "Input exceeds maximum input length (8192): input length 9000";
        assert_eq!(sizes(later), (None, Some(9000), Some(Tokens)));
        let trt = "Prompt length (9000) exceeds maximum input length (8192).";
        assert_eq!(sizes(trt), (Some(8192), Some(9000), Some(Tokens)));
    }

    #[test]
    fn numbers_in_unrelated_places_are_ignored() {
        // Ids, timestamps, status codes and URLs around the message.
        let body = r#"{"request_id":"req_0123456789","created":1717171717,"code":400,"error":{"message":"prompt is too long: 210384 tokens > 200000 maximum","docs":"https://x.example/v1/2048"}}"#;
        assert_eq!(sizes(body), (Some(200_000), Some(210_384), Some(Tokens)));
        // A number not right after its phrase is not its number.
        let far = "This model's maximum context length is, per request 123456, 8192 tokens.";
        assert_eq!(sizes(far), (None, None, None));
        let gap = "This model's maximum context length is      128000 tokens.";
        assert_eq!(sizes(gap), (None, None, None));
        // A phrase far beyond the anchor's window does not count.
        let late = format!(
            "This model's maximum context length is unknown.{}you requested 9000 tokens",
            " ".repeat(WINDOW)
        );
        assert_eq!(sizes(&late), (None, None, None));
        // A request id right where a number is expected.
        let id = "prompt is too long: req_5f3a > 200000 maximum";
        assert_eq!(sizes(id), (Some(200_000), None, Some(Tokens)));
        // A number glued to the phrase's next word, or to a unit it does not count in.
        assert_eq!(
            classify(500, "Error: Body exceeded 1 MB limit.").and_then(|o| o.unit),
            None
        );
        assert_eq!(
            classify(500, "Error: Body exceeded 1mb limit.").and_then(|o| o.unit),
            None
        );
        assert_eq!(
            classify(413, "HTTP content length exceeded 10 MB.").and_then(|o| o.unit),
            None
        );
        // "bytes" rules want the word "bytes".
        assert_eq!(
            classify(413, "HTTP content length exceeded 10485760.").and_then(|o| o.unit),
            None
        );
        assert_eq!(
            classify(400, "prompt is too long: 128k tokens > 200000 maximum")
                .and_then(|o| o.requested),
            None
        );
        assert_eq!(
            classify(400, "prompt is too long: 2 million tokens > 200000 maximum")
                .and_then(|o| o.requested),
            None
        );
        assert_eq!(
            classify(400, "prompt is too long: 4.2 tokens > 200000 maximum")
                .and_then(|o| o.requested),
            None
        );
        assert_eq!(
            classify(400, "prompt is too long: -5 tokens > 8 maximum").and_then(|o| o.requested),
            None
        );
        // Digits of other scripts are not counts.
        assert_eq!(
            classify(400, "prompt is too long: ١٢٣ tokens > ８ maximum").and_then(|o| o.unit),
            None
        );
    }

    #[test]
    fn numbers_too_large_for_u64_give_none() {
        let max = u64::MAX;
        assert_eq!(
            sizes(&format!("prompt is too long: {max} tokens > 8 maximum")),
            (Some(8), Some(max), Some(Tokens))
        );
        for huge in [
            "18446744073709551616",
            "18,446,744,073,709,551,616",
            "99999999999999999999999999999999",
        ] {
            let body = format!("prompt is too long: {huge} tokens > 200000 maximum");
            assert_eq!(sizes(&body), (Some(200_000), None, Some(Tokens)), "{huge}");
        }
        // A run of digits longer than the window: read no further than a u64 can need.
        let endless = format!(
            "prompt is too long: {} tokens > 200000 maximum",
            "9".repeat(1 << 20)
        );
        assert_eq!(sizes(&endless), (None, None, None));
        // A sum beyond u64 is no sum.
        let sum = format!("exceed context limit: {max} + 1 > 200000");
        assert_eq!(sizes(&sum), (Some(200_000), None, Some(Tokens)));
        // Leading zeros are still the number.
        assert_eq!(
            sizes("prompt is too long: 00042 tokens > 8 maximum").1,
            Some(42)
        );
    }

    #[test]
    fn json_fields_in_any_order_and_escaped() {
        let llama = r#"{"error":{"n_ctx":8192,"n_prompt_tokens":9000,"type":"exceed_context_size_error","message":"context overflow"}}"#;
        assert_eq!(sizes(llama), (Some(8192), Some(9000), Some(Tokens)));
        // The field inside a JSON string (a gateway's `raw` of the upstream body).
        let wrapped = r#"{"error":{"message":"upstream","raw":"{\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":9000,\"n_ctx\":8192}"}}"#;
        assert_eq!(sizes(wrapped), (Some(8192), Some(9000), Some(Tokens)));
        // A field whose name starts with another's is not that field.
        let prefixed = r#"{"type":"exceed_context_size_error","n_ctx_train":131072,"n_ctx":8192}"#;
        assert_eq!(sizes(prefixed), (Some(8192), None, Some(Tokens)));
    }

    #[test]
    fn a_number_at_the_very_end_of_the_body() {
        assert_eq!(
            sizes("exceeded model token limit: 8192"),
            (Some(8192), None, Some(Tokens))
        );
        assert_eq!(sizes("exceeded model token limit: "), (None, None, None));
    }

    #[test]
    fn parse_count_agrees_with_std_on_random_counts() {
        // Oracle: `u64::from_str` on the digits, with and without separators, before any
        // terminator that ends a count; and no count when a letter, digit or decimal follows.
        let mut rng = Rng(crate::test_support::SplitMix::new(0x2545_f491_4f6c_dd1d));
        for _ in 0..20_000 {
            let v = match rng.below(4) {
                0 => rng.next() % 1000,
                1 => rng.next() % 10_000_000,
                _ => rng.next(),
            };
            let plain = v.to_string();
            let grouped = group_thousands(&plain);
            for text in [&plain, &grouped] {
                for tail in [
                    "", " ", ")", ".", ". ", ",", ", ", "\"", "}", " tokens", " bytes",
                ] {
                    let hay = format!("{text}{tail}");
                    assert_eq!(
                        parse_count(hay.as_bytes(), 0),
                        Some((v, text.len())),
                        "{hay:?}"
                    );
                }
                for tail in ["k", "a", "_", ".5", " mb", " kib", " million"] {
                    let hay = format!("{text}{tail}");
                    assert_eq!(parse_count(hay.as_bytes(), 0), None, "{hay:?}");
                }
            }
        }
    }

    fn group_thousands(digits: &str) -> String {
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    #[test]
    fn match_deep_inside_a_large_body() {
        // A near miss repeated over 2 MiB, then the real message at the very end.
        let filler = "prompt is too lon context deadline exceeded Request Too Larg é😀 1,2 ";
        let mut body = filler.repeat((2 << 20) / filler.len());
        assert_eq!(classify(400, &body), None);
        body.push_str("Prompt Is Too Long: 300000 tokens > 200000 maximum");
        assert_eq!(sizes(&body), (Some(200_000), Some(300_000), Some(Tokens)));
        // Anchors repeated without numbers: the rule gives up after a few, linear either way.
        let anchors = "maximum context length is unknown. ".repeat(100_000);
        assert_eq!(sizes(&anchors), (None, None, None));
    }

    /// The workspace's seeded generator.
    struct Rng(crate::test_support::SplitMix);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Random text mixing multi-byte characters, case-folding oddities (Kelvin sign, dotted I),
    /// JSON punctuation, digits, separators and fragments of real patterns and rules.
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
            "\u{fffd}",
            "0",
            "7",
            "128000",
            "18446744073709551616",
            ",000",
            ".5",
            "(",
            ">",
            "+",
            "too",
            "large",
            "context",
            "tokens",
            "bytes",
            "mb",
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
            "prompt is too long: ",
            "maximum context",
            "maximum context length is ",
            "you requested ",
            "payload size",
            "payload size exceeds the limit: ",
            "input token count",
            "\"n_ctx\":",
            "exceed_context_size_error",
            "request (",
            "on tokens per min (TPM): Limit ",
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
        let mut rng = Rng(crate::test_support::SplitMix::new(0x9e37_79b9_7f4a_7c15));
        for i in 0..3000 {
            let body = random_body(&mut rng, if i % 100 == 0 { 5000 } else { 60 });
            for status in [200, 400, 413, 500] {
                let got = classify(status, &body);
                if status < 400 {
                    assert_eq!(got, None, "success status classified: {body:?}");
                }
                if let Some(o) = got {
                    // A unit exactly when there is a number.
                    assert_eq!(
                        o.unit.is_some(),
                        o.limit.is_some() || o.requested.is_some(),
                        "{body:?}"
                    );
                }
                // ASCII case never matters, to the kind or to the numbers.
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
            assert_eq!(classify(413, &body).map(|o| o.kind), Some(Big));
            // A real message spliced into noise is always found, and so are its numbers when
            // nothing before it reads as an earlier message.
            let bounds: Vec<usize> = (0..=body.len())
                .filter(|&k| body.is_char_boundary(k))
                .collect();
            let at = bounds[rng.below(bounds.len())];
            let spliced_ctx = format!(
                "{} prompt is too long: 9 tokens > 8 maximum {}",
                &body[..at],
                &body[at..]
            );
            assert_eq!(
                classify(400, &spliced_ctx).map(|o| o.kind),
                Some(Ctx),
                "{spliced_ctx:?}"
            );
            let spliced_big = format!("{}Payload Too Large{}", &body[..at], &body[at..]);
            assert!(classify(500, &spliced_big).is_some(), "{spliced_big:?}");
        }
    }

    #[test]
    fn arbitrary_bytes_as_lossy_text_never_panic() {
        // Bodies that were not UTF-8 reach the host as lossy text: U+FFFD runs among digits.
        let mut rng = Rng(crate::test_support::SplitMix::new(0x0123_4567_89ab_cdef));
        for _ in 0..2000 {
            let len = rng.below(300);
            let bytes: Vec<u8> = (0..len)
                .map(|_| match rng.below(3) {
                    0 => b"0123456789,.:( >+"[rng.below(17)],
                    _ => rng.next() as u8,
                })
                .collect();
            let text = String::from_utf8_lossy(&bytes);
            for prefix in [
                "prompt is too long: ",
                "exceed context limit: ",
                "\"n_ctx\":",
                "",
            ] {
                let body = format!("exceed_context_size_error {prefix}{text}");
                let got = classify(400, &body).expect("a llama.cpp overflow");
                assert_eq!(
                    got.unit.is_some(),
                    got.limit.is_some() || got.requested.is_some()
                );
            }
        }
    }
}
