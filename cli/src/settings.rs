//! What both subcommands share, resolved from options, environment, the
//! config file and defaults, in that order.

use std::fs;
use std::path::PathBuf;

use tool_output_cap::{
    Budget, SessionConfig,
    budget::{DEFAULT_HEAD_PERCENT, DEFAULT_MAX_LINE_BYTES},
    types::{Keep, RedactionPolicy},
};

use crate::config::{BudgetTable, FileConfig};
use crate::failure::Failure;
use crate::key_file;
use crate::log;
use crate::options::CommonArgs;

/// Default byte budget of one result, notice included.
pub const DEFAULT_MAX_BYTES: u32 = 24_576;
/// Default retention of saved outputs.
pub const DEFAULT_RETENTION_DAYS: u64 = 7;
const SECONDS_PER_DAY: u64 = 86_400;

#[derive(Debug)]
pub struct Common {
    /// The default budget, and the keys it was made of (a tool's own
    /// budget falls back on them).
    pub budget: Budget,
    pub budget_table: BudgetTable,
    pub spill_dir: PathBuf,
    pub key_file: PathBuf,
    /// The thread given by option or file; each subcommand has its own default.
    pub thread: Option<String>,
    pub retention_days: u64,
    /// Secret redaction, when asked for.
    pub redaction: Option<RedactionPolicy>,
    /// `--allow-shared-spill-dir`: accept a spill directory others can write.
    pub allow_shared_spill_dir: bool,
    /// Where to append one JSON line per capped result.
    pub log_file: Option<PathBuf>,
    /// The rest of the config file, for the subcommand's own keys.
    pub file: FileConfig,
}

impl Common {
    pub fn resolve(args: &CommonArgs) -> Result<Self, Failure> {
        let file = FileConfig::discover(args.config.as_deref())?;
        let table = BudgetTable {
            max_bytes: args.max_bytes.or(file.budget.max_bytes),
            max_lines: args.max_lines.or(file.budget.max_lines),
            max_tokens: args.max_tokens.or(file.budget.max_tokens),
        };
        let cache = || {
            dirs::cache_dir()
                .map(|dir| dir.join("toolcap"))
                .ok_or_else(|| {
                    Failure::usage(
                        "this system has no user cache directory: give --spill-dir and --key-file",
                    )
                })
        };
        let spill_dir = match args.spill_dir.clone().or_else(|| file.spill_dir.clone()) {
            Some(dir) => dir,
            None => cache()?.join("spill"),
        };
        let key_file = match args.key_file.clone().or_else(|| file.key_file.clone()) {
            Some(path) => path,
            None => cache()?.join("key"),
        };
        Ok(Self {
            budget: budget(&table, &BudgetTable::default()),
            budget_table: table,
            spill_dir,
            key_file,
            thread: args.thread.clone().or_else(|| file.thread.clone()),
            retention_days: args
                .retention_days
                .or(file.retention_days)
                .unwrap_or(DEFAULT_RETENTION_DAYS),
            redaction: redaction(args, &file),
            allow_shared_spill_dir: args.allow_shared_spill_dir
                || file.allow_shared_spill_dir.unwrap_or(false),
            log_file: args.log_file.clone().or_else(|| file.log_file.clone()),
            file,
        })
    }

    /// Seconds outputs are kept, `None` for ever.
    pub fn retention_seconds(&self) -> Option<u64> {
        (self.retention_days > 0).then(|| self.retention_days.saturating_mul(SECONDS_PER_DAY))
    }

    /// Refuses a spill directory another user owns or others can write,
    /// unless the user allowed it.
    pub fn check_spill_dir(&self) -> Result<(), Failure> {
        if self.allow_shared_spill_dir {
            return Ok(());
        }
        match tool_output_cap::sandbox::shared_dir_problem(&self.spill_dir) {
            None => Ok(()),
            Some(problem) => Err(Failure::usage(format!(
                "refusing the spill directory: {problem}; pass --allow-shared-spill-dir (or set \
                 allow_shared_spill_dir = true) to use it anyway"
            ))),
        }
    }

    /// Says on stderr why the spill directory could not be granted (a file
    /// at its path, a parent that cannot be written): the run goes on, and
    /// each cut result's notice says its full output was not saved.
    pub fn warn_spill_dir_not_granted(&self) {
        let dir = &self.spill_dir;
        let why = match fs::metadata(dir) {
            Ok(meta) if !meta.is_dir() => "it is not a directory".to_owned(),
            Ok(_) => "it cannot be opened".to_owned(),
            Err(e) => format!("it cannot be created: {e}"),
        };
        log::line(&format!(
            "cannot use the spill directory {}: {why}; the full output of a cut result will not be saved",
            dir.display()
        ));
    }

    /// The session key from the key file. A file that cannot be read or made
    /// costs only the references' life beyond this run: warned about, and a
    /// key for this run only is drawn. A file that is too short is an error.
    pub fn key(&self) -> Result<Vec<u8>, Failure> {
        match key_file::load_or_create(&self.key_file) {
            Ok(key) => Ok(key),
            Err(key_file::KeyError::Refused(message)) => Err(Failure::usage(message)),
            Err(key_file::KeyError::Unavailable(message)) => {
                log::line(&format!(
                    "{message}; using a key for this run only, so references to its outputs will not verify in a later run"
                ));
                Ok(Vec::new())
            }
        }
    }

    /// A session for `thread` that spills into the spill directory, with
    /// this run's key and retention.
    pub fn session_config(&self, thread: String, key: Vec<u8>) -> SessionConfig {
        SessionConfig {
            key,
            retention_seconds: self.retention_seconds(),
            redaction: self.redaction.clone(),
            allow_shared_spill_dir: self.allow_shared_spill_dir,
            ..SessionConfig::new(thread, &self.spill_dir)
        }
    }
}

/// The redaction policy of the options and the file: on with `--redact`,
/// `--redact-spill` or their keys, or when the file lists literals.
fn redaction(args: &CommonArgs, file: &FileConfig) -> Option<RedactionPolicy> {
    let spill = args.redact_spill || file.redact_spill == Some(true);
    let literals = file.redact_literals.clone().unwrap_or_default();
    let on = args.redact || spill || file.redact == Some(true) || !literals.is_empty();
    on.then_some(RedactionPolicy { literals, spill })
}

/// The budget of `table`, each missing key taken from `fallback`, then the
/// defaults: 24576 bytes, no line or token limit.
pub fn budget(table: &BudgetTable, fallback: &BudgetTable) -> Budget {
    Budget {
        max_bytes: table
            .max_bytes
            .or(fallback.max_bytes)
            .unwrap_or(DEFAULT_MAX_BYTES),
        max_lines: table.max_lines.or(fallback.max_lines),
        max_line_bytes: Some(DEFAULT_MAX_LINE_BYTES),
        keep: Keep::HeadAndTail,
        head_percent: DEFAULT_HEAD_PERCENT,
        max_tokens: table.max_tokens.or(fallback.max_tokens),
    }
}
