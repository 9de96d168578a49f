//! What the host does with one tool result: send it raw, or cap it through
//! the component and check what came back.

use std::fs;

use anyhow::Context as _;

use super::checks::{self, Checks};
use super::conversation::{Part, ToolCall, joined_text};
use super::mcp;
use super::text::{QUOTE_WIDTH, count_lines, last_lines, lines, quote, relative, size};
use super::tools::{self, ToolOutput};
use tool_output_cap::{Budget, Call, Capped, OverflowRef, Session, types::ContentPart};

/// The raw result as message content, as most harnesses send it.
pub fn send_raw(call: &ToolCall, output: ToolOutput) -> Vec<Part> {
    let parts = match output {
        ToolOutput::Text(text) => vec![Part::Text { text }],
        ToolOutput::Parts(parts) => parts,
    };
    let text = joined_text(&parts);
    println!(
        "         {} {}: {}, {}, sent as is",
        call.id,
        call.name,
        size(text.len() as u64),
        lines(count_lines(&text))
    );
    parts
}

/// Bytes a command's output arrives in while it runs: Linux's default pipe
/// capacity.
const PIPE_CHUNK_BYTES: usize = 64 * 1024;

/// What every notice says of how long the full output is kept
/// (`SessionConfig::retention_seconds`).
pub const KEPT_FOR: &str = "kept for 7 days";

/// A result after `cap`, a stream or `cap_parts`.
struct Delivered {
    /// The tool's full text (text parts joined), as the spill file must hold it.
    original: String,
    /// The text the model gets.
    text: String,
    /// The content the model gets.
    parts: Vec<Part>,
    spill: Option<OverflowRef>,
    /// How the output reached the component, when it was not in one piece.
    arrival: String,
}

/// The result capped by the component, checked, as message content.
pub fn send_capped(
    call: &ToolCall,
    output: ToolOutput,
    session: &mut Session,
    budget: &Budget,
    checks: &mut Checks,
) -> anyhow::Result<Vec<Part>> {
    let delivered = match output {
        ToolOutput::Text(original) => {
            let (capped, arrival) = if tools::streams(&call.name) {
                let (capped, chunks) = cap_streamed(call, &original, session, budget, checks)?;
                let arrival = format!(
                    ", streamed in {chunks} chunks of {}",
                    size(PIPE_CHUNK_BYTES as u64)
                );
                (capped, arrival)
            } else {
                (
                    session.cap(&original, budget, tool_call(call))?,
                    String::new(),
                )
            };
            let parts = vec![Part::Text {
                text: capped.text.clone(),
            }];
            Delivered {
                original,
                text: capped.text,
                parts,
                spill: capped.report.spill,
                arrival,
            }
        }
        ToolOutput::Parts(parts) => {
            let input = mcp::to_content_parts(&parts);
            let capped = session.cap_parts(&input, budget, tool_call(call))?;
            check_media_untouched(&input, &capped.parts, checks);
            let delivered = mcp::from_content_parts(capped.parts)?;
            Delivered {
                original: joined_text(&parts),
                text: joined_text(&delivered),
                parts: delivered,
                spill: capped.report.spill,
                arrival: String::new(),
            }
        }
    };
    let Delivered {
        original,
        text,
        parts,
        spill,
        arrival,
    } = delivered;
    check_within_budget(&call.id, &text, budget, checks);

    let images = parts
        .iter()
        .filter(|part| matches!(part, Part::Image { .. }))
        .count();
    let image_note = if images > 0 {
        format!(" + {images} image, untouched")
    } else {
        String::new()
    };
    println!(
        "         {} {}: {}, {}{image_note}{arrival}",
        call.id,
        call.name,
        size(original.len() as u64),
        lines(count_lines(&original))
    );
    match &spill {
        Some(reference) => {
            check_spill_exact(session, reference, &original, checks)?;
            checks.record(
                checks::NOTICE_STATES_RETENTION,
                text.contains(KEPT_FOR),
                || format!("{}'s notice does not say {KEPT_FOR:?}", call.id),
            );
            println!(
                "           capped to {}, {}; full output in {}",
                size(text.len() as u64),
                lines(count_lines(&text)),
                relative(session, reference)
            );
        }
        None if text == original => println!("           fits: passed unchanged"),
        None => println!("           capped, but NOT saved"),
    }
    if call.name == tools::BUILD {
        println!("         the model sees the end of it:");
        quote(&last_lines(&text, 5), QUOTE_WIDTH);
    }
    Ok(parts)
}

