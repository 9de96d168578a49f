//! Hostile references (issue 4). A committed corpus of forged and malformed
//! notices and placeholders (`tests/hostile/refs.json`): not one may be
//! accepted, natively or by the real component, while the genuine references
//! they were derived from are; and parsing stays linear in the input size,
//! measured as work done, never as time.
//!
//! `cargo test --release -p toolcap-tests --test all hostile_refs::`; after a change
//! to the generator, `BLESS=1 cargo test --release -p toolcap-tests --test
//! hostile_refs corpus` rewrites the corpus, then review the diff.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::hostile_support::corpus::{self, Case, Corpus, Genuine, SessionSpec};
use crate::hostile_support::forge;
use tool_output_cap::{Session, SessionConfig, types::PrunePolicy};
use toolcap_core::naming::{content_digest, spill_file_name};
use toolcap_core::{OverflowRef, RefScheme, prune};

/// Categories the issue names, each of which must have cases.
const REQUIRED_CATEGORIES: [&str; 24] = [
    "other-session",
    "tag",
    "digest",
    "bytes",
    "lines",
    "root",
    "absolute-path",
    "thread",
    "file-name",
    "dot-segments",
    "percent-encoding",
    "escaped",
    "lookalike",
    "bidi-invisible",
    "nul",
    "line-break",
    "format",
    "reordered",
    "spliced",
    "nested",
    "truncated",
    "truncated-notice",
    "end-of-output",
    "huge",
];

/// Large enough for the preview to keep a whole forged notice at its end.
const CAP_BYTES: u32 = 4096;

fn bless_requested() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Asserts that no check failed, listing every failure.
#[track_caller]
fn assert_no_failures(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} {what}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The text of a case, shortened for a failure message.
fn shown(text: &str) -> String {
    let short: String = text.chars().take(160).collect();
    format!(
        "{short:?}{}",
        if short.len() < text.len() { "..." } else { "" }
    )
}

#[test]
fn corpus_file_matches_its_generator() {
    let made = corpus::render(&forge::generate());
    let path = corpus::corpus_path();
    if bless_requested() {
        fs::create_dir_all(path.parent().expect("a folder")).expect("create tests/hostile");
        fs::write(&path, &made).expect("write the corpus");
        return;
    }
    let committed = fs::read_to_string(&path).unwrap_or_default();
    let first_difference = made
        .lines()
        .zip(committed.lines())
        .position(|(a, b)| a != b)
        .map_or(made.lines().count().min(committed.lines().count()), |i| i);
    assert!(
        made == committed,
        "{} differs from its generator from line {} on; run with BLESS=1 and review the diff",
        corpus::CORPUS_FILE,
        first_difference + 1
    );
    assert_eq!(corpus::load(), forge::generate(), "the corpus reads back");
}

#[test]
fn corpus_covers_every_category() {
    let corpus = corpus::load();
    assert!(corpus.cases.len() >= 200, "{} cases", corpus.cases.len());
    let ids: BTreeSet<&str> = corpus.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), corpus.cases.len(), "case ids are unique");
    for case in &corpus.cases {
        assert!(
            case.id.starts_with(&format!("{}/", case.category)),
            "{}",
            case.id
        );
    }
    for category in REQUIRED_CATEGORIES {
        let n = corpus
            .cases
            .iter()
            .filter(|c| c.category == category)
            .count();
        assert!(n > 0, "no case of category {category}");
    }
    let token = RefScheme::token(&genuine_ref(corpus.genuine("a")));
    let cuts = corpus
        .cases
        .iter()
        .filter(|c| c.category == "truncated")
        .count();
    assert_eq!(
        cuts,
        token.len() - 1,
        "one case per cut length of the token"
    );
    let huge = corpus.cases.iter().filter(|c| c.id.ends_with("-10mib"));
    for case in huge {
        assert!(
            case.text.build().len() >= 10 << 20,
            "{} is under 10 MiB",
            case.id
        );
    }
}

/// The reference a genuine spill has, as the corpus records it.
fn genuine_ref(genuine: &Genuine) -> OverflowRef {
    OverflowRef::from(&genuine.reference)
}

/// The references `names` stand for, in order.
fn named_refs(corpus: &Corpus, names: &[String]) -> Vec<OverflowRef> {
    names
        .iter()
        .map(|n| genuine_ref(corpus.genuine(n)))
        .collect()
}

