//! Secrets found by their context: the value assigned to a key such as
//! `password` (`k=v`, `k: v`, `"k": "v"`, `--k v`), the token after
//! `Authorization: Bearer`, the password of a URL. Only the value is replaced;
//! the key, quotes and separators stay.
//!
//! Values that are not secrets are left alone: empty values, placeholders
//! (`${DB_PASSWORD}`, `%s`, `<required>`, `****`, `null`, `YOUR_TOKEN`...),
//! and, when unquoted, code (`password=self.password`, `password: String`).

use super::class::run;
use super::{Span, kind};

/// What a key's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    /// A password.
    Password,
    /// A secret, token or API key.
    Secret,
    /// An AWS secret access key when 40 base64 characters, else a secret.
    AwsSecret,
    /// An Azure account key when base64, else a secret.
    Azure,
}

/// Key names, matched in any case, as the end of a key (`DB_PASSWORD`,
/// `clientSecret`, `x-api-key`).
pub(super) const KEYS: &[(&str, Key)] = &[
    ("password", Key::Password),
    ("passwd", Key::Password),
    ("pwd", Key::Password),
    ("passphrase", Key::Password),
    ("secret", Key::Secret),
    ("secret_key", Key::Secret),
    ("secret-key", Key::Secret),
    ("secretkey", Key::Secret),
    ("api_key", Key::Secret),
    ("api-key", Key::Secret),
    ("apikey", Key::Secret),
    ("token", Key::Secret),
    ("private_key", Key::Secret),
    ("private-key", Key::Secret),
    ("privatekey", Key::Secret),
    ("secret_access_key", Key::AwsSecret),
    ("secret-access-key", Key::AwsSecret),
    ("secretaccesskey", Key::AwsSecret),
    ("aws_secret_key", Key::AwsSecret),
    ("accountkey", Key::Azure),
    ("sharedaccesskey", Key::Azure),
];

/// A byte of a key name.
fn ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// How a key and its value are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    /// `=`, `:=`, `=>`.
    Equals,
    /// `:`.
    Colon,
    /// Blanks after a `--flag`.
    Flag,
}

/// The value assigned to the key name `unit[start..end]`, if it is a secret.
pub(super) fn key(k: Key, unit: &str, start: usize, end: usize) -> Option<Span> {
    let b = unit.as_bytes();
    // The name ends the key: `password_hash`, `tokens` are other keys.
    if b.get(end).is_some_and(|&c| ident(c)) {
        return None;
    }
    let mut key_start = start;
    while key_start > 0 && ident(b[key_start - 1]) {
        key_start -= 1;
    }
    let mut i = end;
    let quoted_key = if b[i..].starts_with(b"\\\"") {
        i += 2;
        true
    } else if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
        true
    } else {
        false
    };
    let before = i;
    i = run(b, i, blank);
    let sep = match (b.get(i), b.get(i + 1)) {
        (Some(b'='), Some(b'=')) | (Some(b':'), Some(b':')) => return None,
        (Some(b'='), Some(b'>')) | (Some(b':'), Some(b'=')) => {
            i += 2;
            Sep::Equals
        }
        (Some(b'='), _) => {
            i += 1;
            Sep::Equals
        }
        (Some(b':'), _) => {
            i += 1;
            Sep::Colon
        }
        _ if b[key_start..].starts_with(b"--") && i > before && !quoted_key => Sep::Flag,
        _ => return None,
    };
    i = run(b, i, blank);
    let value = parse_value(b, i)?;
    if value.quoted.is_none() {
        if sep == Sep::Colon && !quoted_key && !key_position(b, key_start) {
            return None;
        }
        if sep == Sep::Flag && b.get(value.start) == Some(&b'-') {
            return None;
        }
        // `kubectl describe secret`: `password:  16 bytes`.
        let v = &b[value.start..value.end];
        if v.iter().all(u8::is_ascii_digit) && b[value.end..].starts_with(b" bytes") {
            return None;
        }
    }
    if sep == Sep::Colon && passwd_database(b, key_start, start, end, &value) {
        return None;
    }
    let v = &unit[value.start..value.end];
    let quoted = value.quoted.is_some();
    let kind = match k {
        Key::Password => plausible(v, quoted, 3).then_some(kind::PASSWORD)?,
        Key::Secret => plausible(v, quoted, 8).then_some(kind::SECRET)?,
        Key::AwsSecret
            if v.len() == 40
                && v.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/') =>
        {
            kind::AWS_SECRET_KEY
        }
        Key::Azure
            if v.len() >= 20
                && v.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')) =>
        {
            kind::AZURE_KEY
        }
        Key::AwsSecret | Key::Azure => plausible(v, quoted, 8).then_some(kind::SECRET)?,
    };
    Some(Span {
        start: value.start,
        end: value.end,
        kind,
    })
}

/// Sources of the name service switch (`/etc/nsswitch.conf`).
const NSS_SOURCES: &[&str] = &[
    "files",
    "compat",
    "systemd",
    "db",
    "dns",
    "nis",
    "nisplus",
    "ldap",
    "sss",
    "winbind",
    "hesiod",
    "altfiles",
    "extrausers",
    "usrfiles",
    "cache",
    "mymachines",
    "myhostname",
    "resolve",
    "wins",
    "lwidentity",
    "vas4",
];

