//! Structured results: text shares one budget, media passes through.

use std::borrow::Cow;

use crate::budget::Budget;
use crate::call::Call;
use crate::capper::{Capped, Capper, SpillStore};
use crate::error::CapError;
use crate::plan::json_string_len;
use crate::tokens::TokenEstimator;

/// Binary media, carried untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Media {
    /// Base64 data.
    pub data: String,
    /// MIME type.
    pub mime_type: String,
}

/// An embedded resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// URI.
    pub uri: String,
    /// MIME type.
    pub mime_type: Option<String>,
    /// Text contents, capped with the text parts.
    pub text: Option<String>,
    /// Base64 contents, carried untouched.
    pub blob: Option<String>,
}

/// One content part. Mirrors WIT `content-part`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text.
    Text(String),
    /// An image.
    Image(Media),
    /// Audio.
    Audio(Media),
    /// An embedded resource.
    Resource(Resource),
    /// Anything else.
    Other(String),
}

/// Parts fitted to a budget, and the accounting of their joined text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedParts {
    /// The parts to give the model.
    pub parts: Vec<Part>,
    /// The accounting; `report.text` is the joined text or its preview.
    pub report: Capped,
}

/// The parts that pass through whole (media, blobs, `other`): their
/// estimated tokens (an image or audio part at the session's fixed cost,
/// anything else as text) and the bytes they add to a JSON request body
/// (data and MIME type).
pub fn fixed_cost(estimator: &TokenEstimator, parts: &[Part]) -> (u64, u64) {
    let media = estimator.media();
    let (mut tokens, mut body) = (0u64, 0u64);
    for part in parts {
        let (t, b) = match part {
            Part::Text(_) => (0, 0),
            Part::Image(m) => (
                u64::from(media.image),
                (m.data.len() + m.mime_type.len()) as u64,
            ),
            Part::Audio(m) => (
                u64::from(media.audio),
                (m.data.len() + m.mime_type.len()) as u64,
            ),
            Part::Resource(r) => {
                let blob = r.blob.as_deref().unwrap_or("");
                (
                    estimator.estimate(blob),
                    (blob.len() + r.uri.len() + r.mime_type.as_deref().map_or(0, str::len)) as u64,
                )
            }
            Part::Other(o) => (estimator.estimate(o), json_string_len(o)),
        };
        tokens = tokens.saturating_add(t);
        body = body.saturating_add(b);
    }
    (tokens, body)
}

/// The text of `parts` as [`cap_parts`] caps it: textual parts joined by LF
/// (borrowed when there is only one: a huge text is not copied).
pub fn joined_text(parts: &[Part]) -> Cow<'_, str> {
    let mut texts = parts.iter().filter_map(text_of);
    match (texts.next(), texts.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(only), None) => Cow::Borrowed(only),
        _ => Cow::Owned(
            parts
                .iter()
                .filter_map(text_of)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

/// Where each part of a cut result comes from ([`cut_layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    /// The text part holding the preview and notice.
    Preview,
    /// The input part at this index, untouched.
    Kept(usize),
    /// The input part at this index, a resource with a blob, its text removed.
    TextRemoved(usize),
}

/// The parts of a cut result, in order, by where they come from: the
/// preview where the first textual part was; textual parts removed, except
/// that a resource with a blob stays in place with only its text removed
/// (blobs pass through untouched, so one that was the first textual part
/// follows the preview); every other part in place.
pub fn cut_layout(parts: &[Part]) -> Vec<Placed> {
    let mut out = Vec::with_capacity(parts.len());
    let mut preview_placed = false;
    for (i, part) in parts.iter().enumerate() {
        if text_of(part).is_none() {
            out.push(Placed::Kept(i));
            continue;
        }
        if !preview_placed {
            out.push(Placed::Preview);
            preview_placed = true;
        }
        if let Part::Resource(Resource { blob: Some(_), .. }) = part {
            out.push(Placed::TextRemoved(i));
        }
    }
    out
}

/// `part` with its text redacted (media and other parts untouched).
fn redact_part(redactor: &crate::redact::Redactor, part: Part) -> Part {
    let redact = |t: String| match redactor.redact(&t).0 {
        std::borrow::Cow::Borrowed(_) => t,
        std::borrow::Cow::Owned(r) => r,
    };
    match part {
        Part::Text(t) => Part::Text(redact(t)),
        Part::Resource(Resource {
            text: Some(t),
            uri,
            mime_type,
            blob,
        }) => Part::Resource(Resource {
            text: Some(redact(t)),
            uri,
            mime_type,
            blob,
        }),
        other => other,
    }
}

