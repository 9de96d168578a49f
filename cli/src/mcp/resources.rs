//! The session's spills as MCP resources, so that any client (not only the
//! model, through the read tool) can list the saved full outputs and read
//! them back in bounded pages.
//!
//! - A spill's URI is `toolcap://spill/<thread>/<file>?bytes=B&lines=L&tag=T`:
//!   its reference, which the component verifies as it verifies a notice's.
//!   A page is that URI with `&offset=N` (byte offset in the saved file);
//!   each page's `_meta["toolcap/nextUri"]` names the next page (`null` at
//!   the end), so pages concatenated are the saved output.
//! - `resources/read` of such a URI is answered here, never by the server:
//!   the reference must verify (`pruned-placeholder`), the read tool must
//!   accept it (reference, expiry, the file still matching its digest: its
//!   own checks, by calling it), and the page comes from the component's
//!   `read` (redacted as the model is shown it). Any other URI goes to the
//!   server.
//! - `resources/list`: the proxy's entries come as pages of their own after
//!   the server's last page. The server's pages pass as they came but for
//!   the last, which gains a `nextCursor` to the proxy's first page (only
//!   when there are spills). So a client paging through sees every entry
//!   of both exactly once; the server never sees a cursor it did not make;
//!   and the proxy's pages stay bounded however many spills a thread has.
//!   A server without resources: the proxy answers `resources/list` (and
//!   `resources/templates/list`) itself, and its `initialize` answer gains
//!   the `resources` capability, every other byte kept.
//! - `resources/templates/list`: one template for the page URIs, at the end
//!   of the server's first page.

use std::collections::HashMap;

