//! Building step arguments: generators, and `$spill:` / `$capped:` references
//! to earlier `cap` steps.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::format::{Segment, TextInput};

/// Builds the text a [`TextInput`] stands for.
pub fn build(input: &TextInput) -> Result<String, String> {
    match input {
        TextInput::Plain(text) => Ok(text.clone()),
        TextInput::Generated(segments) => {
            let mut out = String::new();
            for (i, segment) in segments.iter().enumerate() {
                emit(segment, &mut out).map_err(|why| format!("generator segment {i}: {why}"))?;
            }
            Ok(out)
        }
    }
}

fn emit(segment: &Segment, out: &mut String) -> Result<(), String> {
    match segment {
        Segment {
            text: Some(text),
            times,
            lines: None,
            from: None,
            count: None,
        } => {
            let times = usize::try_from(times.unwrap_or(1)).map_err(|_| "times is too large")?;
            out.push_str(&text.repeat(times));
            Ok(())
        }
        Segment {
            text: None,
            times: None,
            lines: Some(template),
            from,
            count: Some(count),
        } => {
            let from = from.unwrap_or(1);
            for n in from..from + count {
                // Replace `{n}` by hand: `format!` needs a literal template.
                let mut rest = template.as_str();
                while let Some(at) = rest.find("{n}") {
                    out.push_str(&rest[..at]);
                    write!(out, "{n}").expect("writing to a String");
                    rest = &rest[at + 3..];
                }
                out.push_str(rest);
                out.push('\n');
            }
            Ok(())
        }
        _ => Err(
            "a segment is either {\"text\", \"times\"} or {\"lines\", \"from\", \"count\"} \
             (count required)"
                .to_owned(),
        ),
    }
}

/// What later steps may refer to of an earlier `cap` or `cap-parts` step.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Display path of its spill file, if it spilled.
    pub spill_path: Option<String>,
    /// Its capped text (for `cap-parts`, the text of the first text part).
    pub text: String,
}

/// Replaces every `$spill:<call_id>` and `$capped:<call_id>` in `s`. A call id
/// runs over ASCII letters, digits, `_` and `-`. An unknown call id, or a
/// `$spill:` of a step that did not spill, is an error in the vector.
/// `$host-dir`: the granted spill directory's canonical path, found by the
/// runner itself (not asked of the host under test).
const HOST_DIR: &str = "host-dir";

pub fn substitute(
    s: &str,
    calls: &HashMap<String, Recorded>,
    host_dir: Option<&str>,
) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix(HOST_DIR) {
            out.push_str(host_dir.ok_or("$host-dir in a session that granted no directory")?);
            rest = tail;
            continue;
        }
        let (kind, tail) = if let Some(tail) = after.strip_prefix("spill:") {
            ("spill", tail)
        } else if let Some(tail) = after.strip_prefix("capped:") {
            ("capped", tail)
        } else {
            out.push('$');
            rest = after;
            continue;
        };
        let id_len = tail
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
            .count();
        let id = &tail[..id_len];
        let recorded = calls
            .get(id)
            .ok_or_else(|| format!("${kind}:{id} names no earlier cap step"))?;
        match kind {
            "spill" => out.push_str(
                recorded
                    .spill_path
                    .as_deref()
                    .ok_or_else(|| format!("$spill:{id}: that cap step did not spill"))?,
            ),
            _ => out.push_str(&recorded.text),
        }
        rest = &tail[id_len..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use super::*;

    #[test]
    fn generators_expand() {
        let input = TextInput::Generated(vec![
            Segment {
                text: Some("ab".into()),
                times: Some(3),
                ..Segment::default()
            },
            Segment {
                lines: Some("l{n}/{n}".into()),
                from: Some(9),
                count: Some(2),
                ..Segment::default()
            },
            Segment {
                text: Some("!".into()),
                ..Segment::default()
            },
        ]);
        assert_eq!(build(&input).unwrap(), "abababl9/9\nl10/10\n!");
        let bad = TextInput::Generated(vec![Segment {
            text: Some("x".into()),
            count: Some(2),
            ..Segment::default()
        }]);
        assert!(build(&bad).is_err());
    }

    #[test]
    fn references_are_substituted() {
        let calls = HashMap::from([
            (
                "c1".to_owned(),
                Recorded {
                    spill_path: Some("/r/t/c1-x.txt".into()),
                    text: "T".into(),
                },
            ),
            (
                "c2".to_owned(),
                Recorded {
                    spill_path: None,
                    text: "U".into(),
                },
            ),
        ]);
        assert_eq!(
            substitute("a $spill:c1/b $capped:c2.$5", &calls, None).unwrap(),
            "a /r/t/c1-x.txt/b U.$5"
        );
        assert!(substitute("$spill:c2", &calls, None).is_err());
        assert!(substitute("$capped:c3", &calls, None).is_err());
    }
}
