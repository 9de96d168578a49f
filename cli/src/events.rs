//! `--log-file`: one JSON line per capped result, appended, so that what the
//! cap did to each call can be counted and looked up afterwards. Counts and
//! names only: never a byte of the output, and never the command line
//! (arguments can hold tokens).

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use serde_json::{Map, Value, json};
use tool_output_cap::types::CapReport;

use crate::failure::Failure;
use crate::log;

/// Where events go, and who they are about.
#[derive(Debug)]
pub struct EventLog {
    file: Option<File>,
    /// `mcp` or `cap`.
    subcommand: &'static str,
    /// The MCP server's or the command's program name (no arguments).
    program: Option<String>,
}

/// One capped result, as an event says it.
#[derive(Debug)]
pub struct Capped<'a> {
    pub tool: &'a str,
    pub call_id: &'a str,
    pub report: &'a CapReport,
    /// Bytes of what was sent on (the capped text, or the capped result's JSON).
    pub sent_bytes: u64,
}

impl EventLog {
    /// The same log for another session (appends stay whole lines: the
    /// file is opened for appending and each event is one write).
    pub fn try_clone(&self) -> Result<Self, Failure> {
        let file = match &self.file {
            Some(file) => Some(
                file.try_clone()
                    .map_err(|e| Failure::failed(format!("cannot share the log file: {e}")))?,
            ),
            None => None,
        };
        Ok(Self {
            file,
            subcommand: self.subcommand,
            program: self.program.clone(),
        })
    }

    /// No log.
    pub fn none() -> Self {
        Self {
            file: None,
            subcommand: "",
            program: None,
        }
    }

    /// Appends to `path` (created with mode 0600: the log names files that
    /// may hold secrets). A file that cannot be opened is an error.
    pub fn open(
        path: Option<&Path>,
        subcommand: &'static str,
        program: Option<String>,
    ) -> Result<Self, Failure> {
        let Some(path) = path else {
            return Ok(Self::none());
        };
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| {
                Failure::usage(format!("cannot open the log file {}: {e}", path.display()))
            })?;
        Ok(Self {
            file: Some(file),
            subcommand,
            program,
        })
    }

    /// Appends the event of `capped`. A failed write is said once on
    /// stderr; the output itself goes on regardless.
    pub fn capped(&mut self, capped: &Capped<'_>) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let mut line = event(self.subcommand, self.program.as_deref(), capped).to_string();
        line.push('\n');
        if let Err(e) = file.write_all(line.as_bytes()) {
            log::line(&format!("cannot write the log file ({e}); no more events"));
            self.file = None;
        }
    }
}

/// The event's JSON object.
fn event(subcommand: &str, program: Option<&str>, c: &Capped<'_>) -> Value {
    let r = c.report;
    let redactions: Map<String, Value> = r
        .redactions
        .iter()
        .map(|k| (k.kind.clone(), json!(k.count)))
        .collect();
    let mut event = json!({
        "time": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "subcommand": subcommand,
        "tool": c.tool,
        "call": c.call_id,
        "truncated": r.truncated,
        "originalBytes": r.original_bytes,
        "originalTokens": r.original_tokens,
        "sentBytes": c.sent_bytes,
        "sentTokens": r.tokens,
        "omittedBytes": r.omitted_bytes,
        "spill": r.spill.as_ref().map(|s| s.path.clone()),
        "redactions": redactions,
    });
    let key = if subcommand == "mcp" {
        "server"
    } else {
        "command"
    };
    event[key] = json!(program);
    if let Some(error) = &r.spill_error {
        event["spillError"] = json!(error);
    }
    event
}
