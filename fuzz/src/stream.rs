//! `CapStream` on any bytes in any chunking, against `Capper::cap_bytes` on
//! all of them (the preview from `String::from_utf8_lossy` of the bytes, the
//! file the exact bytes), and on valid UTF-8 against `Capper::cap_call` on
//! the text: the same `Capped`, field for field, and the same files saved, whether the spill
//! works or the disk fills up part of the way. A small `set_large_input`
//! threshold puts the one-pass mode (the spill written as chunks arrive)
//! within reach of short inputs.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use toolcap_core::stream::MemoryWriter;
use toolcap_core::{
    Budget, Call, CapError, CapStream, Capper, Keep, NoticeStyle, PreviewFeatures, PreviewSettings,
    RefScheme, SpillStore,
};

use crate::pieces::{Piece, bytes_of};

/// What a failing store and the failing writer both say.
const DISK_FULL: &str = "no space left on device";

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    /// Above this many bytes (64 plus twice this) a text takes the
    /// one-pass mode.
    large_input: u8,
    budget: BudgetInput,
    tool: Option<&'a str>,
    exit_code: Option<i32>,
    is_error: bool,
    settings: SettingsInput<'a>,
    /// The writer's first or second append fails, as a full disk would (a
    /// short text makes one or two appends of at most 64 KiB).
    fail_append: Option<bool>,
    /// The store (the path of a text that stays small) fails.
    store_fails: bool,
    /// An exit code learnt while the output streams (as `toolcap cap`
    /// learns it when the command ends), given after this many chunks.
    late_exit_code: Option<(i32, u16)>,
    /// Where the bytes are cut into chunks; `None`: one byte at a time.
    cuts: Option<Vec<u16>>,
    /// The output, piece by piece (invalid UTF-8 included).
    pieces: Vec<Piece<'a>>,
}

#[derive(Arbitrary, Debug)]
struct SettingsInput<'a> {
    read_tool: Option<Name<'a>>,
    shell_hints: bool,
    patterns: Vec<Name<'a>>,
    features: [bool; 5],
}

/// A read tool name or a notable pattern: mostly a valid one, sometimes
/// anything (which may be refused).
#[derive(Arbitrary, Debug)]
enum Name<'a> {
    Valid(bool),
    Any(&'a str),
}

impl Name<'_> {
    fn get(&self, valid: [&'static str; 2]) -> String {
        match self {
            Name::Valid(b) => valid[usize::from(*b)].to_owned(),
            Name::Any(s) => (*s).to_owned(),
        }
    }
}

impl SettingsInput<'_> {
    fn settings(&self) -> PreviewSettings {
        let [notable, fold, json, fill, adaptive_notice] = self.features;
        PreviewSettings {
            notice: NoticeStyle {
                read_tool: self
                    .read_tool
                    .as_ref()
                    .map(|n| n.get(["read_spilled_output", "read"])),
                shell_hints: self.shell_hints,
                ..NoticeStyle::default()
            },
            notable_patterns: self
                .patterns
                .iter()
                .map(|p| p.get(["BOOM", "step ok"]))
                .collect(),
            features: PreviewFeatures {
                notable,
                fold,
                json,
                fill,
                adaptive_notice,
            },
            ..PreviewSettings::default()
        }
    }
}

/// A budget near the valid edges, small enough for the one-pass mode.
#[derive(Arbitrary, Debug)]
struct BudgetInput {
    /// The least valid `max-bytes` plus 8 times this.
    above_room: u8,
    max_lines: Option<u8>,
    max_line_bytes: Option<u16>,
    keep: u8,
    head_percent: u8,
    max_tokens: Option<u8>,
    /// Sometimes any budget at all, mostly invalid.
    any: Option<(u32, Option<u32>)>,
}

