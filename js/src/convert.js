// Between the wrapper's plain JS values and the shapes jco expects.
//
// jco wraps out-of-range integers silently (-1 becomes 4294967295), so every
// integer is checked here first. u64 values come back as BigInt and are kept
// that way: a JS number is exact only up to 2^53.

const KEEPS = ['head', 'tail', 'head-and-tail'];
const U64_MAX = 2n ** 64n - 1n;

/** The defaults of `budget()`, the same as the Rust host's. */
export const DEFAULT_MAX_LINES = 400;
export const DEFAULT_MAX_LINE_BYTES = 2000;
export const DEFAULT_KEEP = 'head-and-tail';
export const DEFAULT_HEAD_PERCENT = 40;
/** The default per-result ceiling of `plan`/`capBatch`: the Rust host's default budget. */
export const DEFAULT_MAX_BYTES = 16 * 1024;

function uint(value, bits, what) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${what} must be an integer number, got ${describe(value)}`);
  }
  if (value < 0 || value > 2 ** bits - 1) {
    throw new RangeError(`${what} must be between 0 and ${2 ** bits - 1}, got ${value}`);
  }
  return value;
}

/** A WIT `s32`: an integer between -2^31 and 2^31-1. */
export function s32(value, what) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${what} must be an integer number, got ${describe(value)}`);
  }
  if (value < -(2 ** 31) || value > 2 ** 31 - 1) {
    throw new RangeError(`${what} must be between ${-(2 ** 31)} and ${2 ** 31 - 1}, got ${value}`);
  }
  return value;
}

export const u8 = (value, what) => uint(value, 8, what);
export const u16 = (value, what) => uint(value, 16, what);
export const u32 = (value, what) => uint(value, 32, what);

/** A u64 argument, given as a number or a BigInt. */
export function u64(value, what) {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`${what} must be a safe integer or a BigInt, got ${value}`);
    }
    value = BigInt(value);
  } else if (typeof value !== 'bigint') {
    throw new TypeError(`${what} must be a number or a BigInt, got ${describe(value)}`);
  }
  if (value < 0n || value > U64_MAX) {
    throw new RangeError(`${what} must be between 0 and 2^64-1, got ${value}`);
  }
  return value;
}

/** A WIT `f64` that must be a finite number (NaN and infinities are refused). */
export function finite(value, what) {
  if (typeof value !== 'number') {
    throw new TypeError(`${what} must be a number, got ${describe(value)}`);
  }
  if (!Number.isFinite(value)) {
    throw new RangeError(`${what} must be a finite number, got ${value}`);
  }
  return value;
}

const orNull = (value) => (value === undefined ? null : value);

function optional(value, convert, what) {
  return value === undefined || value === null ? undefined : convert(value, what);
}

export function string(value, what) {
  if (typeof value !== 'string') {
    throw new TypeError(`${what} must be a string, got ${describe(value)}`);
  }
  return value;
}

function optionalString(value, what) {
  return optional(value, string, what);
}

export function boolean(value, what) {
  if (typeof value !== 'boolean') {
    throw new TypeError(`${what} must be a boolean, got ${describe(value)}`);
  }
  return value;
}

/** A list of strings, as a fresh array. */
export function strings(value, what) {
  if (!Array.isArray(value)) {
    throw new TypeError(`${what} must be an array of strings, got ${describe(value)}`);
  }
  return value.map((item, i) => string(item, `${what}[${i}]`));
}

