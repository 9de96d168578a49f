//! The vector file format of `tests/vectors/README.md`, as strict serde types.
//!
//! Every struct denies unknown fields, so a typo in a vector fails loudly
//! instead of silently checking nothing. Field order here is the order BLESS
//! writes them in.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One vector file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    pub name: String,
    pub about: String,
    pub session: SessionSpec,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    pub thread_id: String,
    pub key_hex: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_root: Option<String>,
    /// `true`: pass no display root, so the host picks its default (the
    /// canonical spill directory). Excludes `display_root`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_root_default: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preopen: Option<Preopen>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_hints: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notable_patterns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redaction: Option<RedactionSpec>,
}

/// `session-settings.redaction`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionSpec {
    #[serde(default)]
    pub literals: Vec<String>,
    #[serde(default)]
    pub spill: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preopen {
    ReadWrite,
    ReadOnly,
    None,
}

/// A text argument: a plain string, or `{"gen": [segments]}`.
#[derive(Debug, Clone, PartialEq)]
pub enum TextInput {
    Plain(String),
    Generated(Vec<Segment>),
}

/// One generator segment: `{"text", "times"}` or `{"lines", "from", "count"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Generator {
    r#gen: Vec<Segment>,
}

impl<'de> Deserialize<'de> for TextInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Through a `Value`, so errors name the generator instead of serde's
        // "did not match any variant of untagged enum".
        use serde::de::Error as _;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(TextInput::Plain(s)),
            value @ serde_json::Value::Object(_) => serde_json::from_value::<Generator>(value)
                .map(|g| TextInput::Generated(g.r#gen))
                .map_err(|e| D::Error::custom(format!("bad generator: {e}"))),
            other => Err(D::Error::custom(format!(
                "a text input must be a string or {{\"gen\": [...]}}, got {other}"
            ))),
        }
    }
}

impl Serialize for TextInput {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TextInput::Plain(text) => text.serialize(s),
            TextInput::Generated(segments) => Generator {
                r#gen: segments.clone(),
            }
            .serialize(s),
        }
    }
}

