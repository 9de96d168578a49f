//! The catalog of a thread's spills: beside each spilled file, a small JSON
//! note of where it came from (call id, tool, when), so `list` can name a
//! thread's outputs again after a conversation is compacted, and a sweep
//! leaves a note of what it deleted, so a reference to it reads as expired.
//!
//! Both notes have names outside the spill file scheme (a leading `.`), so
//! no read can ever return them as a spill.

use serde::{Deserialize, Serialize};

use crate::naming;

/// Name of the note of deleted files in each thread folder.
pub const EXPIRED_NOTE: &str = ".expired";

/// Most bytes of the expired note read back: a bound for a hostile file.
pub const MAX_EXPIRED_NOTE: usize = 4 << 20;

/// Temporary files of a writer in progress start with this.
pub const TEMP_PREFIX: &str = ".tmp-";

/// What is known of one spilled file beyond its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpillMeta {
    /// The call id as the host gave it (the file name holds a mapped form).
    pub call_id: String,
    /// The call's tool name.
    pub tool: Option<String>,
    /// When it was saved, in nanoseconds since the Unix epoch (so that
    /// outputs saved within one millisecond keep their order).
    pub created_ns: u64,
    /// Size of the file.
    pub bytes: u64,
    /// Lines of the file.
    pub lines: u64,
    /// Until when a notice promised the file is kept (nanoseconds since the
    /// Unix epoch): no sweep deletes it before. `None`: nothing was promised
    /// (the session stated no retention), or the note was written by a
    /// version before 0.3; the sweep's policy alone then decides, from
    /// `created_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ns: Option<u64>,
}

impl SpillMeta {
    /// The note as written to disk: one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a plain record always serialises")
    }

    /// The note of a file named again by a notice (dedupe) that promises
    /// `expires_ns`: the later promise wins, so reuse renews the file and
    /// never shortens what an earlier notice promised.
    pub fn renewed(mut self, expires_ns: Option<u64>) -> SpillMeta {
        self.expires_ns = self.expires_ns.max(expires_ns);
        self
    }

    /// The note read back; `None` for anything else (a damaged or foreign
    /// file is ignored, not trusted).
    pub fn from_json(text: &[u8]) -> Option<SpillMeta> {
        serde_json::from_slice(text).ok()
    }
}

/// Until when a notice written at `now_ns` by a session keeping spills
/// `retention_seconds` promises its file: `None` when it promises nothing.
pub fn promised_expiry(now_ns: u64, retention_seconds: Option<u64>) -> Option<u64> {
    retention_seconds.map(|s| now_ns.saturating_add(s.saturating_mul(1_000_000_000)))
}

/// The call id a spill file's name holds (its mapped form), for a file
/// without a note.
pub fn call_of_name(spill_name: &str) -> Option<&str> {
    let digest = naming::digest_of_file_name(spill_name)?;
    Some(&spill_name[..spill_name.len() - digest.len() - naming::SPILL_SUFFIX.len() - 1])
}

/// The name of the note beside spill file `spill_name`.
pub fn meta_name(spill_name: &str) -> String {
    format!(".{spill_name}.meta")
}

/// True for the component's own bookkeeping files: a catalog note or the
/// expired note.
pub fn is_note_name(name: &str) -> bool {
    name == EXPIRED_NOTE || (name.starts_with('.') && name.ends_with(".txt.meta"))
}

/// True for a name of the spill file scheme (`<call>-<digest>.txt`).
pub fn is_spill_name(name: &str) -> bool {
    naming::digest_of_file_name(name).is_some()
}

/// One line of the expired note: the file name and when it was deleted.
pub fn expired_line(spill_name: &str, deleted_ms: u64) -> String {
    format!("{spill_name} {deleted_ms}\n")
}

