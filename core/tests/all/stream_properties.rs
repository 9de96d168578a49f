//! Properties of `cap-stream`: any text in any chunking gives exactly what
//! `cap_call` gives for the whole (lossy-decoded) text, with the same bytes
//! saved; and the one-pass preview of large texts holds every invariant of
//! `cap`, checked against naive oracles. Thresholds of a few hundred bytes
//! (`set_large_input`) put both regimes within reach of small texts.
//!
//! `cargo test -p toolcap-core --release --test all stream_properties::`

use crate::common;
use toolcap_core::notice::not_saved;

use common::{MemStore, cases, rich_text};
use proptest::prelude::*;
use toolcap_core::stream::{MemoryWriter, OnePass};
use toolcap_core::test_support::SplitMix;
use toolcap_core::text::count_lines;
use toolcap_core::token_sample::{Sampling, sampled_estimate};
use toolcap_core::{
    Budget, Call, CapError, CapStream, Capped, Capper, Keep, PreviewFeatures, PreviewSettings,
    RefScheme,
};

fn capper_with(features: PreviewFeatures, large_input: usize) -> Capper {
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap();
    let settings = PreviewSettings {
        features,
        notable_patterns: vec!["BOOM".into()],
        ..PreviewSettings::default()
    };
    let mut capper = Capper::with_settings(scheme, settings).unwrap();
    capper.set_large_input(large_input);
    capper
}

/// Bytes from many scripts, failure lines, long lines, CRLF and invalid
/// UTF-8.
fn any_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop_oneof![
        4 => "[a-z ]{0,30}\n".prop_map(String::into_bytes),
        2 => Just(b"word ".to_vec()),
        1 => Just("жизнь ".as_bytes().to_vec()),
        1 => Just("中文字符".as_bytes().to_vec()),
        1 => Just("😀🇺🇦".as_bytes().to_vec()),
        2 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => "[a-z]{0,20}".prop_map(|s| format!("error: {s} failed\n").into_bytes()),
        1 => "[0-9]{1,4}".prop_map(|s| format!("thread 'main' panicked at {s}\n").into_bytes()),
        1 => "[a-z]{0,9}".prop_map(|s| format!("FAILED test_{s} - assert\n").into_bytes()),
        1 => Just(b"BOOM host pattern\n".to_vec()),
        // Failures with a block, after or before them.
        1 => "[a-z]{1,9}".prop_map(|s| format!(
            "error[E0308]: mismatched types\n  --> src/{s}.rs:3:5\n   |\n3  |     {s}\n   |     ^ expected u64\n\n"
        ).into_bytes()),
        1 => "[a-z]{1,9}".prop_map(|s| format!(
            "Traceback (most recent call last):\n  File \"{s}.py\", line 3, in <module>\n    f()\nValueError: bad {s}\n"
        ).into_bytes()),
        1 => "[a-z]{1,9}".prop_map(|s| format!(
            "____ test_{s} ____\n    def test_{s}():\n>       assert 1 == 2\nE       assert 1 == 2\ntests/t.py:4: AssertionError\n"
        ).into_bytes()),
        1 => "[a-z]{300,3000}".prop_map(String::into_bytes),
        1 => Just(vec![0xFF]),
        1 => Just(vec![0xE2, 0x82]),
        1 => Just(vec![0xC3]),
        1 => Just(vec![0xF0, 0x9F]),
    ];
    prop::collection::vec(pieces, 0..max).prop_map(|v| v.concat())
}

/// One line longer than most budgets, as a minified bundle is: an optional
/// prefix, a unit repeated (some across [`toolcap_core::tokens::MAX_SPAN`]),
/// and an end with or without a final LF.
fn huge_line() -> impl Strategy<Value = Vec<u8>> {
    let unit = prop_oneof![
        Just(b"var a=function(b){return b*2};".to_vec()),
        Just(b"x".to_vec()),
        Just("жизнь,".as_bytes().to_vec()),
        Just("中文😀🇺🇦".as_bytes().to_vec()),
        Just(b"ab\xE2\x82".to_vec()),
    ];
    let end = prop_oneof![
        Just(&b""[..]),
        Just(&b"\n"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"//# sourceMappingURL=app.min.js.map"[..]),
        Just(&b"//# sourceMappingURL=app.min.js.map\n"[..]),
        Just(&b"error: failed at the end\n"[..]),
    ];
    (
        prop_oneof![Just(&b""[..]), Just(&b"dist/app.min.js:1:"[..])],
        unit,
        prop_oneof![3 => 50usize..3000, 1 => 3000usize..30_000],
        end,
    )
        .prop_map(|(prefix, unit, n, end)| [prefix, &unit.repeat(n), end].concat())
}

/// [`any_bytes`], and now and then a single huge line.
fn any_input(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![6 => any_bytes(max), 1 => huge_line()]
}

fn any_budget(capper: &Capper) -> impl Strategy<Value = Budget> {
    let room = capper.room();
    let least = room.bytes as u32;
    let lines = room.lines as u32;
    let tokens = room.tokens as u32;
    (
        least..least + 3000,
        prop::option::of(lines..lines + 60),
        prop::option::of(1u32..400),
        prop_oneof![Just(Keep::Head), Just(Keep::Tail), Just(Keep::HeadAndTail)],
        prop_oneof![Just(40u8), 0u8..=100],
        prop::option::weighted(0.2, tokens..tokens + 600),
    )
        .prop_map(
            |(max_bytes, max_lines, max_line_bytes, keep, head_percent, max_tokens)| Budget {
                max_bytes,
                max_lines,
                max_line_bytes,
                keep,
                head_percent,
                max_tokens,
            },
        )
}

fn any_call() -> impl Strategy<Value = Call> {
    // Searches for words the generated texts hold (and one they do not).
    let search = prop::option::weighted(
        0.3,
        prop::sample::select(vec![
            "ERROR",
            "error\nKill",
            "aaa",
            "QUOTA-EXCEEDED\n✖",
            "absent",
        ]),
    );
    (any::<bool>(), prop::option::of(-2i32..3), search).prop_map(|(is_error, exit_code, search)| {
        Call {
            search: search.map(str::to_owned),
            id: "call-1".into(),
            tool: Some("cargo".into()),
            exit_code,
            is_error,
        }
    })
}

