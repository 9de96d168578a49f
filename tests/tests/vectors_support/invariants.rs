//! What holds for every input, checked on every step whatever its
//! expectations say (README: "universal invariants").

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use tool_output_cap::{
    Budget, Capped, OverflowRef,
    types::{CappedParts, ContentPart, Pruned},
};
use toolcap_core::notice::NOT_SAVED;

use super::check::{Checker, excerpt};
use super::convert::part_spec;
use super::format::PartSpec;
use super::host::Host;
use crate::common::{count_lines, temp_files, tree};

/// The accounting shared by `capped` and `capped-parts`, with the text the
/// model gets.
#[derive(Debug, Clone)]
pub struct CapView {
    pub text: String,
    pub truncated: bool,
    pub original_bytes: u32,
    pub original_lines: u32,
    pub omitted_bytes: u32,
    pub omitted_lines: u32,
    pub gap_line: Option<u32>,
    pub notable_lines: u32,
    pub folded_lines: u32,
    pub original_tokens: u32,
    pub tokens: u32,
    pub spill: Option<OverflowRef>,
    pub spill_error: Option<String>,
    /// Secrets replaced, per kind: when any, the cap worked on the redacted
    /// text, so checks against the input's bytes do not apply.
    pub redactions: Vec<(String, u32)>,
}

impl CapView {
    fn redacted(&self) -> bool {
        !self.redactions.is_empty()
    }
}

impl From<Capped> for CapView {
    fn from(c: Capped) -> Self {
        CapView {
            text: c.text,
            truncated: c.report.truncated,
            original_bytes: c.report.original_bytes,
            original_lines: c.report.original_lines,
            omitted_bytes: c.report.omitted_bytes,
            omitted_lines: c.report.omitted_lines,
            gap_line: c.report.gap_line,
            notable_lines: c.report.notable_lines,
            folded_lines: c.report.folded_lines,
            original_tokens: c.report.original_tokens,
            tokens: c.report.tokens,
            redactions: redaction_counts(&c.report.redactions),
            spill: c.report.spill,
            spill_error: c.report.spill_error,
        }
    }
}

impl From<&CappedParts> for CapView {
    fn from(c: &CappedParts) -> Self {
        CapView {
            text: joined_text(&c.parts),
            truncated: c.report.truncated,
            original_bytes: c.report.original_bytes,
            original_lines: c.report.original_lines,
            omitted_bytes: c.report.omitted_bytes,
            omitted_lines: c.report.omitted_lines,
            gap_line: c.report.gap_line,
            notable_lines: c.report.notable_lines,
            folded_lines: c.report.folded_lines,
            original_tokens: c.report.original_tokens,
            tokens: c.report.tokens,
            redactions: redaction_counts(&c.report.redactions),
            spill: c.report.spill.clone(),
            spill_error: c.report.spill_error.clone(),
        }
    }
}

fn redaction_counts(list: &[tool_output_cap::types::RedactionCount]) -> Vec<(String, u32)> {
    list.iter().map(|r| (r.kind.clone(), r.count)).collect()
}

