//! The words a capped result carries: the notice at its end and the marker at
//! the gap. Their sizes are known in advance, so a budget can reserve them.

use crate::call::Call;
use crate::error::CapError;
use crate::refs::{OverflowRef, RefScheme, SAVED_PREFIX};
use crate::text::truncate_str;

/// Lines of a full notice.
pub const NOTICE_LINES: u64 = 3;
/// How every notice starts. A full notice's second line never does, so the
/// line before a compact notice's last tells the two forms apart.
pub const NOTICE_HEAD: &str = "[toolcap] ";
/// Lines of a compact notice (small budgets).
pub const COMPACT_NOTICE_LINES: u64 = 2;
/// Lines of the gap marker.
pub const GAP_LINES: u64 = 1;
/// Longest spill failure reason quoted in a notice.
pub const MAX_REASON_BYTES: usize = 160;
/// Longest name of a host's read tool.
pub const MAX_READ_TOOL_BYTES: usize = 64;
/// Lines of the preview suggested in the `sed` hint.
const HINT_LINES: u64 = 40;

/// What was lost, in numbers; all counts refer to the original text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loss {
    /// Size of the original.
    pub original_bytes: u64,
    /// Lines of the original.
    pub original_lines: u64,
    /// Bytes of the original not shown.
    pub omitted_bytes: u64,
    /// Lines of the original of which no byte is shown.
    pub omitted_lines: u64,
    /// 1-based line of the first omitted byte.
    pub gap_line: u64,
}

/// Whether the full output was saved.
#[derive(Debug, Clone, Copy)]
pub enum Saved<'a> {
    /// Saved; the reference to it.
    Spilled(&'a OverflowRef),
    /// Not saved; why.
    Failed(&'a str),
}

/// How a session's notices tell the model to look inside a spill: with the
/// host's read tool, with shell commands, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeStyle {
    /// Name of the host's read tool (for example `read_spilled_output`).
    pub read_tool: Option<String>,
    /// Show `grep`/`sed` commands (a sandboxed host has no shell).
    pub shell_hints: bool,
    /// How long the host keeps spills, in seconds: full notices say so.
    pub retention_seconds: Option<u64>,
}

impl Default for NoticeStyle {
    fn default() -> Self {
        NoticeStyle {
            read_tool: None,
            shell_hints: true,
            retention_seconds: None,
        }
    }
}

impl NoticeStyle {
    /// Checks the read tool's name: 1 to 64 ASCII letters, digits, `_`, `-`,
    /// `.` or `:` (what model APIs accept as tool names).
    pub fn validate(&self) -> Result<(), CapError> {
        if self.retention_seconds == Some(0) {
            return Err(CapError::InvalidSettings(
                "retention-seconds must be at least 1 (none: not stated)".into(),
            ));
        }
        let Some(name) = &self.read_tool else {
            return Ok(());
        };
        let valid = !name.is_empty()
            && name.len() <= MAX_READ_TOOL_BYTES
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
        if valid {
            Ok(())
        } else {
            Err(CapError::InvalidSettings(format!(
                "read-tool must be 1 to {MAX_READ_TOOL_BYTES} ASCII letters, digits, `_`, `-`, \
                 `.` or `:`, got {:?}",
                crate::text::truncate_str(name, MAX_READ_TOOL_BYTES + 8)
            )))
        }
    }

    /// ` (kept for 7 days)` when the host states its retention, else nothing.
    fn kept_phrase(&self) -> String {
        self.retention_seconds
            .map_or(String::new(), |s| format!(" (kept for {})", kept_for(s)))
    }

    /// How to look inside the saved file, after "saved in the file below: ".
    fn how_to_look(&self, gap_line: u64) -> String {
        let tool = match &self.read_tool {
            Some(name) => format!("the {name} tool"),
            None => "the read tool".to_owned(),
        };
        if self.shell_hints {
            format!(
                "search it with grep -n -F 'PATTERN' FILE | cut -c1-300, print lines with \
                 sed -n '{},{}p' FILE | cut -c1-300, or use {tool} with that path",
                gap_line,
                gap_line + HINT_LINES - 1
            )
        } else {
            format!(
                "read it with {tool} and that path: lines from {gap_line} on, a byte range, or a \
                 literal grep"
            )
        }
    }
}