/// `bytes` split at `cuts` (positions, any order), or in 1-byte chunks.
fn chunks<'a>(bytes: &'a [u8], cuts: &[usize], single: bool) -> Vec<&'a [u8]> {
    if single {
        return bytes.chunks(1).collect();
    }
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for c in at.into_iter().chain([bytes.len()]) {
        out.push(&bytes[prev..c]);
        prev = c;
    }
    out
}

/// The result of streaming `chunks`, with the file saved (by the store or
/// the writer).
fn stream(
    capper: &Capper,
    chunks: &[&[u8]],
    budget: Budget,
    call: &Call,
) -> (Capped, Vec<(String, Vec<u8>)>) {
    stream_ending(capper, chunks, budget, call, None)
}

/// [`stream`], with `set_exit_code(code)` called before chunk `at` (after
/// the last one when `at` is the number of chunks).
fn stream_ending(
    capper: &Capper,
    chunks: &[&[u8]],
    budget: Budget,
    call: &Call,
    exit: Option<(usize, i32)>,
) -> (Capped, Vec<(String, Vec<u8>)>) {
    let mut s = CapStream::new(capper, budget, call.clone()).unwrap();
    let mut writer = MemoryWriter::default();
    for (i, c) in chunks.iter().enumerate() {
        if let Some((at, code)) = exit
            && at == i
        {
            s.set_exit_code(code);
        }
        s.write(capper, c, &mut writer);
    }
    if let Some((at, code)) = exit
        && at >= chunks.len()
    {
        s.set_exit_code(code);
    }
    assert_eq!(
        s.bytes_written(),
        chunks.iter().map(|c| c.len() as u64).sum::<u64>()
    );
    let mut store = MemStore::default();
    let capped = s.finish(capper, &mut writer, &mut store).unwrap();
    assert!(writer.partial.is_none(), "no file left half written");
    let mut saved: Vec<_> = store.files.into_iter().collect();
    saved.extend(writer.committed);
    (capped, saved)
}

/// [`Capper::cap_bytes`] of `bytes`, and the files it saved.
fn whole_bytes(
    capper: &Capper,
    bytes: &[u8],
    budget: Budget,
    call: &Call,
) -> (Capped, Vec<(String, Vec<u8>)>) {
    let mut store = MemStore::default();
    let capped = capper.cap_bytes(bytes, &budget, call, &mut store).unwrap();
    (capped, store.files.into_iter().collect())
}

fn whole(
    capper: &Capper,
    text: &str,
    budget: Budget,
    call: &Call,
) -> (Capped, Vec<(String, Vec<u8>)>) {
    let mut store = MemStore::default();
    let capped = capper.cap_call(text, &budget, call, &mut store).unwrap();
    (capped, store.files.into_iter().collect())
}

const FEATURES: [PreviewFeatures; 2] = [
    PreviewFeatures::ALL,
    PreviewFeatures {
        adaptive_notice: false,
        ..PreviewFeatures::ALL
    },
];