/// When `spill_name` was deleted, by the expired note `note`; the last
/// record wins (a name can be saved again after a sweep).
pub fn expired_at(note: &[u8], spill_name: &str) -> Option<u64> {
    note.split(|&b| b == b'\n')
        .filter_map(|line| {
            let line = std::str::from_utf8(line).ok()?;
            let (name, ms) = line.split_once(' ')?;
            (name == spill_name).then(|| ms.parse().ok())?
        })
        .next_back()
}

/// The sentence of a `not-found` for a spill file that a sweep deleted.
pub fn expired_message(path: &str, deleted_ms: u64) -> String {
    format!(
        "the spilled output {path} expired: the host's retention deleted it on {}. It cannot \
         be read any more; run the tool again if you still need its output",
        utc_minute(deleted_ms)
    )
}

/// The sentence of a `not-found` for a spill file name that never existed
/// in this thread.
pub fn unknown_message(path: &str) -> String {
    format!(
        "no spilled output {path} exists in this thread, and none ever did: check the path \
         against the notice (it ends in -<16 hex digits>.txt)"
    )
}

/// `2026-11-23 16:20 UTC` for milliseconds since the Unix epoch.
pub fn utc_minute(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3_600,
        rest % 3_600 / 60
    )
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`): no date crate for one line of a message.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_round_trip_and_foreign_files_are_ignored() {
        let meta = SpillMeta {
            call_id: "toolu_01 ÄB".into(),
            tool: Some("bash".into()),
            created_ns: 1_795_000_000_000_000_000,
            bytes: 123,
            lines: 4,
            expires_ns: Some(1_795_604_800_000_000_000),
        };
        assert_eq!(SpillMeta::from_json(meta.to_json().as_bytes()), Some(meta));
        assert_eq!(SpillMeta::from_json(b"{\"call_id\": 1}"), None);
        assert_eq!(SpillMeta::from_json(b"\xff"), None);
        assert!(!is_spill_name(&meta_name("c-0123456789abcdef.txt")));
        assert!(is_spill_name("c-0123456789abcdef.txt"));
    }

    #[test]
    fn a_note_without_a_promise_reads_back_and_reuse_keeps_the_later_promise() {
        // A note of a version before 0.3: no `expires_ns`.
        let old = br#"{"call_id":"c","tool":null,"created_ns":5,"bytes":1,"lines":1}"#;
        let meta = SpillMeta::from_json(old).expect("an old note is read");
        assert_eq!(meta.expires_ns, None);
        assert!(!meta.to_json().contains("expires_ns"));
        let renewed = meta.renewed(Some(100));
        assert_eq!(renewed.expires_ns, Some(100));
        // A shorter promise never shortens a longer one, and none keeps it.
        assert_eq!(renewed.clone().renewed(Some(50)).expires_ns, Some(100));
        assert_eq!(renewed.clone().renewed(None).expires_ns, Some(100));
        assert_eq!(renewed.renewed(Some(150)).expires_ns, Some(150));
        assert_eq!(promised_expiry(10, None), None);
        assert_eq!(promised_expiry(10, Some(2)), Some(2_000_000_010));
        assert_eq!(
            promised_expiry(u64::MAX - 1, Some(u64::MAX)),
            Some(u64::MAX)
        );
        assert_eq!(call_of_name("call-7-0123456789abcdef.txt"), Some("call-7"));
        assert_eq!(call_of_name("notes.txt"), None);
    }

    #[test]
    fn the_last_expiry_record_of_a_name_wins() {
        let note = format!(
            "{}{}garbage\n{}",
            expired_line("a-0123456789abcdef.txt", 5),
            expired_line("b-0123456789abcdef.txt", 6),
            expired_line("a-0123456789abcdef.txt", 7)
        );
        assert_eq!(
            expired_at(note.as_bytes(), "a-0123456789abcdef.txt"),
            Some(7)
        );
        assert_eq!(
            expired_at(note.as_bytes(), "b-0123456789abcdef.txt"),
            Some(6)
        );
        assert_eq!(expired_at(note.as_bytes(), "c-0123456789abcdef.txt"), None);
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc_minute(1_795_451_700_000), "2026-11-23 16:35 UTC");
    }
}
