//! The tool call a result came from: its id names the spill file, and a
//! failure shapes the notice and the preview.

/// One tool call. Mirrors WIT `call`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Call {
    /// Names the spill file; any text.
    pub id: String,
    /// The tool's name, shown in the notice.
    pub tool: Option<String>,
    /// The exit code of a command.
    pub exit_code: Option<i32>,
    /// The tool reported a failure (MCP `isError`).
    pub is_error: bool,
    /// What the tool searched for: literal text, one alternative per line
    /// (as grep reads its patterns). See [`Call::search_terms`].
    pub search: Option<String>,
}

impl Call {
    /// A call known only by its id: no tool name, no failure.
    pub fn new(id: impl Into<String>) -> Self {
        Call {
            id: id.into(),
            ..Call::default()
        }
    }

    /// True when the call failed: `is_error`, or a non-zero exit code.
    pub fn failed(&self) -> bool {
        self.is_error || self.exit_code.is_some_and(|code| code != 0)
    }

    /// The plain statement of a failure that starts the notice, e.g.
    /// "The tool `cargo` failed (exit code 2). "; empty when it did not fail.
    pub fn failure_statement(&self) -> String {
        if !self.failed() {
            return String::new();
        }
        let tool = match &self.tool {
            Some(name) => format!("The tool `{}`", one_line(name)),
            None => "The tool".to_owned(),
        };
        match self.exit_code {
            Some(code) if code != 0 => format!("{tool} failed (exit code {code}). "),
            _ => format!("{tool} failed (it reported an error). "),
        }
    }
}

/// Most alternatives a call's `search` may hold.
pub const MAX_SEARCH_TERMS: usize = 16;

/// Longest alternative of a call's `search`, in bytes.
pub const MAX_SEARCH_TERM_BYTES: usize = 256;

impl Call {
    /// The alternatives of `search`, one per line, empty lines (and a CR
    /// before a line break) dropped: none when there is no search. An
    /// `invalid-argument` error says which limit a search breaks: more than
    /// [`MAX_SEARCH_TERMS`] alternatives, or one longer than
    /// [`MAX_SEARCH_TERM_BYTES`].
    pub fn search_terms(&self) -> Result<Vec<&str>, crate::CapError> {
        let Some(search) = &self.search else {
            return Ok(Vec::new());
        };
        let terms: Vec<&str> = search
            .split('\n')
            .map(|t| t.strip_suffix('\r').unwrap_or(t))
            .filter(|t| !t.is_empty())
            .collect();
        if terms.len() > MAX_SEARCH_TERMS {
            return Err(crate::CapError::InvalidArgument(format!(
                "call.search holds {} alternatives (one per line); at most {MAX_SEARCH_TERMS} are \
                 searched for",
                terms.len()
            )));
        }
        if let Some(long) = terms.iter().find(|t| t.len() > MAX_SEARCH_TERM_BYTES) {
            return Err(crate::CapError::InvalidArgument(format!(
                "call.search has an alternative of {} bytes; at most {MAX_SEARCH_TERM_BYTES} \
                 bytes each",
                long.len()
            )));
        }
        Ok(terms)
    }

    /// Fails with `invalid-argument` when `search` breaks a limit
    /// ([`search_terms`](Self::search_terms)): every entry that takes a call
    /// checks this before anything is written or saved.
    pub fn validate(&self) -> Result<(), crate::CapError> {
        self.search_terms().map(drop)
    }
}

/// Longest tool name quoted in a notice.
pub const MAX_TOOL_NAME_BYTES: usize = 64;

/// `name` on one line, without backticks, at most [`MAX_TOOL_NAME_BYTES`].
fn one_line(name: &str) -> String {
    let flat: String = name
        .chars()
        .map(|c| if c.is_control() || c == '`' { ' ' } else { c })
        .collect();
    crate::text::truncate_str(flat.trim(), MAX_TOOL_NAME_BYTES).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_is_stated_plainly_and_only_when_it_happened() {
        assert_eq!(Call::new("c").failure_statement(), "");
        let ok = Call {
            exit_code: Some(0),
            ..Call::new("c")
        };
        assert!(!ok.failed());
        let exit = Call {
            tool: Some("cargo\nbuild`".into()),
            exit_code: Some(2),
            ..Call::new("c")
        };
        assert_eq!(
            exit.failure_statement(),
            "The tool `cargo build` failed (exit code 2). "
        );
        let mcp = Call {
            is_error: true,
            ..Call::new("c")
        };
        assert_eq!(
            mcp.failure_statement(),
            "The tool failed (it reported an error). "
        );
        let long = Call {
            tool: Some("x".repeat(500)),
            is_error: true,
            ..Call::new("c")
        };
        assert!(long.failure_statement().len() < MAX_TOOL_NAME_BYTES + 60);
    }
}