proptest! {
    #![proptest_config(cases(300))]

    /// Any chunking of any bytes streams to exactly `cap_bytes` of them (for
    /// valid UTF-8, `cap_call` of the text), every field, and the same file:
    /// the bytes as written, valid UTF-8 or not.
    #[test]
    fn stream_is_cap_in_any_chunking(
        bytes in any_input(60),
        large in 300usize..2000,
        features in 0usize..2,
        // The least budget of the two feature sets: the full notice's.
        (budget, call) in any_budget(&capper_with(FEATURES[1], 300)).prop_flat_map(|b| (Just(b), any_call())),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        single in prop::bool::weighted(0.15),
    ) {
        let capper = capper_with(FEATURES[features], large);
        let want = whole_bytes(&capper, &bytes, budget, &call);
        let got = stream(&capper, &chunks(&bytes, &cuts, single), budget, &call);
        prop_assert_eq!(&got.0, &want.0);
        prop_assert_eq!(&got.1, &want.1);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            prop_assert_eq!(&want, &whole(&capper, text, budget, &call));
        }
        // The file is the bytes, and the reference states them.
        if let Some(r) = &got.0.spill {
            prop_assert_eq!(got.1.len(), 1);
            prop_assert_eq!(&got.1[0].1, &bytes);
            prop_assert_eq!(r.bytes, bytes.len() as u64);
            prop_assert_eq!(&r.digest, &toolcap_core::naming::content_digest(&bytes));
            let lossy = std::str::from_utf8(&bytes).is_err();
            let full = got.0.text.contains("The tool already ran");
            prop_assert_eq!(got.0.text.contains("It is not valid UTF-8"), lossy && full);
        }
    }

    /// A chunk that is UTF-8 on its own may be written as text
    /// (`write_text`, as the MCP stream writes its decoded text), even
    /// after bytes that left a character unfinished: the stream is the
    /// same as of the bytes. A size expected ahead, right or wrong, changes
    /// nothing but where the text is kept.
    #[test]
    fn chunks_written_as_text_stream_as_their_bytes(
        bytes in any_input(60),
        large in 300usize..2000,
        (budget, call) in any_budget(&capper_with(PreviewFeatures::ALL, 300)).prop_flat_map(|b| (Just(b), any_call())),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        as_text in prop::collection::vec(any::<bool>(), 13),
        // The size the MCP stream expects: none, or any guess, right or wrong.
        expect in prop::option::of(0usize..4000),
    ) {
        let capper = capper_with(PreviewFeatures::ALL, large);
        let want = whole_bytes(&capper, &bytes, budget, &call);
        let mut s = CapStream::new(&capper, budget, call.clone()).unwrap();
        if let Some(expect) = expect {
            s.expect_bytes(expect);
        }
        let mut writer = MemoryWriter::default();
        for (i, chunk) in chunks(&bytes, &cuts, false).into_iter().enumerate() {
            match std::str::from_utf8(chunk) {
                Ok(text) if as_text[i] => s.write_text(&capper, text, &mut writer),
                _ => s.write(&capper, chunk, &mut writer),
            }
        }
        prop_assert_eq!(s.bytes_written(), bytes.len() as u64);
        let mut store = MemStore::default();
        let capped = s.finish(&capper, &mut writer, &mut store).unwrap();
        let mut saved: Vec<_> = store.files.into_iter().collect();
        saved.extend(writer.committed);
        prop_assert_eq!(&capped, &want.0);
        prop_assert_eq!(&saved, &want.1);
    }

    /// An exit code given after the stream started (at any point before
    /// `finish`) gives exactly `cap_call` with that exit code in the call,
    /// in both regimes: the call's failure shapes only what is chosen at the
    /// end.
    #[test]
    fn an_exit_code_given_late_is_cap_with_it(
        bytes in any_input(60),
        large in 300usize..2000,
        features in 0usize..2,
        (budget, call) in any_budget(&capper_with(FEATURES[1], 300)).prop_flat_map(|b| (Just(b), any_call())),
        code in prop_oneof![-2i32..3, Just(101), Just(i32::MIN)],
        at in any::<usize>(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let capper = capper_with(FEATURES[features], large);
        let ended = Call { exit_code: Some(code), ..call.clone() };
        let want = whole_bytes(&capper, &bytes, budget, &ended);
        let chunks = chunks(&bytes, &cuts, false);
        let at = at % (chunks.len() + 1);
        let got = stream_ending(&capper, &chunks, budget, &call, Some((at, code)));
        prop_assert_eq!(&got.0, &want.0);
        prop_assert_eq!(&got.1, &want.1);
    }

    /// The one-pass preview holds every limit, the notice's reference is
    /// genuine, and each notable line is the input's line of that number.
    #[test]
    fn one_pass_preview_holds_the_invariants(
        bytes in any_input(80),
        budget in any_budget(&capper_with(PreviewFeatures::ALL, 300)),
        call in any_call(),
    ) {
        let capper = capper_with(PreviewFeatures::ALL, 300);
        let text = past_the_budget(String::from_utf8_lossy(&bytes).into_owned(), &budget);
        let looks_json = toolcap_core::stream::looks_json(text.as_bytes(), 300);
        prop_assert!(toolcap_core::stream::is_large(text.len(), looks_json, &budget, 300));
        let (c, files) = whole(&capper, &text, budget, &call);
        prop_assert!(c.truncated);
        prop_assert!(c.text.len() <= budget.max_bytes as usize);
        if let Some(m) = budget.max_lines {
            prop_assert!(count_lines(c.text.as_bytes()) <= u64::from(m));
        }
        if let Some(t) = budget.max_tokens {
            prop_assert!(c.tokens <= u64::from(t));
        }
        prop_assert_eq!(c.original_bytes, text.len() as u64);
        prop_assert_eq!(c.original_lines, count_lines(text.as_bytes()));
        prop_assert!(c.omitted_bytes > 0 && c.omitted_bytes <= c.original_bytes);
        prop_assert!(c.omitted_lines <= c.original_lines);
        prop_assert!(c.gap_line.unwrap() <= c.original_lines + 1);
        // What `cap` reports of a cut text: from samples, whole under
        // max-tokens within max-bytes.
        let sampling = Sampling::under(&budget, Sampling::REPORT);
        prop_assert_eq!(c.original_tokens, sampled_estimate(capper.estimator(), &text, sampling));
        prop_assert_eq!(c.folded_lines, 0);
        let r = c.spill.clone().unwrap();
        let refs = capper.scheme().find_refs(&c.text);
        prop_assert_eq!(refs.last(), Some(&r));
        prop_assert_eq!(&files[0].1, &text.as_bytes().to_vec());
        check_notable_lines(&text, &c)?;
    }

    /// With plain head and tail (no notable lines, lines kept whole), the
    /// head is a prefix of the input and the tail a suffix, and
    /// `omitted-bytes` is what they do not show.
    #[test]
    fn one_pass_accounting_is_exact(
        text in prop_oneof![
            4 => rich_text(300),
            1 => huge_line().prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        ],
        budget in any_budget(&capper_with(PreviewFeatures::ALL, 300)),
    ) {
        let features = PreviewFeatures { notable: false, ..PreviewFeatures::ALL };
        let capper = capper_with(features, 300);
        let budget = Budget { max_line_bytes: None, max_tokens: None, ..budget };
        let text = past_the_budget(text, &budget);
        let looks_json = toolcap_core::stream::looks_json(text.as_bytes(), 300);
        prop_assert!(toolcap_core::stream::is_large(text.len(), looks_json, &budget, 300));
        let (c, _) = whole(&capper, &text, budget, &Call::new("c"));
        let preview = c.text.rsplit_once("[toolcap] ").unwrap().0;
        let (head, tail) = match preview.split_once("[... ") {
            Some((head, rest)) => (head, rest.split_once(" ...]\n").unwrap().1),
            None => (preview, ""),
        };
        let head_shown = if text.starts_with(head) {
            head.len()
        } else {
            let h = head.strip_suffix('\n').unwrap();
            prop_assert!(text.starts_with(h), "head {head:?}");
            h.len()
        };
        let tail_shown = if text.ends_with(tail) {
            tail.len()
        } else {
            let t = tail.strip_suffix('\n').unwrap();
            prop_assert!(text.ends_with(t), "tail {tail:?}");
            t.len()
        };
        let shown = (head_shown + tail_shown).min(text.len());
        prop_assert_eq!(c.omitted_bytes, (text.len() - shown) as u64);
    }
}

/// `text` repeated until it is longer than `budget.max_bytes` and than the
/// large-input threshold of these properties' cappers (300 bytes, twice
/// that for JSON): every case drawn then takes the one-pass preview, where
/// discarding the small ones made most draws rejects (`PROPTEST_CASES=5000`
/// gave up on too many).
fn past_the_budget(text: String, budget: &Budget) -> String {
    let need = (budget.max_bytes as usize).max(2 * 300) + 1;
    if text.len() >= need {
        return text;
    }
    let piece = if text.is_empty() {
        "x\n".to_owned()
    } else {
        text
    };
    piece.repeat(need.div_ceil(piece.len()))
}