function describe(value) {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** A camelCase budget as the component takes it; absent limits mean none. */
export function toBudget(budget) {
  if (typeof budget !== 'object' || budget === null) {
    throw new TypeError('budget must be an object such as budget(16384)');
  }
  const keep = budget.keep ?? DEFAULT_KEEP;
  if (!KEEPS.includes(keep)) {
    throw new TypeError(`budget.keep must be one of ${KEEPS.join(', ')}, got ${String(keep)}`);
  }
  return {
    maxBytes: u32(budget.maxBytes, 'budget.maxBytes'),
    maxLines: optional(budget.maxLines, u32, 'budget.maxLines'),
    maxLineBytes: optional(budget.maxLineBytes, u32, 'budget.maxLineBytes'),
    keep,
    headPercent: u8(budget.headPercent ?? DEFAULT_HEAD_PERCENT, 'budget.headPercent'),
    maxTokens: optional(budget.maxTokens, u32, 'budget.maxTokens'),
  };
}

/** A budget from the component (a plan's), with absent limits as null. */
export function fromBudget(b) {
  return {
    maxBytes: b.maxBytes,
    maxLines: orNull(b.maxLines),
    maxLineBytes: orNull(b.maxLineBytes),
    keep: b.keep,
    headPercent: b.headPercent,
    maxTokens: orNull(b.maxTokens),
  };
}

// The snake_case spellings a caller coming from JSON or Python may write, and
// the names a tool gives what it searched for (grep's and rg's `pattern`, a
// search tool's `query`, `patterns`): silently ignoring them would lose the
// failure the notice should state, or the hits the preview should show.
const CALL_MISSPELLINGS = {
  exit_code: 'exitCode',
  is_error: 'isError',
  pattern: 'search',
  patterns: 'search',
  query: 'search',
};

/**
 * A call's `search`: a string (literal alternatives, one per line, as grep
 * reads its patterns) or an array of strings (the alternatives, joined with
 * "\n"); absent or null is no search. The component checks the limits (16
 * alternatives of 256 bytes at most, else `invalid-argument`).
 */
function toSearch(search, what) {
  if (search === undefined || search === null) return undefined;
  if (typeof search === 'string') return search;
  if (Array.isArray(search)) return strings(search, what).join('\n');
  throw new TypeError(`${what} must be a string or an array of strings, got ${describe(search)}`);
}

/**
 * The tool call a result came from: a string is its id (no tool name, no
 * failure, no search); an object is `{ id, tool?, exitCode?, isError?,
 * search? }`.
 */
export function toCall(call, what = 'call') {
  if (typeof call === 'string') return { id: call, isError: false };
  if (typeof call !== 'object' || call === null || Array.isArray(call)) {
    throw new TypeError(
      `${what} must be a string id or an object { id, tool?, exitCode?, isError?, search? }, got ${describe(call)}`,
    );
  }
  for (const [wrong, right] of Object.entries(CALL_MISSPELLINGS)) {
    if (Object.hasOwn(call, wrong)) throw new TypeError(`${what}.${wrong} is not a field; write ${what}.${right}`);
  }
  return {
    id: string(call.id, `${what}.id`),
    tool: optionalString(call.tool, `${what}.tool`),
    exitCode: optional(call.exitCode, s32, `${what}.exitCode`),
    isError: call.isError === undefined || call.isError === null ? false : boolean(call.isError, `${what}.isError`),
    search: toSearch(call.search, `${what}.search`),
  };
}

/** A prune policy; absent fields mean no limit of that kind. */
export function toPolicy(policy = {}) {
  return {
    keepLast: optional(policy.keepLast, u32, 'policy.keepLast'),
    maxTotalBytes: optional(policy.maxTotalBytes, u64, 'policy.maxTotalBytes'),
    maxTotalTokens: optional(policy.maxTotalTokens, u64, 'policy.maxTotalTokens'),
  };
}

// Spellings from JSON, Python or the WIT that would otherwise be ignored,
// leaving the request without the limit the caller meant.
const LIMITS_MISSPELLINGS = {
  max_tokens: 'limits.maxTokens',
  max_body_bytes: 'limits.maxBodyBytes',
  floor_bytes: 'limits.floorBytes',
  maxBytes: 'limits.maxBodyBytes (the request) or limits.ceiling.maxBytes (each result)',
};

/**
 * What the next request has left for a turn's results: `{ maxTokens?,
 * maxBodyBytes?, floorBytes?, ceiling? }`. Absent limits mean none;
 * `floorBytes` defaults to 0 and `ceiling` to a 16 KiB budget with the
 * defaults of `budget()`.
 */
export function toLimits(limits) {
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    throw new TypeError(
      `limits must be an object { maxTokens?, maxBodyBytes?, floorBytes?, ceiling? }, got ${describe(limits)}`,
    );
  }
  for (const [wrong, right] of Object.entries(LIMITS_MISSPELLINGS)) {
    if (Object.hasOwn(limits, wrong)) throw new TypeError(`limits.${wrong} is not a field; write ${right}`);
  }
  const ceiling =
    limits.ceiling === undefined || limits.ceiling === null
      ? {
          maxBytes: DEFAULT_MAX_BYTES,
          maxLines: DEFAULT_MAX_LINES,
          maxLineBytes: DEFAULT_MAX_LINE_BYTES,
          keep: DEFAULT_KEEP,
          headPercent: DEFAULT_HEAD_PERCENT,
        }
      : limits.ceiling;
  return {
    maxTokens: optional(limits.maxTokens, u64, 'limits.maxTokens'),
    maxBodyBytes: optional(limits.maxBodyBytes, u64, 'limits.maxBodyBytes'),
    floorBytes: u32(limits.floorBytes ?? 0, 'limits.floorBytes'),
    ceiling: toBudget(ceiling),
  };
}