impl BudgetInput {
    fn budget(&self, capper: &Capper) -> Budget {
        let room = capper.room();
        let (max_bytes, max_lines) = match self.any {
            Some(any) => any,
            None => (
                room.bytes as u32 + 8 * u32::from(self.above_room),
                self.max_lines.map(|n| room.lines as u32 + u32::from(n)),
            ),
        };
        Budget {
            max_bytes,
            max_lines,
            max_line_bytes: self.max_line_bytes.map(u32::from),
            keep: [Keep::Head, Keep::Tail, Keep::HeadAndTail][usize::from(self.keep % 3)],
            head_percent: self.head_percent % 110,
            max_tokens: self
                .max_tokens
                .map(|n| room.tokens as u32 + 4 * u32::from(n)),
        }
    }
}

/// Spills in memory, or a full disk.
#[derive(Default)]
struct MemStore {
    files: BTreeMap<String, Vec<u8>>,
    fails: bool,
}

impl SpillStore for MemStore {
    fn save(&mut self, thread_dir: &str, file_name: &str, content: &[u8]) -> Result<(), CapError> {
        if self.fails {
            return Err(CapError::Io(DISK_FULL.into()));
        }
        self.files
            .insert(format!("{thread_dir}/{file_name}"), content.to_vec());
        Ok(())
    }
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamPath {
    /// The session settings were refused.
    InvalidSettings,
    /// The budget was refused, by the stream as by `cap`.
    InvalidBudget,
    /// A text that stayed small: capped at the end, as `cap` does.
    Small,
    /// A small text cut, its spill refused.
    SmallSpillFailed,
    /// The one-pass mode, the spill written as it came.
    Large,
    /// The one-pass mode, the disk full part of the way.
    LargeSpillFailed,
}

/// Parse `data` as bytes, a chunking, a budget and failures, stream the
/// bytes and compare with `cap_bytes` on all of them (and `cap_call` on text). Panics when they
/// differ; `None` when `data` does not shape into an input.
pub fn check_stream(data: &[u8]) -> Option<StreamPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let scheme = RefScheme::new("/home/me/.spill", "thread-9", vec![42; 32]).expect("valid scheme");
    let mut capper = match Capper::with_settings(scheme, input.settings.settings()) {
        Ok(capper) => capper,
        Err(CapError::InvalidSettings(_)) => return Some(StreamPath::InvalidSettings),
        Err(other) => panic!("settings refused with {other:?}"),
    };
    capper.set_large_input(64 + 2 * usize::from(input.large_input));
    let mut call = Call {
        search: None,
        id: "call-1".to_owned(),
        tool: input.tool.map(str::to_owned),
        exit_code: input.exit_code,
        is_error: input.is_error,
    };
    let budget = input.budget.budget(&capper);
    let bytes = bytes_of(&input.pieces);
    let text = String::from_utf8_lossy(&bytes);

    let mut stream = match CapStream::new(&capper, budget, call.clone()) {
        Ok(stream) => stream,
        Err(e) => {
            assert!(matches!(e, CapError::InvalidBudget(_)), "{e:?}");
            let whole = capper.cap_call(&text, &budget, &call, &mut MemStore::default());
            assert_eq!(whole, Err(e), "the stream and cap refuse alike");
            return Some(StreamPath::InvalidBudget);
        }
    };
    let mut writer = MemoryWriter {
        fail_append: input.fail_append.map(usize::from),
        ..MemoryWriter::default()
    };
    let chunks = chunks(&bytes, input.cuts.as_deref());
    let late_exit_at = input
        .late_exit_code
        .map(|(code, at)| (code, usize::from(at) % (chunks.len() + 1)));
    for (n, chunk) in chunks.iter().enumerate() {
        if let Some((code, _)) = late_exit_at.filter(|&(_, at)| at == n) {
            stream.set_exit_code(code);
        }
        stream.write(&capper, chunk, &mut writer);
    }
    if let Some((code, _)) = late_exit_at.filter(|&(_, at)| at == chunks.len()) {
        stream.set_exit_code(code);
    }
    // The oracle caps with the code the stream ended with.
    if let Some((code, _)) = late_exit_at {
        call.exit_code = Some(code);
    }
    assert_eq!(stream.bytes_written(), bytes.len() as u64);
    let mut store = MemStore {
        fails: input.store_fails,
        ..MemStore::default()
    };
    let got = stream
        .finish(&capper, &mut writer, &mut store)
        .unwrap_or_else(|e| panic!("finish failed: {e:?}"));
    assert!(writer.partial.is_none(), "a file left half written");

