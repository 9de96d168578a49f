//! Where the strings of a JSON text are, found by a search for quotes
//! alone, without a parse: a long text with an escaped line break on every
//! line is passed over at `memchr`'s speed, not stopped at each escape.
//! [`Session::cap_mcp`](crate::Session::cap_mcp) finds a large result's
//! text this way, and a host routing huge JSON-RPC lines (`toolcap mcp`)
//! can find it before it parses the rest.
//!
//! Outside strings JSON has no quotes, and inside one a quote ends it
//! unless an odd run of backslashes comes before it. A text that is not
//! JSON gives some pair of quotes, never a panic: the caller's parse of
//! the rest, or the component, refuses it.

/// The index of the quote that ends the string whose body starts at
/// `body`: the first quote after an even run of backslashes; `None` if the
/// string does not end.
pub fn string_end(text: &[u8], body: usize) -> Option<usize> {
    let mut from = body;
    loop {
        let at = from + memchr::memchr(b'"', text.get(from..)?)?;
        if !escaped(text, at) {
            return Some(at);
        }
        from = at + 1;
    }
}

/// The quotes around the longest string of the JSON `text` (the first of
/// the longest), or `None` when it has none or one does not end. One
/// search goes through every quote: a document of many short strings is
/// not searched anew from each.
pub fn longest_string(text: &[u8]) -> Option<(usize, usize)> {
    let mut longest: Option<(usize, usize)> = None;
    let mut open: Option<usize> = None;
    for at in memchr::memchr_iter(b'"', text) {
        let Some(start) = open else {
            open = Some(at);
            continue;
        };
        if escaped(text, at) {
            continue;
        }
        if longest.is_none_or(|(s, e)| at - start > e - s) {
            longest = Some((start, at));
        }
        open = None;
    }
    match open {
        Some(_) => None,
        None => longest,
    }
}

/// Whether the quote at `at` is escaped, so neither ends nor opens a
/// string: an odd run of backslashes comes right before it.
pub fn escaped(text: &[u8], at: usize) -> bool {
    let backslashes = text[..at].iter().rev().take_while(|&&b| b == b'\\').count();
    backslashes % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// In JSON written by serde_json, the longest string found is the
        /// first of those longest as written, escapes included.
        #[test]
        fn the_longest_string_is_the_first_longest_as_written(
            strings in prop::collection::vec("[a-z\"\\\\\n\u{1}é/]{0,12}", 1..8),
        ) {
            let text = serde_json::to_string(&strings).unwrap();
            let written: Vec<String> =
                strings.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
            let longest = written.iter().map(String::len).max().unwrap();
            let first = written.iter().position(|w| w.len() == longest).unwrap();
            let (start, end) = longest_string(text.as_bytes()).expect("a string");
            let found: String = serde_json::from_str(&text[start..=end]).unwrap();
            prop_assert_eq!(&found, &strings[first]);
        }
    }

    /// The longest string by searching for each string's end in turn,
    /// string by string.
    fn longest_one_by_one(text: &[u8]) -> Option<(usize, usize)> {
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

    proptest! {
        /// On any bytes, JSON or not, one search through the quotes finds
        /// what searching for each string's end in turn finds.
        #[test]
        fn one_search_finds_what_a_search_per_string_finds(
            text in prop::collection::vec(prop::sample::select(b"\"\\ab\n".to_vec()), 0..64),
        ) {
            prop_assert_eq!(longest_string(&text), longest_one_by_one(&text));
        }
    }

    #[test]
    fn a_string_that_does_not_end_gives_none() {
        assert_eq!(longest_string(br#"{"a":"b","c":"d\"}"#), None);
        assert_eq!(string_end(br#""ab\\""#, 1), Some(5));
        assert_eq!(string_end(br#""ab\""#, 1), None);
        assert_eq!(string_end(b"\"", 2), None);
    }
}
