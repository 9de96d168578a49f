//! Between the vector format's types and the component's.

use tool_output_cap::{
    Budget, SessionConfig,
    types::{
        ContentPart, EmbeddedResource, Keep, Media, OverflowKind, PendingResult, PrunePolicy,
        RequestLimits, SizeUnit,
    },
};

use super::format::{
    BudgetSpec, KeepSpec, KindSpec, LimitsSpec, MediaSpec, PartSpec, PendingSpec, PolicySpec,
    Preopen, ResourceSpec, SessionSpec, TextInput, UnitSpec,
};
use super::inputs::build;

/// Display root of a vector session that names none.
pub const DEFAULT_DISPLAY_ROOT: &str = "/spill-host";

pub fn budget(spec: &BudgetSpec) -> Budget {
    Budget {
        max_bytes: spec.max_bytes,
        max_lines: spec.max_lines,
        max_line_bytes: spec.max_line_bytes,
        keep: match spec.keep {
            KeepSpec::Head => Keep::Head,
            KeepSpec::Tail => Keep::Tail,
            KeepSpec::HeadAndTail => Keep::HeadAndTail,
        },
        head_percent: spec.head_percent,
        max_tokens: spec.max_tokens,
    }
}

/// A budget as a vector writes it, for exact `budgets` expectations.
pub fn budget_spec(b: &Budget) -> BudgetSpec {
    BudgetSpec {
        max_bytes: b.max_bytes,
        max_lines: b.max_lines,
        max_line_bytes: b.max_line_bytes,
        keep: match b.keep {
            Keep::Head => KeepSpec::Head,
            Keep::Tail => KeepSpec::Tail,
            Keep::HeadAndTail => KeepSpec::HeadAndTail,
        },
        head_percent: b.head_percent,
        max_tokens: b.max_tokens,
    }
}

pub fn limits(spec: &LimitsSpec) -> RequestLimits {
    RequestLimits {
        max_tokens: spec.max_tokens,
        max_body_bytes: spec.max_body_bytes,
        floor_bytes: spec.floor_bytes,
        ceiling: budget(&spec.ceiling),
    }
}

/// The pending result of a `plan` or `cap-batch` entry: exactly one of
/// `text` and `parts`.
pub fn pending(spec: &PendingSpec) -> Result<PendingResult, String> {
    match (&spec.text, &spec.parts) {
        (Some(text), None) => Ok(PendingResult::Text(build(text)?)),
        (None, Some(parts)) => Ok(PendingResult::Parts(
            parts.iter().map(part).collect::<Result<_, _>>()?,
        )),
        _ => Err("a pending result needs exactly one of `text` and `parts`".into()),
    }
}

pub fn unit(unit: SizeUnit) -> UnitSpec {
    match unit {
        SizeUnit::Tokens => UnitSpec::Tokens,
        SizeUnit::Bytes => UnitSpec::Bytes,
        SizeUnit::Characters => UnitSpec::Characters,
    }
}

pub fn policy(spec: &PolicySpec) -> PrunePolicy {
    PrunePolicy {
        keep_last: spec.keep_last,
        max_total_bytes: spec.max_total_bytes,
        max_total_tokens: spec.max_total_tokens,
    }
}

pub fn kind(kind: OverflowKind) -> KindSpec {
    match kind {
        OverflowKind::RequestTooLarge => KindSpec::RequestTooLarge,
        OverflowKind::ContextLengthExceeded => KindSpec::ContextLengthExceeded,
    }
}

/// The session a vector asks for, spilling into `dir` unless it has no preopen.
/// The display root a vector's session asks for: `None` is the host's
/// default (`display_root_default`), an absent one [`DEFAULT_DISPLAY_ROOT`].
pub fn display_root(spec: &SessionSpec) -> Result<Option<String>, String> {
    match (spec.display_root_default, &spec.display_root) {
        (Some(true), None) => Ok(None),
        (Some(true), Some(_)) => {
            Err("display_root and display_root_default exclude each other".into())
        }
        (_, root) => Ok(Some(
            root.clone()
                .unwrap_or_else(|| DEFAULT_DISPLAY_ROOT.to_owned()),
        )),
    }
}

