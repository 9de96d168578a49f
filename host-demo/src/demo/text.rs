//! How the transcript writes things: sizes, line counts, quoted text,
//! tool arguments and paths, overflow kinds.

use tool_output_cap::{OverflowRef, Session, types::OverflowKind};

use super::conversation::ToolCall;

/// Width of quoted text in the transcript.
pub const QUOTE_WIDTH: usize = 92;

/// A byte count for humans: `812 B`, `15.9 KiB`, `4.0 MiB`.
pub fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

/// `1 line`, `20,000 lines`.
pub fn lines(count: u64) -> String {
    let digits = count.to_string();
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{grouped} {}", if count == 1 { "line" } else { "lines" })
}

/// Lines of `text` (ending in LF or not).
pub fn count_lines(text: &str) -> u64 {
    let newlines = text.bytes().filter(|&b| b == b'\n').count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Prints `text` indented under a bar, long lines wrapped at spaces.
pub fn quote(text: &str, width: usize) {
    for line in text.lines() {
        for piece in wrap(line, width) {
            println!("       | {piece}");
        }
    }
}

/// `line` cut at spaces into pieces of at most `width` characters (a longer
/// word stays whole); a line that fits keeps its spacing.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_owned()];
    }
    let mut pieces = Vec::new();
    let mut current = String::new();
    for word in line.split_whitespace() {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            pieces.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    pieces.push(current);
    pieces
}

/// The last `count` lines of `text`.
pub fn last_lines(text: &str, count: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(count)..].join("\n")
}

/// The first `max` characters of `text` on one line, with `...` if cut.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &flat[..cut]),
        None => flat,
    }
}

/// A tool call's arguments as `key=value, ...`, the spill root shown as `<spill>`.
pub fn show_arguments(call: &ToolCall, spill_root: Option<String>) -> String {
    let Some(fields) = call.arguments.as_object() else {
        return call.arguments.to_string();
    };
    let shown: Vec<String> = fields
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    let shown = shown.join(", ");
    match spill_root {
        Some(root) => shown.replace(&root, "<spill>"),
        None => shown,
    }
}

/// A reference's path with the spill root shown as `<spill>`.
pub fn relative(session: &Session, reference: &OverflowRef) -> String {
    match reference.path.strip_prefix(session.display_root()) {
        Some(rest) => format!("<spill>{rest}"),
        None => reference.path.clone(),
    }
}

/// The WIT name of an overflow kind.
pub fn kind_name(kind: OverflowKind) -> &'static str {
    match kind {
        OverflowKind::RequestTooLarge => "request-too-large",
        OverflowKind::ContextLengthExceeded => "context-length-exceeded",
    }
}