/// True for a `passwd:` that names the Unix user database, not a password:
/// the key is the bare word `passwd` and its value a list of name service
/// sources (`passwd: files systemd`, `passwd: compat`, `"passwd": "files"`,
/// with `[NOTFOUND=return]` actions), or, unquoted, a sentence (the `passwd`
/// command's `passwd: all authentication tokens updated successfully.`).
fn passwd_database(b: &[u8], key_start: usize, start: usize, end: usize, value: &Value) -> bool {
    if key_start != start || !b[start..end].eq_ignore_ascii_case(b"passwd") {
        return false;
    }
    // Unquoted, the value runs to the end of the line (or a comment).
    let value_end = match value.quoted {
        Some(_) => value.end,
        None => b[value.start..]
            .iter()
            .position(|&c| c == b'\n' || c == b'\r' || c == b'#')
            .map_or(b.len(), |p| value.start + p),
    };
    let words: Vec<&[u8]> = b[value.start..value_end]
        .split(|&c| blank(c))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return false;
    }
    // Several words unquoted: sources and actions, or prose; a password
    // there is one word.
    words.iter().all(|w| is_nss_source(w)) || (value.quoted.is_none() && words.len() > 1)
}

fn is_nss_source(word: &[u8]) -> bool {
    NSS_SOURCES
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s.as_bytes()))
        || (word.starts_with(b"[") && word.ends_with(b"]"))
}

/// A value: bytes `start..end`, inside quotes or not.
struct Value {
    start: usize,
    end: usize,
    quoted: Option<&'static [u8]>,
}

/// The value that starts at `i`: a quoted string (`"…"`, `'…'`, `\"…\"`)
/// closed on this line, or a run of bytes up to a blank or delimiter.
fn parse_value(b: &[u8], i: usize) -> Option<Value> {
    let rest = &b[i.min(b.len())..];
    let quote: Option<&'static [u8]> = if rest.starts_with(b"\\\"") {
        Some(b"\\\"")
    } else {
        match rest.first() {
            Some(b'"') => Some(b"\""),
            Some(b'\'') => Some(b"'"),
            Some(b'`') => Some(b"`"),
            _ => None,
        }
    };
    match quote {
        Some(q) => {
            let start = i + q.len();
            let mut j = start;
            while j < b.len() {
                if b[j..].starts_with(q) {
                    return Some(Value {
                        start,
                        end: j,
                        quoted: Some(q),
                    });
                }
                // A backslash escapes the next byte inside `"…"`.
                j += if b[j] == b'\\' && q == b"\"" { 2 } else { 1 };
            }
            None
        }
        None => {
            let end = run(b, i, |c| {
                !(c.is_ascii_whitespace()
                    || matches!(
                        c,
                        b'"' | b'\''
                            | b'`'
                            | b','
                            | b';'
                            | b'&'
                            | b')'
                            | b']'
                            | b'}'
                            | b'>'
                            | b'|'
                            | b'\\'
                    ))
            });
            Some(Value {
                start: i,
                end,
                quoted: None,
            })
        }
    }
}

/// True when the key starting at `key_start` is where a `key: value` pair
/// starts: first on its line, or after `{ , ; ( [` a quote, a pipe, `-` or
/// `<`/`>` (curl's `-v` prefixes). `Reset your password: click here` is prose.
fn key_position(b: &[u8], key_start: usize) -> bool {
    let before = b[..key_start].trim_ascii_end();
    match before.last() {
        None => true,
        Some(c) => b"{,;([\"'|-<>*#".contains(c),
    }
}

/// Values that say something about a secret without being one.
const PLACEHOLDERS: &[&str] = &[
    "null",
    "none",
    "nil",
    "undefined",
    "true",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "required",
    "optional",
    "empty",
    "default",
    "string",
    "str",
    "bool",
    "boolean",
    "int",
    "integer",
    "number",
    "any",
    "object",
    "bytes",
    "text",
    "varchar",
    "char",
    "secret",
    "password",
    "token",
    "redacted",
    "hidden",
    "masked",
    "removed",
    "omitted",
    "incorrect",
    "invalid",
    "wrong",
    "missing",
    "changed",
    "updated",
    "unset",
    "set",
    "expired",
    "reset",
    "unknown",
    "provided",
    "supplied",
    "enabled",
    "disabled",
    "accepted",
    "rejected",
    "denied",
    "failed",
    "n/a",
    "tbd",
    "todo",
    "example",
    "placeholder",
    "your_password",
    "your-password",
    "yourpassword",
    "is",
    "was",
    "must",
    "should",
    "not",
    "for",
    "the",
];