/// `Option<Option<T>>` for nullable expectations: absent = not checked,
/// `null` = must be none.
mod nullable {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }

    pub fn serialize<S: Serializer, T: Serialize>(
        value: &Option<Option<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeepSpec {
    Head,
    Tail,
    HeadAndTail,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    pub max_bytes: u32,
    #[serde(default)]
    pub max_lines: Option<u32>,
    #[serde(default)]
    pub max_line_bytes: Option<u32>,
    pub keep: KeepSpec,
    pub head_percent: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MediaSpec {
    pub data: String,
    pub mime_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A content part, as `{"text": s}`, `{"image": {...}}` and so on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartSpec {
    Text(TextInput),
    Image(MediaSpec),
    Audio(MediaSpec),
    Resource(ResourceSpec),
    Other(String),
}

/// One step; `op` selects the variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Step {
    Cap(CapStep),
    CapParts(CapPartsStep),
    CapMcp(CapMcpStep),
    FindRefs(FindRefsStep),
    PrunedPlaceholder(PlaceholderStep),
    Read(ReadStep),
    ReadLines(ReadLinesStep),
    Grep(GrepStep),
    Prune(PruneStep),
    Purge(PurgeStep),
    Classify(ClassifyStep),
    HostPath(HostPathStep),
    EstimateTokens(EstimateStep),
    Calibrate(CalibrateStep),
    Plan(PlanStep),
    CapBatch(CapBatchStep),
    Stream(StreamStep),
    ReadTool(ReadToolStep),
    RunReadTool(RunReadToolStep),
    List(ListStep),
    Sweep(SweepStep),
    Stats(StatsStep),
}

impl Step {
    /// The `op` name, for reports.
    pub fn op(&self) -> &'static str {
        match self {
            Step::Cap(_) => "cap",
            Step::CapParts(_) => "cap-parts",
            Step::CapMcp(_) => "cap-mcp",
            Step::FindRefs(_) => "find-refs",
            Step::PrunedPlaceholder(_) => "pruned-placeholder",
            Step::Read(_) => "read",
            Step::ReadLines(_) => "read-lines",
            Step::Grep(_) => "grep",
            Step::Prune(_) => "prune",
            Step::Purge(_) => "purge",
            Step::Classify(_) => "classify",
            Step::HostPath(_) => "host-path",
            Step::EstimateTokens(_) => "estimate-tokens",
            Step::Calibrate(_) => "calibrate",
            Step::Plan(_) => "plan",
            Step::CapBatch(_) => "cap-batch",
            Step::Stream(_) => "stream",
            Step::ReadTool(_) => "read-tool",
            Step::RunReadTool(_) => "run-read-tool",
            Step::List(_) => "list",
            Step::Sweep(_) => "sweep",
            Step::Stats(_) => "stats",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapStep {
    pub input: TextInput,
    pub budget: BudgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallSpec>,
    pub expect: CapExpect,
}

/// A cap step's `call` record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// What the tool searched for: literal alternatives, one per line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
}

/// The call of a cap step: exactly one of `call_id` and `call`.
pub fn call_of(call_id: &Option<String>, call: &Option<CallSpec>) -> Result<CallSpec, String> {
    match (call_id, call) {
        (Some(id), None) => Ok(CallSpec {
            id: id.clone(),
            tool: None,
            exit_code: None,
            is_error: false,
            search: None,
        }),
        (None, Some(call)) => Ok(call.clone()),
        _ => Err("a cap step needs exactly one of `call_id` and `call`".into()),
    }
}

/// Expectations of `cap` and `cap-parts` (whose `parts` only `cap-parts` may use).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spilled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_lines: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_lines: Option<u32>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub gap_line: Option<Option<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notable_lines: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded_lines: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spill_error_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_not_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<PartSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redactions: Option<std::collections::BTreeMap<String, u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spill_text: Option<TextInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapPartsStep {
    pub parts: Vec<PartSpec>,
    pub budget: BudgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallSpec>,
    pub expect: CapExpect,
}

/// `cap-mcp`: `result` is a JSON value the runner sends serialised
/// (compact, keys sorted, `{"gen": [...]}` objects expanded to their text),
/// or a string sent as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapMcpStep {
    pub result: serde_json::Value,
    pub budget: BudgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<McpOptionsSpec>,
    pub expect: McpExpect,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpOptionsSpec {
    #[serde(default)]
    pub resource_link: bool,
}

/// Expectations of `cap-mcp`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spilled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_lines: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redactions: Option<std::collections::BTreeMap<String, u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_dropped: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_spilled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_types: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_not_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_not_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_blocks: Option<Vec<[usize; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub meta_record: Option<Option<serde_json::Value>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindRefsStep {
    pub text: TextInput,
    pub expect: FindRefsExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindRefsExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceholderStep {
    pub call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tamper: Option<Tamper>,
    pub expect: TextExpect,
}

/// Fields of a spill reference to replace before asking for its placeholder.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tamper {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

/// Expectations of a step whose answer is one text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_not_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadStep {
    pub path: String,
    pub offset: u64,
    pub max_bytes: u32,
    pub expect: PageExpect,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadLinesStep {
    pub path: String,
    pub first_line: u64,
    pub count: u32,
    pub max_bytes: u32,
    pub expect: PageExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u64>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<Option<u64>>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub next_line: Option<Option<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_not_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrepStep {
    pub path: String,
    pub pattern: String,
    pub max_matches: u32,
    pub expect: GrepExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrepExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<Vec<MatchExpect>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt_offset: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PruneStep {
    pub messages: Vec<TextInput>,
    pub policy: PolicySpec,
    pub expect: PruneExpect,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    #[serde(default)]
    pub keep_last: Option<u32>,
    #[serde(default)]
    pub max_total_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_tokens: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PruneExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_saved: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PurgeStep {
    pub expect: PurgeExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PurgeExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freed: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifyStep {
    pub status: u16,
    pub body: TextInput,
    pub expect: ClassifyExpect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KindSpec {
    RequestTooLarge,
    ContextLengthExceeded,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifyExpect {
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Option<KindSpec>>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub limit: Option<Option<u64>>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub requested: Option<Option<u64>>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub unit: Option<Option<UnitSpec>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitSpec {
    Tokens,
    Bytes,
    Characters,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateStep {
    pub text: TextInput,
    pub expect: EstimateExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrateStep {
    pub text: TextInput,
    pub actual_tokens: u64,
    pub expect: CalibrateExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrateExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
}

/// A pending result: `{"text": ...}` or `{"parts": [...]}`, and for
/// `cap-batch` its call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<PartSpec>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_body_bytes: Option<u64>,
    pub floor_bytes: u32,
    pub ceiling: BudgetSpec,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    pub results: Vec<PendingSpec>,
    pub limits: LimitsSpec,
    pub expect: PlanExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<Vec<BudgetSpec>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapBatchStep {
    pub results: Vec<PendingSpec>,
    pub limits: LimitsSpec,
    pub expect: CapBatchExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapBatchExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<CapExpect>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostPathStep {
    pub path: String,
    pub expect: HostPathExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostPathExpect {
    /// `<thread>/<file>` inside the granted directory, or null for no mapping.
    #[serde(with = "nullable")]
    pub relative: Option<Option<String>>,
}

/// Parses one vector file's text.
pub fn parse(json: &str) -> Result<Vector, serde_json::Error> {
    serde_json::from_str(json)
}

/// The canonical text BLESS writes: pretty JSON, 2 spaces, final LF.
pub fn render(vector: &Vector) -> String {
    let mut text = serde_json::to_string_pretty(vector).expect("vectors serialize");
    text.push('\n');
    text
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamStep {
    pub input: TextInput,
    pub budget: BudgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallSpec>,
    pub chunk_bytes: Vec<usize>,
    /// `set-exit-code` after the last write; `cap` compares with it in the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code_at_end: Option<i32>,
    pub expect: CapExpect,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadToolStep {
    pub expect: ReadToolExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadToolExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_properties: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunReadToolStep {
    /// A JSON value sent serialised, or a string sent as it is.
    pub arguments: serde_json::Value,
    pub expect: RunReadToolExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunReadToolExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_not_contains: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListStep {
    pub expect: ListExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<EntryExpect>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, with = "nullable", skip_serializing_if = "Option::is_none")]
    pub tool: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepStep {
    pub policy: RetentionSpec,
    pub expect: SweepExpect,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionSpec {
    #[serde(default)]
    pub max_age_seconds: Option<u64>,
    #[serde(default)]
    pub max_total_bytes: Option<u64>,
    #[serde(default)]
    pub max_files: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<Vec<SweptExpect>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_files: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_contains: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweptExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsStep {
    pub expect: StatsExpect,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}
