//! Line mode and byte mode: a page of the file, numbered, fitted into
//! `max_bytes`, with a cursor to the next page or the end stated.

use crate::error::CapError;
use crate::readback::{self, MIN_PAGE_BYTES, Page, RandomRead};

use super::args::{DEFAULT_LINES, DEFAULT_MAX_BYTES};
use super::render::{Cursor, fit, line_count, numbered};

/// A page, or a sentence for the model when the call asked for nothing that
/// exists; `Err` for a file that could not be read.
pub type Answer = Result<Result<String, String>, CapError>;

/// Reads after the first that fitting a page into its bound may take. Each
/// strictly shrinks the page, and two suffice for UTF-8 text that holds still;
/// the limit only stops a file that changes while it is read.
const MAX_REREADS: usize = 8;

/// What follows the last line of a page.
enum Next {
    /// The next call, on a line break.
    More(String),
    /// The last line continues at byte `at`; the next call.
    Cut { line: u64, at: u64, cursor: String },
    /// Nothing: the page reached the end of the file.
    End,
}

/// `lines` lines (default [`DEFAULT_LINES`]) from `line`, ending on a line
/// break whenever at least one whole line fits.
pub fn lines(
    file: &mut impl RandomRead,
    path: &str,
    line: u64,
    lines: Option<u32>,
    max_bytes: Option<u32>,
) -> Answer {
    let bound = max_bytes.unwrap_or(DEFAULT_MAX_BYTES);
    let count = lines.unwrap_or(DEFAULT_LINES);
    let size = readback::saved_size(file)?;
    if size == 0 {
        return Ok(Ok(empty_file(path)));
    }
    let page = fitted_lines(file, line, count, bound)?;
    if page.text.is_empty() {
        let total = total_lines(file, size)?;
        let last_page = total.saturating_sub(u64::from(count) - 1).max(1);
        let call = Cursor::new(path)
            .number("line", last_page)
            .maybe("lines", lines)
            .maybe("max_bytes", max_bytes)
            .finish();
        return Ok(Err(format!(
            "Line {line} is past the end of {path}: it has {total} lines ({size} bytes). For its \
             last lines, call again with {call}."
        )));
    }
    let last = page.first_line.saturating_add(line_count(&page.text) - 1);
    let total = match page.next_offset {
        None => last,
        Some(_) => total_lines(file, size)?,
    };
    let header = format!(
        "{path} — lines {}-{last} of {total} ({size} bytes)",
        page.first_line
    );
    let next = match (page.next_line, page.next_offset) {
        (_, None) => Next::End,
        (Some(n), Some(_)) => Next::More(
            Cursor::new(path)
                .number("line", n)
                .maybe("lines", lines)
                .maybe("max_bytes", max_bytes)
                .finish(),
        ),
        (None, Some(at)) => Next::Cut {
            line: last,
            at,
            cursor: Cursor::new(path)
                .number("offset", at)
                .maybe("max_bytes", max_bytes)
                .finish(),
        },
    };
    let header = with_redactions(file, header, &page);
    Ok(Ok(assemble(header, &page, next)))
}

/// The bytes from `offset` (moved back to the start of its character).
pub fn bytes(
    file: &mut impl RandomRead,
    path: &str,
    offset: u64,
    max_bytes: Option<u32>,
) -> Answer {
    let bound = max_bytes.unwrap_or(DEFAULT_MAX_BYTES);
    let size = readback::saved_size(file)?;
    if size == 0 {
        return Ok(Ok(empty_file(path)));
    }
    if offset >= size {
        let call = Cursor::new(path)
            .number("offset", size.saturating_sub(bound.into()))
            .maybe("max_bytes", max_bytes)
            .finish();
        return Ok(Err(format!(
            "Offset {offset} is past the end of {path}: it has {size} bytes, at offsets 0 to {}. \
             For its last bytes, call again with {call}.",
            size - 1
        )));
    }
    let page = fitted_page(file, offset, bound)?;
    let end = page.next_offset.unwrap_or(size);
    let inside = page.offset > 0 && !ends_line(file, page.offset - 1)?;
    let mut header = format!(
        "{path} — bytes {}-{} of {size}",
        page.offset,
        end.saturating_sub(1)
    );
    if inside {
        header.push_str(&format!(" (from inside line {})", page.first_line));
    }
    let last = page
        .first_line
        .saturating_add(line_count(&page.text).saturating_sub(1));
    let next = match page.next_offset {
        None => Next::End,
        Some(at) => {
            let cursor = Cursor::new(path)
                .number("offset", at)
                .maybe("max_bytes", max_bytes)
                .finish();
            if page.text.ends_with('\n') {
                Next::More(cursor)
            } else {
                Next::Cut {
                    line: last,
                    at,
                    cursor,
                }
            }
        }
    };
    let header = with_redactions(file, header, &page);
    Ok(Ok(assemble(header, &page, next)))
}