pub fn session_config(spec: &SessionSpec, dir: &std::path::Path) -> Result<SessionConfig, String> {
    let preopen = spec.preopen.unwrap_or(Preopen::ReadWrite);
    let display_root = display_root(spec)?;
    Ok(SessionConfig {
        thread_id: spec.thread_id.clone(),
        spill_dir: (preopen != Preopen::None).then(|| dir.to_owned()),
        read_only: preopen == Preopen::ReadOnly,
        display_root,
        key: decode_hex(&spec.key_hex)?,
        read_tool: spec.read_tool.clone(),
        shell_hints: spec.shell_hints.unwrap_or(true),
        notable_patterns: spec.notable_patterns.clone().unwrap_or_default(),
        image_tokens: spec.image_tokens,
        audio_tokens: spec.audio_tokens,
        token_scale: spec.token_scale,
        retention_seconds: spec.retention_seconds,
        redaction: spec
            .redaction
            .as_ref()
            .map(|r| tool_output_cap::types::RedactionPolicy {
                literals: r.literals.clone(),
                spill: r.spill,
            }),
        allow_shared_spill_dir: false,
    })
}

/// The `call` record of a cap step.
pub fn call(spec: &super::format::CallSpec) -> tool_output_cap::Call {
    tool_output_cap::Call {
        search: spec.search.clone(),
        id: spec.id.clone(),
        tool: spec.tool.clone(),
        exit_code: spec.exit_code,
        is_error: spec.is_error,
    }
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    if !hex.len().is_multiple_of(2) {
        return Err(format!("key_hex has an odd number of digits: {hex:?}"));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("key_hex is not hex: {hex:?}"))
        })
        .collect()
}

fn media(spec: &MediaSpec) -> Media {
    Media {
        data: spec.data.clone(),
        mime_type: spec.mime_type.clone(),
    }
}

fn media_spec(media: &Media) -> MediaSpec {
    MediaSpec {
        data: media.data.clone(),
        mime_type: media.mime_type.clone(),
    }
}

pub fn part(spec: &PartSpec) -> Result<ContentPart, String> {
    Ok(match spec {
        PartSpec::Text(text) => ContentPart::Text(build(text)?),
        PartSpec::Image(m) => ContentPart::Image(media(m)),
        PartSpec::Audio(m) => ContentPart::Audio(media(m)),
        PartSpec::Resource(r) => ContentPart::Resource(EmbeddedResource {
            uri: r.uri.clone(),
            mime_type: r.mime_type.clone(),
            text: r.text.clone(),
            blob: r.blob.clone(),
        }),
        PartSpec::Other(o) => ContentPart::Other(o.clone()),
    })
}

/// A part as a vector writes it (texts plain), for exact `parts` expectations.
pub fn part_spec(part: &ContentPart) -> PartSpec {
    match part {
        ContentPart::Text(text) => PartSpec::Text(TextInput::Plain(text.clone())),
        ContentPart::Image(m) => PartSpec::Image(media_spec(m)),
        ContentPart::Audio(m) => PartSpec::Audio(media_spec(m)),
        ContentPart::Resource(r) => PartSpec::Resource(ResourceSpec {
            uri: r.uri.clone(),
            mime_type: r.mime_type.clone(),
            text: r.text.clone(),
            blob: r.blob.clone(),
        }),
        ContentPart::Other(o) => PartSpec::Other(o.clone()),
    }
}

/// A sweep reason as the vectors write it.
pub fn sweep_reason(reason: tool_output_cap::types::SweepReason) -> &'static str {
    use tool_output_cap::types::SweepReason as R;
    match reason {
        R::Age => "age",
        R::TotalBytes => "total-bytes",
        R::FileCount => "file-count",
        R::StaleTemporary => "stale-temporary",
    }
}
