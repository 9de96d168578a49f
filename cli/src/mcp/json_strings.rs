//! Where the strings of a JSON text end, found by a search for quotes
//! alone: a long text with an escaped line break on every line is passed
//! over at `memchr`'s speed, not stopped at each escape.

/// The index of the quote that ends the string whose body starts at `from`:
/// the first quote after an even run of backslashes.
pub fn string_end(bytes: &[u8], mut from: usize) -> Option<usize> {
    let start = from;
    loop {
        let at = from + memchr::memchr(b'"', &bytes[from..])?;
        let backslashes = bytes[start..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return Some(at);
        }
        from = at + 1;
    }
}

/// The quotes around the longest string of the JSON `text` (the first of
/// the longest), or `None` when it has none or one does not end. Outside
/// strings JSON has no quotes, so each quote found outside one opens the
/// next. A text that is not JSON gives some pair of quotes.
pub fn longest_string(text: &[u8]) -> Option<(usize, usize)> {
    let mut longest: Option<(usize, usize)> = None;
    let mut from = 0;
    while let Some(found) = memchr::memchr(b'"', &text[from..]) {
        let start = from + found;
        let end = string_end(text, start + 1)?;
        if longest.is_none_or(|(s, e)| end - start > e - s) {
            longest = Some((start, end));
        }
        from = end + 1;
    }
    longest
}
