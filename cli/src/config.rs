//! The optional TOML config file. Every key is optional; an unknown key is
//! an error that names it and the file, so a typo never goes unnoticed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::failure::Failure;

/// The environment variable naming the config file when `--config` does not.
pub const CONFIG_VARIABLE: &str = "TOOLCAP_CONFIG";

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub spill_dir: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    pub thread: Option<String>,
    pub retention_days: Option<u64>,
    pub allow_shared_spill_dir: Option<bool>,
    pub timeout_seconds: Option<u64>,
    pub resource_link: Option<bool>,
    pub passthrough: Option<bool>,
    pub read_tool_name: Option<String>,
    /// `toolcap mcp`: the longest message passed on, in bytes.
    pub max_message_bytes: Option<u64>,
    /// Redact secrets in what the model is shown (`--redact`).
    pub redact: Option<bool>,
    /// Redact the saved files too (`--redact-spill`).
    pub redact_spill: Option<bool>,
    /// Secrets of your own (for example the API keys the host holds),
    /// redacted wherever they occur; only in the file, never on the command
    /// line, where other users could read them.
    pub redact_literals: Option<Vec<String>>,
    /// Append one JSON line per capped result (`--log-file`).
    pub log_file: Option<PathBuf>,
    /// `toolcap mcp`: the `tools/call` argument keys a search is taken
    /// from (`--search-key`, each); empty for none.
    pub search_keys: Option<Vec<String>>,
    /// `toolcap mcp`: a remote server's endpoint (`--url`).
    pub url: Option<String>,
    /// `toolcap mcp --url`: headers sent with every request; `${NAME}` in a
    /// value is taken from the environment.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// `toolcap mcp`: serve clients over HTTP (`--listen`).
    pub listen: Option<String>,
    /// `--client-token` (`${NAME}` taken from the environment).
    pub client_token: Option<String>,
    /// `--allow-origin`, each.
    pub allow_origins: Option<Vec<String>>,
    /// `--idle-timeout`.
    pub idle_timeout_seconds: Option<u64>,
    /// The default budget.
    #[serde(default)]
    pub budget: BudgetTable,
    /// Per-tool budgets and switches, by tool name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolTable>,
}

#[derive(Deserialize, Debug, Default, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct BudgetTable {
    pub max_bytes: Option<u32>,
    pub max_lines: Option<u32>,
    pub max_tokens: Option<u32>,
}

#[derive(Deserialize, Debug, Default, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct ToolTable {
    pub max_bytes: Option<u32>,
    pub max_lines: Option<u32>,
    pub max_tokens: Option<u32>,
    pub passthrough: Option<bool>,
    /// `toolcap mcp`: whether this tool's calls give a search (default true).
    pub search: Option<bool>,
}

impl FileConfig {
    /// The config file of this run: `--config`, else the file
    /// `TOOLCAP_CONFIG` names, else `<config dir>/toolcap/config.toml`
    /// (`$XDG_CONFIG_HOME`, or `~/.config`) when it exists. A file named by
    /// option or variable must exist; the default one may not.
    pub fn discover(option: Option<&Path>) -> Result<Self, Failure> {
        if let Some(path) = option {
            return Self::load(Some(path));
        }
        if let Some(path) = std::env::var_os(CONFIG_VARIABLE).filter(|p| !p.is_empty()) {
            return Self::load(Some(Path::new(&path)));
        }
        let default = dirs::config_dir().map(|dir| dir.join("toolcap").join("config.toml"));
        match default.filter(|path| path.exists()) {
            Some(path) => Self::load(Some(&path)),
            None => Ok(Self::default()),
        }
    }

    /// Reads `path`, or gives the empty config without one. Relative paths
    /// in the file are taken from the file's own folder, so the file works
    /// from any working directory.
    pub fn load(path: Option<&Path>) -> Result<Self, Failure> {
        let Some(path) = path else {
            return Ok(Self::default());
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::usage(format!("cannot read config file {}: {e}", path.display()))
        })?;
        let mut config: Self = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|span| format!(", line {}", line_of(&text, span.start)))
                .unwrap_or_default();
            Failure::usage(format!(
                "config file {}{line}: {}",
                path.display(),
                e.message()
            ))
        })?;
        let base = path.parent().unwrap_or(Path::new(""));
        for dir in [
            &mut config.spill_dir,
            &mut config.key_file,
            &mut config.log_file,
        ]
        .into_iter()
        .flatten()
        {
            if dir.is_relative() {
                *dir = base.join(&*dir);
            }
        }
        Ok(config)
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let before = text.get(..offset).unwrap_or(text);
    before.bytes().filter(|&b| b == b'\n').count() + 1
}
