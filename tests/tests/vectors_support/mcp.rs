//! `cap-mcp` steps: the input a runner sends, the invariants of every capped
//! MCP result, and its expectations.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tool_output_cap::{OverflowRef, types::CappedMcp};

use super::host::Host;

use super::check::{Checker, excerpt};
use super::format::{McpExpect, TextInput};
use super::inputs::build;
use super::invariants::{Disk, catalog_note, ref_key};
use crate::common::{count_lines, temp_files, tree};

/// The key of the component's record in `_meta`.
pub const META_KEY: &str = "tool-output-cap/cap";

/// `result` with every `{"gen": [...]}` object replaced by its text.
pub fn expand(value: &Value) -> Result<Value, String> {
    Ok(match value {
        Value::Object(m) if m.len() == 1 && m.contains_key("gen") => {
            let input: TextInput =
                serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
            Value::String(build(&input)?)
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        Value::Array(items) => Value::Array(items.iter().map(expand).collect::<Result<_, _>>()?),
        other => other.clone(),
    })
}

/// What a step sends: the text, the value it parses to (if any), and
/// whether the text is that value serialised (so any part of it, such as
/// `structuredContent`, is its own serialisation too).
pub struct McpInput {
    pub text: String,
    pub value: Option<Value>,
    pub canonical: bool,
}

/// The text sent for `result`: a string as it is, any other value
/// serialised compactly with its keys sorted (serde_json's map is sorted).
pub fn input_of(result: &Value) -> Result<McpInput, String> {
    match result {
        Value::String(text) => Ok(McpInput {
            text: text.clone(),
            value: serde_json::from_str(text).ok(),
            canonical: false,
        }),
        other => {
            let value = expand(other)?;
            Ok(McpInput {
                text: value.to_string(),
                value: Some(value),
                canonical: true,
            })
        }
    }
}

fn blocks(v: &Value) -> &[Value] {
    v.get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The text that shares the budget: the block's `text`, or its resource's.
fn text_of(block: &Value) -> Option<&str> {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block.get("text").and_then(Value::as_str),
        Some("resource") => {
            let r = block.get("resource")?;
            let string_or_absent = |k: &str| r.get(k).is_none_or(Value::is_string);
            let valid = r.get("uri").is_some_and(Value::is_string)
                && string_or_absent("mimeType")
                && string_or_absent("blob");
            r.get("text").and_then(Value::as_str).filter(|_| valid)
        }
        _ => None,
    }
}

/// The joined text of a result's textual blocks, as `cap-mcp` budgets it.
pub fn joined_text(v: &Value) -> String {
    blocks(v)
        .iter()
        .filter_map(text_of)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a block that is not textual is media the budget does not count:
/// an image or audio with string `data` and `mimeType`, or a valid resource
/// with a blob.
fn is_media(block: &Value) -> bool {
    let string = |v: &Value, k: &str| v.get(k).is_some_and(Value::is_string);
    match block.get("type").and_then(Value::as_str) {
        Some("image" | "audio") => string(block, "data") && string(block, "mimeType"),
        Some("resource") => block.get("resource").is_some_and(|r| {
            let string_or_absent = |k: &str| r.get(k).is_none_or(Value::is_string);
            string(r, "uri")
                && string(r, "blob")
                && string_or_absent("mimeType")
                && string_or_absent("text")
        }),
        _ => false,
    }
}

/// The blocks beside the texts that the budget counts (neither textual nor media).
fn other_blocks(v: &Value) -> Vec<&Value> {
    blocks(v)
        .iter()
        .filter(|b| text_of(b).is_none() && !is_media(b))
        .collect()
}

/// The result's members beside the texts that the budget counts: the
/// server's `_meta` members (as one `_meta` object) and members MCP does
/// not define, in that order, as one JSON object; `None` when there are none.
fn top_level_extras(v: &Value) -> Option<String> {
    let mut out = serde_json::Map::new();
    if let Some(Value::Object(meta)) = v.get("_meta")
        && !meta.is_empty()
    {
        out.insert("_meta".into(), Value::Object(meta.clone()));
    }
    let mut text = String::from("{");
    let others = v.as_object().into_iter().flatten().filter(|(k, _)| {
        !["content", "structuredContent", "_meta", "isError"].contains(&k.as_str())
    });
    for (k, value) in out.iter().chain(others) {
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(&Value::String(k.clone()).to_string());
        text.push(':');
        text.push_str(&value.to_string());
    }
    text.push('}');
    (text.len() > 2).then_some(text)
}

/// What the text spill holds when the blocks and members beside the texts
/// were cut as text: each such block's JSON in its place, media left out,
/// and the top-level extras last.
fn joined_with_extras(v: &Value) -> String {
    let mut pieces: Vec<String> = blocks(v)
        .iter()
        .filter_map(|b| match text_of(b) {
            Some(t) => Some(t.to_owned()),
            None if is_media(b) => None,
            None => Some(b.to_string()),
        })
        .collect();
    pieces.extend(top_level_extras(v));
    pieces.join("\n")
}

/// Whether the blocks and members beside the texts were cut as text: the
/// output lacks one of them (then it lacks them all).
fn extras_cut(input: &Value, output: &Value, rest: &[Value], redacted: bool) -> bool {
    let block_missing = other_blocks(input).iter().any(|b| {
        !rest
            .iter()
            .any(|o| o == *b || (redacted && same_shape(o, b)))
    });
    let meta_missing = match input.get("_meta") {
        Some(Value::Object(meta)) => meta
            .keys()
            .any(|k| k != META_KEY && output["_meta"].get(k).is_none()),
        _ => false,
    };
    let member_missing = input.as_object().into_iter().flatten().any(|(k, _)| {
        !["content", "structuredContent", "_meta", "isError"].contains(&k.as_str())
            && output.get(k).is_none()
    });
    block_missing || meta_missing || member_missing
}

/// The output's `text` blocks' texts.
fn output_texts(v: &Value) -> Vec<&str> {
    blocks(v)
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

/// The output's text blocks joined by LF (what `text_contains` searches).
pub fn output_text(v: &Value) -> String {
    output_texts(v).join("\n")
}

/// Everything that holds for any `cap-mcp` answer.
#[allow(clippy::too_many_arguments)]
pub fn check_invariants(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    disk: &Disk,
    sent: &McpInput,
    budget: &tool_output_cap::Budget,
    resource_link: bool,
    got: &CappedMcp,
) -> Option<Value> {
    let (input, input_value) = (sent.text.as_str(), sent.value.as_ref());
    let output: Value = match serde_json::from_str(&got.result) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            chk.fail(format!(
                "the result is not a JSON object: {}",
                excerpt(&got.result)
            ));
            return None;
        }
    };
    let r = &got.report;
    let changed = r.truncated || got.structured_dropped || !r.redactions.is_empty();
    chk.ensure(changed == (got.result != input), || {
        format!("the result differs from the input exactly when something was cut, dropped or redacted (changed: {changed})")
    });
    let out_blocks = blocks(&output);
    chk.ensure(out_blocks.iter().all(Value::is_object), || {
        "a content block is not an object".into()
    });
    let Some(input_value) = input_value else {
        return Some(output);
    };
    chk.ensure(output.get("isError") == input_value.get("isError"), || {
        "isError changed".into()
    });
    if budget.max_bytes > 0 && changed {
        let texts = output_texts(&output);
        let bytes: usize = texts.iter().map(|t| t.len()).sum();
        chk.ensure(bytes <= budget.max_bytes as usize, || {
            format!(
                "the text blocks hold {bytes} bytes, over max_bytes {}",
                budget.max_bytes
            )
        });
        if let Some(max) = budget.max_lines {
            let lines: u64 = texts.iter().map(|t| count_lines(t)).sum();
            chk.ensure(lines <= u64::from(max), || {
                format!("the text blocks hold {lines} lines, over max_lines {max}")
            });
        }
    }
    let cut = r.truncated || got.structured_dropped;
    let record = output.get("_meta").and_then(|m| m.get(META_KEY));
    chk.ensure(record.is_some() == cut, || {
        format!(
            "_meta[{META_KEY}] is there: {}, but cut or dropped: {cut}",
            record.is_some()
        )
    });
    // Redaction rewrites every string the model is shown, beyond the texts:
    // then values are compared by their shape (keys, block types) only.
    let redacted = !r.redactions.is_empty();
    let in_blocks = blocks(input_value);
    let links = if resource_link {
        usize::from(r.spill.is_some()) + usize::from(got.structured_spill.is_some())
    } else {
        0
    };
    let skip = usize::from(cut) + links;
    let rest = out_blocks.get(skip..).unwrap_or(&[]);
    // Blocks and members beside the texts that would take the texts' room
    // are cut as text, all of them: nothing of them is left in the result.
    let extras_as_text = r.truncated && extras_cut(input_value, &output, rest, redacted);
    if extras_as_text {
        let left = other_blocks(input_value)
            .iter()
            .any(|b| rest.iter().any(|o| o == *b));
        chk.ensure(!left, || {
            "some blocks beside the texts were cut as text, not all".into()
        });
    }
    if let Some(Value::Object(meta)) = input_value.get("_meta")
        && !extras_as_text
    {
        for (k, v) in meta.iter().filter(|(k, _)| *k != META_KEY) {
            let kept = output["_meta"]
                .get(k)
                .is_some_and(|got| got == v || (redacted && same_shape(got, v)));
            chk.ensure(kept, || format!("the input's _meta key {k:?} was not kept"));
        }
    }
    if cut {
        let notice = out_blocks
            .first()
            .and_then(|b| b.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("");
        chk.ensure(notice.starts_with("[toolcap] "), || {
            format!("the first block is not the notice: {}", excerpt(notice))
        });
        for spill in r.spill.iter().chain(got.structured_spill.as_ref()) {
            match session.find_refs(notice) {
                Ok(refs) => chk.ensure(refs.iter().any(|f| ref_key(f) == ref_key(spill)), || {
                    format!("the notice does not hold the reference {spill:?}")
                }),
                Err(e) => chk.fail(format!("find-refs failed: {e}")),
            }
        }
    }
    if r.truncated {
        // Every block that is not textual passes through, in order (only
        // the media when the others were cut as text).
        let kept: Vec<&Value> = in_blocks
            .iter()
            .filter(|b| text_of(b).is_none() && (!extras_as_text || is_media(b)))
            .collect();
        let passed: Vec<&Value> = rest
            .iter()
            .filter(|b| !is_plain_text(b) && !is_textless_resource_of_input(b, in_blocks))
            .collect();
        let same = passed.len() == kept.len()
            && passed
                .iter()
                .zip(&kept)
                .all(|(p, k)| p == k || (redacted && same_shape(p, k)));
        chk.ensure(same, || {
            format!("the blocks that pass through changed: {passed:?} / {kept:?}")
        });
    } else if r.redactions.is_empty() {
        chk.ensure(rest == in_blocks, || {
            "the content changed though no text was cut".into()
        });
    }
    if let Some(structured) = input_value.get("structuredContent")
        && !got.structured_dropped
    {
        let kept = output
            .get("structuredContent")
            .is_some_and(|got| got == structured || (redacted && same_shape(got, structured)));
        chk.ensure(kept, || "structuredContent changed".into());
    }
    check_disk(
        chk,
        session,
        disk,
        input_value,
        sent.canonical,
        extras_as_text,
        got,
    );
    Some(output)
}

fn is_plain_text(b: &Value) -> bool {
    b.get("type").and_then(Value::as_str) == Some("text")
        && b.get("text").is_some_and(Value::is_string)
}

/// A resource with a blob whose text was cut: it is the input block without
/// its resource's text.
fn is_textless_resource_of_input(b: &Value, input: &[Value]) -> bool {
    input.iter().any(|i| {
        text_of(i).is_some() && i.get("resource").is_some() && {
            let mut without = i.clone();
            without["resource"]
                .as_object_mut()
                .map(|r| r.remove("text"));
            &without == b
        }
    })
}

/// The spill files hold the joined text and the structured content (as
/// sent), and nothing else appeared.
fn check_disk(
    chk: &mut Checker<'_>,
    session: &mut dyn Host,
    disk: &Disk,
    input: &Value,
    canonical: bool,
    extras_as_text: bool,
    got: &CappedMcp,
) {
    let redacted = !got.report.redactions.is_empty();
    let mut files = Vec::new();
    let mut expect =
        |r: &OverflowRef, content: Option<String>, files: &mut Vec<PathBuf>| match session
            .host_path(&r.path)
            .expect("host_path")
        {
            None => chk.fail(format!(
                "the spill path is not under the display root: {r:?}"
            )),
            Some(file) => {
                match fs::read(&file) {
                    Ok(bytes) => {
                        chk.ensure(bytes.len() as u64 == r.bytes, || {
                            format!("{} is not the reference's size", file.display())
                        });
                        if let Some(content) = content {
                            chk.ensure(bytes == content.as_bytes(), || {
                                format!(
                                    "the spill file {} differs from what it stands for",
                                    file.display()
                                )
                            });
                        }
                    }
                    Err(e) => chk.fail(format!("cannot read {}: {e}", file.display())),
                }
                files.push(file);
            }
        };
    if let Some(r) = &got.report.spill {
        let joined = match extras_as_text {
            // Blocks beside the texts are their JSON as sent.
            true => canonical.then(|| joined_with_extras(input)),
            false => Some(joined_text(input)),
        };
        expect(r, joined.filter(|_| !redacted), &mut files);
    }
    if let Some(r) = &got.structured_spill {
        let structured = input.get("structuredContent").map(Value::to_string);
        expect(r, structured.filter(|_| !redacted && canonical), &mut files);
    }
    let Some(root) = disk.root.as_deref() else {
        return;
    };
    let leftovers = temp_files(root);
    chk.ensure(leftovers.is_empty(), || {
        format!("temporary files left behind: {leftovers:?}")
    });
    let allowed: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.strip_prefix(root).ok().map(Path::to_owned))
        .flat_map(|f| [catalog_note(&f), f])
        .collect();
    let new_files: Vec<PathBuf> = tree(root)
        .into_iter()
        .filter(|p| !disk.before.contains(p) && !root.join(p).is_dir())
        .collect();
    chk.ensure(new_files.iter().all(|f| allowed.contains(f)), || {
        format!("unexpected new files: {new_files:?} (spills: {allowed:?})")
    });
}

/// Whether `want` is `got` or, for objects, a subset of it (recursively).
pub fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| subset(v, gv))),
        _ => want == got,
    }
}

