//! The arguments of a call: the JSON object the model sent, checked field by
//! field into a [`Request`], or a sentence that says what is wrong.

use serde_json::{Map, Value};

use super::render::{json_string, preview};

/// Lines a line-mode call reads when it gives no `lines`.
pub const DEFAULT_LINES: u32 = 200;
/// Most `lines` of one call.
pub const MAX_LINES: u32 = 2000;
/// Bytes of file text a call returns when it gives no `max_bytes`.
pub const DEFAULT_MAX_BYTES: u32 = 8192;
/// Least `max_bytes`: room for a numbered line and a grep excerpt.
pub const MIN_MAX_BYTES: u32 = 256;
/// Most `max_bytes`.
pub const MAX_MAX_BYTES: u32 = 65536;
/// Matches a grep call lists when it gives no `max_matches`.
pub const DEFAULT_MAX_MATCHES: u32 = 20;
/// Most `max_matches`.
pub const MAX_MATCHES: u32 = 200;
/// Longest `grep` pattern, in characters: a longer one is no search, and the
/// bound keeps the cursor that repeats it small.
pub const MAX_GREP_CHARS: usize = 200;

/// The fields a call may hold.
const FIELDS: [&str; 7] = [
    "path",
    "line",
    "lines",
    "offset",
    "max_bytes",
    "grep",
    "max_matches",
];

/// Names models often use for a field, and the field they mean.
const ALIASES: [(&str, &str); 16] = [
    ("file", "path"),
    ("file_path", "path"),
    ("filepath", "path"),
    ("filename", "path"),
    ("reference", "path"),
    ("pattern", "grep"),
    ("query", "grep"),
    ("search", "grep"),
    ("regex", "grep"),
    ("start_line", "line"),
    ("first_line", "line"),
    ("line_number", "line"),
    ("count", "lines"),
    ("limit", "lines"),
    ("num_lines", "lines"),
    ("byte_offset", "offset"),
];

/// A checked call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The `path` argument: a path, or text holding a reference.
    pub path: String,
    /// What to read.
    pub mode: Mode,
    /// `max_bytes` if the call gave it (cursors repeat it).
    pub max_bytes: Option<u32>,
}

/// The three ways to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `lines` lines (if given) from 1-based `line`.
    Lines { line: u64, lines: Option<u32> },
    /// From byte `offset`.
    Bytes { offset: u64 },
    /// Lines holding the literal `pattern`, `max_matches` of them if given.
    Grep {
        pattern: String,
        max_matches: Option<u32>,
    },
}

/// Why a call was refused, and its `path` if it had one as a string, for the
/// example of a correct call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub why: String,
    pub path: Option<String>,
}

/// Check `arguments`, the JSON text the model sent.
pub fn parse(arguments: &str) -> Result<Request, Rejected> {
    let value: Value = serde_json::from_str(arguments).map_err(|e| Rejected {
        why: format!("The arguments are not valid JSON ({e})."),
        path: None,
    })?;
    let Value::Object(map) = value else {
        return Err(Rejected {
            why: format!(
                "The arguments must be a JSON object with a \"path\", got {}.",
                describe(&value)
            ),
            path: None,
        });
    };
    let path = map.get("path").and_then(Value::as_str).map(str::to_owned);
    check(&map).map_err(|why| Rejected { why, path })
}

fn check(map: &Map<String, Value>) -> Result<Request, String> {
    if let Some(unknown) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(unknown_field(unknown));
    }
    let path = match field(map, "path") {
        None => {
            return Err(
                "\"path\" is missing: give the path of the saved output as the notice wrote it."
                    .to_owned(),
            );
        }
        Some(Value::String(p)) if p.trim().is_empty() => {
            return Err("\"path\" is empty: give the path of the saved output.".to_owned());
        }
        Some(Value::String(p)) => p.clone(),
        Some(other) => return Err(wrong_type("path", "a string", other)),
    };
    let line = integer(map, "line", 1, u64::MAX)?;
    let lines = integer(map, "lines", 1, MAX_LINES.into())?;
    let offset = integer(map, "offset", 0, u64::MAX)?;
    let max_bytes = integer(map, "max_bytes", MIN_MAX_BYTES.into(), MAX_MAX_BYTES.into())?;
    let max_matches = integer(map, "max_matches", 1, MAX_MATCHES.into())?;
    let grep = match field(map, "grep") {
        None => None,
        Some(Value::String(g)) if g.is_empty() => {
            return Err(
                "\"grep\" is empty: give the literal text to find, for example \"error\"."
                    .to_owned(),
            );
        }
        Some(Value::String(g)) if g.chars().count() > MAX_GREP_CHARS => {
            return Err(format!(
                "\"grep\" is longer than {MAX_GREP_CHARS} characters: search for a shorter, \
                 distinctive part of the text."
            ));
        }
        Some(Value::String(g)) => Some(g.clone()),
        Some(other) => return Err(wrong_type("grep", "a string", other)),
    };
    let in_lines = line.is_some() || lines.is_some();
    let mode = match (grep, offset) {
        (Some(_), Some(_)) => {
            return Err(
                "\"grep\" and \"offset\" cannot be combined: a call either searches \
                        (grep) or reads bytes from an offset."
                    .to_owned(),
            );
        }
        (Some(_), None) if in_lines => {
            return Err(
                "\"grep\" searches the whole file and takes no \"line\" or \"lines\"; \
                        read around a match with a separate call by line."
                    .to_owned(),
            );
        }
        (None, Some(_)) if in_lines => {
            return Err(
                "\"offset\" (a byte position) cannot be combined with \"line\" or \
                        \"lines\": read either by lines or from a byte offset."
                    .to_owned(),
            );
        }
        (None, _) if max_matches.is_some() => {
            return Err("\"max_matches\" only goes with \"grep\".".to_owned());
        }
        (Some(pattern), None) => Mode::Grep {
            pattern,
            max_matches: max_matches.map(to_u32),
        },
        (None, Some(offset)) => Mode::Bytes { offset },
        (None, None) => Mode::Lines {
            line: line.unwrap_or(1),
            lines: lines.map(to_u32),
        },
    };
    Ok(Request {
        path,
        mode,
        max_bytes: max_bytes.map(to_u32),
    })
}