/// The text of `text` parts and resource texts, in order, joined by LF: the
/// document `cap-parts` budgets.
pub fn joined_text(parts: &[ContentPart]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text(t) => Some(t.as_str()),
            ContentPart::Resource(r) => r.text.as_deref(),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The spill directory of a session and what was in it before a step.
pub struct Disk {
    pub root: Option<PathBuf>,
    pub before: Vec<PathBuf>,
}

/// What the session's estimator counts for media and other parts that pass
/// through whole (image and audio at the session's fixed costs).
#[derive(Debug, Clone, Copy)]
pub struct MediaCosts {
    pub image: u64,
    pub audio: u64,
}

/// Tokens and body bytes of the parts that pass through whole, as the
/// README defines them.
pub fn fixed_cost(session: &mut dyn Host, costs: MediaCosts, parts: &[ContentPart]) -> (u64, u64) {
    let (mut tokens, mut body) = (0, 0);
    for part in parts {
        let (t, b) = match part {
            ContentPart::Text(_) => (0, 0),
            ContentPart::Image(m) => (costs.image, (m.data.len() + m.mime_type.len()) as u64),
            ContentPart::Audio(m) => (costs.audio, (m.data.len() + m.mime_type.len()) as u64),
            ContentPart::Resource(r) => {
                let blob = r.blob.as_deref().unwrap_or("");
                let tokens = session.estimate_tokens(blob).expect("estimate");
                let body = blob.len() + r.uri.len() + r.mime_type.as_deref().map_or(0, str::len);
                (tokens, body as u64)
            }
            ContentPart::Other(o) => (
                session.estimate_tokens(o).expect("estimate"),
                json_string_len(o),
            ),
        };
        tokens += t;
        body += b;
    }
    (tokens, body)
}

/// Bytes of `text` as the contents of a JSON string: `"`, `\\` and control
/// characters escaped (`\n` and friends 2 bytes, the others `\u00XX` 6).
pub fn json_string_len(text: &str) -> u64 {
    let escaped = serde_json::to_string(text).expect("a string serializes");
    // serde_json writes the shortest escapes, as the README counts them.
    escaped.len() as u64 - 2
}

/// Body bytes of capped parts: each text as a JSON string, and the parts
/// that pass through.
pub fn parts_body(session: &mut dyn Host, costs: MediaCosts, parts: &[ContentPart]) -> u64 {
    let text: u64 = parts
        .iter()
        .map(|p| match p {
            ContentPart::Text(t) => json_string_len(t),
            ContentPart::Resource(r) => r.text.as_deref().map_or(0, json_string_len),
            _ => 0,
        })
        .sum();
    text + fixed_cost(session, costs, parts).1
}

/// Whether the report may give `input`'s tokens from samples
/// (`toolcap_core::token_sample`, as the WIT's `original-tokens` says): a
/// cut input over 64 KiB or one that fits over 8 KiB, unless the budget has
/// `max-tokens` and the input is within `max-bytes` (its tokens may be what
/// cut it). Then the count must be within the stated bound of the whole
/// estimate.
fn sampled_bound(input: &str, budget: &Budget, truncated: bool) -> Option<u64> {
    use toolcap_core::token_sample::{self as sample, Sampling};
    let (sampling, bound) = if truncated {
        (Sampling::REPORT, sample::REPORT_BOUND_PERCENT)
    } else {
        (Sampling::FIT, sample::FIT_BOUND_PERCENT)
    };
    let tokens_decide = budget.max_tokens.is_some()
        && (budget.max_bytes == 0 || input.len() <= budget.max_bytes as usize);
    (!tokens_decide && input.len() > sampling.exact_up_to).then_some(bound)
}

/// Whether a reported count agrees with the whole estimate `want`: equal,
/// or within `bound` percent of it when the count is from samples.
fn tokens_agree(got: u64, want: u64, fixed: u64, bound: Option<u64>) -> bool {
    match bound {
        None => got == want,
        Some(percent) => {
            let whole = want - fixed;
            got >= fixed && (got - fixed).abs_diff(whole) * 100 <= whole * percent
        }
    }
}

/// Tokens: the report's counts are the session's estimates of the input and
/// of the text (parts: plus what passes through whole), and within
/// `max-tokens`; a count the report may give from samples is within the
/// stated bound of the estimate.
pub fn check_tokens(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    input: &str,
    fixed_tokens: u64,
    budget: &Budget,
    got: &CapView,
) {
    let original = session.estimate_tokens(input).expect("estimate") + fixed_tokens;
    let shown = session.estimate_tokens(&got.text).expect("estimate") + fixed_tokens;
    let bound = sampled_bound(input, budget, got.truncated);
    chk.ensure(
        got.redacted()
            || tokens_agree(u64::from(got.original_tokens), original, fixed_tokens, bound),
        || {
            format!(
                "original_tokens {} but the session estimates {original} (sampled within {bound:?}%)",
                got.original_tokens
            )
        },
    );
    // A text that fits is the input: its tokens are counted as the input's.
    let shown_bound = if got.truncated { None } else { bound };
    chk.ensure(
        tokens_agree(u64::from(got.tokens), shown, fixed_tokens, shown_bound),
        || format!("tokens {} but the session estimates {shown}", got.tokens),
    );
    if let Some(max) = budget.max_tokens.filter(|_| budget.max_bytes > 0) {
        chk.ensure(
            u64::from(got.tokens) - fixed_tokens <= u64::from(max),
            || format!("the text has {} tokens, over max_tokens {max}", got.tokens),
        );
    }
}

/// The input's sizes as the report states them; returns its lines.
fn check_sizes(chk: &mut Checker<'_>, input: &str, got: &CapView) -> u64 {
    chk.ensure(
        got.redacted() || got.original_bytes as usize == input.len(),
        || {
            format!(
                "original_bytes {} but the input has {} bytes",
                got.original_bytes,
                input.len()
            )
        },
    );
    let lines = count_lines(input);
    chk.ensure(u64::from(got.original_lines) == lines, || {
        format!(
            "original_lines {} but the input has {lines} lines",
            got.original_lines
        )
    });
    lines
}

/// Budget respected with the notice, unchanged when it fits, exact sizes,
/// the spill file equal to the input, and the notice's reference found last.
pub fn check_cap(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    disk: &Disk,
    input: &str,
    budget: &Budget,
    got: &CapView,
) {
    let lines = check_sizes(chk, input, got);
    let input_tokens = session.estimate_tokens(input).expect("estimate");
    let fits = budget.max_bytes == 0
        || (input.len() <= budget.max_bytes as usize
            && budget.max_lines.is_none_or(|m| lines <= u64::from(m))
            && budget
                .max_tokens
                .is_none_or(|m| input_tokens <= u64::from(m)));
    if got.redacted() {
        // The cap saw the redacted text: only what holds for any text.
        if got.truncated {
            check_cut(chk, input, budget, got);
        }
    } else if fits {
        check_unchanged(chk, input, got);
    } else {
        check_cut(chk, input, budget, got);
    }
    check_disk(chk, session, disk, input, got);
}

/// One result of `cap-batch`: capped under some budget within `ceiling` (the
/// plan may cut a result the ceiling alone would keep): unchanged or a cut
/// within the ceiling, exact sizes, and the spill file equal to the input.
pub fn check_batch_result(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    disk: &Disk,
    input: &str,
    ceiling: &Budget,
    got: &CapView,
) {
    check_sizes(chk, input, got);
    let over_ceiling = ceiling.max_bytes > 0 && input.len() > ceiling.max_bytes as usize;
    if got.truncated {
        check_cut(chk, input, ceiling, got);
    } else {
        chk.ensure(!over_ceiling, || {
            "a result over the ceiling came back whole".into()
        });
        check_unchanged(chk, input, got);
    }
    check_disk(chk, session, disk, input, got);
}

fn check_unchanged(chk: &mut Checker<'_>, input: &str, got: &CapView) {
    chk.ensure(!got.truncated, || {
        "the input fits but truncated is true".into()
    });
    chk.ensure(got.text == input, || {
        format!(
            "the input fits but the text changed: {}",
            excerpt(&got.text)
        )
    });
    chk.ensure(
        got.omitted_bytes == 0
            && got.omitted_lines == 0
            && got.gap_line.is_none()
            && got.spill.is_none()
            && got.spill_error.is_none(),
        || format!("the input fits but the accounting says otherwise: {got:?}"),
    );
}

fn check_cut(chk: &mut Checker<'_>, input: &str, budget: &Budget, got: &CapView) {
    chk.ensure(got.truncated, || {
        "the input does not fit but truncated is false".into()
    });
    chk.ensure(got.text.len() <= budget.max_bytes as usize, || {
        format!(
            "text has {} bytes, over max_bytes {}",
            got.text.len(),
            budget.max_bytes
        )
    });
    if let Some(max_lines) = budget.max_lines {
        let lines = count_lines(&got.text);
        chk.ensure(lines <= u64::from(max_lines), || {
            format!("text has {lines} lines, over max_lines {max_lines}")
        });
    }
    chk.ensure(
        got.omitted_bytes > 0 && got.omitted_bytes as usize <= input.len(),
        || format!("omitted_bytes {} is impossible", got.omitted_bytes),
    );
    chk.ensure(
        got.gap_line
            .is_some_and(|g| g >= 1 && u64::from(g) <= count_lines(input).max(1)),
        || format!("gap_line {:?} is not a line of the input", got.gap_line),
    );
    chk.ensure(got.spill.is_some() != got.spill_error.is_some(), || {
        format!(
            "a cut result needs exactly one of spill and spill_error: {:?} / {:?}",
            got.spill, got.spill_error
        )
    });
    // Full notices say "do not run it again", the compact ones of small
    // budgets "Do not re-run"; both say the output was not saved.
    let notice_ok = match (&got.spill, &got.spill_error) {
        (Some(_), _) => {
            got.text.contains("do not run it again") || got.text.contains("Do not re-run")
        }
        (None, Some(_)) => got.text.contains(NOT_SAVED),
        (None, None) => false,
    };
    chk.ensure(notice_ok, || {
        format!(
            "the notice does not say what became of the full output: {}",
            excerpt(&got.text)
        )
    });
}

fn check_disk(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    disk: &Disk,
    input: &str,
    got: &CapView,
) {
    let spill_file = got
        .spill
        .as_ref()
        .and_then(|r| session.host_path(&r.path).expect("host_path"));
    if let Some(spill) = &got.spill {
        chk.ensure(
            (got.redacted() || spill.bytes == input.len() as u64)
                && spill.lines == count_lines(input),
            || format!("the reference's sizes do not match the input: {spill:?}"),
        );
        let relative_ok = spill.relative_path.split('/').count() == 2
            && spill.path.ends_with(&format!("/{}", spill.relative_path))
            && spill_file
                .as_ref()
                .zip(session.spill_dir())
                .is_some_and(|(file, dir)| *file == dir.join(&spill.relative_path));
        chk.ensure(relative_ok, || {
            format!("the relative path does not name the spill file: {spill:?}, {spill_file:?}")
        });
        match &spill_file {
            None => chk.fail(format!(
                "the spill path is not under the display root: {spill:?}"
            )),
            Some(file) => match fs::read(file) {
                Ok(bytes) if got.redacted() => {
                    chk.ensure(bytes.len() as u64 == spill.bytes, || {
                        format!(
                            "the spill file {} is not the reference's size",
                            file.display()
                        )
                    })
                }
                Ok(bytes) => chk.ensure(bytes == input.as_bytes(), || {
                    format!(
                        "the spill file {} ({} bytes) differs from the input ({} bytes)",
                        file.display(),
                        bytes.len(),
                        input.len()
                    )
                }),
                Err(err) => chk.fail(format!(
                    "cannot read the spill file {}: {err}",
                    file.display()
                )),
            },
        }
        match session.find_refs(&got.text) {
            Ok(refs) => chk.ensure(refs.last().map(ref_key) == Some(ref_key(spill)), || {
                format!("find-refs of the text found {refs:?}, not the spill reference last")
            }),
            Err(err) => chk.fail(format!("find-refs failed: {err}")),
        }
    }
    let Some(root) = disk.root.as_deref() else {
        return;
    };
    let leftovers = temp_files(root);
    chk.ensure(leftovers.is_empty(), || {
        format!("temporary files left behind: {leftovers:?}")
    });
    // Only the spill file itself, its catalog note and its thread folder
    // may appear.
    let new_files: Vec<PathBuf> = tree(root)
        .into_iter()
        .filter(|p| !disk.before.contains(p) && !root.join(p).is_dir())
        .collect();
    let allowed: Vec<PathBuf> = spill_file
        .iter()
        .filter_map(|f| f.strip_prefix(root).ok().map(Path::to_owned))
        .flat_map(|f| [catalog_note(&f), f])
        .collect();
    chk.ensure(new_files.iter().all(|f| allowed.contains(f)), || {
        format!("unexpected new files: {new_files:?} (spill: {allowed:?})")
    });
}

/// The catalog note beside spill file `spill` (`.<name>.meta`).
pub fn catalog_note(spill: &Path) -> PathBuf {
    let name = spill.file_name().unwrap_or_default().to_string_lossy();
    spill.with_file_name(format!(".{name}.meta"))
}

/// Media, `other` parts, resource URIs and blobs come back untouched and in
/// place; a cut result has one text part, where the first textual part was.
pub fn check_parts(chk: &mut Checker<'_>, input: &[ContentPart], got: &CappedParts) {
    let output: Vec<PartSpec> = got.parts.iter().map(part_spec).collect();
    if !got.report.truncated {
        let unchanged: Vec<PartSpec> = input.iter().map(part_spec).collect();
        chk.ensure(output == unchanged, || {
            "the text fits but the parts changed".into()
        });
        return;
    }
    let mut expected = Vec::new();
    let mut placed = false;
    // As the WIT says: the preview stands where the first textual part was;
    // textual parts go, except that a resource with a blob keeps its place
    // (and blob) without its text; everything else stays untouched.
    for part in input {
        let spec = part_spec(part);
        let textual = matches!(part, ContentPart::Text(_))
            || matches!(part, ContentPart::Resource(r) if r.text.is_some());
        if textual && !placed {
            expected.push(None);
            placed = true;
        }
        match spec {
            PartSpec::Text(_) => {}
            PartSpec::Resource(mut r) if r.text.is_some() => {
                if r.blob.is_some() {
                    r.text = None;
                    expected.push(Some(PartSpec::Resource(r)));
                }
            }
            other => expected.push(Some(other)),
        }
    }
    let shape: Vec<Option<PartSpec>> = output
        .into_iter()
        .map(|p| (!matches!(p, PartSpec::Text(_))).then_some(p))
        .collect();
    chk.ensure(shape == expected, || {
        format!("non-text parts were not carried through in place: {shape:?} vs {expected:?}")
    });
}

/// Accounting adds up, only listed messages changed and each shrank, and no
/// genuine reference is lost.
pub fn check_prune(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    messages: &[String],
    got: &Pruned,
) {
    let before: u64 = messages.iter().map(|m| m.len() as u64).sum();
    let after: u64 = got.messages.iter().map(|m| m.len() as u64).sum();
    let tokens: u64 = got
        .messages
        .iter()
        .map(|m| session.estimate_tokens(m).expect("estimate"))
        .sum();
    chk.ensure(got.total_tokens == tokens, || {
        format!(
            "total_tokens {} but the bodies are estimated at {tokens}",
            got.total_tokens
        )
    });
    chk.ensure(got.total_bytes == after, || {
        format!(
            "total_bytes {} but the bodies hold {after}",
            got.total_bytes
        )
    });
    chk.ensure(got.bytes_saved == before.saturating_sub(after), || {
        format!(
            "bytes_saved {} but {before} - {after} were saved",
            got.bytes_saved
        )
    });
    chk.ensure(got.messages.len() == messages.len(), || {
        "prune changed the number of messages".into()
    });
    for (i, (old, new)) in messages.iter().zip(&got.messages).enumerate() {
        let listed = got.replaced.contains(&(i as u32));
        chk.ensure(listed == (old != new), || {
            format!(
                "message {i}: replaced lists it: {listed}, but changed: {}",
                old != new
            )
        });
        chk.ensure(!listed || new.len() < old.len(), || {
            format!("message {i} was replaced but did not shrink")
        });
    }
    let paths = |session: &mut dyn Host, texts: &[String]| -> BTreeSet<String> {
        texts
            .iter()
            .flat_map(|t| session.find_refs(t).unwrap_or_default())
            .map(|r| r.path)
            .collect()
    };
    let kept = paths(session, &got.messages);
    let lost: Vec<String> = paths(session, messages)
        .into_iter()
        .filter(|p| !kept.contains(p))
        .collect();
    chk.ensure(lost.is_empty(), || {
        format!("prune lost genuine references: {lost:?}")
    });
}

/// An `overflow-ref` as a comparable value (the bindings derive no `PartialEq`).
pub fn ref_key(r: &OverflowRef) -> (String, u64, u64, String, String) {
    (
        r.path.clone(),
        r.bytes,
        r.lines,
        r.digest.clone(),
        r.tag.clone(),
    )
}