/// Positive controls, natively: the core API makes exactly the genuine
/// references of the corpus, and finds them wherever the controls hide them.
fn check_genuine_natively(corpus: &Corpus, scheme: &RefScheme, failures: &mut Vec<String>) {
    for genuine in &corpus.genuine {
        let input = genuine.input.build();
        let digest = content_digest(input.as_bytes());
        let file = spill_file_name(&genuine.call_id, &digest);
        let lines = input.split_inclusive('\n').count() as u64;
        let made = scheme.make_ref(&file, input.len() as u64, lines, &digest);
        if made != genuine_ref(genuine) || !scheme.verify(&made) {
            failures.push(format!("genuine {}: core makes {made:?}", genuine.name));
        }
    }
    for control in &corpus.controls {
        let found = scheme.find_refs(&control.text.build());
        if found != named_refs(corpus, &control.expect) {
            failures.push(format!("control {}: found {found:?}", control.id));
        }
    }
}

/// Every way the core could accept `case`.
fn check_case_natively(case: &Case, scheme: &RefScheme, failures: &mut Vec<String>) {
    let text = case.text.build();
    let found = scheme.find_refs(&text);
    if !found.is_empty() {
        failures.push(format!(
            "{}: find_refs accepted {found:?} in {}",
            case.id,
            shown(&text)
        ));
    }
    if let Some(record) = &case.forged_ref {
        let forged = OverflowRef::from(record);
        if scheme.verify(&forged) {
            failures.push(format!("{}: verify accepted {forged:?}", case.id));
        }
        if let Ok(placeholder) = scheme.placeholder(&forged) {
            failures.push(format!("{}: placeholder made {placeholder:?}", case.id));
        }
    }
}

#[test]
fn core_accepts_no_forgery_and_every_genuine_reference() {
    let corpus = corpus::load();
    let scheme = corpus.session.scheme();
    let mut failures = Vec::new();
    check_genuine_natively(&corpus, &scheme, &mut failures);
    assert_no_failures("genuine references not accepted", &failures);
    for case in &corpus.cases {
        check_case_natively(case, &scheme, &mut failures);
    }
    assert_no_failures("forgeries accepted by the core", &failures);
}

/// A session of the corpus's thread, key and display root, spilling into `dir`.
fn open_corpus_session(spec: &SessionSpec, dir: &Path) -> Session {
    crate::common::open_with(SessionConfig {
        thread_id: spec.thread_id.clone(),
        spill_dir: Some(dir.to_owned()),
        read_only: false,
        display_root: Some(spec.display_root.clone()),
        key: spec.key(),
        ..SessionConfig::default()
    })
}

/// True for `<thread>/<call>-<16 hex>.txt` with a call of 1 to 57 safe bytes:
/// the only names `read` may look up (spelled out here, not taken from the core).
fn is_own_spill_name(thread: &str, relative: &str) -> bool {
    let Some(name) = relative
        .strip_prefix(thread)
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.strip_suffix(".txt"))
    else {
        return false;
    };
    let Some((call, digest)) = name.rsplit_once('-') else {
        return false;
    };
    let safe = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    (1..=57).contains(&call.len())
        && call.bytes().all(safe)
        && digest.len() == 16
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The `cap-error` a read of a forged `path` must fail with: `not-found` for a
/// well-formed name in this thread's folder that was never spilled,
/// `outside-root` for anything else.
fn expected_refusal(spec: &SessionSpec, thread: &str, path: &str) -> &'static str {
    let relative = path
        .strip_prefix(&spec.display_root)
        .and_then(|p| p.strip_prefix('/'));
    match relative {
        Some(relative) if is_own_spill_name(thread, relative) => "not-found",
        _ => "outside-root",
    }
}

/// Puts a file where a naive join of the spill folder and `path` would land,
/// so that refusing the path cannot pass just because nothing is there.
/// Paths that cannot name a file (`.`, `..`, empty segments, NUL) get none.
fn plant_decoy(spec: &SessionSpec, dir: &Path, path: &str) {
    let relative = path
        .strip_prefix(&spec.display_root)
        .and_then(|p| p.strip_prefix('/'))
        .unwrap_or_else(|| path.trim_start_matches('/'));
    let plantable = !relative.contains('\0')
        && relative
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    if plantable {
        let target = dir.join(relative);
        fs::create_dir_all(target.parent().expect("a parent")).expect("decoy folder");
        fs::write(&target, "warning: decoy, must never be read\n").expect("decoy file");
    }
}

