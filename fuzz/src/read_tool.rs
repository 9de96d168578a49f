//! The model-facing read tool (`read_tool::run`) on any arguments: raw bytes
//! as the model might send them, or JSON objects built from the tool's
//! fields with values of every type and range, over spilled files held in
//! memory. It never panics, always answers the same way twice, a bad call is
//! an error and never reads, and the output stays within
//! `read_tool::max_text_bytes`.

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Value, json};
use toolcap_core::read_tool::{self, DEFAULT_MAX_BYTES, MemSpill, ReadToolOutput};
use toolcap_core::{OverflowRef, RefScheme};

use crate::pieces::{Piece, bytes_of};

/// The input the fuzzer shapes.
#[derive(Arbitrary, Debug)]
struct Input<'a> {
    /// The spilled file the call usually names (it may hold invalid UTF-8,
    /// as a tampered file can).
    file: Vec<Piece<'a>>,
    /// A second spilled file of the thread.
    other: &'a [u8],
    arguments: Arguments<'a>,
}

#[derive(Arbitrary, Debug)]
enum Arguments<'a> {
    /// Whatever the model sent, as text.
    Raw(&'a [u8]),
    /// A JSON object of the tool's fields (and others).
    Object(Fields<'a>),
    /// Some other JSON value.
    NotAnObject(JsonValue<'a>),
}

/// The fields of a call; `None` leaves a field out.
#[derive(Arbitrary, Debug)]
struct Fields<'a> {
    path: Option<PathArg<'a>>,
    line: Option<Number<'a>>,
    lines: Option<Number<'a>>,
    offset: Option<Number<'a>>,
    max_bytes: Option<Number<'a>>,
    grep: Option<GrepArg<'a>>,
    max_matches: Option<Number<'a>>,
    /// A field the tool does not know (or an alias of one it does).
    unknown: Option<(UnknownName<'a>, JsonValue<'a>)>,
}

/// What `path` holds.
#[derive(Arbitrary, Debug)]
enum PathArg<'a> {
    /// The display path of a file of this thread.
    Genuine,
    /// Its `<thread>/<file>` form.
    Relative,
    /// The whole notice text around the reference, as a model may paste it.
    Notice(&'a str),
    /// The reference token with one byte changed.
    Forged(u16, u8),
    /// A name of the scheme that was never saved.
    NeverSaved,
    /// Another thread's folder, or `..`.
    Outside(bool),
    /// Anything.
    Any(&'a str),
    /// Not a string.
    NotAString(JsonValue<'a>),
}

/// A number field's value: mostly in range, sometimes not a whole number,
/// negative, huge, a string or null.
#[derive(Arbitrary, Debug)]
enum Number<'a> {
    Small(u16),
    Any(u64),
    Negative(i32),
    Float(f32),
    Quoted(u16),
    Other(JsonValue<'a>),
}

#[derive(Arbitrary, Debug)]
enum GrepArg<'a> {
    /// A slice of the file, so that it matches.
    FromFile(u16, u8),
    Any(&'a str),
    /// Longer than the tool allows.
    TooLong(u8),
    Other(JsonValue<'a>),
}

#[derive(Arbitrary, Debug)]
enum UnknownName<'a> {
    /// A name models use for a real field (`file`, `pattern`, ...).
    Alias(u8),
    Any(&'a str),
}

/// Names models use for the tool's fields.
const ALIASES: [&str; 6] = ["file", "pattern", "query", "start_line", "count", "Path"];

/// A small JSON value of any type.
#[derive(Arbitrary, Debug)]
enum JsonValue<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
    Array(u8),
    Object,
}

impl JsonValue<'_> {
    fn value(&self) -> Value {
        match self {
            JsonValue::Null => Value::Null,
            JsonValue::Bool(b) => json!(b),
            JsonValue::Int(n) => json!(n),
            // Not finite: serde_json writes null.
            JsonValue::Float(f) => json!(f),
            JsonValue::Str(s) => json!(s),
            JsonValue::Array(n) => json!(vec![*n; usize::from(*n % 4)]),
            JsonValue::Object => json!({"path": "nested"}),
        }
    }
}

impl Number<'_> {
    fn value(&self) -> Value {
        match self {
            Number::Small(n) => json!(n),
            Number::Any(n) => json!(n),
            Number::Negative(n) => json!(-i64::from(n.unsigned_abs()) - 1),
            Number::Float(f) => json!(f),
            Number::Quoted(n) => json!(n.to_string()),
            Number::Other(v) => v.value(),
        }
    }
}

/// Which path an input reached, for the smoke test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReadToolPath {
    /// Not JSON, or not an object.
    BadJson,
    /// An object the tool refused (a field, a path, a missing file).
    Refused,
    /// A forged reference, refused.
    Forged,
    /// A name that was never saved: not found.
    NeverSaved,
    /// A page read by lines.
    Lines,
    /// A page read from a byte offset.
    Bytes,
    /// A search.
    Grep,
}

