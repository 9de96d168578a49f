//! The component's read tool, as the host registers and runs it: the spec
//! from `read_tool`, each call through `run_read_tool`, its text given to the
//! model as it is. And the check that what the model read is the spilled
//! output's bytes.

use std::fs;

use anyhow::Context as _;
use serde_json::Value;

use super::checks::{self, Checks};
use super::conversation::{Part, ToolCall, ToolSpec};
use super::fixtures::BuildLog;
use super::text::{QUOTE_WIDTH, count_lines, lines, quote, size};
use tool_output_cap::{Session, types::ReadToolOutput};

/// One call of the read tool and what the component answered.
pub struct ReadBack {
    pub arguments: Value,
    pub output: ReadToolOutput,
}

/// The read tool as the component describes it, to register with the model.
pub fn spec(session: &mut Session) -> anyhow::Result<ToolSpec> {
    let spec = session.read_tool()?;
    Ok(ToolSpec {
        name: spec.name,
        description: spec.description,
        input_schema: serde_json::from_str(&spec.input_schema)
            .context("the read tool's input schema")?,
    })
}

/// Runs one call with the model's JSON arguments; returns the message
/// content (the text as it is: it is bounded, and never capped again) and
/// whether the call was a mistake.
pub fn run(
    call: &ToolCall,
    session: &mut Session,
    read_backs: &mut Vec<ReadBack>,
) -> anyhow::Result<(Vec<Part>, bool)> {
    let output = session.run_read_tool(&call.arguments.to_string())?;
    let shown = output
        .text
        .replace(session.display_root(), "<spill>")
        .replace('\t', "  ");
    println!(
        "         {} {}: {}, {}{}, to the model as is:",
        call.id,
        call.name,
        size(output.text.len() as u64),
        lines(count_lines(&output.text)),
        if output.is_error { ", is_error" } else { "" }
    );
    quote(&shown, QUOTE_WIDTH);
    let content = vec![Part::Text {
        text: output.text.clone(),
    }];
    let is_error = output.is_error;
    read_backs.push(ReadBack {
        arguments: call.arguments.clone(),
        output,
    });
    Ok((content, is_error))
}

/// The `N<tab>text` lines of a line-mode answer, with their numbers.
pub fn numbered_lines(text: &str) -> Vec<(u64, &str)> {
    text.lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once('\t')?;
            Some((number.trim_start().parse().ok()?, rest))
        })
        .collect()
}

/// The `line N: excerpt` lines of a grep answer, with their numbers.
pub fn grep_matches(text: &str) -> Vec<(u64, &str)> {
    text.lines()
        .filter_map(|line| {
            let (number, excerpt) = line.strip_prefix("line ")?.split_once(": ")?;
            Some((number.parse().ok()?, excerpt))
        })
        .collect()
}

/// The build error must reach the model verbatim: its answer quotes the
/// error and its location, and everything it read with the read tool is the
/// spilled log's bytes: the grep's first match is the error line, with its
/// number, as the file on disk and the component's `grep` have it; a line
/// read starts at the error line and equals the file's lines there, which
/// are the log's bytes at that line's offset.
pub fn check_error_line_recovered(
    answer: Option<&str>,
    read_backs: &[ReadBack],
    log: &BuildLog,
    session: &mut Session,
    checks: &mut Checks,
) -> anyhow::Result<()> {
    let answer = answer.unwrap_or_default();
    let quoted =
        answer.lines().any(|line| line == log.error_line) && answer.contains(&log.error_location);
    checks.record(checks::ERROR_LINE_RECOVERED, quoted, || {
        format!("the answer does not quote the error and its location: {answer:?}")
    });
    for read_back in read_backs {
        let (ok, why) = read_back_exact(read_back, log, session)?;
        checks.record(checks::ERROR_LINE_RECOVERED, ok, || why);
    }
    Ok(())
}

/// Whether one read-back is the log's bytes, and what it read if not.
fn read_back_exact(
    read_back: &ReadBack,
    log: &BuildLog,
    session: &mut Session,
) -> anyhow::Result<(bool, String)> {
    let ReadBack { arguments, output } = read_back;
    let path = arguments["path"].as_str().unwrap_or_default();
    let on_disk = match session.host_path(path)? {
        Some(file) => {
            fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?
        }
        None => String::new(),
    };
    let file_lines: Vec<&str> = on_disk.split_inclusive('\n').collect();
    let file_line = |n: u64| -> Option<&str> {
        let line = file_lines.get(usize::try_from(n).ok()?.checked_sub(1)?)?;
        Some(line.strip_suffix('\n').unwrap_or(line))
    };
    if output.is_error {
        return Ok((
            false,
            format!("the read tool refused {arguments}: {}", output.text),
        ));
    }
    if let Some(pattern) = arguments["grep"].as_str() {
        let Some(&(line, excerpt)) = grep_matches(&output.text).first() else {
            return Ok((false, format!("no match listed for {pattern:?}")));
        };
        let component = session.grep(path, pattern, 1)?;
        let ok = line == log.error_line_number
            && excerpt == log.error_line
            && file_line(line) == Some(excerpt)
            && component.matches.first().map(|hit| hit.line) == Some(line);
        return Ok((ok, format!("grep found line {line} as {excerpt:?}")));
    }
    let shown = numbered_lines(&output.text);
    let Some(&(first, first_text)) = shown.first() else {
        return Ok((false, format!("no lines in {:?}", output.text)));
    };
    let in_order = shown
        .iter()
        .zip(first..)
        .all(|(&(number, text), expected)| number == expected && file_line(number) == Some(text));
    let text: String = shown.iter().map(|(_, text)| format!("{text}\n")).collect();
    let offset: usize = log
        .text
        .split_inclusive('\n')
        .take(
            usize::try_from(first)
                .unwrap_or(usize::MAX)
                .saturating_sub(1),
        )
        .map(str::len)
        .sum();
    let same_bytes = log.text.get(offset..offset + text.len()) == Some(text.as_str());
    let ok =
        in_order && same_bytes && first == log.error_line_number && first_text == log.error_line;
    Ok((ok, format!("line {first} read back as {first_text:?}")))
}