fn text_of(part: &Part) -> Option<&str> {
    match part {
        Part::Text(t) => Some(t),
        Part::Resource(Resource { text: Some(t), .. }) => Some(t),
        _ => None,
    }
}

/// Cap the text of `parts` as one document (texts joined by LF). If it fits,
/// the parts come back unchanged. Otherwise the parts are laid out as
/// [`cut_layout`] says, the preview and notice in one text part.
pub fn cap_parts(
    capper: &Capper,
    parts: Vec<Part>,
    budget: &Budget,
    call: &Call,
    store: &mut dyn SpillStore,
) -> Result<CappedParts, CapError> {
    budget.validate(capper.room())?;
    call.validate()?;
    let mut capped = cap_parts_checking_cut(capper, parts, budget, call, store)?;
    if let Some(redactor) = capper.redactor() {
        redact_beyond_text(redactor, &mut capped);
    }
    Ok(capped)
}

/// With redaction on, the strings of the parts that are not text are shown
/// to the model too: an `other` part's JSON (every string value, JSON kept
/// valid; a part that is not JSON as text) and a resource's URI. Media data
/// and blobs are not text and stay.
fn redact_beyond_text(redactor: &crate::redact::Redactor, capped: &mut CappedParts) {
    let mut shown = crate::redact::json::Shown::new(redactor);
    for part in &mut capped.parts {
        match part {
            Part::Other(json) => {
                let redacted = match serde_json::from_str::<&serde_json::value::RawValue>(json) {
                    Ok(raw) => shown.value(raw),
                    Err(_) => shown.text(json),
                };
                if let Some(r) = redacted {
                    *json = r;
                }
            }
            Part::Resource(Resource { uri, .. }) => {
                if let Some(r) = shown.text(uri) {
                    *uri = r;
                }
            }
            _ => {}
        }
    }
    crate::redact::merge_counts(&mut capped.report.redactions, &shown.counts);
}

/// [`cap_parts`] under a budget checked only when the text must be cut (a
/// share of a budget: see `Capper::cap_checking_cut`).
pub(crate) fn cap_parts_checking_cut(
    capper: &Capper,
    parts: Vec<Part>,
    budget: &Budget,
    call: &Call,
    store: &mut dyn SpillStore,
) -> Result<CappedParts, CapError> {
    let joined = joined_text(&parts);
    let report = capper.cap_checking_cut(Cow::Borrowed(&joined), budget, call, store)?;
    // A cut text comes back as its preview: the joined copy (if any) goes.
    drop(joined);
    Ok(parts_capped_as(capper, parts, report))
}