/**
 * One pending result of a turn: `{ text }` or `{ parts }` (MCP content
 * parts), with its `call`, which capBatch requires (`withCall`) and plan
 * checks but does not use. Returns `{ call, pending }`, `pending` as the
 * component's variant.
 */
export function toPending(item, index, withCall) {
  const what = `results[${index}]`;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new TypeError(`${what} must be an object { call, text } or { call, parts }, got ${describe(item)}`);
  }
  const hasText = item.text !== undefined && item.text !== null;
  const hasParts = item.parts !== undefined && item.parts !== null;
  if (hasText === hasParts) {
    throw new TypeError(`${what} must have exactly one of text (a string) and parts (an array of content parts)`);
  }
  let pending;
  if (hasText) {
    pending = { tag: 'text', val: string(item.text, `${what}.text`) };
  } else {
    if (!Array.isArray(item.parts)) throw new TypeError(`${what}.parts must be an array of content parts`);
    pending = { tag: 'parts', val: item.parts.map((part, i) => toPart(part, i, `${what}.parts`)) };
  }
  const hasCall = item.call !== undefined && item.call !== null;
  if (withCall && !hasCall) {
    throw new TypeError(`${what}.call is missing: the call's id, or { id, tool?, exitCode?, isError?, search? }`);
  }
  // plan ignores a call, but a malformed one is still a mistake worth a throw.
  const call = hasCall ? toCall(item.call, `${what}.call`) : undefined;
  return { call, pending };
}

/** An overflow reference handed back to the component. */
export function toRef(ref) {
  if (typeof ref !== 'object' || ref === null) {
    throw new TypeError('ref must be an overflow reference from cap() or findRefs()');
  }
  return {
    path: string(ref.path, 'ref.path'),
    relativePath: string(ref.relativePath, 'ref.relativePath'),
    bytes: u64(ref.bytes, 'ref.bytes'),
    lines: u64(ref.lines, 'ref.lines'),
    digest: string(ref.digest, 'ref.digest'),
    tag: string(ref.tag, 'ref.tag'),
  };
}

function toMedia(part, what) {
  return { data: string(part.data, `${what}.data`), mimeType: string(part.mimeType, `${what}.mimeType`) };
}

/**
 * A content part in MCP's shape (`{type: 'text', text}`, `{type: 'image',
 * data, mimeType}`, `{type: 'resource', resource: {uri, ...}}`, ...) as the
 * component's variant.
 */
export function toPart(part, index, list = 'parts') {
  const what = `${list}[${index}]`;
  switch (part?.type) {
    case 'text':
      return { tag: 'text', val: string(part.text, `${what}.text`) };
    case 'image':
    case 'audio':
      return { tag: part.type, val: toMedia(part, what) };
    case 'resource': {
      const r = part.resource ?? {};
      return {
        tag: 'resource',
        val: {
          uri: string(r.uri, `${what}.resource.uri`),
          mimeType: optionalString(r.mimeType, `${what}.resource.mimeType`),
          text: optionalString(r.text, `${what}.resource.text`),
          blob: optionalString(r.blob, `${what}.resource.blob`),
        },
      };
    }
    case 'other':
      return { tag: 'other', val: string(part.value, `${what}.value`) };
    default:
      throw new TypeError(
        `${what}.type must be text, image, audio, resource or other, got ${String(part?.type)}`,
      );
  }
}