/// Caps a command's output as a host gets it while the command runs: in
/// pipe-sized chunks written to a `cap-stream`. Checks that the result is
/// what `cap` gives for the whole text; returns it and the number of chunks.
fn cap_streamed(
    call: &ToolCall,
    output: &str,
    session: &mut Session,
    budget: &Budget,
    checks: &mut Checks,
) -> anyhow::Result<(Capped, usize)> {
    let mut stream = session.stream(budget, tool_call(call))?;
    let mut chunks = 0;
    for chunk in output.as_bytes().chunks(PIPE_CHUNK_BYTES) {
        stream.write(chunk)?;
        chunks += 1;
    }
    let streamed = stream.finish()?;
    // The same call again, whole: its spill is the same file, rewritten.
    let whole = session.cap(output, budget, tool_call(call))?;
    // The generated records have no `PartialEq`; their `Debug` shows every field.
    let same = format!("{streamed:?}") == format!("{whole:?}");
    checks.record(checks::STREAM_EQUALS_CAP, same, || {
        format!(
            "{}: streamed {} bytes, {} spilled; cap {} bytes, {} spilled",
            call.id,
            streamed.text.len(),
            streamed.report.spill.is_some(),
            whole.text.len(),
            whole.report.spill.is_some()
        )
    });
    Ok((streamed, chunks))
}

fn check_within_budget(call_id: &str, text: &str, budget: &Budget, checks: &mut Checks) {
    let text_lines = count_lines(text);
    let within = text.len() <= budget.max_bytes as usize
        && budget
            .max_lines
            .is_none_or(|max| text_lines <= u64::from(max));
    checks.record(checks::WITHIN_BUDGET, within, || {
        format!("{call_id}: {} bytes, {text_lines} lines", text.len())
    });
}

/// The component's `call` record of a tool call: a failed command is stated
/// first in the notice, and its preview leans to the tail.
fn tool_call(call: &ToolCall) -> Call {
    Call {
        search: None,
        id: call.id.clone(),
        tool: Some(call.name.clone()),
        exit_code: tools::exit_code(&call.name),
        is_error: false,
    }
}

/// Compares the spill file on disk with the tool's output.
fn check_spill_exact(
    session: &mut Session,
    reference: &OverflowRef,
    original: &str,
    checks: &mut Checks,
) -> anyhow::Result<()> {
    let path = session
        .host_path(&reference.path)?
        .context("reference outside the spill dir")?;
    let on_disk = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    checks.record(checks::SPILL_EXACT, on_disk == original.as_bytes(), || {
        format!("{} differs from the tool output", path.display())
    });
    Ok(())
}

fn check_media_untouched(input: &[ContentPart], output: &[ContentPart], checks: &mut Checks) {
    let images = |parts: &[ContentPart]| -> Vec<(String, String)> {
        parts
            .iter()
            .filter_map(|part| match part {
                ContentPart::Image(m) => Some((m.mime_type.clone(), m.data.clone())),
                _ => None,
            })
            .collect()
    };
    let (before, after) = (images(input), images(output));
    let untouched = !before.is_empty() && before == after;
    checks.record(checks::IMAGE_UNTOUCHED, untouched, || {
        format!(
            "{} image(s) in, {} out, or changed",
            before.len(),
            after.len()
        )
    });
}
