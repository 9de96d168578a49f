//! The hostile reference corpus as data: its JSON shape, where it lives, how
//! to read and write it, and how its texts are built.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use toolcap_core::{OverflowRef, RefScheme};

/// The committed corpus, relative to the `toolcap-tests` crate.
pub const CORPUS_FILE: &str = "hostile/refs.json";

/// Forged and malformed references for one session, and the genuine ones they
/// were derived from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    /// What the file is, for a reader who opens it cold.
    pub about: String,
    /// The session every text was made for.
    pub session: SessionSpec,
    /// Spills of this session; every forgery is derived from these.
    pub genuine: Vec<Genuine>,
    /// Texts holding genuine references among hostile ones: exactly `expect`
    /// (names of [`Genuine`]s, in order) must be found.
    pub controls: Vec<Control>,
    /// Forgeries: not one reference may be found in any of them.
    pub cases: Vec<Case>,
}

/// The session the corpus was made for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// Thread id as the host gives it (escaped into the folder name).
    pub thread_id: String,
    /// The tag key, hex.
    pub key_hex: String,
    /// The display root at the start of every path.
    pub display_root: String,
}

/// One genuine spill: capping `input` under `call_id` saves it as `reference`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Genuine {
    /// Short name that controls refer to.
    pub name: String,
    /// Call id of the cap.
    pub call_id: String,
    /// The full tool output.
    pub input: Text,
    /// The reference its spill gets.
    pub reference: RefRecord,
}

/// A text that holds genuine references among hostile ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Control {
    /// Unique id.
    pub id: String,
    /// The text.
    pub text: Text,
    /// Names of the genuine references it holds, in order.
    pub expect: Vec<String>,
}

/// One forgery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique id, `<category>/<what>`.
    pub id: String,
    /// The kind of attack.
    pub category: String,
    /// The forged text.
    pub text: Text,
    /// The forged reference as a record, when it is one: `verify` and
    /// `pruned-placeholder` must refuse it.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub forged_ref: Option<RefRecord>,
    /// The path the forgery names, when `read` and `grep` must refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A reference as a JSON record (WIT `overflow-ref`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefRecord {
    pub path: String,
    pub bytes: u64,
    pub lines: u64,
    pub digest: String,
    pub tag: String,
}

/// A text, plain or generated (as in `tests/vectors/README.md`), so that a
/// 10 MB case needs no 10 MB file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Text {
    Plain(String),
    Generated {
        #[serde(rename = "gen")]
        segments: Vec<Segment>,
    },
}

/// `text` repeated `times` times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    pub text: String,
    pub times: usize,
}

impl Text {
    /// The text this stands for.
    pub fn build(&self) -> String {
        match self {
            Text::Plain(text) => text.clone(),
            Text::Generated { segments } => {
                segments.iter().map(|s| s.text.repeat(s.times)).collect()
            }
        }
    }
}

impl From<&OverflowRef> for RefRecord {
    fn from(r: &OverflowRef) -> Self {
        RefRecord {
            path: r.path.clone(),
            bytes: r.bytes,
            lines: r.lines,
            digest: r.digest.clone(),
            tag: r.tag.clone(),
        }
    }
}

/// The last two segments of a display path, `<thread>/<file>`: what a
/// reference carries beside its path.
pub fn relative_of(path: &str) -> String {
    let mut segments = path.rsplitn(3, '/');
    let file = segments.next().unwrap_or_default();
    let thread = segments.next().unwrap_or_default();
    format!("{thread}/{file}")
}

impl From<&RefRecord> for OverflowRef {
    fn from(r: &RefRecord) -> Self {
        OverflowRef {
            path: r.path.clone(),
            relative_path: relative_of(&r.path),
            bytes: r.bytes,
            lines: r.lines,
            digest: r.digest.clone(),
            tag: r.tag.clone(),
        }
    }
}

impl From<&RefRecord> for tool_output_cap::OverflowRef {
    fn from(r: &RefRecord) -> Self {
        tool_output_cap::OverflowRef {
            path: r.path.clone(),
            relative_path: relative_of(&r.path),
            bytes: r.bytes,
            lines: r.lines,
            digest: r.digest.clone(),
            tag: r.tag.clone(),
        }
    }
}

impl SessionSpec {
    /// The key as bytes.
    pub fn key(&self) -> Vec<u8> {
        (0..self.key_hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&self.key_hex[i..i + 2], 16).expect("key_hex is hex"))
            .collect()
    }

    /// The session's reference scheme, natively.
    pub fn scheme(&self) -> RefScheme {
        RefScheme::new(&self.display_root, &self.thread_id, self.key()).expect("valid session")
    }
}

impl Corpus {
    /// The genuine spill called `name`.
    pub fn genuine(&self, name: &str) -> &Genuine {
        self.genuine
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("no genuine reference named {name:?}"))
    }
}

/// Where the committed corpus lies.
pub fn corpus_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(CORPUS_FILE)
}

/// The committed corpus.
pub fn load() -> Corpus {
    let path = corpus_path();
    let json = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{}: {err} (make it with BLESS=1)", path.display()));
    serde_json::from_str(&json).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The corpus as committed: pretty JSON, final LF, and every non-ASCII
/// character escaped, so that bidi controls and look-alikes are visible in
/// review instead of silently reordering the file's text.
pub fn render(corpus: &Corpus) -> String {
    let pretty = serde_json::to_string_pretty(corpus).expect("the corpus serializes");
    let mut out = String::with_capacity(pretty.len() + 1);
    for c in pretty.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            // Outside strings JSON is ASCII, so every such char is in a string.
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out.push('\n');
    out
}
