//! `cargo test --release -p toolcap-tests --test all host_mcp_stream::`:
//! the Rust host's `Session::stream_mcp` against the real component: an MCP
//! result's huge text written in pieces gives what `cap_mcp` gives for the
//! whole result, and what is not such a text is refused, losing nothing.

use std::sync::OnceLock;

use tool_output_cap::{
    Budget, CapError, Error, Session, SessionConfig, ToolCap,
    types::{CappedMcp, McpOptions},
};

fn tool_cap() -> &'static ToolCap {
    static TOOL_CAP: OnceLock<ToolCap> = OnceLock::new();
    TOOL_CAP.get_or_init(|| ToolCap::new().expect("the embedded component compiles"))
}

const OPTIONS: McpOptions = McpOptions {
    resource_link: false,
};

fn budget() -> Budget {
    Budget::new(4096)
}

fn open(dir: &std::path::Path) -> Session {
    tool_cap()
        .open_session(SessionConfig::new("t", dir))
        .expect("the session opens")
}

/// A log whose JSON string has escapes of every length, a surrogate pair
/// and non-ASCII text, with its failure in the middle.
fn log_text() -> String {
    let line = "step \"build\" in C:\\src\t— ok ✓ 😀\u{1}\n";
    let mut text = line.repeat(3_000);
    text.insert_str(text.len() / 2, "error: the linker failed\n");
    text
}

