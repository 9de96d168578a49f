//! Redaction of the JSON of an MCP result beyond its texts: every string
//! value the model can be shown (`structuredContent`, `_meta`, a
//! `resource_link`'s `uri` and `name`, annotations, blocks of unknown types),
//! decoded, redacted as text, and written back as JSON, so the result stays
//! valid JSON.
//!
//! A string is redacted alone (tokens, literals, `password=` inside it), and
//! a member whose value is a string is also redacted as the line
//! `"key": "value"`, so that `{"password": "hunter2"}` is found by its key as
//! in a text. Media data (`data` of an image or audio block, a resource's
//! `blob`) is not text the model reads and stays as received.
//!
//! What was not changed is written back byte for byte: a walk returns
//! `None` when nothing in a value was redacted.

use serde_json::value::RawValue;

use crate::raw_json::{self as json, Kind, Members};
use crate::redact::{Redactions, Redactor};

/// The walk of one result: its redactor and what it replaced.
pub(crate) struct Shown<'r> {
    redactor: &'r Redactor,
    /// Secrets replaced so far.
    pub(crate) counts: Redactions,
}

impl<'r> Shown<'r> {
    pub(crate) fn new(redactor: &'r Redactor) -> Self {
        Shown {
            redactor,
            counts: Redactions::default(),
        }
    }

    /// `raw` (any JSON value) with every string redacted; `None` when
    /// nothing changed.
    pub(crate) fn value(&mut self, raw: &RawValue) -> Option<String> {
        self.value_skipping(raw, &[])
    }

    /// [`value`](Self::value) of a content block: the media data of an
    /// `image` or `audio` block and a resource's `blob` stay as received.
    pub(crate) fn block(&mut self, raw: &RawValue) -> Option<String> {
        let members = Members::of(raw)?;
        let kind = members.get("type").and_then(json::string);
        // A text block's text and a resource's text went through the texts'
        // redaction already (`cap-parts`): not again.
        let text_is_string =
            |m: &Members<'_>| m.get("text").is_some_and(|t| json::kind(t) == Kind::String);
        let resource_text = members
            .get("resource")
            .and_then(Members::of)
            .is_some_and(|r| text_is_string(&r));
        match kind.as_deref() {
            Some("image" | "audio") => self.object(&members, &["data"], &[]),
            Some("text") if text_is_string(&members) => self.object(&members, &["text"], &[]),
            Some("resource") if resource_text => self.object(&members, &[], &["blob", "text"]),
            Some("resource") => self.object(&members, &[], &["blob"]),
            _ => self.object(&members, &[], &[]),
        }
    }

    fn value_skipping(&mut self, raw: &RawValue, skip: &[&str]) -> Option<String> {
        match json::kind(raw) {
            Kind::String => {
                let text = json::string(raw)?;
                let redacted = self.text(&text)?;
                let mut out = String::new();
                json::push_string(&mut out, &redacted);
                Some(out)
            }
            Kind::Object => self.object(&Members::of(raw)?, skip, &[]),
            Kind::Array => {
                let elements = json::elements(raw)?;
                let new: Vec<Option<String>> = elements
                    .iter()
                    .map(|e| self.value_skipping(e, &[]))
                    .collect();
                if new.iter().all(Option::is_none) {
                    return None;
                }
                let mut out = String::from("[");
                for (i, (e, n)) in elements.iter().zip(&new).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(n.as_deref().unwrap_or(e.get()));
                }
                out.push(']');
                Some(out)
            }
            Kind::Number | Kind::Bool | Kind::Null => None,
        }
    }

    /// An object: its values redacted (keys name things; they stay), the members in `skip` kept as
    /// received, and in its `resource` member those in `in_resource`.
    fn object(
        &mut self,
        members: &Members<'_>,
        skip: &[&str],
        in_resource: &[&str],
    ) -> Option<String> {
        let mut changed = false;
        let mut out_members: Vec<(&str, String)> = Vec::new();
        for (key, value) in members.unique() {
            let new_value = if skip.contains(&key) {
                None
            } else if key == "resource" && !in_resource.is_empty() {
                self.value_skipping(value, in_resource)
            } else if json::kind(value) == Kind::String {
                self.member_string(key, value)
            } else {
                self.value_skipping(value, &[])
            };
            changed |= new_value.is_some();
            out_members.push((key, new_value.unwrap_or_else(|| value.get().to_owned())));
        }
        if !changed {
            return None;
        }
        let mut out = String::new();
        json::push_object(&mut out, out_members.iter().map(|(k, v)| (*k, v.as_str())));
        Some(out)
    }

    /// A member's string value: redacted alone, then as `"key": "value"`.
    fn member_string(&mut self, key: &str, value: &RawValue) -> Option<String> {
        let text = json::string(value)?;
        let alone = self.text(&text);
        let current = alone.as_deref().unwrap_or(&text);
        let mut line = String::new();
        json::push_string(&mut line, key);
        line.push_str(": ");
        json::push_string(&mut line, current);
        let (redacted, counts) = self.redactor.redact(&line);
        let in_context = if counts.is_empty() {
            None
        } else {
            self.counts.merge(&counts);
            // The redactor keeps the key and the quotes: the line is still a
            // member; when it is not (a span met an escape), the whole value
            // is the secret.
            Some(member_value(&redacted).unwrap_or_else(|| {
                let kind = counts.iter().next().map_or("secret", |(k, _)| k);
                format!("[redacted: {kind}]")
            }))
        };
        let text = match (in_context, alone) {
            (Some(t), _) => t,
            (None, Some(t)) => t,
            (None, None) => return None,
        };
        let mut out = String::new();
        json::push_string(&mut out, &text);
        Some(out)
    }

    /// `text` redacted, counted; `None` when nothing matched.
    pub(crate) fn text(&mut self, text: &str) -> Option<String> {
        let (redacted, counts) = self.redactor.redact(text);
        if counts.is_empty() {
            return None;
        }
        self.counts.merge(&counts);
        Some(redacted.into_owned())
    }
}

/// The value of the one-member object `line` (`"key": "value"`), if it
/// still parses as that.
fn member_value(line: &str) -> Option<String> {
    let object = format!("{{{line}}}");
    let raw: &RawValue = serde_json::from_str(&object).ok()?;
    let members = Members::of(raw)?;
    let (_, value) = members.0.first()?;
    json::string(value)
}
