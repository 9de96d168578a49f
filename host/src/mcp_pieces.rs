//! `cap_mcp` of a result with one huge text, handed to the component in
//! pieces (the WIT's `stream-mcp`): the component then holds the result's
//! small rest and what the preview needs, not the result and its decoded
//! text side by side, and a result larger than its memory limit is capped
//! too. The text is found here in the borrowed result: nothing is copied
//! but the small rest.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::Budget;
use crate::json_strings::longest_string;

/// Results shorter than this go whole: the component's copy is small.
const IN_PIECES_MIN_BYTES: usize = 1 << 20;

/// Bytes of the text's body per piece written (about; pieces end on a
/// character boundary).
const PIECE_BYTES: usize = 1 << 20;

/// A result's huge text, taken out of it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Lifted<'r> {
    /// The result with the text's string written `""`.
    pub(crate) skeleton: String,
    /// The content block whose text it is.
    pub(crate) block: u32,
    /// The string's body as received, between its quotes.
    pub(crate) body: &'r str,
}

#[derive(Deserialize)]
struct Shape<'a> {
    #[serde(borrow)]
    content: Vec<Block<'a>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    resource: Option<Embedded<'a>>,
}

#[derive(Deserialize)]
struct Embedded<'a> {
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// The largest text of `result` when the result is large and that text is
/// sure to be cut under `budget` (its body is over six times `max-bytes`:
/// no escape is longer than six bytes per byte it decodes to). `None`
/// sends the result whole; so does anything unexpected, which `cap-mcp`
/// then judges.
///
/// The result's longest string is found with a search for quotes alone,
/// and only the small rest is parsed: when that string is a text's, it is
/// the largest text. Otherwise the whole result is parsed (structured
/// content or an image larger than every text).
pub(crate) fn largest_text<'r>(result: &'r str, budget: &Budget) -> Option<Lifted<'r>> {
    if result.len() < IN_PIECES_MIN_BYTES || budget.max_bytes == 0 {
        return None;
    }
    lift(result, budget)
}

/// [`largest_text`] of a result of any size.
fn lift<'r>(result: &'r str, budget: &Budget) -> Option<Lifted<'r>> {
    let (start, end) = longest_string(result.as_bytes())?;
    if !sure_to_be_cut(end - start - 1, budget) {
        // No string is longer: no text is sure to be cut.
        return None;
    }
    let skeleton = without_string(result, start, end);
    let shape: Shape<'_> = serde_json::from_str(&skeleton).ok()?;
    let block = shape.content.iter().position(|block| {
        block
            .text_string()
            .is_some_and(|s| s.get().as_ptr() as usize - skeleton.as_ptr() as usize == start)
    });
    match block {
        Some(block) => Some(Lifted {
            block: u32::try_from(block).ok()?,
            body: &result[start + 1..end],
            skeleton,
        }),
        None => largest_text_parsed(result, budget),
    }
}

/// [`largest_text`] by parsing the whole result.
fn largest_text_parsed<'r>(result: &'r str, budget: &Budget) -> Option<Lifted<'r>> {
    let shape: Shape<'r> = serde_json::from_str(result).ok()?;
    let (block, string) = shape
        .content
        .iter()
        .enumerate()
        .filter_map(|(i, block)| Some((i, block.text_string()?)))
        .max_by_key(|(i, raw)| (raw.get().len(), std::cmp::Reverse(*i)))?;
    let start = string.get().as_ptr() as usize - result.as_ptr() as usize;
    let end = start + string.get().len() - 1;
    if !sure_to_be_cut(end - start - 1, budget) {
        return None;
    }
    Some(Lifted {
        skeleton: without_string(result, start, end),
        block: u32::try_from(block).ok()?,
        body: &result[start + 1..end],
    })
}

/// Whether a string body of `body_len` bytes decodes to more than the
/// budget's bytes, whatever its escapes.
fn sure_to_be_cut(body_len: usize, budget: &Budget) -> bool {
    body_len as u64 / 6 > u64::from(budget.max_bytes)
}

/// `result` with the string between the quotes at `start` and `end`
/// written `""`.
fn without_string(result: &str, start: usize, end: usize) -> String {
    let mut skeleton = String::with_capacity(result.len() - (end - start - 1));
    skeleton.push_str(&result[..start]);
    skeleton.push_str("\"\"");
    skeleton.push_str(&result[end + 1..]);
    skeleton
}

impl<'a> Block<'a> {
    /// The string of a `text` block's `text` or an embedded resource's `text`.
    fn text_string(&self) -> Option<&'a RawValue> {
        let string = match self.kind.as_ref() {
            "text" => self.text?,
            "resource" => self.resource.as_ref()?.text?,
            _ => return None,
        };
        string.get().starts_with('"').then_some(string)
    }
}