use rmcp::model::{
    Annotations, CacheScope, ErrorCode, ListResourceTemplatesResult, ListResourcesResult,
    MetaObject, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tool_output_cap::Error;

use super::answers;
use super::capper::Capper;
use super::message::{self, Params};
use super::pending::Request;
use super::spill_uri::{SpillUri, URI_PREFIX, spill_uri};
use crate::spills::{Listed, time_of};

/// The proxy's own `resources/list` cursors: `toolcap-spills:<index>`.
const CURSOR_PREFIX: &str = "toolcap-spills:";
/// Spills on one page of the proxy's listing.
const ENTRIES_PER_PAGE: usize = 100;
/// The RFC 6570 template of a page's URI.
const TEMPLATE: &str = "toolcap://spill/{+path}{?bytes,lines,tag,offset}";
/// Bytes the read tool reads when it checks a spill before a page is served
/// (its least page).
const CHECK_BYTES: u32 = 256;
/// What the router keeps of the server's resources.
#[derive(Debug, Default)]
pub struct Resources {
    /// Whether the server offers resources (its `initialize` answer has the
    /// capability, or it answered a resources request as a method it does
    /// not know); `None` before either was seen.
    server_offers: Option<bool>,
}

impl Resources {
    /// The proxy's own answer to a client request, or `None` when it goes
    /// to the server: reads of spill URIs, pages of the proxy's listing, and
    /// every listing when the server offers no resources.
    pub fn request(
        &mut self,
        capper: &mut Capper,
        id: &RawValue,
        method: &str,
        params: &Params,
        result_type: bool,
    ) -> Option<Vec<u8>> {
        let cursor = params.cursor.as_ref().filter(|c| !c.is_null());
        let own = self.server_offers == Some(false);
        match method {
            "resources/read" => {
                let uri = params.uri.as_ref()?.as_str()?;
                uri.starts_with(URI_PREFIX)
                    .then(|| read(capper, id, uri, result_type))
            }
            "resources/list" => match cursor {
                Some(Value::String(c)) if c.starts_with(CURSOR_PREFIX) => {
                    Some(own_page(capper, id, Some(c), result_type))
                }
                None if own => Some(own_page(capper, id, None, result_type)),
                Some(_) if own => Some(unknown_cursor(id)),
                _ => None,
            },
            "resources/templates/list" if own => Some(match cursor {
                None => templates(id, result_type),
                Some(_) => unknown_cursor(id),
            }),
            _ => None,
        }
    }

    /// The server's `initialize` result, noted; the line with the
    /// `resources` capability added when the server has none.
    pub fn initialized(&mut self, line: &str, result: &RawValue) -> Option<String> {
        let members: HashMap<String, &RawValue> = serde_json::from_str(result.get()).ok()?;
        let capabilities = members.get("capabilities")?;
        let offered: HashMap<String, &RawValue> = serde_json::from_str(capabilities.get()).ok()?;
        let offers = offered.get("resources").is_some_and(|r| r.get() != "null");
        self.server_offers = Some(offers);
        if offers {
            return None;
        }
        if offered.contains_key("resources") {
            let capabilities = message::replace_member(capabilities.get(), "resources", "{}")?;
            let result = message::replace_member(result.get(), "capabilities", &capabilities)?;
            return message::replace_member(line, "result", &result);
        }
        add_last(line, capabilities.get(), r#""resources":{}"#)
    }

    /// A page of the server's `resources/list`: its last page gets a
    /// `nextCursor` to the proxy's pages when there are spills.
    pub fn server_list(
        &mut self,
        capper: &mut Capper,
        line: &str,
        result: &RawValue,
    ) -> Option<String> {
        self.server_offers = Some(true);
        let members: HashMap<String, &RawValue> = serde_json::from_str(result.get()).ok()?;
        // A client stops at a null or empty cursor: that is the last page.
        let next = members.get("nextCursor");
        if next.is_some_and(|n| !matches!(n.get(), "null" | r#""""#))
            || !members.get("resources")?.get().starts_with('[')
        {
            return None;
        }
        if capper.spills().ok()?.is_empty() {
            return None;
        }
        let cursor = json!(format!("{CURSOR_PREFIX}0")).to_string();
        if next.is_some() {
            let result = message::replace_member(result.get(), "nextCursor", &cursor)?;
            return message::replace_member(line, "result", &result);
        }
        add_last(line, result.get(), &format!(r#""nextCursor":{cursor}"#))
    }

    /// The server's first `resources/templates/list` page with the spill
    /// page template at the end.
    pub fn server_templates(&mut self, line: &str, result: &RawValue) -> Option<String> {
        self.server_offers = Some(true);
        let members: HashMap<String, &RawValue> = serde_json::from_str(result.get()).ok()?;
        let list = members.get("resourceTemplates")?;
        if !list.get().starts_with('[') || list.get().contains(TEMPLATE) {
            return None;
        }
        let template = serde_json::to_string(&template()).ok()?;
        add_last(line, list.get(), &template)
    }

    /// The proxy's answer in place of the server's error to a first page
    /// of `resources/list` or `resources/templates/list` that the server
    /// does not know (a server without resources that was not told so in
    /// its `initialize` answer, or whose answer the proxy did not see).
    pub fn instead_of_error(
        &mut self,
        capper: &mut Capper,
        request: &Request,
        error: &RawValue,
        result_type: bool,
    ) -> Option<Vec<u8>> {
        #[derive(Deserialize)]
        struct Code {
            code: Option<i64>,
        }
        let listing = matches!(
            request.method.as_str(),
            "resources/list" | "resources/templates/list"
        );
        if !listing || !request.first_page {
            return None;
        }
        let code = serde_json::from_str::<Code>(error.get()).ok()?.code?;
        if code != i64::from(ErrorCode::METHOD_NOT_FOUND.0) {
            return None;
        }
        self.server_offers = Some(false);
        Some(if request.method == "resources/list" {
            own_page(capper, &request.id, None, result_type)
        } else {
            templates(&request.id, result_type)
        })
    }
}

/// The answer to `resources/read` of a spill URI: a page, or an error that
/// says why nothing was read.
fn read(capper: &mut Capper, id: &RawValue, uri: &str, result_type: bool) -> Vec<u8> {
    let refused = |code: ErrorCode, why: String| answers::error_response(id, code, why);
    let spill = match SpillUri::parse(uri) {
        Ok(spill) => spill,
        Err(why) => {
            return refused(
                ErrorCode::INVALID_PARAMS,
                format!("{} is not a toolcap spill URI: {why}", json!(uri)),
            );
        }
    };
    let reference = spill.reference(&capper.display_root());
    // The reference must verify, as a notice's does.
    let token = match capper.placeholder(&reference) {
        Ok(token) => token,
        Err(Error::Cap(e)) if e.case() == "invalid-argument" => {
            return refused(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "{} is not a genuine reference of this session: it was altered or forged, \
                     or made by another session (thread or key), so nothing was read",
                    json!(uri)
                ),
            );
        }
        Err(e) => {
            return refused(
                ErrorCode::INTERNAL_ERROR,
                format!("the saved output could not be checked: {e}"),
            );
        }
    };
    // The read tool's own checks (expiry, the file still the saved output).
    let check = json!({"path": token, "offset": spill.offset, "max_bytes": CHECK_BYTES});
    let checked = capper.read_tool(&check.to_string());
    if checked.is_error {
        return refused(ErrorCode::RESOURCE_NOT_FOUND, checked.text);
    }
    let page = match capper.read_page(&reference.relative_path, spill.offset, capper.page_bytes()) {
        Ok(page) => page,
        Err(e) => {
            return refused(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("{} could not be read: {e}", json!(uri)),
            );
        }
    };
    let next = page.next_offset.filter(|&next| next > page.offset);
    let next_uri = next.map(|next| spill_uri(&reference, Some(next)));
    let meta = json!({
        "toolcap/offset": page.offset,
        "toolcap/nextOffset": next,
        "toolcap/totalBytes": page.total_bytes,
        "toolcap/nextUri": next_uri,
    });
    let contents = ResourceContents::TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some("text/plain".to_owned()),
        text: page.text,
        meta: Some(meta_object(meta)),
    };
    let mut result = ReadResourceResult::new(vec![contents]);
    if result_type {
        // Spills come and go, and are this user's only.
        result.ttl_ms = Some(0);
        result.cache_scope = Some(CacheScope::Private);
    } else {
        result.result_type = None;
    }
    answers::result_response(id, &result)
}

/// A page of the proxy's own listing: from the start, or from a cursor of its own.
fn own_page(
    capper: &mut Capper,
    id: &RawValue,
    cursor: Option<&str>,
    result_type: bool,
) -> Vec<u8> {
    let start = match cursor.map(|c| c.strip_prefix(CURSOR_PREFIX).map(str::parse::<usize>)) {
        None => 0,
        Some(Some(Ok(start))) => start,
        Some(_) => return unknown_cursor(id),
    };
    let spills = match capper.spills() {
        Ok(spills) => spills,
        Err(why) => {
            return answers::error_response(
                id,
                ErrorCode::INTERNAL_ERROR,
                format!("the saved outputs could not be listed: {why}"),
            );
        }
    };
    let page_bytes = capper.page_bytes();
    let entries = spills
        .iter()
        .skip(start)
        .take(ENTRIES_PER_PAGE)
        .map(|listed| resource(listed, page_bytes))
        .collect();
    let mut result = ListResourcesResult::with_all_items(entries);
    let end = start.saturating_add(ENTRIES_PER_PAGE);
    if end < spills.len() {
        result.next_cursor = Some(format!("{CURSOR_PREFIX}{end}"));
    }
    if result_type {
        // Spills come and go, and are this user's only.
        result.ttl_ms = Some(0);
        result.cache_scope = Some(CacheScope::Private);
    } else {
        result.result_type = None;
    }
    answers::result_response(id, &result)
}

/// The listing entry of one spill.
fn resource(listed: &Listed, page_bytes: u32) -> Resource {
    let entry = &listed.entry;
    let r = &entry.reference;
    let name = r
        .relative_path
        .rsplit('/')
        .next()
        .unwrap_or(&r.relative_path);
    let saved = time_of(entry.created_ms);
    let expires = listed.expires_ms.map(time_of);
    let of_tool = entry
        .tool
        .as_deref()
        .map_or(String::new(), |tool| format!(" of `{tool}`"));
    let kept = expires
        .as_deref()
        .map_or(String::new(), |e| format!(", kept until {e}"));
    let mut annotations = Annotations::default();
    annotations.last_modified = Some(saved.clone());
    Resource::new(spill_uri(r, None), name)
        .with_title(format!("Full output{of_tool} (call {})", entry.call_id))
        .with_description(format!(
            "The full output of a tool result toolcap cut: {} bytes, {} lines, saved {saved}{kept}. \
             Read in pages of up to {page_bytes} bytes; each page's _meta[\"toolcap/nextUri\"] \
             names the next.",
            r.bytes, r.lines
        ))
        .with_mime_type("text/plain")
        .with_size(r.bytes)
        .with_annotations(annotations)
        .with_meta(meta_object(json!({
            "toolcap/tool": entry.tool,
            "toolcap/callId": entry.call_id,
            "toolcap/lines": r.lines,
            "toolcap/savedAt": saved,
            "toolcap/expiresAt": expires,
            "toolcap/path": r.path,
        })))
}

/// The template of the spill page URIs.
fn template() -> ResourceTemplate {
    ResourceTemplate::new(TEMPLATE, "toolcap-spill-page")
        .with_title("A page of a saved full output")
        .with_description(
            "A page of a tool output toolcap cut and saved: path, bytes, lines and tag are those \
             of a listed toolcap://spill/ resource (its reference); offset is the byte offset of \
             the page, as the previous page's _meta[\"toolcap/nextOffset\"] gives it.",
        )
        .with_mime_type("text/plain")
}

/// The proxy's `resources/templates/list` answer.
fn templates(id: &RawValue, result_type: bool) -> Vec<u8> {
    let mut result = ListResourceTemplatesResult::with_all_items(vec![template()]);
    if result_type {
        // Spills come and go, and are this user's only.
        result.ttl_ms = Some(0);
        result.cache_scope = Some(CacheScope::Private);
    } else {
        result.result_type = None;
    }
    answers::result_response(id, &result)
}

fn unknown_cursor(id: &RawValue) -> Vec<u8> {
    answers::error_response(
        id,
        ErrorCode::INVALID_PARAMS,
        "the cursor is not one this listing gave".to_owned(),
    )
}

fn meta_object(value: Value) -> MetaObject {
    match value {
        Value::Object(map) => MetaObject(map),
        _ => MetaObject(Map::new()),
    }
}

/// `line` with `item` added as the last member or element of `container`
/// (an object or array whose text is borrowed from `line`); every other
/// byte kept, the line's end dropped (the router adds it).
fn add_last(line: &str, container: &str, item: &str) -> Option<String> {
    let start = (container.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(container.len())?;
    if end > line.len() || !(container.ends_with('}') || container.ends_with(']')) {
        return None;
    }
    let close = end - 1;
    let empty = container[1..container.len() - 1].trim().is_empty();
    let comma = if empty { "" } else { "," };
    let edited = format!("{}{comma}{item}{}", &line[..close], &line[close..]);
    Some(edited.trim_end().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_added_keeping_every_other_byte() {
        let line = "{\"id\": 1, \"result\": {\"capabilities\": {\"tools\": {}} , \"x\" : [ ]}}\n";
        let result = &line[line.find("{\"capabilities").unwrap()..line.len() - 2];
        let caps = &result[result.find("{\"tools").unwrap()..];
        let caps = &caps[..caps.find("} ").unwrap() + 1];
        assert_eq!(
            add_last(line, caps, r#""resources":{}"#).unwrap(),
            "{\"id\": 1, \"result\": {\"capabilities\": {\"tools\": {},\"resources\":{}} , \"x\" : [ ]}}"
        );
        let empty = &line[line.find("[ ]").unwrap()..][..3];
        assert_eq!(
            add_last(line, empty, "1").unwrap(),
            "{\"id\": 1, \"result\": {\"capabilities\": {\"tools\": {}} , \"x\" : [ 1]}}"
        );
        assert_eq!(
            add_last(line, "{}", "1"),
            None,
            "not borrowed from the line"
        );
    }
}