/// Each `[line N] ...` line between the notable markers shows the start of
/// the input's line N, and lies in the middle the markers name.
fn check_notable_lines(text: &str, c: &Capped) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut inside = false;
    let mut count = 0;
    for l in c.text.lines() {
        if l.starts_with("[... lines ") && l.ends_with("notable lines ...]") {
            inside = true;
            continue;
        }
        if l.starts_with("[... end of the omitted lines") {
            inside = false;
            continue;
        }
        if !inside {
            continue;
        }
        let rest = l.strip_prefix("[line ").unwrap();
        let (head, body) = rest.split_once("] ").unwrap();
        let n: usize = head.split(' ').next().unwrap().parse().unwrap();
        // A window around a search hit: the bytes of the line before it cut.
        let (lead, body) = match body
            .strip_prefix("[... ")
            .and_then(|b| b.split_once(" bytes cut] "))
            .and_then(|(m, b)| Some((m.parse::<usize>().ok()?, b)))
        {
            Some((m, b)) => (m, b),
            None => (0, body),
        };
        let (body, after) = match body.rsplit_once(" [... ") {
            Some((b, cut)) if cut.ends_with(" bytes cut]") => {
                let k: usize = cut.strip_suffix(" bytes cut]").unwrap().parse().unwrap();
                (b, Some(k))
            }
            _ => (body, None),
        };
        let body = body.strip_suffix('\r').unwrap_or(body);
        // A CR before the LF is the line's content: a cut marker counts it.
        let whole_line = lines[n - 1];
        let line = whole_line.strip_suffix('\r').unwrap_or(whole_line);
        prop_assert!(lead <= line.len(), "line {n}: {lead} cut before {line:?}");
        prop_assert!(
            line[lead..].starts_with(body),
            "line {n}: {body:?} vs {line:?}"
        );
        if let Some(k) = after {
            prop_assert_eq!(
                lead + body.len() + k,
                whole_line.len(),
                "line {}: {:?}",
                n,
                l
            );
        }
        count += 1;
    }
    prop_assert_eq!(count, c.notable_lines);
    Ok(())
}

/// A text with failures in its middle, and a tail full of them.
fn log(lines: usize) -> String {
    let mut s = String::new();
    for i in 0..lines {
        if i == lines / 2 {
            s.push_str("error[E0308]: mismatched types in the middle\n");
        } else if i > lines - 30 {
            s.push_str(&format!("error: late failure number {i} of the burst\n"));
        } else {
            s.push_str(&format!("   Compiling crate-{i} v0.1.{i}\n"));
        }
    }
    s
}

#[test]
fn a_burst_at_the_end_does_not_hide_the_middle() {
    let capper = capper_with(PreviewFeatures::ALL, 300);
    let text = log(4000);
    let budget = Budget {
        max_bytes: 4096,
        ..Budget::default()
    };
    let (c, _) = whole(&capper, &text, budget, &Call::new("c"));
    assert!(c.text.contains("[line 2001] error[E0308]"), "{}", c.text);
    let got = stream(
        &capper,
        &chunks(text.as_bytes(), &[7, 1000, 33333], false),
        budget,
        &Call::new("c"),
    );
    assert_eq!(got.0, c);
}

#[test]
fn an_exit_code_set_after_the_output_states_the_failure_in_both_regimes() {
    let text = log(4000);
    let budget = Budget {
        max_bytes: 4096,
        ..Budget::default()
    };
    let started = Call {
        tool: Some("make".into()),
        ..Call::new("c")
    };
    let ended = Call {
        exit_code: Some(2),
        ..started.clone()
    };
    // Whole text kept below the threshold, the one-pass engine above it.
    for (large_input, large) in [(usize::MAX, false), (300, true)] {
        let capper = capper_with(PreviewFeatures::ALL, large_input);
        assert_eq!(
            toolcap_core::stream::is_large(text.len(), false, &budget, large_input),
            large
        );
        let (want, _) = whole(&capper, &text, budget, &ended);
        assert!(
            want.text.contains("The tool `make` failed (exit code 2)."),
            "{}",
            want.text
        );
        let (not_failed, _) = whole(&capper, &text, budget, &started);
        assert_ne!(want.text, not_failed.text);
        let chunked = chunks(text.as_bytes(), &[7, 1000, 33333], false);
        for at in [0, 2, chunked.len()] {
            let (got, _) = stream_ending(&capper, &chunked, budget, &started, Some((at, 2)));
            assert_eq!(got, want, "large {large}, set before chunk {at}");
        }
    }
}

#[test]
fn a_failed_spill_keeps_the_preview_and_commits_nothing() {
    let capper = capper_with(PreviewFeatures::ALL, 1000);
    let text = log(20_000);
    let budget = Budget::default();
    let call = Call::new("c");
    let run = |fail: Option<usize>| {
        let mut s = CapStream::new(&capper, budget, call.clone()).unwrap();
        let mut writer = MemoryWriter {
            fail_append: fail,
            ..MemoryWriter::default()
        };
        for c in text.as_bytes().chunks(4000) {
            s.write(&capper, c, &mut writer);
        }
        let c = s
            .finish(&capper, &mut writer, &mut MemStore::default())
            .unwrap();
        (c, writer)
    };
    let (ok, ok_writer) = run(None);
    assert_eq!(ok_writer.committed.len(), 1);
    assert_eq!(ok_writer.committed[0].1, text.as_bytes());
    assert!(ok.spill.is_some() && ok.spill_error.is_none());
    let (failed, writer) = run(Some(3));
    assert!(writer.aborted && writer.committed.is_empty() && writer.partial.is_none());
    assert!(failed.spill.is_none());
    assert!(failed.spill_error.unwrap().contains("no space left"));
    assert!(failed.text.contains(&not_saved("no space left on device")));
    // The same preview, up to the notice.
    let before = |t: &str| t.rsplit_once("[toolcap] ").unwrap().0.to_owned();
    assert_eq!(before(&failed.text), before(&ok.text));
    assert_eq!(failed.original_bytes, ok.original_bytes);
    // As `cap` says when its store fails.
    let mut store = MemStore {
        fail: Some("no space left on device".into()),
        ..MemStore::default()
    };
    let want = capper.cap_call(&text, &budget, &call, &mut store).unwrap();
    assert_eq!(failed.text, want.text);
}

#[test]
fn a_large_stream_keeps_little() {
    // 64 MiB through a 16 KiB budget: the engine's state stays small.
    let capper = capper_with(PreviewFeatures::ALL, toolcap_core::stream::LARGE_INPUT);
    let budget = Budget::default();
    let mut s = CapStream::new(&capper, budget, Call::new("big")).unwrap();
    let mut writer = MemoryWriter::default();
    let block: String = (0..2000)
        .map(|i| match i % 97 {
            0 => format!("error: failure {i} with some words after it\n"),
            1 => format!("{}\n", "x".repeat(9000)),
            _ => format!("line {i} of ordinary output ж 中 😀\n"),
        })
        .collect();
    let mut most = 0;
    let mut written = 0;
    while written < 64 << 20 {
        s.write(&capper, block.as_bytes(), &mut writer);
        written += block.len();
        // The spill itself is the writer's memory, not the stream's.
        writer.partial.as_mut().map(Vec::clear);
        // Below LARGE_INPUT the stream keeps the text by design; past it,
        // only the engine's state.
        if written > toolcap_core::stream::LARGE_INPUT + (1 << 20) {
            most = most.max(s.retained_bytes());
        }
    }
    assert!(most < 2 << 20, "{most} bytes retained");
    let c = s
        .finish(&capper, &mut writer, &mut MemStore::default())
        .unwrap();
    assert!(c.truncated && c.text.len() <= 16 * 1024);
    assert_eq!(c.original_bytes, written as u64);
    assert!(c.notable_lines > 0);
}

