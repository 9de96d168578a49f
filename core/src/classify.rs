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
//!
//! The real bodies behind the table, and the near misses it must not catch, are the shared
//! vectors `tests/vectors/classify-*.json`, which the Rust, JS and Python hosts all run.

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

    /// The `classify` steps of the shared vectors `tests/vectors/classify-*.json`, each as its
    /// raw JSON text, lowercased.
    ///
    /// The corpus of real provider and proxy bodies lives there so that every host runs it. This
    /// crate has no JSON parser, and needs none to look for a phrase: no pattern part contains a
    /// character that JSON escapes, so a phrase of a body is a phrase of its step's text.
    fn vector_steps() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
        let mut steps = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("the shared vectors folder") {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with("classify") && name.ends_with(".json") {
                let text = std::fs::read_to_string(&path).expect("a readable vector");
                let lower = text.to_ascii_lowercase();
                steps.extend(
                    lower
                        .split(r#""op": "classify""#)
                        .skip(1)
                        .map(str::to_owned),
                );
            }
        }
        steps
    }

    fn expects(step: &str, kind: Option<OverflowKind>) -> bool {
        step.contains(match kind {
            Some(Ctx) => r#""kind": "context-length-exceeded""#,
            Some(Big) => r#""kind": "request-too-large""#,
            None => r#""kind": null"#,
        })
    }

    #[test]
    fn the_shared_vectors_are_a_real_corpus() {
        let steps = vector_steps();
        let count = |kind| steps.iter().filter(|s| expects(s, kind)).count();
        let (ctx, big, negatives) = (count(Some(Ctx)), count(Some(Big)), count(None));
        assert_eq!(ctx + big + negatives, steps.len(), "a step without a kind");
        assert!(steps.len() >= 100, "only {} classify steps", steps.len());
        assert!(negatives >= 40, "only {negatives} negatives");
        assert!(ctx >= 30 && big >= 20, "ctx {ctx}, big {big}");
    }

    #[test]
    fn every_pattern_is_exercised_by_the_shared_vectors() {
        // No dead entries: each pattern must occur in a real body expected to be of its kind.
        let steps = vector_steps();
        for p in PATTERNS {
            let hit = steps
                .iter()
                .any(|s| expects(s, Some(p.kind)) && contains_in_order(s, p.parts));
            assert!(hit, "no vector exercises {:?}", p.parts);
        }
    }

    #[test]
    fn no_pattern_is_shadowed_by_one_of_the_other_kind() {
        // An earlier pattern of the other kind must not catch the bare phrase of a later one.
        for p in PATTERNS {
            let phrase = p.parts.join(" ... ");
            assert_eq!(classify(400, &phrase), Some(p.kind), "{phrase:?}");
        }
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
                // `vector_steps` searches the JSON text, where these would be escaped.
                assert!(
                    !part.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20),
                    "pattern part {part:?} has a character that JSON escapes"
                );
            }
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
