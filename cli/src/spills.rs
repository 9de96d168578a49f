//! `toolcap spills`: what a spill directory holds, and its upkeep: list the
//! saved outputs (each with a genuine reference), count them, sweep them by
//! the retention period, and show one by its reference.

use std::io::{self, Read as _, Write as _};
use std::path::Path;

use tool_output_cap::{
    Error, Session, ToolCap,
    types::{RetentionPolicy, SpillEntry, SweepReason},
};

use crate::failure::{FAILED, Failure};
use crate::options::{SpillsArgs, SpillsCommand};
use crate::settings::Common;

/// Bytes of a saved output read per page by `show`.
const PAGE_BYTES: u32 = 1 << 20;
/// Most bytes of a catalog note read (a note is one short line of JSON).
const MAX_NOTE_BYTES: u64 = 64 << 10;

pub fn run(args: SpillsArgs) -> Result<u8, Failure> {
    let common = Common::resolve(&args.common)?;
    common.check_spill_dir()?;
    let tool_cap = crate::runtime::tool_cap(&crate::runtime::one_shot())?;
    match args.command {
        SpillsCommand::Stats => stats(&tool_cap, &common),
        SpillsCommand::Sweep {
            max_total_bytes,
            max_files,
        } => sweep(&tool_cap, &common, max_total_bytes, max_files),
        SpillsCommand::List { thread } => list(&tool_cap, &common, thread),
        SpillsCommand::Show { reference } => show(&tool_cap, &common, &reference),
    }
}

fn stats(tool_cap: &ToolCap, common: &Common) -> Result<u8, Failure> {
    let stats = tool_cap
        .open_spill_store(&common.spill_dir)
        .and_then(|mut store| store.stats())
        .map_err(|e| failed("cannot read the spill directory", e))?;
    let mut out = io::stdout().lock();
    let when = |ms: Option<u64>| ms.map_or("-".to_owned(), time_of);
    let _ = writeln!(
        out,
        "{}: {} saved output{} ({} bytes) in {} thread folder{}; oldest {}, newest {}",
        common.spill_dir.display(),
        stats.files,
        plural(stats.files),
        stats.bytes,
        stats.threads,
        plural(u64::from(stats.threads)),
        when(stats.oldest_ms),
        when(stats.newest_ms),
    );
    Ok(0)
}

fn sweep(
    tool_cap: &ToolCap,
    common: &Common,
    max_total_bytes: Option<u64>,
    max_files: Option<u32>,
) -> Result<u8, Failure> {
    let policy = RetentionPolicy {
        max_age_seconds: common.retention_seconds(),
        max_total_bytes,
        max_files,
    };
    let report = tool_cap
        .open_spill_store(&common.spill_dir)
        .and_then(|mut store| store.sweep(&policy))
        .map_err(|e| failed("cannot sweep the spill directory", e))?;
    let mut out = io::stdout().lock();
    for file in &report.deleted {
        let _ = writeln!(
            out,
            "deleted {} ({} bytes, saved {}): {}",
            file.relative_path,
            file.bytes,
            time_of(file.created_ms),
            reason(file.reason)
        );
    }
    // The stamp `toolcap cap` leaves of its last sweep is ours, not a
    // stranger worth a line.
    let stamp = format!("{}: ", crate::sweep::STAMP);
    for why in report.skipped.iter().filter(|why| !why.starts_with(&stamp)) {
        let _ = writeln!(out, "kept: {why}");
    }
    let _ = writeln!(
        out,
        "{} deleted; {} kept ({} bytes)",
        report.deleted.len(),
        report.kept_files,
        report.kept_bytes
    );
    Ok(0)
}

/// Each thread's saved outputs, oldest first: one line each, with the
/// reference a notice would carry.
fn list(tool_cap: &ToolCap, common: &Common, thread: Option<String>) -> Result<u8, Failure> {
    let folders = thread_folders(common)?;
    let threads = match thread {
        // A session makes its folder: only list a thread that has one.
        Some(thread) if !folders.contains(&thread) => return Ok(0),
        Some(thread) => vec![thread],
        None => folders,
    };
    let key = common.key()?;
    let mut out = io::stdout().lock();
    for thread in threads {
        let mut session = open(tool_cap, common, &thread, key.clone())?;
        let entries = listed(&mut session, &common.spill_dir)
            .map_err(|e| failed(&format!("cannot list thread {thread}"), e))?;
        for Listed { entry, expires_ms } in entries {
            let r = &entry.reference;
            let _ = writeln!(
                out,
                "{}\t{} bytes\t{} lines\t{}\t{}\t{}\tkept until {}",
                time_of(entry.created_ms),
                r.bytes,
                r.lines,
                entry.tool.as_deref().unwrap_or("-"),
                entry.call_id,
                r.path,
                expires_ms.map_or("-".to_owned(), time_of),
            );
        }
    }
    Ok(0)
}