/// The two forms of a notice: full, or compact for budgets too small to
/// spend a kilobyte on words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeForm {
    /// [`NOTICE_LINES`] lines: what was cut, how to look inside, the reference.
    Full,
    /// [`COMPACT_NOTICE_LINES`] lines: the same facts, fewer words.
    Compact,
}

impl NoticeForm {
    /// Lines of a notice of this form.
    pub fn lines(self) -> u64 {
        match self {
            NoticeForm::Full => NOTICE_LINES,
            NoticeForm::Compact => COMPACT_NOTICE_LINES,
        }
    }
}

/// The notice that ends a capped text: exactly `form.lines()` lines, no
/// trailing LF. A failed call is stated first.
pub fn render_notice(
    loss: &Loss,
    saved: Saved<'_>,
    call: &Call,
    style: &NoticeStyle,
    form: NoticeForm,
) -> String {
    render_notice_lossy(loss, saved, call, style, form, false)
}

/// The words by which both notice forms tell that the full output was not
/// saved: what a host (or a test) looks for, rather than retyping them.
pub const NOT_SAVED: &str = "The full output could NOT be saved";

/// [`NOT_SAVED`] with its reason, as both notice forms quote it.
pub fn not_saved(reason: &str) -> String {
    format!("{NOT_SAVED} ({})", one_line_reason(reason))
}

/// What a full notice adds for an output that was not valid UTF-8.
pub const LOSSY_STATEMENT: &str = " It is not valid UTF-8: this preview shows each invalid \
     byte sequence as U+FFFD and counts the bytes of that decoded text; the saved file holds the \
     exact bytes.";

/// [`render_notice`] of a preview that is a lossy decoding of the output
/// (`lossy`): a full notice says so after its numbers. A compact notice,
/// the form of budgets too small for words, does not.
pub fn render_notice_lossy(
    loss: &Loss,
    saved: Saved<'_>,
    call: &Call,
    style: &NoticeStyle,
    form: NoticeForm,
    lossy: bool,
) -> String {
    let failure = call.failure_statement();
    if form == NoticeForm::Compact {
        return render_compact(loss, saved, &failure, style);
    }
    let lossy = if lossy { LOSSY_STATEMENT } else { "" };
    let first = format!(
        "{NOTICE_HEAD}{failure}This tool output was cut to fit the context budget. Full size: {} \
         bytes, {}; omitted: {} bytes and {} whole {}, starting at line {}.{lossy}",
        loss.original_bytes,
        counted(loss.original_lines, "line", "lines"),
        loss.omitted_bytes,
        loss.omitted_lines,
        if loss.omitted_lines == 1 {
            "line"
        } else {
            "lines"
        },
        loss.gap_line
    );
    match saved {
        Saved::Spilled(r) => format!(
            "{first}\nThe tool already ran; do not run it again. Its full output is saved in the \
             file below{}: {}.\n{SAVED_PREFIX}{}",
            style.kept_phrase(),
            style.how_to_look(loss.gap_line),
            RefScheme::token(r)
        ),
        Saved::Failed(reason) => format!(
            "{first}\n{}, so the omitted part is lost.\n\
             The tool already ran; re-run it only if the omitted part matters, and then narrow \
             its output (a filter, a range, head or tail).",
            not_saved(reason)
        ),
    }
}

fn render_compact(loss: &Loss, saved: Saved<'_>, failure: &str, style: &NoticeStyle) -> String {
    let first = format!(
        "{NOTICE_HEAD}{failure}Cut: {} of {} bytes omitted, from line {}.",
        loss.omitted_bytes, loss.original_bytes, loss.gap_line
    );
    match saved {
        Saved::Spilled(r) => {
            let with = style
                .read_tool
                .as_ref()
                .map_or(String::new(), |name| format!(" with {name}"));
            format!(
                "{first} Do not re-run; read the file below{}{with}.\n{SAVED_PREFIX}{}",
                style.kept_phrase(),
                RefScheme::token(r)
            )
        }
        Saved::Failed(reason) => format!(
            "{first} {}.\nRe-run only if the omitted part matters, with a narrower output.",
            not_saved(reason)
        ),
    }
}

/// Lines of the note on a dropped `structuredContent` ([`structured_note`]).
pub const STRUCTURED_NOTE_LINES: u64 = 2;