/// `parts` whose joined text was capped as `report`: the fixed cost added
/// to its tokens, and the parts laid out as [`cut_layout`] says when cut.
pub(crate) fn parts_capped_as(
    capper: &Capper,
    parts: Vec<Part>,
    mut report: Capped,
) -> CappedParts {
    let (fixed_tokens, _) = fixed_cost(capper.estimator(), &parts);
    report.original_tokens = report.original_tokens.saturating_add(fixed_tokens);
    report.tokens = report.tokens.saturating_add(fixed_tokens);
    if !report.truncated {
        let parts = match capper.redactor() {
            // The text fit as redacted: each textual part is redacted alone
            // (redaction works line by line, and parts join at a line break).
            Some(redactor) if !report.redactions.is_empty() => parts
                .into_iter()
                .map(|p| redact_part(redactor, p))
                .collect(),
            _ => parts,
        };
        return CappedParts { parts, report };
    }
    let layout = cut_layout(&parts);
    let mut parts: Vec<Option<Part>> = parts.into_iter().map(Some).collect();
    let out = layout
        .into_iter()
        .filter_map(|placed| match placed {
            Placed::Preview => Some(Part::Text(report.text.clone())),
            Placed::Kept(i) => parts[i].take(),
            Placed::TextRemoved(i) => match parts[i].take() {
                Some(Part::Resource(r)) => Some(Part::Resource(Resource { text: None, ..r })),
                other => other,
            },
        })
        .collect();
    CappedParts { parts: out, report }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Keep;
    use crate::refs::RefScheme;

    struct Nowhere;

    impl SpillStore for Nowhere {
        fn save(&mut self, _: &str, _: &str, _: &[u8]) -> Result<(), CapError> {
            Ok(())
        }
    }

    fn capper() -> Capper {
        Capper::new(RefScheme::new("/spill", "t", vec![5; 16]).unwrap())
    }

    fn budget(capper: &Capper) -> Budget {
        Budget {
            max_bytes: capper.room().bytes as u32 + 200,
            max_lines: None,
            max_line_bytes: None,
            keep: Keep::HeadAndTail,
            head_percent: 50,
            max_tokens: None,
        }
    }

    fn big(tag: &str) -> String {
        format!("{tag} line\n").repeat(200)
    }

    fn resource(uri: &str, text: Option<String>, blob: Option<&str>) -> Part {
        Part::Resource(Resource {
            uri: uri.into(),
            mime_type: Some("text/plain".into()),
            text,
            blob: blob.map(Into::into),
        })
    }

    fn image() -> Part {
        Part::Image(Media {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
        })
    }

    fn cut(parts: Vec<Part>) -> CappedParts {
        let capper = capper();
        let out = cap_parts(
            &capper,
            parts,
            &budget(&capper),
            &Call::new("c"),
            &mut Nowhere,
        )
        .unwrap();
        assert!(out.report.truncated);
        out
    }

    #[test]
    fn later_textual_parts_are_dropped_and_blobs_keep_their_place() {
        let parts = vec![
            image(),
            Part::Text(big("first")),
            resource("file:///only-text", Some(big("second")), None),
            Part::Other("{}".into()),
            resource("file:///both", Some(big("third")), Some("AAEC")),
            Part::Text(big("fourth")),
            resource("file:///only-uri", None, None),
        ];
        let out = cut(parts);
        assert_eq!(
            out.parts,
            vec![
                image(),
                Part::Text(out.report.text.clone()),
                Part::Other("{}".into()),
                resource("file:///both", None, Some("AAEC")),
                resource("file:///only-uri", None, None),
            ]
        );
    }

    #[test]
    fn preview_takes_the_place_of_a_first_text_only_resource() {
        let out = cut(vec![
            resource("file:///a", Some(big("a")), None),
            image(),
            Part::Text(big("b")),
        ]);
        assert_eq!(
            out.parts,
            vec![Part::Text(out.report.text.clone()), image()]
        );
    }

    #[test]
    fn preview_goes_right_before_a_first_resource_with_a_blob() {
        let out = cut(vec![
            image(),
            resource("file:///a", Some(big("a")), Some("AAEC")),
            Part::Text(big("b")),
        ]);
        assert_eq!(
            out.parts,
            vec![
                image(),
                Part::Text(out.report.text.clone()),
                resource("file:///a", None, Some("AAEC")),
            ]
        );
    }

    #[test]
    fn parts_that_fit_come_back_unchanged() {
        let capper = capper();
        let parts = vec![
            resource("file:///a", Some("short".into()), None),
            image(),
            Part::Text("also short".into()),
        ];
        let out = cap_parts(
            &capper,
            parts.clone(),
            &budget(&capper),
            &Call::new("c"),
            &mut Nowhere,
        )
        .unwrap();
        assert!(!out.report.truncated);
        assert_eq!(out.parts, parts);
    }

    #[test]
    fn redaction_covers_other_parts_and_resource_uris() {
        let settings = crate::settings::PreviewSettings {
            redaction: Some(crate::settings::RedactionSettings {
                literals: vec![],
                spill: false,
            }),
            ..crate::settings::PreviewSettings::default()
        };
        let c = Capper::with_settings(
            RefScheme::new("/spill", "t", vec![5; 16]).unwrap(),
            settings,
        )
        .unwrap();
        let token = "ghp_FAKE0fake1FAKE0fake1FAKE0fake1FAKE0f";
        let parts = vec![
            Part::Text("no secret here".into()),
            Part::Other(format!(
                r#"{{"type":"x","auth":{{"token":"{token}"}},"n":1}}"#
            )),
            Part::Other(format!("not json {token}")),
            Part::Resource(Resource {
                uri: format!("https://u:{token}@h.example/x"),
                mime_type: None,
                text: Some("ok".into()),
                blob: None,
            }),
        ];
        let out = cap_parts(&c, parts, &budget(&c), &Call::new("c"), &mut Nowhere).unwrap();
        let Part::Other(json) = &out.parts[1] else {
            panic!()
        };
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["auth"]["token"], "[redacted: github-token]");
        assert_eq!(v["n"], 1);
        assert_eq!(
            out.parts[2],
            Part::Other("not json [redacted: github-token]".into())
        );
        let Part::Resource(r) = &out.parts[3] else {
            panic!()
        };
        assert_eq!(r.uri, "https://u:[redacted: github-token]@h.example/x");
        assert_eq!(out.report.redactions, vec![("github-token".to_owned(), 3)]);
        // Without secrets, the parts come back as they were.
        let clean = vec![Part::Other(r#"{"type":"x","n":1}"#.into())];
        let out = cap_parts(
            &c,
            clean.clone(),
            &budget(&c),
            &Call::new("c"),
            &mut Nowhere,
        )
        .unwrap();
        assert_eq!(out.parts, clean);
        assert!(out.report.redactions.is_empty());
    }
}