/// One saved output of a thread, as `toolcap spills list` and the MCP
/// proxy's resources name it.
#[derive(Debug)]
pub struct Listed {
    /// The component's entry: a genuine reference, when, which call and tool.
    pub entry: SpillEntry,
    /// Until when its notices promised to keep it (ms since the Unix epoch),
    /// as its catalog note records; `None` when nothing was promised.
    pub expires_ms: Option<u64>,
}

/// The saved outputs of `session`'s thread, oldest first, from the
/// component's `list`, each with the expiry its note in `spill_dir` records.
pub fn listed(session: &mut Session, spill_dir: &Path) -> Result<Vec<Listed>, Error> {
    let entries = session.list()?;
    Ok(entries
        .into_iter()
        .map(|entry| {
            let expires_ms = promised_expiry(spill_dir, &entry.reference.relative_path);
            Listed { entry, expires_ms }
        })
        .collect())
}

/// The expiry the catalog note beside spill `relative` (`<thread>/<file>`)
/// records: the component writes `.<file>.meta`, one line of JSON whose
/// `expires_ns` is the latest promise a notice made (core/src/catalog.rs).
/// Only shown, never trusted for access: the file itself is read through
/// the component, with every check.
fn promised_expiry(spill_dir: &Path, relative: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Note {
        expires_ns: Option<u64>,
    }
    let (thread, file) = relative.split_once('/')?;
    let note = spill_dir.join(thread).join(format!(".{file}.meta"));
    let mut text = Vec::new();
    std::fs::File::open(note)
        .ok()?
        .take(MAX_NOTE_BYTES)
        .read_to_end(&mut text)
        .ok()?;
    let note: Note = serde_json::from_slice(&text).ok()?;
    note.expires_ns.map(|ns| ns / 1_000_000)
}

/// The thread folders of the spill directory whose thread id is their own
/// name (every thread `toolcap` names itself); others need `--for-thread`.
fn thread_folders(common: &Common) -> Result<Vec<String>, Failure> {
    let entries = match std::fs::read_dir(&common.spill_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Failure::failed(format!(
                "cannot read {}: {e}",
                common.spill_dir.display()
            )));
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && !is_hashed_id(name))
        .collect();
    names.sort();
    Ok(names)
}

/// Writes the saved output a reference in `text` (a notice, or its
/// reference line) names, after checking that the reference is genuine;
/// the file is read through the component, which checks it against the
/// reference too. References are checked by the session of their thread:
/// each thread folder the text names is tried.
fn show(tool_cap: &ToolCap, common: &Common, text: &str) -> Result<u8, Failure> {
    let key = common.key()?;
    let named = thread_folders(common)?
        .into_iter()
        .filter(|thread| text.contains(&format!("/{thread}/")));
    let mut found = None;
    for thread in named {
        let mut session = open(tool_cap, common, &thread, key.clone())?;
        let refs = session
            .find_refs(text)
            .map_err(|e| failed("cannot check the reference", e))?;
        if let Some(reference) = refs.into_iter().next() {
            found = Some((session, reference));
            break;
        }
    }
    let Some((mut session, reference)) = found else {
        return Err(Failure::usage(
            "no genuine reference to a saved output of this spill directory in the text given: \
             pass the notice's reference line (its tag is made with this key file); a path \
             alone, a forged tag or one made with another key is not shown",
        ));
    };
    let mut out = io::stdout().lock();
    let mut offset = 0;
    loop {
        let page = session
            .read(&reference.path, offset, PAGE_BYTES)
            .map_err(|e| failed(&format!("cannot read {}", reference.path), e))?;
        if out.write_all(page.text.as_bytes()).is_err() {
            return Ok(FAILED);
        }
        match page.next_offset {
            Some(next) if next > offset => offset = next,
            _ => break,
        }
    }
    Ok(0)
}

fn open(
    tool_cap: &ToolCap,
    common: &Common,
    thread: &str,
    key: Vec<u8>,
) -> Result<Session, Failure> {
    tool_cap
        .open_session(common.session_config(thread.to_owned(), key))
        .map_err(|e| failed("cannot open a session", e))
}

fn failed(what: &str, e: Error) -> Failure {
    Failure::failed(format!("{what}: {e}"))
}

fn reason(reason: SweepReason) -> &'static str {
    match reason {
        SweepReason::Age => "older than the retention period",
        SweepReason::TotalBytes => "over --max-total-bytes",
        SweepReason::FileCount => "over --max-files",
        SweepReason::StaleTemporary => "a temporary file a stopped cap left",
    }
}

/// A folder named for a thread id that was not safe as it was: its name
/// ends in `-` and 16 hex digits of the id's hash, and a session for that
/// name would be another folder.
fn is_hashed_id(name: &str) -> bool {
    name.len() > 17
        && name.as_bytes()[name.len() - 17] == b'-'
        && name[name.len() - 16..]
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `ms` since the Unix epoch as RFC 3339 UTC, to the second.
pub fn time_of(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(
            || format!("{ms} ms"),
            |t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        )
}
