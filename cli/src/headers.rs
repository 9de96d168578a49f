//! The headers sent with every request to a remote server (`--header`,
//! the config file's `[headers]`), with `${NAME}` taken from the
//! environment so that tokens stay out of argv and config files. Values are
//! marked sensitive and never printed: errors name the header, not its value.

use reqwest::header::{HeaderName, HeaderValue};

/// Headers the proxy sets itself: a user's value would break the protocol.
const OWN: [&str; 5] = [
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// One header as given (`Name: value`), not yet expanded.
#[derive(Clone)]
pub struct HeaderSpec {
    pub name: String,
    pub template: String,
}

impl std::fmt::Debug for HeaderSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: <hidden>", self.name)
    }
}

/// `Name: value` of `--header`.
pub fn parse_header(text: &str) -> Result<HeaderSpec, String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| "a header is `Name: value` (with a colon)".to_owned())?;
    let name = name.trim();
    if name.is_empty() {
        return Err("a header needs a name before `:`".to_owned());
    }
    Ok(HeaderSpec {
        name: name.to_owned(),
        template: value.trim().to_owned(),
    })
}

/// The headers to send, each value with `${NAME}` replaced by the
/// environment variable's value (`$${` stays a literal `${`).
pub fn resolve(
    specs: &[HeaderSpec],
    env: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    specs
        .iter()
        .map(|spec| {
            let name = HeaderName::from_bytes(spec.name.as_bytes())
                .map_err(|_| format!("`{}` is not a valid header name", spec.name))?;
            if OWN.contains(&name.as_str()) {
                return Err(format!(
                    "the header `{}` is set by toolcap itself (the MCP transport needs it)",
                    spec.name
                ));
            }
            let text = expand_env(&spec.template, &env)
                .map_err(|why| format!("the header `{}`: {why}", spec.name))?;
            let mut value = HeaderValue::from_str(&text).map_err(|_| {
                format!(
                    "the value of the header `{}` has characters a header cannot carry",
                    spec.name
                )
            })?;
            value.set_sensitive(true);
            Ok((name, value))
        })
        .collect()
}

/// `template` with every `${NAME}` replaced by the environment variable's
/// value (`$${` stays a literal `${`): header values and the client token.
pub fn expand_env(template: &str, env: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        if let Some(tail) = after.strip_prefix("$${") {
            out.push_str("${");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("${") {
            let end = tail
                .find('}')
                .ok_or_else(|| "`${` without its closing `}`".to_owned())?;
            let variable = &tail[..end];
            if variable.is_empty()
                || !variable
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return Err(format!(
                    "`${{{variable}}}` is not an environment variable name"
                ));
            }
            let value = env(variable)
                .ok_or_else(|| format!("the environment variable {variable} is not set"))?;
            out.push_str(&value);
            rest = &tail[end + 1..];
        } else {
            out.push('$');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cr3t".to_owned())
    }

    fn one(text: &str) -> Result<(HeaderName, HeaderValue), String> {
        resolve(&[parse_header(text)?], env).map(|mut all| all.remove(0))
    }

    #[test]
    fn values_take_environment_variables() {
        let (name, value) = one("Authorization: Bearer ${TOKEN}").unwrap();
        assert_eq!(name.as_str(), "authorization");
        assert_eq!(value.to_str().unwrap(), "Bearer s3cr3t");
        assert!(value.is_sensitive());
        let (_, value) = one("X-Price: $5 and $${TOKEN}").unwrap();
        assert_eq!(value.to_str().unwrap(), "$5 and ${TOKEN}");
    }

    #[test]
    fn bad_headers_are_refused_without_their_value() {
        let unset = one("Authorization: Bearer ${MISSING}").unwrap_err();
        assert!(unset.contains("MISSING is not set"), "{unset}");
        assert!(one("no colon").is_err());
        assert!(one(": empty name").is_err());
        assert!(one("Bad Name: x").is_err());
        assert!(
            one("Mcp-Session-Id: x")
                .unwrap_err()
                .contains("set by toolcap")
        );
        let newline = one("X-A: ${TOKEN}\u{1}").unwrap_err();
        assert!(!newline.contains("s3cr3t"), "{newline}");
        let debug = format!("{:?}", parse_header("Authorization: Bearer abc").unwrap());
        assert!(!debug.contains("abc"), "{debug}");
    }
}