#[test]
fn an_expected_size_keeps_the_text_in_one_block() {
    let capper = capper_with(PreviewFeatures::ALL, toolcap_core::stream::LARGE_INPUT);
    let text = log(100_000);
    assert!(text.len() > 2 << 20 && text.len() < toolcap_core::stream::LARGE_INPUT);
    let call = Call::new("kept");
    let want = whole(&capper, &text, Budget::default(), &call);
    // Expected exactly, over, under, not at all: one block when the guess
    // holds the text, else the guess and then blocks of a MiB.
    let mib = 1 << 20;
    let short = text.len() / 2;
    for (expect, blocks) in [
        (Some(text.len()), 1),
        (Some(text.len() + 100), 1),
        (Some(short), 1 + (text.len() - short).div_ceil(mib)),
        (None, text.len().div_ceil(mib)),
    ] {
        let mut s = CapStream::new(&capper, Budget::default(), call.clone()).unwrap();
        if let Some(expect) = expect {
            s.expect_bytes(expect);
        }
        let mut writer = MemoryWriter::default();
        for piece in text.as_bytes().chunks(100_000) {
            s.write_text(&capper, std::str::from_utf8(piece).unwrap(), &mut writer);
        }
        assert_eq!(s.kept_blocks(), blocks, "expecting {expect:?}");
        let mut store = MemStore::default();
        let got = s.finish(&capper, &mut writer, &mut store).unwrap();
        assert_eq!(got, want.0);
        assert_eq!(store.files.into_iter().collect::<Vec<_>>(), want.1);
    }
}

/// A minified bundle: one line of `var a=...;` then its source map comment.
fn bundle(bytes: usize, prefix: &str, lf: bool) -> String {
    let unit = "var a=function(b){return b*2};";
    let mut text = String::with_capacity(bytes + 64);
    text.push_str(prefix);
    while text.len() < bytes {
        text.push_str(unit);
    }
    text.push_str("//# sourceMappingURL=app.min.js.map");
    if lf {
        text.push('\n');
    }
    text
}

/// The head's part of a single-line text and the tail's, from a preview
/// with a gap: the head part is a prefix of the text (with a LF added), the
/// tail part a suffix (with a LF added when the text has none).
fn both_ends<'a>(text: &str, c: &'a Capped) -> (&'a str, &'a str) {
    let preview = c.text.rsplit_once("[toolcap] ").unwrap().0;
    let (head, rest) = preview.split_once("[... ").expect("a gap marker");
    let tail = rest.split_once(" ...]\n").unwrap().1;
    let head = head.strip_suffix('\n').unwrap_or(head);
    let tail = if text.ends_with(tail) {
        tail
    } else {
        tail.strip_suffix('\n').unwrap()
    };
    assert!(text.starts_with(head), "head {head:?}");
    assert!(text.ends_with(tail), "tail {tail:?}");
    (head, tail)
}

#[test]
fn a_huge_single_line_shows_both_of_its_ends() {
    // Over LARGE_INPUT, so `cap` gives it the one-pass preview: a minified
    // bundle keeps its first bytes and its `sourceMappingURL`, as it does
    // below the threshold (the shared vector `preview-utilisation`).
    let one_pass = capper_with(PreviewFeatures::ALL, toolcap_core::stream::LARGE_INPUT);
    let mut full = capper_with(PreviewFeatures::ALL, toolcap_core::stream::LARGE_INPUT);
    full.set_large_input(usize::MAX);
    let budgets = [
        Budget {
            max_bytes: 4096,
            ..Budget::default()
        },
        Budget {
            max_bytes: 4096,
            max_lines: None,
            max_line_bytes: None,
            ..Budget::default()
        },
        Budget {
            max_bytes: 16384,
            max_line_bytes: Some(2000),
            ..Budget::default()
        },
        Budget {
            max_bytes: 4096,
            head_percent: 90,
            ..Budget::default()
        },
    ];
    for (prefix, lf) in [("", false), ("", true), ("dist/app.min.js:1:", true)] {
        let text = bundle(6 << 20, prefix, lf);
        for budget in budgets {
            let call = Call::new("c");
            assert!(toolcap_core::stream::is_large(
                text.len(),
                false,
                &budget,
                toolcap_core::stream::LARGE_INPUT
            ));
            let (c, files) = whole(&one_pass, &text, budget, &call);
            let what = format!("lf {lf}, {budget:?}:\n{}", c.text);
            assert!(c.text.len() <= budget.max_bytes as usize, "{what}");
            let (head, tail) = both_ends(&text, &c);
            assert!(head.starts_with(&format!("{prefix}var a=")), "{what}");
            let map = "sourceMappingURL=app.min.js.map";
            assert!(
                tail.strip_suffix('\n').unwrap_or(tail).ends_with(map),
                "{what}"
            );
            // Most of the budget is used: the two parts share what is left.
            assert!(
                head.len() + tail.len() > budget.max_bytes as usize / 2,
                "{what}"
            );
            // Exact accounting: the bytes between are omitted, the line is
            // shown in part, not omitted.
            let shown = (head.len() + tail.len()) as u64;
            assert_eq!(c.omitted_bytes, text.len() as u64 - shown, "{what}");
            assert_eq!((c.original_lines, c.omitted_lines), (1, 0), "{what}");
            assert_eq!(c.gap_line, Some(1), "{what}");
            assert_eq!(c.original_bytes, text.len() as u64);
            let sampling = Sampling::under(&budget, Sampling::REPORT);
            assert_eq!(
                c.original_tokens,
                sampled_estimate(one_pass.estimator(), &text, sampling)
            );
            assert_eq!(files[0].1, text.as_bytes());
            // What `cap` gives a line of this size below the threshold.
            let (below, _) = whole(&full, &text, budget, &call);
            assert_eq!(c, below, "{what}");
            // And what the stream gives.
            let bytes = text.as_bytes();
            let cuts = [1, 65_537, 1 << 20, (5 << 20) + 3];
            let (streamed, saved) = stream(&one_pass, &chunks(bytes, &cuts, false), budget, &call);
            assert_eq!(streamed, c, "{what}");
            assert_eq!(saved[0].1, bytes);
        }
    }
}

