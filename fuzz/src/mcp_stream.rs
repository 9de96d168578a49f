//! `McpStream` (WIT `stream-mcp`) against `cap_mcp` on the whole result:
//! any result shape around the streamed text, any raw string body (valid
//! JSON or not) cut anywhere. A body that is a JSON string's gives exactly
//! `cap_mcp`'s result and files, or the same failure; any other body is
//! refused by the stream, as the whole result is by `cap_mcp`.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::stream::MemoryWriter;
use toolcap_core::{
    Budget, Call, CapError, Capper, Keep, McpOptions, McpStream, PreviewSettings, RefScheme,
    SpillStore, cap::RedactionSettings, cap_mcp,
};

use crate::pieces::{Piece, bytes_of};

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    large_input: u8,
    /// The least valid `max-bytes` plus 4 times this.
    above_room: u8,
    max_line_bytes: Option<u16>,
    keep: u8,
    /// Redaction: off, on, on with the spill redacted.
    redact: Option<bool>,
    is_error: bool,
    link: bool,
    /// The streamed text is a resource's (else a text block's), at this
    /// place among the other blocks.
    resource: bool,
    at: u8,
    before: Option<&'a str>,
    after: Option<&'a str>,
    image: bool,
    /// A structured content of this many bytes.
    structured: Option<u16>,
    /// The body: the text's JSON escaping, or bytes as the fuzzer wrote
    /// them (mostly not a JSON string's body).
    raw_body: Option<&'a str>,
    /// The body is written over again 8 times this, and once.
    times: u8,
    pieces: Vec<Piece<'a>>,
    cuts: Vec<u16>,
}

/// Spills in memory.
#[derive(Default)]
struct MemStore(BTreeMap<String, Vec<u8>>);

impl SpillStore for MemStore {
    fn save(&mut self, thread_dir: &str, file_name: &str, content: &[u8]) -> Result<(), CapError> {
        self.0
            .insert(format!("{thread_dir}/{file_name}"), content.to_vec());
        Ok(())
    }
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpStreamPath {
    /// The text might not be cut: the stream refuses it.
    NotSureToBeCut,
    /// The same result as `cap_mcp`.
    Same,
    /// The same failure as `cap_mcp` (a budget too small).
    SameFailure,
    /// A body no JSON string has, refused.
    BadBody,
    /// With redaction, the texts fit once redacted.
    FitOnceRedacted,
}

/// Shape `data` into a result and a body, stream it and compare with
/// `cap_mcp` of the whole. Panics when they differ; `None` when `data` does
/// not shape into an input.
pub fn check_mcp_stream(data: &[u8]) -> Option<McpStreamPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).expect("valid scheme");
    let settings = PreviewSettings {
        redaction: input.redact.map(|spill| RedactionSettings {
            literals: vec!["hunter2-literal".into()],
            spill,
        }),
        ..PreviewSettings::default()
    };
    let mut capper = Capper::with_settings(scheme, settings).expect("valid settings");
    capper.set_large_input(64 + 2 * usize::from(input.large_input));
    let room = capper.room();
    let budget = Budget {
        max_bytes: room.bytes as u32 + 4 * u32::from(input.above_room),
        max_lines: None,
        max_line_bytes: input.max_line_bytes.map(u32::from),
        keep: [Keep::Head, Keep::Tail, Keep::HeadAndTail][usize::from(input.keep % 3)],
        head_percent: 50,
        max_tokens: None,
    };
    // Repeated up to about 256 KiB, so each run stays fast.
    let repeat =
        |s: &str| s.repeat((1 + 8 * usize::from(input.times)).min((256 << 10) / s.len().max(1)));
    let text = repeat(&String::from_utf8_lossy(&bytes_of(&input.pieces)));
    let body = match input.raw_body {
        Some(raw) => repeat(raw),
        None => {
            let quoted = serde_json::to_string(&text).expect("a string serializes");
            quoted[1..quoted.len() - 1].to_owned()
        }
    };
    if [input.before, input.after]
        .iter()
        .flatten()
        .any(|t| t.contains("streamed"))
    {
        return None;
    }
    let (json, block) = skeleton(&input);
    let skeleton = with_body(&json, "");
    let call = Call {
        is_error: input.is_error,
        ..Call::new("call-1")
    };
    let options = McpOptions {
        resource_link: input.link,
    };
    let (mut store, mut sink) = (MemStore::default(), MemoryWriter::default());
    let started = McpStream::new(
        &capper,
        skeleton,
        block,
        body.len() as u64,
        &budget,
        &call,
        options,
        &mut store,
        &mut sink,
    );
    let mut stream = match started {
        Ok(stream) => stream,
        Err(CapError::InvalidArgument(m)) if m.contains("sure to be cut") => {
            assert!(body.len() as u64 / 6 <= u64::from(budget.max_bytes));
            return Some(McpStreamPath::NotSureToBeCut);
        }
        Err(_) if !is_json_body(&body) => return Some(McpStreamPath::BadBody),
        Err(e) => {
            let whole = with_body(&json, &body);
            let expected = cap_mcp(
                &capper,
                whole,
                &budget,
                &call,
                options,
                &mut MemStore::default(),
            );
            assert_eq!(
                Some(e),
                expected.err(),
                "the stream failed at its start alone"
            );
            return Some(McpStreamPath::SameFailure);
        }
    };
    let mut from = 0;
    let mut written = Ok(());
    let mut cuts: Vec<usize> = input
        .cuts
        .iter()
        .map(|&c| usize::from(c) % (body.len() + 1))
        .collect();
    cuts.sort_unstable();
    for cut in cuts.into_iter().chain([body.len()]) {
        let mut cut = cut.max(from);
        while !body.is_char_boundary(cut) {
            cut += 1;
        }
        written = stream.write(&capper, &body[from..cut], &mut sink);
        from = cut;
        if written.is_err() {
            break;
        }
    }
    let got = written.and_then(|()| stream.finish(&capper, &mut sink, &mut store));
    if !is_json_body(&body) {
        let e = got.expect_err("a body no JSON string has is refused");
        assert!(matches!(e, CapError::InvalidArgument(_)), "{e:?}");
        return Some(McpStreamPath::BadBody);
    }
    let mut whole_store = MemStore::default();
    let whole = with_body(&json, &body);
    let expected = cap_mcp(&capper, whole, &budget, &call, options, &mut whole_store);
    match (got, expected) {
        (Ok(got), Ok(expected)) => {
            assert_eq!(got, expected);
            let mut saved: Vec<Vec<u8>> = whole_store.0.into_values().collect();
            let mut streamed: Vec<Vec<u8>> = store.0.into_values().collect();
            streamed.extend(sink.committed.into_iter().map(|(_, bytes)| bytes));
            saved.sort();
            streamed.sort();
            assert_eq!(saved, streamed, "the same files");
            Some(McpStreamPath::Same)
        }
        (Err(CapError::InvalidArgument(m)), Ok(expected)) if m.contains("once redacted") => {
            assert!(input.redact.is_some() && !expected.report.truncated);
            Some(McpStreamPath::FitOnceRedacted)
        }
        (got, expected) => {
            assert_eq!(got.err(), expected.err());
            Some(McpStreamPath::SameFailure)
        }
    }
}

