//! The three markers: their text, and their counts read back.

/// The array marker, a string element: `[toolcap: N items omitted]`.
pub(super) const ITEMS: (&str, &str) = ("[toolcap: ", " items omitted]");
/// The object marker, a key whose value is null: `[toolcap: N keys omitted]`.
pub(super) const KEYS: (&str, &str) = ("[toolcap: ", " keys omitted]");
/// The string marker, a suffix: `…[toolcap: N bytes omitted]`.
pub(super) const STRING: (&str, &str) = ("…[toolcap: ", " bytes omitted]");

/// The text of a marker.
pub(super) fn text(count: u64, (prefix, suffix): (&str, &str)) -> String {
    format!("{prefix}{count}{suffix}")
}

/// The count of `s` when it is exactly `prefix N suffix`, `N` in decimal.
pub(super) fn count(s: &str, (prefix, suffix): (&str, &str)) -> Option<u64> {
    let n = s.strip_prefix(prefix)?.strip_suffix(suffix)?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The head and count of a string that ends with a string marker. Only the
/// end of `s` is read, however long it is.
pub(super) fn string_head(s: &str) -> Option<(&str, u64)> {
    if !s.ends_with(STRING.1) {
        return None;
    }
    // The prefix, at most 20 digits and the suffix.
    let window = s.len().saturating_sub(STRING.0.len() + 20 + STRING.1.len());
    let window = s.floor_char_boundary(window);
    let at = window + s[window..].rfind(STRING.0)?;
    Some((&s[..at], count(&s[at..], STRING)?))
}