/** A component part back in MCP's shape; absent resource fields are left out. */
export function fromPart({ tag, val }) {
  switch (tag) {
    case 'text':
      return { type: 'text', text: val };
    case 'image':
    case 'audio':
      return { type: tag, data: val.data, mimeType: val.mimeType };
    case 'resource': {
      const resource = { uri: val.uri };
      for (const key of ['mimeType', 'text', 'blob']) {
        if (val[key] !== undefined) resource[key] = val[key];
      }
      return { type: 'resource', resource };
    }
    default:
      return { type: 'other', value: val };
  }
}

function fromRef(ref) {
  return {
    path: ref.path,
    relativePath: ref.relativePath,
    bytes: ref.bytes,
    lines: ref.lines,
    digest: ref.digest,
    tag: ref.tag,
  };
}

function fromReport(r) {
  return {
    truncated: r.truncated,
    originalBytes: r.originalBytes,
    originalLines: r.originalLines,
    omittedBytes: r.omittedBytes,
    omittedLines: r.omittedLines,
    gapLine: orNull(r.gapLine),
    notableLines: r.notableLines,
    foldedLines: r.foldedLines,
    originalTokens: r.originalTokens,
    tokens: r.tokens,
    spill: r.spill === undefined ? null : fromRef(r.spill),
    spillError: orNull(r.spillError),
    redactions: r.redactions.map(({ kind, count }) => ({ kind, count })),
  };
}

export function fromCapped(c) {
  return { text: c.text, report: fromReport(c.report) };
}

export function fromCappedParts(c) {
  return { parts: c.parts.map(fromPart), report: fromReport(c.report) };
}

/** `mcp-options`: `{ resourceLink? }`, every field optional (default false). */
export function toMcpOptions(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('options must be an object like { resourceLink: true }');
  }
  const unknown = Object.keys(options).filter((k) => k !== 'resourceLink');
  if (unknown.length > 0) throw new TypeError(`options has unknown field ${JSON.stringify(unknown[0])}`);
  return { resourceLink: options.resourceLink === undefined ? false : boolean(options.resourceLink, 'options.resourceLink') };
}

export function fromCappedMcp(c) {
  return {
    result: c.result,
    report: fromReport(c.report),
    structuredDropped: c.structuredDropped,
    structuredSpill: c.structuredSpill === undefined ? null : fromRef(c.structuredSpill),
  };
}

/** A `batch-result` as what cap (a text result) or capParts (parts) returns. */
export function fromBatchResult({ tag, val }) {
  return tag === 'parts' ? fromCappedParts(val) : fromCapped(val);
}

export { fromRef };

export function fromPage(p) {
  return {
    text: p.text,
    offset: p.offset,
    firstLine: p.firstLine,
    nextOffset: orNull(p.nextOffset),
    nextLine: orNull(p.nextLine),
    totalBytes: p.totalBytes,
  };
}

export function fromGrep(g) {
  return {
    matches: g.matches.map((m) => ({
      line: m.line,
      offset: m.offset,
      excerpt: m.excerpt,
      excerptOffset: m.excerptOffset,
    })),
    totalMatches: g.totalMatches,
  };
}

export function fromPruned(p) {
  return {
    messages: p.messages,
    replaced: Array.from(p.replaced),
    bytesSaved: p.bytesSaved,
    totalBytes: p.totalBytes,
    totalTokens: p.totalTokens,
  };
}

/** An `overflow` with absent amounts as null; `limit`/`requested` stay BigInt (u64). */
export function fromOverflow(o) {
  return { kind: o.kind, limit: orNull(o.limit), requested: orNull(o.requested), unit: orNull(o.unit) };
}