/// Caps every genuine input in the component and checks that it spills as
/// the corpus says, reads back, and is found again.
fn spill_genuine(corpus: &Corpus, session: &mut Session, failures: &mut Vec<String>) {
    for genuine in &corpus.genuine {
        let input = genuine.input.build();
        let want = tool_output_cap::OverflowRef::from(&genuine.reference);
        let capped = session
            .cap(&input, &crate::common::budget(CAP_BYTES), &genuine.call_id)
            .expect("cap a genuine input");
        if capped.report.spill.as_ref() != Some(&want) {
            failures.push(format!(
                "genuine {}: component spilled {:?}",
                genuine.name, capped.report.spill
            ));
            continue;
        }
        let found = session.find_refs(&capped.text).expect("find_refs");
        if found != [want.clone()] {
            failures.push(format!(
                "genuine {}: its notice yields {found:?}",
                genuine.name
            ));
        }
        if let Err(err) = session.pruned_placeholder(&want) {
            failures.push(format!(
                "genuine {}: pruned_placeholder refused: {err}",
                genuine.name
            ));
        }
        match session.read(&want.path, 0, 64) {
            Ok(page) if input.starts_with(&page.text) && !page.text.is_empty() => {}
            other => failures.push(format!("genuine {}: read gave {other:?}", genuine.name)),
        }
    }
}

/// Every way the component could accept `case`.
fn check_case_in_component(
    spec: &SessionSpec,
    thread: &str,
    case: &Case,
    session: &mut Session,
    failures: &mut Vec<String>,
) {
    let text = case.text.build();
    let id = &case.id;
    match session.find_refs(&text) {
        Ok(found) if found.is_empty() => {}
        other => failures.push(format!(
            "{id}: find_refs gave {other:?} for {}",
            shown(&text)
        )),
    }
    if let Some(record) = &case.forged_ref {
        match session.pruned_placeholder(&record.into()) {
            Err(err) if crate::common::case_name(&err) == "invalid-argument" => {}
            other => failures.push(format!("{id}: pruned_placeholder gave {other:?}")),
        }
    }
    if let Some(path) = &case.path {
        let want = expected_refusal(spec, thread, path);
        let read = session.read(path, 0, 4096).map(|page| page.text);
        let grep = session.grep(path, "warning", 1).map(|g| g.total_matches);
        for (op, result) in [("read", read.map(|t| t.len() as u64)), ("grep", grep)] {
            match result {
                Err(err) if crate::common::case_name(&err) == want => {}
                other => failures.push(format!(
                    "{id}: {op} of {path:?} gave {other:?}, want {want}"
                )),
            }
        }
    }
    check_prune(&text, id, session, failures);
}

/// Pruning a forged body must give the plain marker (or leave a body too
/// short for one: aged out, one its marker would not at least halve; over a
/// byte limit, one no longer than the marker), never a placeholder and
/// never "already pruned".
fn check_prune(text: &str, id: &str, session: &mut Session, failures: &mut Vec<String>) {
    let marker = prune::marker(text.len());
    let aged = PrunePolicy {
        keep_last: Some(0),
        max_total_bytes: None,
        max_total_tokens: None,
    };
    let over = PrunePolicy {
        keep_last: None,
        max_total_bytes: Some(0),
        max_total_tokens: None,
    };
    for (policy, worth_it) in [
        (aged, marker.len() * 2 <= text.len()),
        (over, marker.len() < text.len()),
    ] {
        check_prune_under(text, id, session, failures, policy, worth_it);
    }
}

fn check_prune_under(
    text: &str,
    id: &str,
    session: &mut Session,
    failures: &mut Vec<String>,
    policy: PrunePolicy,
    worth_it: bool,
) {
    let marker = prune::marker(text.len());
    let want = if worth_it { marker.as_str() } else { text };
    match session.prune(&[text.to_owned()], &policy) {
        Ok(pruned) if pruned.messages == [want] => {}
        Ok(pruned) => failures.push(format!("{id}: prune gave {}", shown(&pruned.messages[0]))),
        Err(err) => failures.push(format!("{id}: prune failed: {err}")),
    }
}

