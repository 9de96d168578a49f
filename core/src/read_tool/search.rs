//! Grep mode: the lines that hold a literal text, one excerpt per match,
//! within `max_bytes`.

use crate::readback::{self, RandomRead};
use crate::text::truncate_str;

use super::args::{DEFAULT_MAX_BYTES, DEFAULT_MAX_MATCHES, MAX_MATCHES};
use super::pages::Answer;
use super::render::{Cursor, json_string, preview};

/// Bytes of the pattern quoted in the header.
const QUOTED_PATTERN: usize = 40;

/// The first matches of `pattern` (at most `max_matches`, default
/// [`DEFAULT_MAX_MATCHES`]) as `line N: <excerpt>` lines, and how many there
/// are in all.
pub fn grep(
    file: &mut impl RandomRead,
    path: &str,
    pattern: &str,
    max_matches: Option<u32>,
    max_bytes: Option<u32>,
) -> Answer {
    let bound = max_bytes.unwrap_or(DEFAULT_MAX_BYTES) as usize;
    let wanted = max_matches.unwrap_or(DEFAULT_MAX_MATCHES);
    let found = readback::grep(file, pattern, wanted)?;
    let quoted = json_string(&preview(pattern, QUOTED_PATTERN));
    let total = found.total_matches;
    if total == 0 {
        return Ok(Ok(format!(
            "{path} — no match of {quoted}\nNo line holds {quoted}; the search is literal and \
             case-sensitive. Try a shorter or different text."
        )));
    }
    let mut body = String::new();
    let mut shown = 0;
    for m in &found.matches {
        // A pattern with a line break matches across lines; keep one line per match.
        let excerpt = m.excerpt.replace('\n', "\\n");
        let head = format!("line {}: ", m.line);
        let line_len = head.len() + excerpt.len() + 1;
        if body.len() + line_len <= bound {
            body.push_str(&format!("{head}{excerpt}\n"));
            shown += 1;
            continue;
        }
        if shown == 0 {
            // The first excerpt alone is too long: show its start, marked.
            let room = bound.saturating_sub(head.len() + "…\n".len());
            body.push_str(&format!("{head}{}…\n", truncate_str(&excerpt, room)));
            shown = 1;
        }
        break;
    }
    let noun = if total == 1 { "match" } else { "matches" };
    let mut out = format!("{path} — {total} {noun} of {quoted} (showing 1-{shown})\n{body}");
    let rest = total - shown as u64;
    if rest == 0 {
        out.push_str(&format!(
            "All {total} {noun} shown; the search covered the whole file."
        ));
    } else if shown == found.matches.len() && wanted < MAX_MATCHES {
        let more = u32::try_from(total).unwrap_or(MAX_MATCHES).min(MAX_MATCHES);
        let cursor = Cursor::new(path)
            .string("grep", pattern)
            .number("max_matches", more.into())
            .maybe("max_bytes", max_bytes)
            .finish();
        out.push_str(&format!("More: {rest} more; call again with {cursor}"));
    } else {
        // Grep always starts at the top: the way on is reading by lines.
        let next_line = found
            .matches
            .get(shown)
            .or(found.matches.last())
            .map_or(1, |m| m.line);
        let cursor = Cursor::new(path)
            .number("line", next_line)
            .maybe("max_bytes", max_bytes)
            .finish();
        out.push_str(&format!(
            "More: {rest} more than fit here. Narrow the search with a longer text, or read on \
             from the next match: call again with {cursor}"
        ));
    }
    Ok(Ok(out))
}