/// The result's JSON with [`PLACE`] as the streamed text, and its block.
fn skeleton(input: &Input<'_>) -> (String, u32) {
    let mut blocks: Vec<serde_json::Value> = Vec::new();
    if let Some(t) = input.before {
        blocks.push(serde_json::json!({"type": "text", "text": t}));
    }
    if input.image {
        blocks.push(serde_json::json!({"type": "image", "data": "AA==", "mimeType": "image/png"}));
    }
    if let Some(t) = input.after {
        blocks.push(
            serde_json::json!({"type": "resource", "resource": {"uri": "file:///a", "text": t}}),
        );
    }
    let at = usize::from(input.at) % (blocks.len() + 1);
    let streamed = if input.resource {
        serde_json::json!({"type": "resource", "resource": {"uri": "file:///log", "text": "\u{1}streamed\u{1}"}})
    } else {
        serde_json::json!({"type": "text", "text": "\u{1}streamed\u{1}"})
    };
    blocks.insert(at, streamed);
    let mut result = serde_json::json!({"content": blocks, "isError": input.is_error});
    if let Some(n) = input.structured {
        result["structuredContent"] =
            serde_json::json!({"rows": "r".repeat(usize::from(n) % 4096)});
    }
    (result.to_string(), at as u32)
}

/// Whether `body` is the body of a JSON string.
fn is_json_body(body: &str) -> bool {
    serde_json::from_str::<String>(&format!("\"{body}\"")).is_ok()
}

/// The streamed text's place in [`skeleton`]'s JSON, as serde_json writes
/// it: no fuzzed text holds it (those that would are skipped).
const PLACE: &str = r"\u0001streamed\u0001";

/// The result's JSON with `body` (or nothing, for the skeleton) as the
/// streamed text's string body.
fn with_body(json: &str, body: &str) -> String {
    json.replacen(PLACE, body, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x3C9F,
            6_000,
            900,
            check_mcp_stream,
            &[
                McpStreamPath::NotSureToBeCut,
                McpStreamPath::Same,
                McpStreamPath::BadBody,
            ],
        );
    }
}