/// The note that says an MCP result's `structuredContent` (`bytes` of
/// JSON) was left out whole and where it was saved: exactly
/// [`STRUCTURED_NOTE_LINES`] lines, no trailing LF. With `failure`, a failed
/// call is stated first (when the note starts the notice block).
pub fn structured_note(
    bytes: u64,
    saved: Saved<'_>,
    call: &Call,
    style: &NoticeStyle,
    failure: bool,
) -> String {
    let failure = if failure {
        call.failure_statement()
    } else {
        String::new()
    };
    let first = format!(
        "{NOTICE_HEAD}{failure}This result's structuredContent ({bytes} bytes of JSON) did not fit \
         the context budget, so it was left out whole"
    );
    match saved {
        Saved::Spilled(r) => {
            let tool = style
                .read_tool
                .as_ref()
                .map_or("the read tool".to_owned(), |name| {
                    format!("the {name} tool")
                });
            format!(
                "{first}; it is saved, exactly as the tool returned it, in the file below{}: \
                 read it with {tool}, do not run the tool again.\n{SAVED_PREFIX}{}",
                style.kept_phrase(),
                RefScheme::token(r)
            )
        }
        Saved::Failed(reason) => format!(
            "{first}, and it could NOT be saved ({}).\nRe-run the tool only if you need that \
             structured content.",
            one_line_reason(reason)
        ),
    }
}