#[test]
fn original_tokens_are_the_estimate_of_the_whole_text() {
    // Long runs of letters and of blanks across every 64 KiB: a sum of
    // block estimates would count them differently from the whole text.
    // Under max-tokens a text within max-bytes is counted whole (its tokens
    // cut it); one over max-bytes, like one without max-tokens, from its
    // samples (`token_sample`); `cap` and the stream agree on each.
    let capper = capper_with(PreviewFeatures::ALL, toolcap_core::stream::LARGE_INPUT);
    let text = runs(9 << 20);
    let whole_count = capper.estimator().estimate(&text);
    let samples = sampled_estimate(capper.estimator(), &text, Sampling::REPORT);
    assert_ne!(
        whole_count, samples,
        "the two counts must tell the rules apart"
    );
    let cuts = [3, 70_000, 1 << 20, 1 << 22, 7_777_777];
    let cut_by_tokens = Budget {
        max_bytes: 16 << 20,
        max_tokens: Some(4000),
        ..Budget::default()
    };
    let cut_by_bytes = Budget {
        max_tokens: Some(4000),
        ..Budget::default()
    };
    let just_over_its_bytes = Budget {
        max_bytes: text.len() as u32 - 1,
        max_tokens: Some(4000),
        ..Budget::default()
    };
    for (budget, want) in [
        (cut_by_tokens, whole_count),
        (cut_by_bytes, samples),
        (just_over_its_bytes, samples),
        (Budget::default(), samples),
    ] {
        let (c, _) = whole(&capper, &text, budget, &Call::new("t"));
        assert!(c.truncated);
        assert_eq!(c.original_tokens, want, "{budget:?}");
        let got = stream(
            &capper,
            &chunks(text.as_bytes(), &cuts, false),
            budget,
            &Call::new("t"),
        );
        assert_eq!(got.0.original_tokens, want, "{budget:?}");
    }
    // Within max-bytes to the byte: counted whole.
    let at_its_bytes = Budget {
        max_bytes: text.len() as u32,
        ..cut_by_tokens
    };
    let (c, _) = whole(&capper, &text, at_its_bytes, &Call::new("t"));
    assert_eq!(c.original_tokens, whole_count);
    // 9 MiB over a small max-bytes went through the one-pass engine, within
    // 16 MiB through the whole-text cut; a text under the one-pass
    // threshold takes the whole-text cut under both: whole within
    // max-bytes, samples over.
    let text = runs(200 << 10);
    assert!(text.len() < toolcap_core::stream::LARGE_INPUT);
    let whole_count = capper.estimator().estimate(&text);
    let samples = sampled_estimate(capper.estimator(), &text, Sampling::REPORT);
    assert_ne!(whole_count, samples);
    for (budget, want) in [(cut_by_tokens, whole_count), (cut_by_bytes, samples)] {
        let (c, _) = whole(&capper, &text, budget, &Call::new("t"));
        assert!(c.truncated);
        assert_eq!(c.original_tokens, want, "{budget:?}");
    }
}

/// `len` bytes and more of long runs of letters, digits, blanks and
/// scripts, and failure lines.
fn runs(len: usize) -> String {
    let mut text = String::new();
    let mut rng = SplitMix::new(0);
    while text.len() < len {
        let i = rng.next_u64();
        let run = 1 + (i >> 40) as usize % 100_000;
        match (i >> 20) % 5 {
            0 => text.push_str(&"a".repeat(run)),
            1 => text.push_str(&" ".repeat(run)),
            2 => text.push_str(&"7".repeat(run / 3)),
            3 => text.push_str(&"жизнь 中文 ".repeat(run / 64 + 1)),
            _ => text.push_str("error: a failure\n"),
        }
    }
    text
}

fn redacting_capper(large_input: usize, spill: bool) -> Capper {
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).unwrap();
    let settings = PreviewSettings {
        redaction: Some(toolcap_core::cap::RedactionSettings {
            literals: vec!["hunter2-corp-literal".into()],
            spill,
        }),
        ..PreviewSettings::default()
    };
    let mut capper = Capper::with_settings(scheme, settings).unwrap();
    capper.set_large_input(large_input);
    capper
}

/// Any input with secrets of several kinds here and there, one a PEM block
/// that spans lines.
fn with_secrets() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => any_input(8),
        1 => Just(b"GITHUB_TOKEN=ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f\n".to_vec()),
        1 => Just(b"-----BEGIN PRIVATE KEY-----\nMIIEFAKEfakeFAKEfake\n-----END PRIVATE KEY-----\n".to_vec()),
        1 => Just(b"password=hunter2-corp-literal ".to_vec()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(cases(200))]

    /// With a redaction policy, a stream still gives exactly what `cap`
    /// gives, in both regimes, whether the file is redacted or not.
    #[test]
    fn a_redacting_stream_is_a_redacting_cap(
        bytes in with_secrets(),
        large in 300usize..2000,
        spill in any::<bool>(),
        (budget, call) in any_budget(&capper_with(FEATURES[1], 300)).prop_flat_map(|b| (Just(b), any_call())),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        single in prop::bool::weighted(0.15),
    ) {
        let capper = redacting_capper(large, spill);
        let text = String::from_utf8_lossy(&bytes);
        let want = whole_bytes(&capper, &bytes, budget, &call);
        let got = stream(&capper, &chunks(&bytes, &cuts, single), budget, &call);
        prop_assert_eq!(&got.0, &want.0);
        prop_assert_eq!(&got.1, &want.1);
        if let Some(saved) = want.1.first() {
            let saved = String::from_utf8_lossy(&saved.1);
            prop_assert_eq!(!saved.contains("hunter2-corp-literal"), spill || !text.contains("hunter2-corp-literal"));
        }
        prop_assert!(!want.0.text.contains("hunter2-corp-literal"));
    }
}