/// The session of every input: a display root with a space and a non-ASCII
/// letter, so paths need JSON escaping in cursors.
fn scheme() -> RefScheme {
    RefScheme::new("/home/Ж me/.spill", "thread-9", vec![42; 32]).expect("valid scheme")
}

/// Parse `data` as files and arguments, run one call and check it. Panics
/// when an invariant breaks; `None` when `data` does not shape into an input.
pub fn check_read_tool(data: &[u8]) -> Option<ReadToolPath> {
    let input = Input::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let content = bytes_of(&input.file);
    let mut files = MemSpill::new(scheme());
    let spill = files.spill("call-1", &content);
    files.spill("call-2", input.other);

    let arguments = match &input.arguments {
        Arguments::Raw(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Arguments::Object(fields) => object(fields, &spill, &content).to_string(),
        Arguments::NotAnObject(value) => value.value().to_string(),
    };
    let out = read_tool::run(&arguments, &mut files);
    assert_eq!(
        read_tool::run(&arguments, &mut files),
        out,
        "the same call answered differently"
    );
    let scheme = &scheme();
    let parsed: Option<Value> = serde_json::from_str(&arguments).ok();
    let object = parsed.as_ref().and_then(Value::as_object);
    if out.is_error {
        let bound = read_tool::max_text_bytes(scheme, 0);
        assert!(
            out.text.len() <= bound,
            "an error of {} bytes, over {bound}: {}",
            out.text.len(),
            out.text
        );
        assert!(!out.text.is_empty());
        return Some(match (object, &input.arguments) {
            (None, _) => ReadToolPath::BadJson,
            (Some(_), Arguments::Object(f)) if matches!(f.path, Some(PathArg::Forged(..))) => {
                ReadToolPath::Forged
            }
            (Some(_), Arguments::Object(f)) if matches!(f.path, Some(PathArg::NeverSaved)) => {
                ReadToolPath::NeverSaved
            }
            _ => ReadToolPath::Refused,
        });
    }
    // An answer needs an object with a path; its max_bytes (a whole number
    // the tool accepted) or the default bounds the text.
    let object = object.expect("answered a call that is not a JSON object");
    assert!(object.get("path").is_some_and(Value::is_string));
    let max_bytes = match object.get("max_bytes") {
        None | Some(Value::Null) => DEFAULT_MAX_BYTES,
        Some(v) => {
            let n = v
                .as_f64()
                .expect("answered a max_bytes that is not a number");
            assert!(
                n.fract() == 0.0
                    && (f64::from(read_tool::MIN_MAX_BYTES)..=f64::from(read_tool::MAX_MAX_BYTES))
                        .contains(&n),
                "answered max_bytes {v}"
            );
            n as u32
        }
    };
    let bound = read_tool::max_text_bytes(scheme, max_bytes);
    assert!(
        out.text.len() <= bound,
        "{} bytes for max_bytes {max_bytes}, over {bound}",
        out.text.len()
    );
    check_not_outside(&out, &input.arguments);
    Some(if object.get("grep").is_some_and(|g| !g.is_null()) {
        ReadToolPath::Grep
    } else if object.get("offset").is_some_and(|o| !o.is_null()) {
        ReadToolPath::Bytes
    } else {
        ReadToolPath::Lines
    })
}

/// A call that names no file of this thread is never answered.
fn check_not_outside(out: &ReadToolOutput, arguments: &Arguments<'_>) {
    if let Arguments::Object(f) = arguments {
        assert!(
            !matches!(
                f.path,
                Some(PathArg::Forged(..) | PathArg::NeverSaved | PathArg::Outside(_))
            ),
            "answered {:?}: {}",
            f.path,
            out.text
        );
    }
}

/// The JSON object of `fields`, naming `spill` (whose file holds `content`).
fn object(fields: &Fields<'_>, spill: &OverflowRef, content: &[u8]) -> Value {
    let mut map = Map::new();
    if let Some(path) = &fields.path {
        map.insert("path".into(), path_value(path, spill));
    }
    for (name, number) in [
        ("line", &fields.line),
        ("lines", &fields.lines),
        ("offset", &fields.offset),
        ("max_bytes", &fields.max_bytes),
        ("max_matches", &fields.max_matches),
    ] {
        if let Some(n) = number {
            map.insert(name.into(), n.value());
        }
    }
    if let Some(grep) = &fields.grep {
        let value = match grep {
            GrepArg::FromFile(start, len) => {
                let start = usize::from(*start) % (content.len() + 1);
                let end = (start + usize::from(*len)).min(content.len());
                json!(String::from_utf8_lossy(&content[start..end]))
            }
            GrepArg::Any(s) => json!(s),
            GrepArg::TooLong(n) => json!("ж".repeat(201 + usize::from(*n))),
            GrepArg::Other(v) => v.value(),
        };
        map.insert("grep".into(), value);
    }
    if let Some((name, value)) = &fields.unknown {
        let name = match name {
            UnknownName::Alias(i) => ALIASES[usize::from(*i) % ALIASES.len()],
            UnknownName::Any(s) => s,
        };
        map.insert(name.to_owned(), value.value());
    }
    Value::Object(map)
}

fn path_value(path: &PathArg<'_>, spill: &OverflowRef) -> Value {
    let token = RefScheme::token(spill);
    let name = spill.relative_path.rsplit('/').next().expect("thread/file");
    let root = "/home/Ж me/.spill";
    match path {
        PathArg::Genuine => json!(spill.path),
        PathArg::Relative => json!(spill.relative_path),
        PathArg::Notice(before) => json!(format!("{before}\n[full output saved; {token}\n")),
        PathArg::Forged(at, by) => {
            let mut bytes = token.into_bytes();
            let at = usize::from(*at) % bytes.len();
            bytes[at] ^= (*by).max(1);
            json!(String::from_utf8_lossy(&bytes))
        }
        PathArg::NeverSaved => json!(format!("{root}/thread-9/call-7-0123456789abcdef.txt")),
        PathArg::Outside(true) => json!(format!("{root}/thread-8/{name}")),
        PathArg::Outside(false) => json!(format!("{root}/thread-9/../thread-9/{name}")),
        PathArg::Any(s) => json!(s),
        PathArg::NotAString(v) => v.value(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls a model makes, each answered or refused as the docs say.
    #[test]
    fn typical_calls() {
        let mut files = MemSpill::new(scheme());
        let spill = files.spill("call-1", b"one\ntwo error\nthree\n");
        for (arguments, is_error) in [
            (json!({"path": spill.path}), false),
            (json!({"path": spill.path, "grep": "error"}), false),
            (
                json!({"path": spill.path, "offset": 4, "max_bytes": 256}),
                false,
            ),
            (
                json!({"path": spill.relative_path, "line": 2, "lines": 1}),
                false,
            ),
            (json!({"path": spill.path, "max_bytes": 100}), true),
            (json!({"file": spill.path}), true),
            (json!([spill.path]), true),
        ] {
            let out = read_tool::run(&arguments.to_string(), &mut files);
            assert_eq!(out.is_error, is_error, "{arguments}: {}", out.text);
        }
    }

    #[test]
    fn smoke() {
        crate::smoke::run(
            0x7EAD,
            20_000,
            400,
            check_read_tool,
            &[
                ReadToolPath::BadJson,
                ReadToolPath::Refused,
                ReadToolPath::Forged,
                ReadToolPath::NeverSaved,
                ReadToolPath::Lines,
                ReadToolPath::Bytes,
                ReadToolPath::Grep,
            ],
        );
    }
}
