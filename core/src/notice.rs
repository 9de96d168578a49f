//! The words a capped result carries: the notice at its end and the marker at
//! the gap. Their sizes are known in advance, so a budget can reserve them.

use crate::refs::{OverflowRef, RefScheme, SAVED_PREFIX};
use crate::text::truncate_str;

/// Lines of every notice.
pub const NOTICE_LINES: u64 = 3;
/// Lines of the gap marker.
pub const GAP_LINES: u64 = 1;
/// Longest spill failure reason quoted in a notice.
pub const MAX_REASON_BYTES: usize = 160;
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

/// The notice that ends a capped text: exactly [`NOTICE_LINES`] lines, no
/// trailing LF.
pub fn render_notice(loss: &Loss, saved: Saved<'_>) -> String {
    let first = format!(
        "[toolcap] This tool output was cut to fit the context budget. Full size: {} bytes, {}; \
         omitted: {} bytes and {} whole {}, starting at line {}.",
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
             file below: search it with grep -n -F 'PATTERN' FILE | cut -c1-300, print lines \
             with sed -n '{},{}p' FILE | cut -c1-300, or use the read tool with that path.\n\
             {SAVED_PREFIX}{}",
            loss.gap_line,
            loss.gap_line + HINT_LINES - 1,
            RefScheme::token(r)
        ),
        Saved::Failed(reason) => format!(
            "{first}\nThe full output could NOT be saved ({}), so the omitted part is lost.\n\
             The tool already ran; re-run it only if the omitted part matters, and then narrow \
             its output (a filter, a range, head or tail).",
            one_line_reason(reason)
        ),
    }
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

    #[test]
    fn notices_have_fixed_line_counts() {
        let scheme = RefScheme::new("/s", "t", vec![1; 16]).unwrap();
        let r = scheme.make_ref("c-0123456789abcdef.txt", 5000, 80, "0123456789abcdef");
        for saved in [Saved::Spilled(&r), Saved::Failed("disk\nfull\r\n")] {
            let n = render_notice(&LOSS, saved);
            assert_eq!(count_lines(n.as_bytes()), NOTICE_LINES, "{n}");
            assert!(!n.ends_with('\n'));
            assert!(n.contains("4000 bytes and 60 whole lines, starting at line 11"));
        }
        let spilled = render_notice(&LOSS, Saved::Spilled(&r));
        assert!(spilled.contains("do not run it again"));
        assert!(spilled.contains("sed -n '11,50p'"));
        assert_eq!(scheme.find_refs(&spilled), vec![r]);
    }

    #[test]
    fn failure_reason_is_flattened_and_bounded() {
        let long = "é".repeat(500);
        let n = render_notice(&LOSS, Saved::Failed(&long));
        assert!(n.contains(&"é".repeat(80)));
        assert!(!n.contains(&"é".repeat(81)));
    }

    #[test]
    fn gap_marker_states_the_range() {
        assert_eq!(
            gap_marker(10, 110, 2),
            "[... 100 bytes omitted here (bytes 10..110 of the full output, from line 2) ...]"
        );
    }
}