proptest! {
    #![proptest_config(cases(300))]

    /// The one-pass engine's prefilter (one search of each piece for the
    /// notable patterns, instead of a check of each line) keeps exactly the
    /// lines the check of every line keeps: the same result, in any
    /// chunking, host patterns included.
    #[test]
    fn the_piece_prefilter_keeps_what_the_line_check_keeps(
        text in rich_text(300),
        extra in prop::collection::vec(
            prop_oneof![
                Just("QUOTA-EXCEEDED on shard 7\n"),
                Just("x ERROR y\n"),
                Just("error"),
                Just("Kill"),
                Just("\u{2716} failed\n"),
            ],
            0..20,
        ),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        max_bytes in 0u32..3000,
        max_lines in prop::option::of(3u32..80),
        max_line_bytes in prop::option::of(1u32..300),
    ) {
        let scheme = RefScheme::new("/spill", "thread-1", vec![7; 32]).unwrap();
        let settings = PreviewSettings {
            notable_patterns: vec!["QUOTA-EXCEEDED".to_owned()],
            ..PreviewSettings::default()
        };
        let capper = Capper::with_settings(scheme, settings).unwrap();
        let budget = above_room(&capper, max_bytes, max_lines, max_line_bytes);
        let text = format!("{text}{}{text}", extra.concat());
        let call = Call::new("c");
        let run = |prefilter: bool| {
            one_pass(&capper, &budget, &call, &text, &cuts, |one| one.set_line_prefilter(prefilter))
        };
        prop_assert_eq!(run(true), run(false));
    }
}

proptest! {
    #![proptest_config(cases(300))]

    /// Without notable lines in the preview (`PreviewFeatures::NONE`, or
    /// `notable` off alone), the one-pass engine does not read lines for
    /// them, and the result is exactly the one it gives reading them: in
    /// any chunking, with failure lines, blocks and a search's hits.
    #[test]
    fn lines_not_read_for_notables_change_nothing_when_none_are_shown(
        text in rich_text(300),
        extra in prop::collection::vec(
            prop_oneof![
                Just("QUOTA-EXCEEDED on shard 7\n"),
                Just("x ERROR y\n"),
                Just("Traceback (most recent call last):\n  File \"a.py\", line 3\n"),
                Just("error"),
                Just("\u{2716} failed\n"),
                Just("apiBase"),
            ],
            0..20,
        ),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        none in any::<bool>(),
        max_bytes in 0u32..3000,
        max_lines in prop::option::of(3u32..80),
        max_line_bytes in prop::option::of(1u32..300),
    ) {
        let features = if none {
            PreviewFeatures::NONE
        } else {
            PreviewFeatures { notable: false, ..PreviewFeatures::ALL }
        };
        let capper = capper_with(features, 300);
        let budget = above_room(&capper, max_bytes, max_lines, max_line_bytes);
        let text = format!("{text}{}{text}", extra.concat());
        let call = Call {
            search: Some("apiBase".to_owned()),
            ..Call::new("c")
        };
        let run = |classify: bool| {
            one_pass(&capper, &budget, &call, &text, &cuts, |one| one.set_classify_lines(classify))
        };
        prop_assert_eq!(run(true), run(false));
    }
}

/// A budget of `max_bytes` and `max_lines` more than the notice's room.
fn above_room(
    capper: &Capper,
    max_bytes: u32,
    max_lines: Option<u32>,
    max_line_bytes: Option<u32>,
) -> Budget {
    let room = capper.room();
    Budget {
        max_bytes: room.bytes as u32 + max_bytes,
        max_lines: max_lines.map(|m| m + room.lines as u32),
        max_line_bytes,
        ..Budget::default()
    }
}

/// The one-pass engine's result for `text` pushed in pieces cut at `cuts`
/// (moved to char boundaries), set up by `setup` first; nothing saved.
fn one_pass(
    capper: &Capper,
    budget: &Budget,
    call: &Call,
    text: &str,
    cuts: &[usize],
    setup: impl Fn(&mut OnePass),
) -> Capped {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|c| text.ceil_char_boundary(c % (text.len() + 1)))
        .collect();
    at.sort_unstable();
    let mut one = OnePass::new(capper, budget, call);
    setup(&mut one);
    let mut prev = 0;
    for c in at.into_iter().chain([text.len()]) {
        one.push(&text[prev..c]);
        prev = c;
    }
    one.finish(capper, Err(CapError::Io("not saved".into())))
        .unwrap()
}

#[test]
fn a_large_stream_shows_windows_around_the_hits_of_its_search() {
    // `grep -rn apiBase dist/`: four bundles of 3 MiB, the hits deep inside
    // the first (which the head shows shortened) and the two the head and
    // the tail do not show, two split across chunks; read in 64 KiB
    // chunks, so the one-pass preview applies.
    let hit_a = "apiBase:\"https://api.example.com/v2\"";
    let hit_b = "sentryDsn:\"https://5f3c@o44.ingest.sentry.io/65\"";
    let hit_c = "const k=\"apiBase\";";
    let mut text = bundle(1_000_000, "dist/a.min.js:1:", false);
    text.push_str(hit_c);
    text.push_str(&bundle(2_000_000, "", true));
    text.push_str(&bundle(1_500_000, "dist/b.min.js:1:", false));
    text.push_str(hit_a);
    text.push_str(&bundle(1_500_000, "", true));
    text.push_str(&bundle(2_000_000, "dist/c.min.js:1:", false));
    text.push_str(hit_b);
    text.push_str(&bundle(1_000_000, "", true));
    text.push_str(&bundle(3_000_000, "dist/d.min.js:1:", true));
    let capper = capper_with(PreviewFeatures::ALL, toolcap_core::stream::LARGE_INPUT);
    let budget = Budget {
        max_bytes: 16 * 1024,
        max_lines: None,
        max_line_bytes: Some(2000),
        keep: Keep::HeadAndTail,
        head_percent: 40,
        max_tokens: None,
    };
    let search = Call {
        search: Some("apiBase\nsentryDsn".into()),
        ..Call::new("grep-1")
    };
    // Seams inside two hits.
    let mut cuts: Vec<usize> = (1..text.len() / 65536).map(|i| i * 65536).collect();
    cuts.push(text.find(hit_c).unwrap() + 12);
    cuts.push(text.find(hit_a).unwrap() + 3);
    let (c, _) = stream(
        &capper,
        &chunks(text.as_bytes(), &cuts, false),
        budget,
        &search,
    );
    assert!(c.truncated && c.text.len() <= 16 * 1024);
    for hit in [hit_a, hit_b] {
        let line = c.text.lines().find(|l| l.contains(hit)).unwrap_or_else(|| {
            panic!("{hit} not shown:\n{}", c.text);
        });
        assert!(
            line.starts_with("[line ") && line.contains("] [... "),
            "{line}"
        );
    }
    check_notable_lines(&text, &c).unwrap();
    // The head's line: its start, then the window, in place, counts exact.
    let first = c.text.lines().next().unwrap();
    assert!(
        first.starts_with("dist/a.min.js:1:var a=") && first.contains(hit_c),
        "{first}"
    );
    let (_, window_at, window, k) = toolcap_core::test_support::window_in_place(first).unwrap();
    assert_eq!(&text[window_at..window_at + window.len()], window);
    assert_eq!(window_at + window.len() + k, text.find('\n').unwrap());
    // The same preview as the whole text read at once.
    let (whole_c, _) = stream(&capper, &[text.as_bytes()], budget, &search);
    assert_eq!(c, whole_c);
    // Without the search, neither is shown.
    let (plain, _) = stream(
        &capper,
        &chunks(text.as_bytes(), &cuts, false),
        budget,
        &Call::new("grep-2"),
    );
    assert!(!plain.text.contains("apiBase") && !plain.text.contains("sentryDsn"));
}