/**
 * The session's redaction policy: absent or null redacts nothing; an object
 * `{ literals?, spill? }` turns it on (`literals` default [], `spill`
 * default false: only what the model is shown is redacted).
 */
export function toRedaction(redaction) {
  if (redaction === undefined || redaction === null) return undefined;
  if (typeof redaction !== 'object' || Array.isArray(redaction)) {
    throw new TypeError(`redaction must be an object { literals?, spill? }, got ${describe(redaction)}`);
  }
  const { literals, spill } = redaction;
  return {
    literals: literals === undefined || literals === null ? [] : strings(literals, 'redaction.literals'),
    spill: spill === undefined || spill === null ? false : boolean(spill, 'redaction.spill'),
  };
}

/**
 * The read tool's arguments as the component takes them: a string is the
 * model's JSON as it arrived, sent as is; an object (what a provider's SDK
 * already parsed) is serialised with JSON.stringify.
 */
export function toToolArguments(args) {
  if (typeof args === 'string') return args;
  if (typeof args !== 'object' || args === null) {
    throw new TypeError(`arguments must be a JSON string or an object, got ${describe(args)}`);
  }
  return JSON.stringify(args);
}

const encoder = new TextEncoder();

/** A chunk of a stream: bytes as they are, a string as its UTF-8. */
export function toChunk(chunk) {
  if (typeof chunk === 'string') return encoder.encode(chunk);
  if (chunk instanceof Uint8Array) return chunk;
  throw new TypeError(`chunk must be a Uint8Array (or Buffer) or a string, got ${describe(chunk)}`);
}

const RETENTION_MISSPELLINGS = {
  max_age_seconds: 'maxAgeSeconds',
  max_total_bytes: 'maxTotalBytes',
  max_files: 'maxFiles',
};

/** A sweep's `{ maxAgeSeconds?, maxTotalBytes?, maxFiles? }`; absent or null: no limit of that kind. */
export function toRetentionPolicy(policy) {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new TypeError(
      `policy must be an object { maxAgeSeconds?, maxTotalBytes?, maxFiles? }, got ${describe(policy)}`,
    );
  }
  for (const [wrong, right] of Object.entries(RETENTION_MISSPELLINGS)) {
    if (Object.hasOwn(policy, wrong)) throw new TypeError(`policy.${wrong} is not a field; write policy.${right}`);
  }
  return {
    maxAgeSeconds: optional(policy.maxAgeSeconds, u64, 'policy.maxAgeSeconds'),
    maxTotalBytes: optional(policy.maxTotalBytes, u64, 'policy.maxTotalBytes'),
    maxFiles: optional(policy.maxFiles, u32, 'policy.maxFiles'),
  };
}

export function fromReadToolSpec(spec) {
  return { name: spec.name, description: spec.description, inputSchema: spec.inputSchema };
}

export function fromReadToolOutput(output) {
  return { text: output.text, isError: output.isError };
}

export function fromSpillEntry(entry) {
  return {
    reference: fromRef(entry.reference),
    createdMs: entry.createdMs,
    callId: entry.callId,
    tool: orNull(entry.tool),
  };
}

export function fromStoreStats(stats) {
  return {
    threads: stats.threads,
    files: stats.files,
    bytes: stats.bytes,
    oldestMs: orNull(stats.oldestMs),
    newestMs: orNull(stats.newestMs),
  };
}

export function fromSweepReport(report) {
  return {
    deleted: report.deleted.map((d) => ({
      relativePath: d.relativePath,
      bytes: d.bytes,
      createdMs: d.createdMs,
      reason: d.reason,
    })),
    keptFiles: report.keptFiles,
    keptBytes: report.keptBytes,
    skipped: Array.from(report.skipped),
  };
}

/** The session key as bytes; absent means "draw a random one". */
export function toKey(key) {
  if (key === undefined || key === null) return new Uint8Array(0);
  if (!(key instanceof Uint8Array)) {
    throw new TypeError('key must be a Uint8Array or Buffer of at least 16 bytes');
  }
  // A Buffer may be a view into a larger pool: copy exactly its bytes.
  return new Uint8Array(key);
}
