//! The `search` of a call: what the tool searched for, as literal
//! alternatives one per line, so that a cut preview can show where the
//! hits are. `toolcap cap` takes it from `--search` or from a search
//! command's line (`grep`, `rg`, ...); `toolcap mcp` from a call's
//! arguments (`pattern`, `query`, ...).

pub mod arguments;
pub mod command_line;
pub mod pattern;
mod shell;

use crate::failure::Failure;

/// Most alternatives the component takes (`call.search`).
pub const MAX_TERMS: usize = 16;
/// Longest alternative the component takes, in bytes.
pub const MAX_TERM_BYTES: usize = 256;

/// Derived alternatives made to fit the component's limits: empty ones and
/// repeats dropped, each cut to [`MAX_TERM_BYTES`] (a prefix of a literal is
/// in every text the literal is), at most [`MAX_TERMS`] (the first ones).
/// `None` when none is left.
pub fn fit(alternatives: impl IntoIterator<Item = String>) -> Option<String> {
    let mut kept: Vec<String> = Vec::new();
    for alternative in alternatives {
        let alternative = alternative.trim_end_matches('\r');
        // A line break would make two alternatives of one.
        if alternative.is_empty() || alternative.contains('\n') {
            continue;
        }
        let mut end = alternative.len().min(MAX_TERM_BYTES);
        while !alternative.is_char_boundary(end) {
            end -= 1;
        }
        let alternative = &alternative[..end];
        if kept.iter().any(|k| k == alternative) {
            continue;
        }
        kept.push(alternative.to_owned());
        if kept.len() == MAX_TERMS {
            break;
        }
    }
    (!kept.is_empty()).then(|| kept.join("\n"))
}

/// The search `--search` gives (each value an alternative; a value with
/// line breaks, one per line): `Some(None)` for only empty values (no
/// search, none derived either), a usage error past the limits.
pub fn explicit(values: &[String]) -> Result<Option<Option<String>>, Failure> {
    if values.is_empty() {
        return Ok(None);
    }
    let search = values.join("\n");
    let terms = checked_terms(&search)?;
    Ok(Some((!terms.is_empty()).then_some(search)))
}

/// The alternatives of `search` read as the component reads them (empty
/// lines dropped), checked against its limits before any command runs.
fn checked_terms(search: &str) -> Result<Vec<&str>, Failure> {
    let terms: Vec<&str> = search
        .split('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .filter(|t| !t.is_empty())
        .collect();
    if terms.len() > MAX_TERMS {
        return Err(Failure::usage(format!(
            "--search was given {} alternatives; at most {MAX_TERMS} are searched for",
            terms.len()
        )));
    }
    if let Some(long) = terms.iter().find(|t| t.len() > MAX_TERM_BYTES) {
        return Err(Failure::usage(format!(
            "--search `{}...` is {} bytes; at most {MAX_TERM_BYTES} bytes each",
            long.chars().take(40).collect::<String>(),
            long.len()
        )));
    }
    Ok(terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_drops_empties_and_repeats_cuts_long_ones_and_keeps_sixteen() {
        assert_eq!(fit(Vec::new()), None);
        assert_eq!(fit(["".to_owned()]), None);
        assert_eq!(
            fit(["a", "b", "a", "", "c\r"].map(String::from)),
            Some("a\nb\nc".to_owned())
        );
        let many: Vec<String> = (0..40).map(|i| format!("term{i}")).collect();
        let fitted = fit(many).unwrap();
        assert_eq!(fitted.lines().count(), MAX_TERMS);
        assert!(fitted.ends_with("term15"));
        // Cut at a character boundary: 255 bytes of `a` then a 2-byte `é`.
        let long = format!("{}é and more", "a".repeat(255));
        assert_eq!(fit([long]), Some("a".repeat(255)));
    }

    #[test]
    fn explicit_search_past_the_limits_is_a_usage_error() {
        assert!(explicit(&[]).unwrap().is_none());
        assert_eq!(explicit(&["".to_owned()]).unwrap(), Some(None));
        assert_eq!(
            explicit(&["foo".to_owned(), "bar".to_owned()]).unwrap(),
            Some(Some("foo\nbar".to_owned()))
        );
        let seventeen: Vec<String> = (0..17).map(|i| format!("t{i}")).collect();
        let error = explicit(&seventeen).unwrap_err();
        assert_eq!(error.code, 2);
        assert!(
            error.message.contains("17 alternatives"),
            "{}",
            error.message
        );
        let error = explicit(&["x".repeat(257)]).unwrap_err();
        assert!(error.message.contains("257 bytes"), "{}", error.message);
        assert!(explicit(&["x".repeat(256)]).is_ok());
    }
}