/// The value of `name`; `null` counts as absent, since some hosts send
/// `null` for every optional field they were not given.
fn field<'m>(map: &'m Map<String, Value>, name: &str) -> Option<&'m Value> {
    map.get(name).filter(|v| !v.is_null())
}

/// The whole number `name` holds, checked to be within `min..=max`.
fn integer(
    map: &Map<String, Value>,
    name: &str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, String> {
    let Some(value) = field(map, name) else {
        return Ok(None);
    };
    let Value::Number(number) = value else {
        let mut why = wrong_type(name, "a whole number", value);
        if value
            .as_str()
            .is_some_and(|s| s.trim().parse::<u64>().is_ok())
        {
            why.push_str(" Write the number without quotes.");
        }
        return Err(why);
    };
    match whole_number(number) {
        Whole::Of(n) if (min..=max).contains(&n) => Ok(Some(n)),
        Whole::Of(_) | Whole::Negative => Err(out_of_range(name, min, max, &number.to_string())),
        Whole::TooBig => Err(format!(
            "\"{name}\" is too large, got {}.",
            preview(&number.to_string(), 40)
        )),
        Whole::Fraction => Err(format!(
            "\"{name}\" must be a whole number, got {}.",
            preview(&number.to_string(), 40)
        )),
    }
}

/// A JSON number as a count.
enum Whole {
    Of(u64),
    Negative,
    TooBig,
    Fraction,
}

fn whole_number(number: &serde_json::Number) -> Whole {
    if let Some(n) = number.as_u64() {
        return Whole::Of(n);
    }
    if number.as_i64().is_some() {
        return Whole::Negative;
    }
    // JSON Schema counts 5.0 as an integer; anything fractional is not.
    match number.as_f64() {
        Some(f) if f.fract() != 0.0 => Whole::Fraction,
        Some(f) if f < 0.0 => Whole::Negative,
        // 2^64 is the first float past u64::MAX; `as` is exact below it.
        Some(f) if f < 18_446_744_073_709_551_616.0 => Whole::Of(f as u64),
        Some(_) => Whole::TooBig,
        None => Whole::Fraction,
    }
}

fn out_of_range(name: &str, min: u64, max: u64, got: &str) -> String {
    let got = preview(got, 40);
    let hint = match name {
        "line" => " (lines are numbered from 1)",
        "offset" => " (bytes are counted from 0)",
        _ => "",
    };
    if max == u64::MAX {
        format!("\"{name}\" must be at least {min}{hint}, got {got}.")
    } else {
        format!("\"{name}\" must be from {min} to {max}{hint}, got {got}.")
    }
}

fn wrong_type(name: &str, wanted: &str, got: &Value) -> String {
    format!("\"{name}\" must be {wanted}, got {}.", describe(got))
}

fn unknown_field(name: &str) -> String {
    let shown = json_string(crate::text::truncate_str(name, 40));
    let known = FIELDS.map(|f| format!("\"{f}\"")).join(", ");
    let lower = name.to_ascii_lowercase();
    let meant = ALIASES
        .iter()
        .find(|(alias, _)| *alias == lower)
        .map(|(_, field)| *field)
        .or_else(|| FIELDS.iter().copied().find(|f| *f == lower));
    match meant {
        Some(field) => {
            format!("Unknown field {shown}; did you mean \"{field}\"? The fields are {known}.")
        }
        None => format!("Unknown field {shown}. The fields are {known}."),
    }
}

/// A few words for the model on what `value` is.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {}", preview(&n.to_string(), 40)),
        Value::String(s) => format!(
            "the string {}",
            json_string(crate::text::truncate_str(s, 40))
        ),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// A value checked against a `u32` maximum.
fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(arguments: &str) -> String {
        parse(arguments).unwrap_err().why
    }

    #[test]
    fn defaults_are_line_mode_from_line_one() {
        let r = parse(r#"{"path": "p"}"#).unwrap();
        assert_eq!(
            r.mode,
            Mode::Lines {
                line: 1,
                lines: None
            }
        );
        assert_eq!(r.max_bytes, None);
        let r = parse(r#"{"path": "p", "grep": "x", "max_matches": 5, "max_bytes": 300}"#).unwrap();
        assert_eq!(
            r.mode,
            Mode::Grep {
                pattern: "x".into(),
                max_matches: Some(5)
            }
        );
        assert_eq!(r.max_bytes, Some(300));
        let r = parse(r#"{"path": "p", "offset": 0, "grep": null}"#).unwrap();
        assert_eq!(r.mode, Mode::Bytes { offset: 0 });
        let r = parse(r#"{"path": "p", "line": 4.0, "lines": 2000}"#).unwrap();
        assert_eq!(
            r.mode,
            Mode::Lines {
                line: 4,
                lines: Some(2000)
            }
        );
    }

    #[test]
    fn mistakes_get_a_sentence_naming_the_field() {
        let cases = [
            ("", "not valid JSON"),
            ("{\"path\": ", "not valid JSON"),
            ("[1]", "got an array"),
            ("\"p\"", "got the string \"p\""),
            ("{}", "\"path\" is missing"),
            (r#"{"path": "  "}"#, "\"path\" is empty"),
            (
                r#"{"path": 3}"#,
                "\"path\" must be a string, got the number 3",
            ),
            (r#"{"path": "p", "file": "q"}"#, "did you mean \"path\""),
            (r#"{"path": "p", "Grep": "q"}"#, "did you mean \"grep\""),
            (r#"{"path": "p", "zzz": 1}"#, "Unknown field \"zzz\""),
            (
                r#"{"path": "p", "line": 0}"#,
                "at least 1 (lines are numbered from 1), got 0",
            ),
            (r#"{"path": "p", "line": -3}"#, "at least 1"),
            (
                r#"{"path": "p", "line": 1.5}"#,
                "must be a whole number, got 1.5",
            ),
            (r#"{"path": "p", "line": 1e400}"#, "not valid JSON"),
            (
                r#"{"path": "p", "line": 1e300}"#,
                "\"line\" is too large, got 1e+300",
            ),
            (
                r#"{"path": "p", "lines": 3e3}"#,
                "from 1 to 2000, got 3000.0",
            ),
            (r#"{"path": "p", "line": -2.0}"#, "at least 1"),
            (r#"{"path": "p", "line": "41"}"#, "without quotes"),
            (r#"{"path": "p", "lines": 2001}"#, "from 1 to 2000"),
            (r#"{"path": "p", "offset": -1}"#, "counted from 0"),
            (r#"{"path": "p", "max_bytes": 100}"#, "from 256 to 65536"),
            (r#"{"path": "p", "max_bytes": true}"#, "got true"),
            (
                r#"{"path": "p", "grep": "x", "max_matches": 201}"#,
                "from 1 to 200",
            ),
            (r#"{"path": "p", "grep": ""}"#, "\"grep\" is empty"),
            (r#"{"path": "p", "grep": ["x"]}"#, "got an array"),
            (
                r#"{"path": "p", "grep": "x", "offset": 3}"#,
                "cannot be combined",
            ),
            (
                r#"{"path": "p", "grep": "x", "line": 3}"#,
                "takes no \"line\"",
            ),
            (
                r#"{"path": "p", "offset": 1, "lines": 3}"#,
                "cannot be combined",
            ),
            (
                r#"{"path": "p", "max_matches": 3}"#,
                "only goes with \"grep\"",
            ),
        ];
        for (arguments, expected) in cases {
            let got = why(arguments);
            assert!(got.contains(expected), "{arguments}: {got}");
            assert!(
                got.ends_with('.') || got.ends_with(')'),
                "{arguments}: {got}"
            );
        }
        let long = format!(r#"{{"path": "p", "grep": "{}"}}"#, "x".repeat(201));
        assert!(why(&long).contains("longer than 200"));
        let ok = format!(r#"{{"path": "p", "grep": "{}"}}"#, "ж".repeat(200));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn a_rejected_call_keeps_its_path_for_the_example() {
        let r = parse(r#"{"path": "/spill/t/x", "line": 0}"#).unwrap_err();
        assert_eq!(r.path.as_deref(), Some("/spill/t/x"));
    }
}
