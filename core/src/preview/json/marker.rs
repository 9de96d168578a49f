//! The three markers: their text, and their counts (and an array marker's
//! groups) read back.

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

/// The count of `s` when it is exactly `prefix N suffix`, `N` in decimal,
/// or for [`ITEMS`] also a marker with a shape or groups ([`items_text`]).
pub(super) fn count(s: &str, (prefix, suffix): (&str, &str)) -> Option<u64> {
    match s.strip_prefix(prefix).and_then(|n| n.strip_suffix(suffix)) {
        Some(n) => digits(n),
        None if suffix == ITEMS.1 => items_marker(s).map(|m| m.count),
        None => None,
    }
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

/// The group of the items a marker counts that have no value of its field
/// that names a group (a missing field, a long or unusual value).
pub(super) const OTHER: &str = "other";

/// What the items an array marker counts hold in one field: the field's
/// path (a key of the items, or `outer.inner` one object down) and, for
/// each value, how many items hold it, [`OTHER`] last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Groups {
    pub field: String,
    pub counts: Vec<(String, u64)>,
}

/// Whether `s` may name a group or a field in a marker: short, on one line,
/// without the characters a marker is read back by.
pub(super) fn is_plain(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && s.trim() == s
        && !s
            .chars()
            .any(|c| c.is_control() || matches!(c, ',' | ';' | ':' | '[' | ']' | '"' | '\\'))
}

/// The array marker of `count` items and, when known, their shape
/// ([`super::shape`]) and groups: `[toolcap: 139 items omitted (objects
/// with id, name, conclusion); conclusion: 120 success, 17 cancelled, 2
/// failure]`.
pub(super) fn items_text(count: u64, shape: Option<&str>, groups: Option<&Groups>) -> String {
    if shape.is_none() && groups.is_none() {
        return text(count, ITEMS);
    }
    let mut out = format!("{}{count} items omitted", ITEMS.0);
    if let Some(keys) = shape {
        out.push_str(&format!("{}{keys})", SHAPE));
    }
    if let Some(g) = groups {
        out.push_str(&format!("; {}: ", g.field));
        for (i, (value, n)) in g.counts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&format!("{n} {value}"));
        }
    }
    out.push(']');
    out
}

/// What comes between an array marker's count and the keys it names.
const SHAPE: &str = " (objects with ";

/// An array marker read back: its count, the shape it names and its groups.
struct ItemsMarker {
    count: u64,
    shape: Option<String>,
    groups: Option<Groups>,
}

/// An array marker with a shape or groups, read back.
fn items_marker(s: &str) -> Option<ItemsMarker> {
    let rest = s.strip_prefix(ITEMS.0)?.strip_suffix(']')?;
    let (n, mut rest) = rest.split_once(" items omitted")?;
    let count = digits(n)?;
    let mut shape = None;
    if let Some(after) = rest.strip_prefix(SHAPE) {
        let (keys, tail) = after.split_once(')')?;
        if !keys.split(", ").all(|k| k == "…" || is_nameable(k)) {
            return None;
        }
        shape = Some(keys.to_owned());
        rest = tail;
    }
    let groups = match rest.strip_prefix("; ") {
        Some(list) => Some(groups_of(count, list)?),
        None if rest.is_empty() && shape.is_some() => None,
        None => return None,
    };
    Some(ItemsMarker {
        count,
        shape,
        groups,
    })
}

/// The groups of `field: N value, ...` that count `count` items.
fn groups_of(count: u64, list: &str) -> Option<Groups> {
    let (field, list) = list.split_once(": ")?;
    if !is_plain(field, usize::MAX) {
        return None;
    }
    let mut counts = Vec::new();
    let mut sum: u64 = 0;
    for group in list.split(", ") {
        let (n, value) = group.split_once(' ')?;
        let n = digits(n)?;
        if n == 0 || !is_plain(value, usize::MAX) {
            return None;
        }
        sum = sum.checked_add(n)?;
        counts.push((value.to_owned(), n));
    }
    (sum == count).then(|| Groups {
        field: field.to_owned(),
        counts,
    })
}

/// The shape an array marker names, if it names one.
pub(super) fn shape(s: &str) -> Option<String> {
    items_marker(s)?.shape
}

/// The groups an array marker names, if it names some.
pub(super) fn groups(s: &str) -> Option<Groups> {
    items_marker(s)?.groups
}

/// A count in decimal.
fn digits(n: &str) -> Option<u64> {
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// Longest key a shape names, in bytes.
const MAX_KEY_BYTES: usize = 32;

/// Whether a key can be named in a marker's shape and read back.
pub(super) fn is_nameable(key: &str) -> bool {
    is_plain(key, MAX_KEY_BYTES) && !key.contains(['(', ')'])
}