/// The expectations of a `cap-mcp` step (those with `$spill:` resolved).
#[allow(clippy::too_many_arguments)]
pub fn check_expect(
    chk: &mut Checker<'_>,
    e: &mut McpExpect,
    input: &str,
    input_value: Option<&Value>,
    got: &CappedMcp,
    output: &Value,
    texts: (&[String], &[String]),
    notice_contains: &[String],
    meta_record: &Option<Option<Value>>,
) {
    let r = &got.report;
    chk.fixed("unchanged", e.unchanged.as_ref(), &(got.result == input));
    chk.fixed("truncated", e.truncated.as_ref(), &r.truncated);
    chk.fixed("spilled", e.spilled.as_ref(), &r.spill.is_some());
    chk.exact("original_bytes", &mut e.original_bytes, &r.original_bytes);
    chk.exact("original_lines", &mut e.original_lines, &r.original_lines);
    chk.exact("omitted_bytes", &mut e.omitted_bytes, &r.omitted_bytes);
    chk.exact(
        "original_tokens",
        &mut e.original_tokens,
        &r.original_tokens,
    );
    chk.exact("tokens", &mut e.tokens, &r.tokens);
    let redactions = r
        .redactions
        .iter()
        .map(|c| (c.kind.clone(), c.count))
        .collect();
    chk.exact("redactions", &mut e.redactions, &redactions);
    chk.fixed(
        "structured_dropped",
        e.structured_dropped.as_ref(),
        &got.structured_dropped,
    );
    chk.fixed(
        "structured_spilled",
        e.structured_spilled.as_ref(),
        &got.structured_spill.is_some(),
    );
    let out_blocks = blocks(output);
    let types: Vec<String> = out_blocks
        .iter()
        .map(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    chk.fixed("content_types", e.content_types.as_ref(), &types);
    let notice = out_blocks
        .first()
        .and_then(|b| b.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("");
    for needle in notice_contains {
        chk.ensure(notice.contains(needle.as_str()), || {
            format!(
                "the notice does not contain {needle:?}: {}",
                excerpt(notice)
            )
        });
    }
    chk.substrings(texts.0, texts.1, &output_text(output));
    for needle in e.result_contains.iter().flatten() {
        chk.ensure(got.result.contains(needle.as_str()), || {
            format!("the result does not contain {needle:?}")
        });
    }
    for needle in e.result_not_contains.iter().flatten() {
        chk.ensure(!got.result.contains(needle.as_str()), || {
            format!("the result contains {needle:?}")
        });
    }
    let in_blocks = input_value.map_or(&[][..], blocks);
    for &[o, i] in e.same_blocks.iter().flatten() {
        chk.ensure(
            out_blocks.get(o).is_some() && out_blocks.get(o) == in_blocks.get(i),
            || format!("output block {o} is not input block {i}"),
        );
    }
    let is_error = output.get("isError") == Some(&Value::Bool(true));
    chk.fixed("is_error", e.is_error.as_ref(), &is_error);
    if let Some(want) = meta_record {
        let record = output.get("_meta").and_then(|m| m.get(META_KEY));
        match (want, record) {
            (None, None) => {}
            (Some(w), Some(g)) => chk.ensure(subset(w, g), || {
                format!("meta_record: {w} is not within {g}")
            }),
            (w, g) => chk.fail(format!("meta_record: expected {w:?}, got {g:?}")),
        }
    }
}

/// Whether two JSON values differ at most in their strings (what redaction
/// rewrites): same kinds, same keys, same lengths of lists.
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(_), Value::String(_)) => true,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_shape(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_shape(v, w)))
        }
        _ => a == b,
    }
}