/// A result with `text` in a resource block between other blocks (its
/// emoji written as a surrogate pair's escapes), the same result with that
/// string written `""`, and the string's body.
fn result_and_skeleton(text: &str) -> (String, String, String) {
    let skeleton = serde_json::json!({
        "content": [
            {"type": "text", "text": "before"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///build.log", "text": ""}},
        ],
        "structuredContent": {"status": "failed"},
        "isError": true,
    })
    .to_string();
    let string = serde_json::to_string(text).unwrap();
    let body = string[1..string.len() - 1].replace('😀', "\\ud83d\\ude00");
    let result = skeleton.replacen(r#""text":"""#, &format!(r#""text":"{body}""#), 1);
    (result, skeleton, body)
}

/// `body` written in pieces cut at `cuts` (moved back to character
/// boundaries: an escape may still be cut in two).
fn streamed(
    session: &mut Session,
    skeleton: &str,
    body: &str,
    cuts: &[usize],
    call: &str,
) -> Result<CappedMcp, Error> {
    let mut stream =
        session.stream_mcp(skeleton, 2, body.len() as u64, &budget(), call, &OPTIONS)?;
    let mut from = 0;
    for &cut in cuts.iter().chain([&body.len()]) {
        let mut cut = cut.min(body.len()).max(from);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        stream.write(&body[from..cut])?;
        from = cut;
    }
    stream.finish()
}

#[track_caller]
fn invalid_argument<T>(answer: Result<T, Error>) -> String {
    match answer {
        Err(Error::Cap(CapError::InvalidArgument(why))) => why,
        Err(other) => panic!("expected invalid-argument, got {other:?}"),
        Ok(_) => panic!("expected invalid-argument, got a success"),
    }
}

#[test]
fn pieces_cut_anywhere_give_what_cap_mcp_gives_for_the_whole_result() {
    let spill = tempfile::tempdir().unwrap();
    let mut session = open(spill.path());
    let (result, skeleton, body) = result_and_skeleton(&log_text());
    // Under 1 MiB: `cap_mcp` hands this result over whole.
    assert!(result.len() < 1 << 20);
    let whole = session
        .cap_mcp(&result, &budget(), "call", &OPTIONS)
        .unwrap();
    assert!(whole.report.truncated);
    // Cut right after a backslash, inside a \u escape, inside a surrogate
    // pair's escapes, and in many small pieces.
    let at = |needle: &str| body.find(needle).unwrap();
    let cut_sets = [
        vec![at("\\\"") + 1],
        vec![at("\\u0001") + 3, at("\\ud83d") + 8],
        (1..200).map(|i| i * 997).collect(),
    ];
    for cuts in &cut_sets {
        // The same call and the same bytes: the thread's file is named again.
        let capped = streamed(&mut session, &skeleton, &body, cuts, "call").unwrap();
        assert_eq!(capped.result, whole.result, "cut at {cuts:?}");
        assert_eq!(capped.report, whole.report);
    }
    assert!(whole.result.contains("error: the linker failed"));
    let saved = whole.report.spill.as_ref().expect("saved");
    let text = log_text();
    assert_eq!(
        std::fs::read(session.host_path(&saved.path).unwrap().unwrap()).unwrap(),
        ["before", &text].join("\n").as_bytes(),
        "the texts are saved as cap_mcp joins them"
    );
}

#[test]
fn what_is_not_a_streamed_text_is_refused_and_the_session_goes_on() {
    let spill = tempfile::tempdir().unwrap();
    let mut session = open(spill.path());
    let (_, skeleton, body) = result_and_skeleton(&log_text());
    let raw = body.len() as u64;

    // The skeleton has no `""` at that block; the text might fit.
    let why = invalid_argument(session.stream_mcp(&skeleton, 1, raw, &budget(), "a", &OPTIONS));
    assert!(why.contains("content[1]"), "{why}");
    let why =
        invalid_argument(session.stream_mcp(&skeleton, 2, 6 * 4096, &budget(), "a", &OPTIONS));
    assert!(why.contains("sure to be cut"), "{why}");

    // More than declared, a bare quote, fewer than declared, a body that
    // ends inside an escape.
    let mut stream = session
        .stream_mcp(&skeleton, 2, raw, &budget(), "b", &OPTIONS)
        .unwrap();
    stream.write(&body).unwrap();
    assert!(invalid_argument(stream.write("x")).contains("longer than"));
    // The stream is then done.
    invalid_argument(stream.write(""));
    drop(stream);
    let mut quoted = body.clone();
    quoted.replace_range(10..11, "\"");
    assert!(
        invalid_argument(streamed(&mut session, &skeleton, &quoted, &[], "c")).contains("quote")
    );
    // A control byte not escaped, wherever it is: the component looks for
    // one eight bytes at a time, then byte by byte in the last few bytes.
    let ends = (1..=8).map(|back| body.len() - back);
    for at in [0, 17, body.len() / 2].into_iter().chain(ends) {
        let at = (0..=at).rev().find(|&i| body.is_char_boundary(i)).unwrap();
        let mut raw_tab = body.clone();
        raw_tab.insert(at, '\t');
        let why = invalid_argument(streamed(&mut session, &skeleton, &raw_tab, &[], "c"));
        assert!(why.contains("control character"), "at {at}: {why}");
    }
    let mut stream = session
        .stream_mcp(&skeleton, 2, raw, &budget(), "d", &OPTIONS)
        .unwrap();
    stream.write(&body[..1000]).unwrap();
    invalid_argument(stream.finish());
    let mut stream = session
        .stream_mcp(&skeleton, 2, raw, &budget(), "e", &OPTIONS)
        .unwrap();
    let mut cut = body[..raw as usize - 2].to_owned();
    cut.push_str("\\u");
    stream.write(&cut).unwrap();
    invalid_argument(stream.finish());

    // A stream dropped unfinished saves nothing.
    let mut stream = session
        .stream_mcp(&skeleton, 2, raw, &budget(), "f", &OPTIONS)
        .unwrap();
    stream.write(&body[..5000]).unwrap();
    drop(stream);

    // Nothing but the thread folder: no output saved, no partial file left.
    assert_eq!(
        crate::common::tree(spill.path()),
        [std::path::PathBuf::from("t")]
    );
    let capped = streamed(&mut session, &skeleton, &body, &[70_000], "g").unwrap();
    assert!(capped.report.truncated && capped.report.spill.is_some());
}