/// A retention period in words, in the largest unit that states it exactly:
/// `7 days`, `36 hours`, `90 minutes`, `1 second`.
pub fn kept_for(seconds: u64) -> String {
    let (n, unit) = match seconds {
        s if s % 86_400 == 0 => (s / 86_400, "day"),
        s if s % 3_600 == 0 => (s / 3_600, "hour"),
        s if s % 60 == 0 => (s / 60, "minute"),
        s => (s, "second"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A failure reason fit for the notice: one line, at most [`MAX_REASON_BYTES`].
pub fn one_line_reason(reason: &str) -> String {
    let flat: String = reason
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>();
    truncate_str(flat.trim(), MAX_REASON_BYTES).to_owned()
}

/// The text of a cut result (a preview ending in its notice, as `cap`
/// returns it) as its preview and its notice: the notice is the last
/// [`COMPACT_NOTICE_LINES`] lines when the first of them starts with
/// [`NOTICE_HEAD`], otherwise the last [`NOTICE_LINES`]. The preview keeps
/// the LF that ended its last line. For callers that show the notice apart
/// from the data (`cap-mcp`).
pub fn split_notice(text: &str) -> (&str, &str) {
    let line_start = |end: usize| text[..end].rfind('\n').map_or(0, |i| i + 1);
    let last = line_start(text.len());
    let second_last = line_start(last.saturating_sub(1));
    let start = if text[second_last..].starts_with(NOTICE_HEAD) {
        second_last
    } else {
        line_start(second_last.saturating_sub(1))
    };
    text.split_at(start)
}

/// The marker line (without LF) that stands where bytes `from..to` were cut.
pub fn gap_marker(from: u64, to: u64, line: u64) -> String {
    format!(
        "[... {} bytes omitted here (bytes {from}..{to} of the full output, from line {line}) ...]",
        to - from
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::count_lines;

    const LOSS: Loss = Loss {
        original_bytes: 5000,
        original_lines: 80,
        omitted_bytes: 4000,
        omitted_lines: 60,
        gap_line: 11,
    };

    fn full(saved: Saved<'_>) -> String {
        let style = NoticeStyle::default();
        render_notice(&LOSS, saved, &Call::new("c"), &style, NoticeForm::Full)
    }

    #[test]
    fn retention_is_stated_in_its_largest_exact_unit() {
        assert_eq!(kept_for(7 * 86_400), "7 days");
        assert_eq!(kept_for(86_400), "1 day");
        assert_eq!(kept_for(36 * 3_600), "36 hours");
        assert_eq!(kept_for(90 * 60), "90 minutes");
        assert_eq!(kept_for(1), "1 second");
        let zero = NoticeStyle {
            retention_seconds: Some(0),
            ..NoticeStyle::default()
        };
        assert!(matches!(zero.validate(), Err(CapError::InvalidSettings(_))));
    }

    #[test]
    fn every_form_has_its_line_count_and_states_a_failure_first() {
        let scheme = RefScheme::new("/s", "t", vec![1; 16]).unwrap();
        let r = scheme.make_ref("c-0123456789abcdef.txt", 5000, 80, "0123456789abcdef");
        let failed = Call {
            tool: Some("cargo".into()),
            exit_code: Some(2),
            ..Call::new("c")
        };
        let styles = [
            NoticeStyle::default(),
            NoticeStyle {
                read_tool: Some("read_spilled_output".into()),
                shell_hints: false,
                retention_seconds: Some(7 * 86_400),
            },
        ];
        for form in [NoticeForm::Full, NoticeForm::Compact] {
            for style in &styles {
                for saved in [Saved::Spilled(&r), Saved::Failed("disk full")] {
                    let n = render_notice(&LOSS, saved, &failed, style, form);
                    assert_eq!(count_lines(n.as_bytes()), form.lines(), "{n}");
                    assert!(
                        n.starts_with("[toolcap] The tool `cargo` failed (exit code 2). "),
                        "{n}"
                    );
                    if let Saved::Spilled(r) = saved {
                        assert_eq!(scheme.find_refs(&n), vec![r.clone()]);
                    }
                }
            }
        }
        let sandboxed = render_notice(
            &LOSS,
            Saved::Spilled(&r),
            &failed,
            &styles[1],
            NoticeForm::Full,
        );
        assert!(
            sandboxed.contains("read it with the read_spilled_output tool"),
            "{sandboxed}"
        );
        assert!(
            sandboxed.contains("saved in the file below (kept for 7 days): "),
            "{sandboxed}"
        );
        assert!(!sandboxed.contains("grep -n"), "{sandboxed}");
    }

    #[test]
    fn read_tool_names_are_checked() {
        for bad in ["", "a b", "read\ntool", &"x".repeat(65), "tool`"] {
            let style = NoticeStyle {
                read_tool: Some(bad.into()),
                ..NoticeStyle::default()
            };
            assert!(style.validate().is_err(), "{bad:?}");
        }
        let good = NoticeStyle {
            read_tool: Some("mcp__toolcap__read_spilled_output".into()),
            ..NoticeStyle::default()
        };
        assert!(good.validate().is_ok());
    }

    #[test]
    fn notices_have_fixed_line_counts() {
        let scheme = RefScheme::new("/s", "t", vec![1; 16]).unwrap();
        let r = scheme.make_ref("c-0123456789abcdef.txt", 5000, 80, "0123456789abcdef");
        for saved in [Saved::Spilled(&r), Saved::Failed("disk\nfull\r\n")] {
            let n = full(saved);
            assert_eq!(count_lines(n.as_bytes()), NOTICE_LINES, "{n}");
            assert!(!n.ends_with('\n'));
            assert!(n.contains("4000 bytes and 60 whole lines, starting at line 11"));
        }
        let spilled = full(Saved::Spilled(&r));
        assert!(spilled.contains("do not run it again"));
        assert!(spilled.contains("sed -n '11,50p'"));
        assert_eq!(scheme.find_refs(&spilled), vec![r]);
    }

    #[test]
    fn failure_reason_is_flattened_and_bounded() {
        let long = "é".repeat(500);
        let n = full(Saved::Failed(&long));
        assert!(n.contains(&"é".repeat(80)));
        assert!(!n.contains(&"é".repeat(81)));
    }

    #[test]
    fn the_notice_splits_off_in_every_form() {
        let scheme = RefScheme::new("/s", "t", vec![1; 16]).unwrap();
        let r = scheme.make_ref("c-0123456789abcdef.txt", 5000, 80, "0123456789abcdef");
        let failed = Call {
            tool: Some("cargo".into()),
            is_error: true,
            ..Call::new("c")
        };
        // Previews whose own lines look like notices, or are empty.
        let previews = [
            "",
            "one line\n",
            "[toolcap] a line of an earlier notice\n",
            "[toolcap] x\n[toolcap] y\nThe tool already ran; z\n",
        ];
        for form in [NoticeForm::Full, NoticeForm::Compact] {
            for call in [&Call::new("c"), &failed] {
                for saved in [Saved::Spilled(&r), Saved::Failed("disk full")] {
                    let notice = render_notice(&LOSS, saved, call, &NoticeStyle::default(), form);
                    for preview in previews {
                        let text = format!("{preview}{notice}");
                        assert_eq!(split_notice(&text), (preview, notice.as_str()));
                    }
                }
            }
        }
    }

    #[test]
    fn gap_marker_states_the_range() {
        assert_eq!(
            gap_marker(10, 110, 2),
            "[... 100 bytes omitted here (bytes 10..110 of the full output, from line 2) ...]"
        );
    }
}