/// True when `v` may be a secret: long enough, and not a placeholder, a mask,
/// a variable, a template or (unquoted) code.
pub(super) fn plausible(v: &str, quoted: bool, min_len: usize) -> bool {
    let b = v.as_bytes();
    if b.len() < min_len {
        return false;
    }
    // Variables, templates, format strings, masks, markup, paths, flags,
    // PEM blocks (found by their own detector).
    if b"$%<{[*?(&#@!-/~".contains(&b[0]) {
        return false;
    }
    if v.contains("***") || v.contains("[redacted") || v.contains("...") {
        return false;
    }
    let first = v.chars().next().unwrap_or(' ');
    if v.chars().all(|c| c == first) && "*xX.#-_•?0".contains(first) {
        return false;
    }
    if PLACEHOLDERS.iter().any(|p| v.eq_ignore_ascii_case(p)) {
        return false;
    }
    // `YOUR_API_TOKEN`, `DB_PASSWORD`: the name of a variable.
    if b[0].is_ascii_uppercase()
        && b.contains(&b'_')
        && b.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
    {
        return false;
    }
    if !quoted && looks_like_code(v) {
        return false;
    }
    true
}

/// `self.password`, `get_password()`, `Option<String>`, `db_password`.
fn looks_like_code(v: &str) -> bool {
    let b = v.as_bytes();
    if b.iter().any(|c| b"(<[".contains(c)) {
        return true;
    }
    let identifier = |s: &[u8]| {
        !s.is_empty()
            && (s[0].is_ascii_alphabetic() || s[0] == b'_')
            && s.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    // A dotted path of identifiers: `self.password`, `args.token`.
    if b.contains(&b'.') && b.split(|c| *c == b'.').all(identifier) {
        return true;
    }
    // An identifier naming a secret: `password=db_password`.
    if identifier(b) {
        let lower = v.to_ascii_lowercase();
        return ["password", "passwd", "pwd", "secret", "token", "key"]
            .iter()
            .any(|k| lower.ends_with(k));
    }
    false
}

/// The token after `Bearer` (the anchor `unit[start..end]`). With an
/// `Authorization` header before it any token of 8 or more characters;
/// without, only one of 20 or more with letters and digits, so that prose
/// about bearer tokens stays.
pub(super) fn bearer(unit: &str, start: usize, end: usize) -> Option<Span> {
    let b = unit.as_bytes();
    if start > 0 && b[start - 1].is_ascii_alphanumeric() {
        return None;
    }
    let token_start = run(b, end, blank);
    if token_start == end {
        return None;
    }
    let token_byte =
        |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~' | b'+' | b'/');
    let mut token_end = run(b, token_start, token_byte);
    // A full stop ends the sentence, not the token; `=` pads base64.
    while token_end > token_start && b[token_end - 1] == b'.' {
        token_end -= 1;
    }
    if b.get(token_end) == Some(&b'=') {
        token_end = run(b, token_end, |c| c == b'=');
    }
    if token_end < b.len() && b[token_end].is_ascii_alphanumeric() {
        return None;
    }
    let token = &unit[token_start..token_end];
    let header = authorization_before(b, start);
    let strong = token.len() >= 20
        && token.bytes().any(|c| c.is_ascii_digit())
        && token.bytes().any(|c| c.is_ascii_alphabetic());
    if !(header || strong) || !plausible(token, true, 8) {
        return None;
    }
    Some(Span {
        start: token_start,
        end: token_end,
        kind: kind::BEARER_TOKEN,
    })
}

/// True when `Authorization` (any case, maybe `Proxy-Authorization`) and a
/// `:` or `=` come just before offset `at`, with blanks and quotes between.
fn authorization_before(b: &[u8], at: usize) -> bool {
    let skip = |b: &[u8], mut i: usize| {
        while i > 0 && (blank(b[i - 1]) || b[i - 1] == b'"' || b[i - 1] == b'\'') {
            i -= 1;
        }
        i
    };
    let i = skip(b, at);
    if i == 0 || !matches!(b[i - 1], b':' | b'=') {
        return false;
    }
    let i = skip(b, i - 1);
    const NAME: &[u8] = b"authorization";
    i >= NAME.len() && b[i - NAME.len()..i].eq_ignore_ascii_case(NAME)
}

/// The password of a URL `scheme://user:password@host`, the anchor `://`
/// being `unit[start..end]`.
pub(super) fn url(unit: &str, start: usize, end: usize) -> Option<Span> {
    let b = unit.as_bytes();
    // A scheme: letters, digits, `+.-`, starting with a letter.
    let scheme_start = start
        - b[..start]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
            .count();
    if scheme_start == start || !b[scheme_start].is_ascii_alphabetic() {
        return None;
    }
    let authority_end = run(b, end, |c| {
        !(c.is_ascii_whitespace()
            || matches!(
                c,
                b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\'
            ))
    });
    let at = end + b[end..authority_end].iter().rposition(|c| *c == b'@')?;
    let colon = end + b[end..at].iter().position(|c| *c == b':')?;
    if !b
        .get(at + 1)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'[')
    {
        return None;
    }
    let password = &unit[colon + 1..at];
    if !plausible(password, true, 3) {
        return None;
    }
    Some(Span {
        start: colon + 1,
        end: at,
        kind: kind::PASSWORD,
    })
}
