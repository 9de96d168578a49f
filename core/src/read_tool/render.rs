//! Text for the model: numbered lines and how many fit in a byte bound,
//! cursors (the exact JSON arguments of the next call), previews of values.

use crate::text::{digits, truncate_str};

/// `s` as a JSON string, quotes included.
pub fn json_string(s: &str) -> String {
    // Serialising a string cannot fail; the fallback only keeps this total.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// At most `max` bytes of `s`, with `…` when cut.
pub fn preview(s: &str, max: usize) -> String {
    if s.len() <= max {
        s.to_owned()
    } else {
        format!("{}…", truncate_str(s, max))
    }
}

/// The JSON arguments of a call, written as a model would: `{"path": "…",
/// "line": 81}`.
#[derive(Debug)]
pub struct Cursor(String);

impl Cursor {
    pub fn new(path: &str) -> Self {
        Cursor(format!("{{\"path\": {}", json_string(path)))
    }

    pub fn number(mut self, key: &str, value: u64) -> Self {
        self.0.push_str(&format!(", \"{key}\": {value}"));
        self
    }

    pub fn maybe(self, key: &str, value: Option<u32>) -> Self {
        match value {
            Some(v) => self.number(key, v.into()),
            None => self,
        }
    }

    pub fn string(mut self, key: &str, value: &str) -> Self {
        self.0
            .push_str(&format!(", \"{key}\": {}", json_string(value)));
        self
    }

    pub fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// How much of a page's text fits in a bound once numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// The whole text fits.
    pub all: bool,
    /// Bytes of the text that fit, the last line possibly in part.
    pub text_bytes: usize,
    /// Lines that fit whole with their line break.
    pub whole_lines: u32,
}

/// The lines of `text` (with their breaks) and the width of their numbers
/// when the first is line `first_line`.
fn lines_and_width(text: &str, first_line: u64) -> (std::str::SplitInclusive<'_, char>, usize) {
    let count = text.split_inclusive('\n').count() as u64;
    let last = first_line.saturating_add(count.saturating_sub(1));
    (text.split_inclusive('\n'), digits(last))
}

/// Bytes of one numbered line of `width` digits for `line` (a line of the
/// file, with its break if it has one).
fn numbered_len(width: usize, line: &str) -> usize {
    // Number, tab, the line, and a line break of its own if it had none.
    width + 1 + line.len() + usize::from(!line.ends_with('\n'))
}

/// How much of `text`, numbered from `first_line`, fits in `max_bytes`.
pub fn fit(text: &str, first_line: u64, max_bytes: usize) -> Fit {
    let (lines, width) = lines_and_width(text, first_line);
    let mut used = 0;
    let mut fit = Fit {
        all: true,
        text_bytes: 0,
        whole_lines: 0,
    };
    for line in lines {
        let cost = numbered_len(width, line);
        if used + cost <= max_bytes {
            used += cost;
            fit.text_bytes += line.len();
            fit.whole_lines += u32::from(line.ends_with('\n'));
            continue;
        }
        let room = max_bytes.saturating_sub(used + width + 2);
        fit.text_bytes += line.floor_char_boundary(room);
        fit.all = false;
        break;
    }
    fit
}

/// `text` numbered like `cat -n`: each line as its 1-based number, right
/// aligned to the widest on the page, a tab, and the line; every line ends
/// with LF, the last one too if the file has none there.
pub fn numbered(text: &str, first_line: u64) -> String {
    let (lines, width) = lines_and_width(text, first_line);
    let mut out = String::with_capacity(text.len() + 8 * (width + 1));
    for (i, line) in lines.enumerate() {
        let n = first_line.saturating_add(i as u64);
        let line = line.strip_suffix('\n').unwrap_or(line);
        out.push_str(&format!("{n:>width$}\t{line}\n"));
    }
    out
}

/// Lines of `text` as [`numbered`] shows them.
pub fn line_count(text: &str) -> u64 {
    text.split_inclusive('\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_right_aligned_to_the_widest() {
        assert_eq!(numbered("a\nb\n", 9), " 9\ta\n10\tb\n");
        assert_eq!(numbered("a\r\nb", 1), "1\ta\r\n2\tb\n");
        assert_eq!(numbered("", 1), "");
        assert_eq!(numbered("x", u64::MAX), format!("{}\tx\n", u64::MAX));
    }

    #[test]
    fn fit_counts_whole_lines_and_cuts_the_next_between_characters() {
        let text = "ab\nжжж\n";
        assert_eq!(numbered(text, 1).len(), 14);
        let all = fit(text, 1, 14);
        assert_eq!((all.all, all.text_bytes, all.whole_lines), (true, 10, 2));
        // 5 for the first line, then "2\t" and a line break leave 4 bytes: two ж.
        let part = fit(text, 1, 12);
        assert_eq!((part.all, part.text_bytes, part.whole_lines), (false, 7, 1));
        let part = fit(text, 1, 11);
        assert_eq!((part.all, part.text_bytes), (false, 5));
        let none = fit("abcdef", 1, 4);
        assert_eq!((none.all, none.text_bytes, none.whole_lines), (false, 1, 0));
    }

    #[test]
    fn cursors_are_json_objects() {
        let c = Cursor::new("/a \"b\"")
            .number("line", 3)
            .maybe("lines", None)
            .maybe("max_bytes", Some(300))
            .string("grep", "x\ny")
            .finish();
        assert_eq!(
            c,
            r#"{"path": "/a \"b\"", "line": 3, "max_bytes": 300, "grep": "x\ny"}"#
        );
        assert!(serde_json::from_str::<serde_json::Value>(&c).is_ok());
    }
}