#[test]
fn component_accepts_no_forgery_and_every_genuine_reference() {
    let corpus = corpus::load();
    let spec = &corpus.session;
    let thread = spec.scheme().thread_dir().to_owned();
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut session = open_corpus_session(spec, dir.path());
    let mut failures = Vec::new();
    spill_genuine(&corpus, &mut session, &mut failures);
    for control in &corpus.controls {
        let found = session.find_refs(&control.text.build()).expect("find_refs");
        let want: Vec<tool_output_cap::OverflowRef> = control
            .expect
            .iter()
            .map(|n| (&corpus.genuine(n).reference).into())
            .collect();
        if found != want {
            failures.push(format!("control {}: found {found:?}", control.id));
        }
    }
    assert_no_failures("genuine references not accepted", &failures);

    let forged_paths = corpus.cases.iter().filter_map(|c| c.path.as_deref());
    for path in forged_paths {
        if expected_refusal(spec, &thread, path) == "outside-root" {
            plant_decoy(spec, dir.path(), path);
        }
    }
    for case in &corpus.cases {
        check_case_in_component(spec, &thread, case, &mut session, &mut failures);
    }
    assert_no_failures("forgeries accepted by the component", &failures);
}

#[test]
fn forged_notice_at_the_end_of_a_capped_output_is_not_taken_for_its_spill() {
    let corpus = corpus::load();
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut session = open_corpus_session(&corpus.session, dir.path());
    let endings: Vec<&Case> = corpus
        .cases
        .iter()
        .filter(|c| c.category == "end-of-output")
        .collect();
    assert!(!endings.is_empty());
    let filler = "compiling crate 1 of 300\n".repeat(400);
    for (i, case) in endings.iter().enumerate() {
        let input = format!("{filler}{}", case.text.build());
        let capped = session
            .cap(
                &input,
                &crate::common::budget(CAP_BYTES),
                format!("end-{i}"),
            )
            .expect("cap");
        let spill = capped.report.spill.clone().expect("a cut output spills");
        let forged_last_line = input.lines().last().expect("a last line");
        assert!(
            capped.text.contains(forged_last_line),
            "{}: the preview lost the forged notice, so this checks nothing",
            case.id
        );
        let found = session.find_refs(&capped.text).expect("find_refs");
        assert_eq!(found, [spill], "{}: refs of the capped text", case.id);
    }
}

/// Occurrences of the session's anchor in `text`: hits of the substring pass.
fn anchor_hits(scheme: &RefScheme, text: &str) -> usize {
    let anchor = format!(
        "full content at {}/{}/",
        scheme.display_root(),
        scheme.thread_dir()
    );
    text.matches(&anchor).count()
}

/// Parser work on a case by id.
fn work_of(corpus: &Corpus, scheme: &RefScheme, id: &str) -> usize {
    let case = corpus.cases.iter().find(|c| c.id == id).expect("a case");
    scheme.find_refs_with_work(&case.text.build()).1
}

#[test]
fn parsing_work_is_linear_in_the_input() {
    let corpus = corpus::load();
    let scheme = corpus.session.scheme();
    let per_hit = scheme.max_token_len();
    let texts = corpus
        .cases
        .iter()
        .map(|c| (&c.id, &c.text))
        .chain(corpus.controls.iter().map(|c| (&c.id, &c.text)));
    let mut failures = Vec::new();
    for (id, text) in texts {
        let text = text.build();
        let (refs, work) = scheme.find_refs_with_work(&text);
        assert_eq!(
            refs,
            scheme.find_refs(&text),
            "{id}: find_refs is the same parse"
        );
        let hits = anchor_hits(&scheme, &text);
        // Each hit looks at a byte after the anchor, unless the text ends
        // there: the counter really counts.
        if work + 1 < hits || work > text.len() + hits * per_hit {
            failures.push(format!(
                "{id}: work {work} for {} bytes, {hits} hits",
                text.len()
            ));
        }
    }
    assert_no_failures("cases outside the linear bound", &failures);

    for stem in ["anchor-prefixes", "near-complete-tokens"] {
        let small = work_of(&corpus, &scheme, &format!("huge/{stem}-1mib"));
        let large = work_of(&corpus, &scheme, &format!("huge/{stem}-10mib"));
        let ratio = large as f64 / small as f64;
        assert!(
            (9.5..=10.5).contains(&ratio),
            "{stem}: 10 MiB took {large} units of work, 1 MiB {small}: ratio {ratio:.2}, not 10"
        );
    }
}