/// Failures whose whole block the preview shows, each alone in a log.
const BLOCKS: [&str; 5] = [
    "error[E0308]: mismatched types\n  --> src/billing/invoice.rs:212:24\n    |\n210 |     fn total(&self) -> u64 {\n    |                        --- expected `u64` because of return type\n212 |         sum * self.rate\n    |         ^^^^^^^^^^^^^^^ expected `u64`, found `Decimal`\n    |\n    = note: expected type `u64`\n\n",
    "Traceback (most recent call last):\n  File \"/srv/app/jobs.py\", line 88, in run\n    result = step(payload)\n  File \"/srv/app/steps.py\", line 41, in step\n    return parse(payload[\"body\"])\nKeyError: 'body'\n",
    "_________________________ test_refund_rounds_down _________________________\n\n    def test_refund_rounds_down():\n        order = make_order(total=\"10.005\")\n>       assert refund(order) == Decimal(\"10.00\")\nE       AssertionError: assert Decimal('10.01') == Decimal('10.00')\n\ntests/test_refunds.py:31: AssertionError\n",
    "=== RUN   TestLedgerBalance\n    ledger_test.go:57: balance = 120, want 100\n    ledger_test.go:58: entries: [debit 20]\n--- FAIL: TestLedgerBalance (0.00s)\n",
    "Exception in thread \"main\" java.lang.IllegalStateException: ledger closed\n\tat com.acme.Ledger.post(Ledger.java:91)\n\tat com.acme.Billing.run(Billing.java:40)\nCaused by: java.io.IOException: disk full\n\tat com.acme.Store.write(Store.java:12)\n",
];

/// `block` in the middle of a build log long enough that a block's bytes
/// after it end before the text does, with a failure with no block before
/// it and a burst of failures at the end.
fn log_with_block(block: &str) -> String {
    let mut s = String::new();
    for i in 0..6000 {
        if i == 1000 {
            s.push_str("error: could not find `Cargo.toml` in a sibling\n");
        }
        if i == 3000 {
            s.push_str(block);
        }
        if i > 5990 {
            s.push_str(&format!("error: late failure number {i} of the burst\n"));
        }
        s.push_str(&format!(
            "step {i}: built crate-{i} v0.1.{i} (/home/u/src/crate-{i})\n"
        ));
    }
    s
}

/// Failures with no block, each alone in a log, with the lines the
/// preview shows with them: psql's statement and pointer, a `Detail:`
/// line, the file an ESLint error is in.
const CONTEXTS: [&str; 3] = [
    "ERROR:  relation \"users\" does not exist\nLINE 1: select * from users where id = 7\n                      ^\n",
    "ERROR: duplicate key value violates unique constraint \"orders_pkey\"\nDetail: Key (id)=(42) already exists.\n",
    "/home/u/app/src/checkout/cart.js\n  12:5  error  'total' is not defined  no-undef\n",
];

#[test]
fn the_first_failure_comes_whole_in_a_large_stream_however_it_is_split() {
    // The one-pass preview shows a failure's block as the whole-text
    // preview does: every line `cap` shows of it (its numbered lines; not
    // folding, so that `cap` shows them there too).
    for block in BLOCKS {
        one_pass_shows_what_cap_shows_of(block);
    }
}

#[test]
fn a_failure_without_a_block_brings_its_context_in_a_large_stream() {
    // As `cap` shows them, and however the text is split.
    for failure in CONTEXTS {
        one_pass_shows_what_cap_shows_of(failure);
    }
}

/// In a large log holding `block`, the one-pass preview shows every line of
/// it that `cap` shows (at least all but one), in one piece and in pieces
/// split around and inside it.
fn one_pass_shows_what_cap_shows_of(block: &str) {
    let features = PreviewFeatures {
        fold: false,
        ..PreviewFeatures::ALL
    };
    let one_pass = capper_with(features, 300);
    let whole_text = capper_with(features, usize::MAX);
    let budget = Budget {
        max_bytes: 8 * 1024,
        ..Budget::default()
    };
    let text = log_with_block(block);
    let at = text.find(block).unwrap();
    let (want, _) = whole(&whole_text, &text, budget, &Call::new("c"));
    let block_lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    let shown_by_cap: Vec<&&str> = block_lines
        .iter()
        .filter(|l| {
            want.text
                .lines()
                .any(|p| p.starts_with("[line ") && p.ends_with(*l))
        })
        .collect();
    assert!(
        shown_by_cap.len() >= block_lines.len() - 1,
        "cap shows the block:\n{}",
        want.text
    );
    let (got, _) = stream(&one_pass, &[text.as_bytes()], budget, &Call::new("c"));
    for l in &shown_by_cap {
        assert!(
            got.text
                .lines()
                .any(|p| p.starts_with("[line ") && p.ends_with(**l)),
            "{l:?} not shown:\n{}",
            got.text
        );
    }
    check_notable_lines(&text, &got).unwrap();
    // However the text is split: one byte at a time around the block,
    // seams inside its lines, 4 KiB pieces.
    let mut cuts: Vec<usize> = (at - 20_000..at + block.len() + 40_000)
        .step_by(997)
        .collect();
    cuts.extend((at..at + block.len()).step_by(7));
    cuts.extend((1..text.len() / 4096).map(|i| i * 4096));
    let (split, _) = stream(
        &one_pass,
        &chunks(text.as_bytes(), &cuts, false),
        budget,
        &Call::new("c"),
    );
    assert_eq!(split, got);
}
