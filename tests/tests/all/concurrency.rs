//! One runtime, many threads: sessions of the same and of different
//! conversation threads spill at once, with repeated and distinct call ids and
//! contents. Every reference names a file holding exactly its input, and
//! purging one thread removes that thread's files and nothing else.
//!
//! `cargo test --release -p toolcap-tests --test all concurrency::`

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::thread;

use crate::common::{budget, open, temp_files, tree};
use tool_output_cap::{OverflowRef, Session};
use toolcap_core::naming::{content_digest, spill_file_name};

const WORKERS: usize = 8;
const CALLS_PER_WORKER: usize = 1000;
/// Each worker purges its own thread this often.
const PURGE_EVERY: usize = 150;
/// Two workers share each of these conversation threads.
const SHARED_THREADS: usize = WORKERS / 2;
/// Outputs every worker caps, under the same call ids: the same names, written
/// by several sessions at once.
const COMMON_OUTPUTS: usize = 5;
/// Call ids reused with different contents: the same call, different names.
const REUSED_CALL_IDS: usize = 7;

/// Cut results must fit this; every output below is larger.
const MAX_BYTES: u32 = 1024;

/// Which conversation thread a spill belongs to, and its file name there.
type Spills = BTreeMap<String, BTreeSet<String>>;

fn common_output(j: usize) -> String {
    format!("common output {j}: the same bytes in every worker\n").repeat(40 + j * 13)
}

fn worker_output(worker: usize, call: usize) -> String {
    format!("worker {worker} call {call}: its own bytes\n").repeat(60 + call % 50)
}

/// One call's input and call id: common, reused-id or unique, in turn.
fn call_of(worker: usize, i: usize) -> (String, String) {
    match i % 3 {
        0 => {
            let j = (i / 3) % COMMON_OUTPUTS;
            (common_output(j), format!("common-{j}"))
        }
        1 => (
            worker_output(worker, i),
            format!("call-{}", i % REUSED_CALL_IDS),
        ),
        _ => (worker_output(worker, i), format!("w{worker}-{i}")),
    }
}

/// Caps `input` and checks, at once, that its reference names a file holding
/// exactly `input` under the expected name. Returns the file name.
fn cap_and_check(session: &mut Session, thread_id: &str, input: &str, call_id: &str) -> String {
    let capped = session
        .cap(input, &budget(MAX_BYTES), call_id)
        .unwrap_or_else(|err| panic!("cap {call_id} in {thread_id}: {err}"));
    let spill: OverflowRef = capped.report.spill.clone().unwrap_or_else(|| {
        panic!(
            "{call_id} in {thread_id} not saved: {:?}",
            capped.report.spill_error
        )
    });
    let digest = content_digest(input.as_bytes());
    let name = spill_file_name(call_id, &digest);
    assert_eq!(spill.digest, digest);
    assert_eq!(
        spill.path,
        format!("{}/{thread_id}/{name}", crate::common::DISPLAY_ROOT)
    );
    let on_disk = fs::read(session.host_path(&spill.path).expect("host_path").unwrap())
        .unwrap_or_else(|err| panic!("{}: {err}", spill.path));
    assert_eq!(content_digest(&on_disk), digest, "{}", spill.path);
    assert!(on_disk == input.as_bytes(), "{} differs", spill.path);
    assert_eq!(session.find_refs(&capped.text).unwrap(), [spill]);
    name
}

/// One worker's calls; returns the spills that must still exist at the end.
fn work(dir: &Path, worker: usize) -> Spills {
    let shared_id = format!("shared-{}", worker % SHARED_THREADS);
    let own_id = format!("own-{worker}");
    let mut shared = open(dir, &shared_id);
    let mut own = open(dir, &own_id);
    let mut spills = Spills::new();
    let mut own_bytes = BTreeMap::<String, u64>::new();
    for i in 0..CALLS_PER_WORKER {
        let (input, call_id) = call_of(worker, i);
        if i % 2 == 0 {
            let name = cap_and_check(&mut own, &own_id, &input, &call_id);
            own_bytes.insert(name, input.len() as u64);
        } else {
            let name = cap_and_check(&mut shared, &shared_id, &input, &call_id);
            spills.entry(shared_id.clone()).or_default().insert(name);
        }
        if (i + 1) % PURGE_EVERY == 0 {
            // Exactly this thread's bytes: another thread's files would add more.
            let freed = own.purge().unwrap();
            assert_eq!(freed, own_bytes.values().sum::<u64>(), "purge of {own_id}");
            assert!(!dir.join(&own_id).exists());
            own_bytes.clear();
        }
    }
    spills.insert(own_id, own_bytes.into_keys().collect());
    spills
}

#[test]
fn eight_threads_of_sessions_never_collide_and_purge_only_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let results: Vec<Spills> = thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|worker| scope.spawn(move || work(root, worker)))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });

    let mut expected = Spills::new();
    for spills in results {
        for (thread_id, names) in spills {
            expected.entry(thread_id).or_default().extend(names);
        }
    }
    // Every file is where a reference said, whole, and nothing else is there:
    // no temp file, no stray spill, nothing a purge should have removed.
    let mut want: Vec<_> = Vec::new();
    for (thread_id, names) in &expected {
        want.push(Path::new(thread_id).to_owned());
        for name in names {
            let path = dir.path().join(thread_id).join(name);
            let bytes = fs::read(&path).unwrap_or_else(|err| panic!("{path:?}: {err}"));
            let digest = &name[name.len() - 20..name.len() - 4];
            assert_eq!(content_digest(&bytes), digest, "{path:?}");
            want.push(Path::new(thread_id).join(name));
        }
    }
    want.sort();
    assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
    assert_eq!(tree(dir.path()), want);
    assert_eq!(expected.len(), SHARED_THREADS + WORKERS);
    let total: usize = expected.values().map(BTreeSet::len).sum();
    assert!(total > WORKERS * 100, "only {total} files checked");
}