    // A text that became large went to the writer; one that did not went
    // to the store at the end.
    let large = writer.appends > 0;
    let failed = if large {
        input
            .fail_append
            .is_some_and(|k| writer.appends > usize::from(k))
    } else {
        input.store_fails
    };
    assert!(!large || store.files.is_empty(), "a large text saved twice");
    let mut oracle_store = MemStore {
        fails: failed,
        ..MemStore::default()
    };
    // `cap_bytes`: the preview from the lossy text, the file the exact bytes.
    let want = capper
        .cap_bytes(&bytes, &budget, &call, &mut oracle_store)
        .unwrap_or_else(|e| panic!("cap_bytes failed where the stream did not: {e:?}"));
    assert_eq!(got, want, "the stream differs from cap");
    if std::str::from_utf8(&bytes).is_ok() {
        // On text, capping the bytes is capping the text.
        let mut text_store = MemStore {
            fails: failed,
            ..MemStore::default()
        };
        let as_text = capper.cap_call(&text, &budget, &call, &mut text_store);
        assert_eq!(
            as_text.as_ref(),
            Ok(&want),
            "cap_bytes differs from cap on text"
        );
        assert!(
            text_store.files == oracle_store.files,
            "cap_bytes saved other files"
        );
    }
    let mut saved = store.files;
    saved.extend(writer.committed);
    assert!(saved == oracle_store.files, "saved files differ");
    Some(match (large, failed, got.spill_error.is_some()) {
        (true, true, true) => StreamPath::LargeSpillFailed,
        (true, false, false) => StreamPath::Large,
        (false, true, true) => StreamPath::SmallSpillFailed,
        (false, _, false) => StreamPath::Small,
        other => panic!("spill outcome {other:?} (large, failed, reported)"),
    })
}

/// `bytes` cut at `cuts` (any positions, any order), or one byte at a time.
fn chunks<'b>(bytes: &'b [u8], cuts: Option<&[u16]>) -> Vec<&'b [u8]> {
    let Some(cuts) = cuts else {
        return bytes.chunks(1).collect();
    };
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| usize::from(c) % (bytes.len() + 1))
        .collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for c in at.into_iter().chain([bytes.len()]) {
        out.push(&bytes[prev..c]);
        prev = c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log over the threshold, cut into uneven chunks with a character
    /// split between two of them, its spill failing on its one append (the
    /// write buffer takes 64 KiB).
    #[test]
    fn large_log_with_a_full_disk() {
        let mut capper =
            Capper::new(RefScheme::new("/s", "t", vec![42; 32]).expect("valid scheme"));
        capper.set_large_input(300);
        let log = "step ok жж\nerror: boom 😀\n".repeat(200);
        let budget = Budget {
            max_bytes: capper.room().bytes as u32 + 200,
            max_lines: None,
            max_line_bytes: None,
            keep: Keep::HeadAndTail,
            head_percent: 40,
            max_tokens: None,
        };
        for fail in [None, Some(0)] {
            let mut stream = CapStream::new(&capper, budget, Call::new("c")).unwrap();
            let mut writer = MemoryWriter {
                fail_append: fail,
                ..MemoryWriter::default()
            };
            for chunk in log.as_bytes().chunks(77) {
                stream.write(&capper, chunk, &mut writer);
            }
            let got = stream
                .finish(&capper, &mut writer, &mut MemStore::default())
                .unwrap();
            let mut store = MemStore {
                fails: fail.is_some(),
                ..MemStore::default()
            };
            let want = capper
                .cap_call(&log, &budget, &Call::new("c"), &mut store)
                .unwrap();
            assert_eq!(got, want);
            assert_eq!(got.spill_error.is_some(), fail.is_some());
        }
    }

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x57E4,
            20_000,
            600,
            check_stream,
            &[
                StreamPath::InvalidSettings,
                StreamPath::InvalidBudget,
                StreamPath::Small,
                StreamPath::SmallSpillFailed,
                StreamPath::Large,
                StreamPath::LargeSpillFailed,
            ],
        );
    }
}