/// `body` in pieces of about [`PIECE_BYTES`], each ending on a character
/// boundary.
pub(crate) fn pieces(body: &str) -> impl Iterator<Item = &str> {
    let mut rest = body;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = PIECE_BYTES.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn budget(max_bytes: u32) -> Budget {
        Budget::new(max_bytes)
    }

    fn result_with(blocks: &[String]) -> String {
        format!(r#"{{"content":[{}],"isError":false}}"#, blocks.join(","))
    }

    #[test]
    fn the_largest_text_sure_to_be_cut_is_lifted() {
        let big = "line \\\"quoted\\\" é\\n".repeat(100_000);
        let small = "x".repeat(1_500_000);
        let result = result_with(&[
            r#"{"type":"image","data":"AA==","mimeType":"image/png"}"#.to_owned(),
            format!(r#"{{"type":"text","text":"{small}"}}"#),
            format!(r#"{{"type":"resource","resource":{{"uri":"file:///a","text":"{big}"}}}}"#),
        ]);
        let lifted = largest_text(&result, &budget(8192)).unwrap();
        assert_eq!(lifted.block, 2);
        assert_eq!(lifted.body, big);
        assert_eq!(lifted.skeleton, result.replace(&big, ""));
        let joined: String = pieces(lifted.body).collect();
        assert_eq!(joined, big);
        assert!(pieces(lifted.body).all(|p| p.len() <= PIECE_BYTES + 3));
    }

    #[test]
    fn a_result_that_is_small_odd_or_may_fit_goes_whole() {
        let text = |n: usize| format!(r#"{{"type":"text","text":"{}"}}"#, "é".repeat(n));
        // Small.
        assert_eq!(
            largest_text(&result_with(&[text(1000)]), &budget(100)),
            None
        );
        // Its text might decode to no more than the budget.
        let result = result_with(&[text(600_000)]);
        assert!(largest_text(&result, &budget(100_000)).is_some());
        assert_eq!(largest_text(&result, &budget(200_000)), None);
        assert_eq!(largest_text(&result, &budget(0)), None);
        // Not a result, a text that is not a string, a repeated member.
        let odd = [
            format!("[{}]", text(600_000)),
            format!(
                r#"{{"content":[{{"type":"text","text":["{}"]}}]}}"#,
                "a".repeat(2 << 20)
            ),
            format!(
                r#"{{"content":[{{"type":"blob","text":"{}"}}]}}"#,
                "a".repeat(2 << 20)
            ),
            format!(r#"{{"content":[{}],"content":[]}}"#, text(600_000)),
            format!(
                r#"{{"content":[{{"type":"text","text":"{}","text":"x"}}]}}"#,
                "a".repeat(2 << 20)
            ),
        ];
        for result in &odd {
            assert_eq!(largest_text(result, &budget(100)), None, "{:.80}", result);
        }
    }

    #[test]
    fn a_longer_string_that_is_no_text_leaves_the_largest_text_found_by_the_parse() {
        let text = "line \\\\\\\"x\\\\\\n".repeat(80_000);
        let data = "A".repeat(1_500_000);
        let result = format!(
            r#"{{"content":[{{"type":"text","text":"{text}"}},{{"type":"image","data":"{data}","mimeType":"image/png"}}],"structuredContent":{{"{data}":"{data}"}}}}"#
        );
        let lifted = largest_text(&result, &budget(1000)).unwrap();
        assert_eq!((lifted.block, lifted.body), (0, text.as_str()));
        assert_eq!(lifted.skeleton, result.replace(&text, ""));
    }

    /// A result's JSON from its blocks, each a kind and a text (or data).
    fn result_of(blocks: &[(u8, String)], structured: Option<&str>) -> String {
        let blocks: Vec<serde_json::Value> = blocks
            .iter()
            .map(|(kind, text)| match kind % 4 {
                0 => serde_json::json!({"type": "text", "text": text}),
                1 => serde_json::json!({"type": "resource", "resource": {"uri": "a:b", "text": text}}),
                2 => serde_json::json!({"type": "image", "data": text, "mimeType": "image/png"}),
                _ => serde_json::json!({"type": "text", "text": [text]}),
            })
            .collect();
        let mut result = serde_json::json!({"content": blocks, "isError": false});
        if let Some(s) = structured {
            result["structuredContent"] = serde_json::json!({ "s": s });
        }
        result.to_string()
    }

    proptest! {
        /// The search for quotes lifts what a parse of the whole result
        /// lifts, whatever the strings hold (escaped quotes and runs of
        /// backslashes included).
        #[test]
        fn the_search_for_quotes_lifts_what_the_whole_parse_lifts(
            blocks in proptest::collection::vec(
                (0u8..4, "[a\\\\\"\\n é中]{0,80}", any::<bool>()),
                0..5,
            ),
            shared in "[a\\\\\"]{20,40}",
            structured in proptest::option::of("[a\\\\\"]{0,100}"),
            max_bytes in 1u32..8,
        ) {
            // Some blocks share one text: the first of the longest is lifted.
            let blocks: Vec<(u8, String)> = blocks
                .into_iter()
                .map(|(kind, own, share)| (kind, if share { shared.clone() } else { own }))
                .collect();
            let result = result_of(&blocks, structured.as_deref());
            let budget = budget(max_bytes);
            prop_assert_eq!(lift(&result, &budget), largest_text_parsed(&result, &budget));
        }

        /// Text that is not JSON never panics the search.
        #[test]
        fn any_text_is_searched_without_panic(text in "[\\\\\"{}:,a]{0,60}") {
            let _ = lift(&text, &budget(1));
        }
    }

    #[test]
    fn pieces_end_on_character_boundaries() {
        let body = "a中😀".repeat(400_000);
        let pieces: Vec<&str> = pieces(&body).collect();
        assert!(pieces.len() > 1);
        assert_eq!(pieces.concat(), body);
    }
}