/// `header`, and when the page shows secrets as placeholders, a line that
/// says so and how the text's length differs from the saved bytes: offsets
/// and cursors count bytes of the saved file.
fn with_redactions(file: &impl RandomRead, mut header: String, page: &Page) -> String {
    let Some(map) = file.redactions() else {
        return header;
    };
    let end = page.next_offset.unwrap_or(page.total_bytes);
    let (n, delta) = map.within(page.offset, end);
    if n == 0 {
        return header;
    }
    let noun = if n == 1 { "secret is" } else { "secrets are" };
    let change = match delta {
        0 => "as long as".to_owned(),
        d if d < 0 => format!("{} bytes shorter than", -d),
        d => format!("{d} bytes longer than"),
    };
    header.push_str(&format!(
        "\n[redaction: {n} {noun} shown as `[redacted: <kind>]`, so this text is {change} the \
         saved bytes it stands for; byte offsets and cursors count bytes of the saved file]"
    ));
    header
}

/// The line page from `line` whose numbered text fits in `bound`: whole
/// lines if at least one fits, else the start of the first line.
fn fitted_lines(
    file: &mut impl RandomRead,
    line: u64,
    count: u32,
    bound: u32,
) -> Result<Page, CapError> {
    let (mut count, mut budget) = (count, bound);
    for _ in 0..=MAX_REREADS {
        let page = readback::read_lines(file, line, count, budget)?;
        let fit = fit(&page.text, page.first_line, bound as usize);
        let cut_inside = page.next_offset.is_some() && page.next_line.is_none();
        if fit.all && (!cut_inside || fit.whole_lines == 0) {
            return Ok(page);
        }
        if fit.whole_lines > 0 {
            // Fewer lines than this page holds, all of which fit in `budget`.
            count = fit.whole_lines;
        } else if budget > MIN_PAGE_BYTES {
            count = 1;
            budget = shrunk(fit.text_bytes, budget);
        } else {
            return Ok(page);
        }
    }
    Err(changed())
}

/// The byte page from `offset` whose numbered text fits in `bound`.
fn fitted_page(file: &mut impl RandomRead, offset: u64, bound: u32) -> Result<Page, CapError> {
    let mut budget = bound;
    for _ in 0..=MAX_REREADS {
        let page = readback::read_page(file, offset, budget)?;
        let fit = fit(&page.text, page.first_line, bound as usize);
        if fit.all || budget <= MIN_PAGE_BYTES {
            return Ok(page);
        }
        budget = shrunk(fit.text_bytes, budget);
    }
    Err(changed())
}

/// The next read's byte budget: what fit, but less than `budget` and no less
/// than a page may be.
fn shrunk(fitting: usize, budget: u32) -> u32 {
    u32::try_from(fitting)
        .unwrap_or(u32::MAX)
        .min(budget - 1)
        .max(MIN_PAGE_BYTES)
}

fn changed() -> CapError {
    CapError::Io("the file changed while it was being read".to_owned())
}

/// Lines of a file of `size` bytes (at least 1), counted as the capper
/// counts them: its line breaks, plus one if it does not end with one.
fn total_lines(file: &mut impl RandomRead, size: u64) -> Result<u64, CapError> {
    // A line past the end gives an empty page at the end of the file, on the
    // line after its last line break; the last byte tells the rest. This
    // scans the whole file, once per page that is not the last: the header's
    // total is worth it, and a spill is no bigger than what a tool printed.
    let end = readback::read_lines(file, u64::MAX, 1, MIN_PAGE_BYTES)?;
    let breaks = end.first_line - 1;
    Ok(breaks + u64::from(!ends_line(file, size - 1)?))
}

/// Whether the byte at `at` is a line break: one byte read, where a page
/// would count the line breaks before it.
fn ends_line(file: &mut impl RandomRead, at: u64) -> Result<bool, CapError> {
    readback::is_line_break(file, at)
}

fn empty_file(path: &str) -> String {
    format!("{path} — empty file (0 bytes)\nEnd of file.")
}

/// Header, numbered lines, and the cut marker, cursor or end of file.
fn assemble(header: String, page: &Page, next: Next) -> String {
    let mut out = header;
    out.push('\n');
    out.push_str(&numbered(&page.text, page.first_line));
    match next {
        Next::More(cursor) => out.push_str(&format!("More: call again with {cursor}")),
        Next::Cut { line, at, cursor } => out.push_str(&format!(
            "[line {line} is cut here by max_bytes; it continues at byte {at}]\nMore: call again \
             with {cursor}"
        )),
        Next::End if page.text.ends_with('\n') => out.push_str("End of file."),
        Next::End => {
            let last = page
                .first_line
                .saturating_add(line_count(&page.text).saturating_sub(1));
            out.push_str(&format!("End of file (no line break after line {last})."));
        }
    }
    out
}
