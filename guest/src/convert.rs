//! Explicit conversions between the generated WIT types and the core's, in
//! one place.

use toolcap_core::{self as core, readback};

use crate::bindings::toolcap::tool_output_cap::types;

/// Every fallible export returns this.
pub type CapResult<T> = Result<T, types::CapError>;

/// Sizes of one string fit `u32` (a canonical-ABI string is < 2^31 bytes).
fn small(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub fn error(e: core::CapError) -> types::CapError {
    use core::CapError as E;
    match e {
        E::InvalidBudget(m) => types::CapError::InvalidBudget(m),
        E::InvalidSettings(m) => types::CapError::InvalidSettings(m),
        E::InvalidArgument(m) => types::CapError::InvalidArgument(m),
        E::OutsideRoot(m) => types::CapError::OutsideRoot(m),
        E::NotFound(m) => types::CapError::NotFound(m),
        E::NoSpillDir(m) => types::CapError::NoSpillDir(m),
        E::Io(m) => types::CapError::Io(m),
        E::Other(m) => types::CapError::Other(m),
    }
}

pub fn budget(b: types::Budget) -> core::Budget {
    core::Budget {
        max_bytes: b.max_bytes,
        max_lines: b.max_lines,
        max_line_bytes: b.max_line_bytes,
        keep: match b.keep {
            types::Keep::Head => core::Keep::Head,
            types::Keep::Tail => core::Keep::Tail,
            types::Keep::HeadAndTail => core::Keep::HeadAndTail,
        },
        head_percent: b.head_percent,
        max_tokens: b.max_tokens,
    }
}

pub fn overflow_ref(r: core::OverflowRef) -> types::OverflowRef {
    types::OverflowRef {
        path: r.path,
        relative_path: r.relative_path,
        bytes: r.bytes,
        lines: r.lines,
        digest: r.digest,
        tag: r.tag,
    }
}

pub fn overflow_ref_in(r: types::OverflowRef) -> core::OverflowRef {
    core::OverflowRef {
        path: r.path,
        relative_path: r.relative_path,
        bytes: r.bytes,
        lines: r.lines,
        digest: r.digest,
        tag: r.tag,
    }
}

pub fn call(c: types::Call) -> core::Call {
    core::Call {
        id: c.id,
        tool: c.tool,
        exit_code: c.exit_code,
        is_error: c.is_error,
        search: c.search,
    }
}

pub fn settings(s: &types::SessionSettings) -> core::PreviewSettings {
    core::PreviewSettings {
        notice: core::NoticeStyle {
            read_tool: s.read_tool.clone(),
            shell_hints: s.shell_hints,
            retention_seconds: s.retention_seconds,
        },
        notable_patterns: s.notable_patterns.clone(),
        features: core::PreviewFeatures::ALL,
        media: {
            let default = core::tokens::MediaCosts::default();
            core::tokens::MediaCosts {
                image: s.image_tokens.unwrap_or(default.image),
                audio: s.audio_tokens.unwrap_or(default.audio),
            }
        },
        redaction: s.redaction.as_ref().map(|r| core::cap::RedactionSettings {
            literals: r.literals.clone(),
            spill: r.spill,
        }),
    }
}

/// The accounting of `c`; its text goes elsewhere.
fn report(c: core::Capped) -> types::CapReport {
    types::CapReport {
        truncated: c.truncated,
        original_bytes: small(c.original_bytes),
        original_lines: small(c.original_lines),
        omitted_bytes: small(c.omitted_bytes),
        omitted_lines: small(c.omitted_lines),
        gap_line: c.gap_line.map(small),
        notable_lines: small(c.notable_lines),
        folded_lines: small(c.folded_lines),
        original_tokens: small(c.original_tokens),
        tokens: small(c.tokens),
        spill: c.spill.map(overflow_ref),
        spill_error: c.spill_error,
        redactions: c
            .redactions
            .into_iter()
            .map(|(kind, count)| types::RedactionCount {
                kind,
                count: small(count),
            })
            .collect(),
    }
}

pub fn capped(mut c: core::Capped) -> types::Capped {
    types::Capped {
        text: std::mem::take(&mut c.text),
        report: report(c),
    }
}

pub fn mcp_options(o: types::McpOptions) -> core::McpOptions {
    core::McpOptions {
        resource_link: o.resource_link,
    }
}

pub fn capped_mcp(c: core::CappedMcp) -> types::CappedMcp {
    types::CappedMcp {
        result: c.result,
        report: report(c.report),
        structured_dropped: c.structured_dropped,
        structured_spill: c.structured_spill.map(overflow_ref),
    }
}

fn media_in(m: types::Media) -> core::Media {
    core::Media {
        data: m.data,
        mime_type: m.mime_type,
    }
}

fn media_out(m: core::Media) -> types::Media {
    types::Media {
        data: m.data,
        mime_type: m.mime_type,
    }
}

pub fn part_in(p: types::ContentPart) -> core::Part {
    match p {
        types::ContentPart::Text(t) => core::Part::Text(t),
        types::ContentPart::Image(m) => core::Part::Image(media_in(m)),
        types::ContentPart::Audio(m) => core::Part::Audio(media_in(m)),
        types::ContentPart::Resource(r) => core::Part::Resource(core::Resource {
            uri: r.uri,
            mime_type: r.mime_type,
            text: r.text,
            blob: r.blob,
        }),
        types::ContentPart::Other(o) => core::Part::Other(o),
    }
}

fn part_out(p: core::Part) -> types::ContentPart {
    match p {
        core::Part::Text(t) => types::ContentPart::Text(t),
        core::Part::Image(m) => types::ContentPart::Image(media_out(m)),
        core::Part::Audio(m) => types::ContentPart::Audio(media_out(m)),
        core::Part::Resource(r) => types::ContentPart::Resource(types::EmbeddedResource {
            uri: r.uri,
            mime_type: r.mime_type,
            text: r.text,
            blob: r.blob,
        }),
        core::Part::Other(o) => types::ContentPart::Other(o),
    }
}

pub fn capped_parts(c: core::CappedParts) -> types::CappedParts {
    types::CappedParts {
        parts: c.parts.into_iter().map(part_out).collect(),
        report: report(c.report),
    }
}

pub fn page(p: readback::Page) -> types::Page {
    types::Page {
        text: p.text,
        offset: p.offset,
        first_line: p.first_line,
        next_offset: p.next_offset,
        next_line: p.next_line,
        total_bytes: p.total_bytes,
    }
}

pub fn grep_result(g: readback::GrepResult) -> types::GrepResult {
    types::GrepResult {
        matches: g
            .matches
            .into_iter()
            .map(|m| types::GrepMatch {
                line: m.line,
                offset: m.offset,
                excerpt: m.excerpt,
                excerpt_offset: m.excerpt_offset,
            })
            .collect(),
        total_matches: g.total_matches,
    }
}

pub fn pruned(p: core::Pruned) -> types::Pruned {
    types::Pruned {
        messages: p.messages,
        replaced: p.replaced,
        bytes_saved: p.bytes_saved,
        total_bytes: p.total_bytes,
        total_tokens: p.total_tokens,
    }
}

pub fn overflow(o: core::classify::Overflow) -> types::Overflow {
    use core::classify::{OverflowKind as K, SizeUnit as U};
    types::Overflow {
        kind: match o.kind {
            K::RequestTooLarge => types::OverflowKind::RequestTooLarge,
            K::ContextLengthExceeded => types::OverflowKind::ContextLengthExceeded,
        },
        limit: o.limit,
        requested: o.requested,
        unit: o.unit.map(|u| match u {
            U::Tokens => types::SizeUnit::Tokens,
            U::Bytes => types::SizeUnit::Bytes,
            U::Characters => types::SizeUnit::Characters,
        }),
    }
}

pub fn prune_policy(p: types::PrunePolicy) -> core::PrunePolicy {
    core::PrunePolicy {
        keep_last: p.keep_last,
        max_total_bytes: p.max_total_bytes,
        max_total_tokens: p.max_total_tokens,
    }
}

pub fn pending(p: types::PendingResult) -> core::batch::Pending {
    match p {
        types::PendingResult::Text(t) => core::batch::Pending::Text(t),
        types::PendingResult::Parts(parts) => {
            core::batch::Pending::Parts(parts.into_iter().map(part_in).collect())
        }
    }
}

pub fn request_limits(l: types::RequestLimits) -> core::plan::RequestLimits {
    core::plan::RequestLimits {
        max_tokens: l.max_tokens,
        max_body_bytes: l.max_body_bytes,
        floor_bytes: l.floor_bytes,
        ceiling: budget(l.ceiling),
    }
}

pub fn budget_out(b: core::Budget) -> types::Budget {
    types::Budget {
        max_bytes: b.max_bytes,
        max_lines: b.max_lines,
        max_line_bytes: b.max_line_bytes,
        keep: match b.keep {
            core::Keep::Head => types::Keep::Head,
            core::Keep::Tail => types::Keep::Tail,
            core::Keep::HeadAndTail => types::Keep::HeadAndTail,
        },
        head_percent: b.head_percent,
        max_tokens: b.max_tokens,
    }
}

pub fn batch_result(r: core::batch::BatchResult) -> types::BatchResult {
    match r {
        core::batch::BatchResult::Text(c) => types::BatchResult::Text(capped(c)),
        core::batch::BatchResult::Parts(p) => types::BatchResult::Parts(capped_parts(p)),
    }
}

pub fn read_tool_spec(s: core::read_tool::ReadToolSpec) -> types::ReadToolSpec {
    types::ReadToolSpec {
        name: s.name,
        description: s.description,
        input_schema: s.input_schema,
    }
}

pub fn read_tool_output(o: core::read_tool::ReadToolOutput) -> types::ReadToolOutput {
    types::ReadToolOutput {
        text: o.text,
        is_error: o.is_error,
    }
}

pub fn spill_entry(e: crate::listing::Entry) -> types::SpillEntry {
    types::SpillEntry {
        reference: overflow_ref(e.reference),
        created_ms: e.created_ms,
        call_id: e.call_id,
        tool: e.tool,
    }
}

pub fn retention_policy(p: types::RetentionPolicy) -> core::retention::RetentionPolicy {
    core::retention::RetentionPolicy {
        max_age_seconds: p.max_age_seconds,
        max_total_bytes: p.max_total_bytes,
        max_files: p.max_files,
    }
}
