// The vector file format of tests/vectors/README.md, parsed strictly: an
// unknown field, op or value is an error, never silently unchecked (the same
// rules as the Rust runner's serde types with deny_unknown_fields).
//
// A parsed vector keeps the file's snake_case JSON. Optional fields given as
// null are dropped (serde reads them as absent), except "nullable" ones,
// where null means "must be none" and is kept.

class FormatError extends Error {}

const fail = (path, why) => {
  throw new FormatError(`${path}: ${why}`);
};

const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

const str = (v, path) => (typeof v === 'string' ? v : fail(path, `expected a string, got ${typeName(v)}`));
const bool = (v, path) => (typeof v === 'boolean' ? v : fail(path, `expected a boolean, got ${typeName(v)}`));

const uint = (max) => (v, path) =>
  Number.isSafeInteger(v) && v >= 0 && v <= max ? v : fail(path, `expected an integer 0..${max}, got ${JSON.stringify(v)}`);
const u8 = uint(255);
const s32 = (v, path) =>
  Number.isSafeInteger(v) && v >= -(2 ** 31) && v <= 2 ** 31 - 1
    ? v
    : fail(path, `expected an integer -2^31..2^31-1, got ${JSON.stringify(v)}`);
const u16 = uint(65535);
const u32 = uint(2 ** 32 - 1);
// JSON numbers above 2^53 would be rounded by JSON.parse: refuse them.
const u64 = uint(Number.MAX_SAFE_INTEGER);
const f64 = (v, path) =>
  typeof v === 'number' && Number.isFinite(v) ? v : fail(path, `expected a finite number, got ${JSON.stringify(v)}`);

const oneOf = (...values) => (v, path) =>
  values.includes(v) ? v : fail(path, `expected one of ${values.join(', ')}, got ${JSON.stringify(v)}`);

const list = (item) => (v, path) =>
  Array.isArray(v) ? v.map((x, i) => item(x, `${path}[${i}]`)) : fail(path, `expected a list, got ${typeName(v)}`);

/** A field that may be absent or null (both: not given). */
const opt = (type) => ({ type, optional: true });
/** A field whose null is a value ("must be none"); absent: not given. */
const nullable = (type) => ({ type, optional: true, nullable: true });
/** A field that must be given, null being a value. */
const requiredNullable = (type) => ({ type, nullable: true });

function record(fields) {
  return (v, path) => {
    if (typeName(v) !== 'object') fail(path, `expected an object, got ${typeName(v)}`);
    const out = {};
    for (const key of Object.keys(v)) {
      if (!(key in fields)) fail(path, `unknown field "${key}"`);
    }
    for (const [key, spec] of Object.entries(fields)) {
      const { type, optional = false, nullable: keepNull = false } = typeof spec === 'function' ? { type: spec } : spec;
      const value = v[key];
      if (value === undefined || (value === null && optional && !keepNull)) {
        if (!optional) fail(path, `missing field "${key}"`);
        continue;
      }
      out[key] = value === null && keepNull ? null : type(value, `${path}.${key}`);
    }
    return out;
  };
}

const segment = record({ text: opt(str), times: opt(u64), lines: opt(str), from: opt(u64), count: opt(u64) });
const generator = record({ gen: list(segment) });

/** A plain string, or {"gen": [segments]} (checked when built). */
function textInput(v, path) {
  if (typeof v === 'string') return v;
  if (typeName(v) === 'object') return generator(v, `${path} (generator)`);
  return fail(path, `a text input must be a string or {"gen": [...]}, got ${typeName(v)}`);
}

const budget = record({
  max_bytes: u32,
  max_lines: opt(u32),
  max_line_bytes: opt(u32),
  keep: oneOf('head', 'tail', 'head-and-tail'),
  head_percent: u8,
  max_tokens: opt(u32),
});

const media = record({ data: str, mime_type: str });
const resource = record({ uri: str, mime_type: opt(str), text: opt(str), blob: opt(str) });
const partKinds = { text: textInput, image: media, audio: media, resource, other: str };

/** An externally tagged part: an object with exactly one known key. */
function part(v, path) {
  const keys = typeName(v) === 'object' ? Object.keys(v) : [];
  if (keys.length !== 1 || !(keys[0] in partKinds)) {
    fail(path, `a part is one of {${Object.keys(partKinds).join('|')}: ...}, got ${JSON.stringify(v)}`);
  }
  return { [keys[0]]: partKinds[keys[0]](v[keys[0]], `${path}.${keys[0]}`) };
}

const strings = opt(list(str));

/** `{"<kind>": count}`: a cap's redactions per kind. */
function counts(v, path) {
  if (typeName(v) !== 'object') fail(path, `expected an object {"<kind>": count}, got ${typeName(v)}`);
  return Object.fromEntries(Object.entries(v).map(([kind, n]) => [kind, u32(n, `${path}.${kind}`)]));
}

const capExpect = record({
  error: opt(str),
  truncated: opt(bool),
  spilled: opt(bool),
  original_bytes: opt(u32),
  original_lines: opt(u32),
  omitted_bytes: opt(u32),
  omitted_lines: opt(u32),
  gap_line: nullable(u32),
  notable_lines: opt(u32),
  folded_lines: opt(u32),
  original_tokens: opt(u32),
  tokens: opt(u32),
  spill_error_contains: opt(str),
  text_contains: strings,
  text_not_contains: strings,
  text: opt(str),
  parts: opt(list(part)),
  redactions: opt(counts),
  spill_text: opt(textInput),
});
const pageExpect = record({
  error: opt(str),
  offset: opt(u64),
  first_line: opt(u64),
  next_offset: nullable(u64),
  next_line: nullable(u64),
  total_bytes: opt(u64),
  text_contains: strings,
  text_not_contains: strings,
  text: opt(str),
});
const textExpect = record({ error: opt(str), text_contains: strings, text_not_contains: strings, text: opt(str) });
const matchExpect = record({ line: opt(u64), offset: opt(u64), excerpt: opt(str), excerpt_offset: opt(u64) });

/** A cap step's `call`: the WIT `call` record, `is_error` false and `search` none when absent. */
const call = record({ id: str, tool: opt(str), exit_code: opt(s32), is_error: opt(bool), search: opt(str) });

/** Expectations of cap-mcp (tests/vectors/README.md). */
const mcpExpect = record({
  error: opt(str),
  unchanged: opt(bool),
  truncated: opt(bool),
  spilled: opt(bool),
  original_bytes: opt(u32),
  original_lines: opt(u32),
  omitted_bytes: opt(u32),
  original_tokens: opt(u32),
  tokens: opt(u32),
  redactions: opt((v, path) => {
    if (typeName(v) !== 'object') fail(path, `expected an object, got ${typeName(v)}`);
    return Object.fromEntries(Object.entries(v).map(([k, n]) => [k, u32(n, `${path}.${k}`)]));
  }),
  structured_dropped: opt(bool),
  structured_spilled: opt(bool),
  content_types: opt(list(str)),
  notice_contains: opt(list(str)),
  text_contains: opt(list(str)),
  text_not_contains: opt(list(str)),
  result_contains: opt(list(str)),
  result_not_contains: opt(list(str)),
  same_blocks: opt(
    list((v, path) =>
      Array.isArray(v) && v.length === 2 ? v.map((x, i) => u32(x, `${path}[${i}]`)) : fail(path, 'expected [output index, input index]'),
    ),
  ),
  is_error: opt(bool),
  meta_record: nullable((v, path) => (typeName(v) === 'object' ? v : fail(path, `expected an object, got ${typeName(v)}`))),
});

/** `limits` of plan and cap-batch: the WIT `request-limits`. */
const limits = record({ max_tokens: opt(u64), max_body_bytes: opt(u64), floor_bytes: u32, ceiling: budget });

/** Exactly one of the two fields `a` and `b` of a parsed record `r`. */
function exactlyOne(r, a, b, path, why) {
  if ((r[a] === undefined) === (r[b] === undefined)) fail(path, why);
  return r;
}

/** A pending result of plan: `{"text": ...}` or `{"parts": [...]}`. */
const planPending = (v, path) =>
  exactlyOne(
    record({ text: opt(textInput), parts: opt(list(part)) })(v, path),
    'text',
    'parts',
    path,
    'a pending result has exactly one of "text" and "parts"',
  );

/** A pending result of cap-batch: a plan's, plus its call as a cap step names it. */
function batchPending(v, path) {
  const r = record({ call_id: opt(str), call: opt(call), text: opt(textInput), parts: opt(list(part)) })(v, path);
  exactlyOne(r, 'text', 'parts', path, 'a pending result has exactly one of "text" and "parts"');
  const why = 'a cap-batch result names its call by exactly one of "call_id" and "call"';
  return exactlyOne(r, 'call_id', 'call', path, why);
}

const sizeUnit = oneOf('tokens', 'bytes', 'characters');

/** classify: `limit`, `requested` and `unit` only when `kind` is not null. */
function classifyExpect(v, path) {
  const e = record({
    kind: nullable(oneOf('request-too-large', 'context-length-exceeded')),
    limit: nullable(u64),
    requested: nullable(u64),
    unit: nullable(sizeUnit),
  })(v, path);
  if (e.kind === null) {
    for (const field of ['limit', 'requested', 'unit']) {
      if (field in e) fail(path, `"${field}" is only for a size error; "kind" is null`);
    }
  }
  return e;
}

const sweepReason = oneOf('age', 'total-bytes', 'file-count', 'stale-temporary');

/** A step's arguments as any JSON value (the read tool's arguments). */
const anyJson = (v) => v;

/** Every op with its fields (besides "op"). A cap or stream step has `call_id` or `call`, not both. */
export const STEP_FIELDS = {
  cap: { input: textInput, budget, call_id: opt(str), call: opt(call), expect: capExpect },
  'cap-parts': { parts: list(part), budget, call_id: opt(str), call: opt(call), expect: capExpect },
  'cap-mcp': {
    result: (v) => v,
    budget,
    call_id: opt(str),
    call: opt(call),
    options: opt(record({ resource_link: opt(bool) })),
    expect: mcpExpect,
  },
  'find-refs': { text: textInput, expect: record({ count: opt(u64), paths: strings }) },
  'pruned-placeholder': {
    call_id: str,
    tamper: opt(record({ path: opt(str), bytes: opt(u64), lines: opt(u64), digest: opt(str), tag: opt(str) })),
    expect: textExpect,
  },
  read: { path: str, offset: u64, max_bytes: u32, expect: pageExpect },
  'read-lines': { path: str, first_line: u64, count: u32, max_bytes: u32, expect: pageExpect },
  grep: {
    path: str,
    pattern: str,
    max_matches: u32,
    expect: record({ error: opt(str), total_matches: opt(u64), matches: opt(list(matchExpect)) }),
  },
  prune: {
    messages: list(textInput),
    policy: record({ keep_last: opt(u32), max_total_bytes: opt(u64), max_total_tokens: opt(u64) }),
    expect: record({
      error: opt(str),
      replaced: opt(list(u32)),
      bytes_saved: opt(u64),
      total_bytes: opt(u64),
      total_tokens: opt(u64),
      messages: strings,
    }),
  },
  'host-path': { path: str, expect: record({ relative: requiredNullable(str) }) },
  purge: { expect: record({ error: opt(str), freed: opt(u64) }) },
  classify: {
    status: u16,
    body: textInput,
    expect: classifyExpect,
  },
  'estimate-tokens': { text: textInput, expect: record({ tokens: opt(u64) }) },
  calibrate: { text: textInput, actual_tokens: u64, expect: record({ scale: opt(f64) }) },
  plan: {
    results: list(planPending),
    limits,
    expect: record({ error: opt(str), budgets: opt(list(budget)) }),
  },
  'cap-batch': {
    results: list(batchPending),
    limits,
    expect: record({ error: opt(str), results: opt(list(capExpect)) }),
  },
  stream: {
    input: textInput,
    budget,
    call_id: opt(str),
    call: opt(call),
    chunk_bytes: list(u32),
    exit_code_at_end: opt(s32),
    expect: capExpect,
  },
  'read-tool': {
    expect: record({ name: opt(str), description_contains: strings, schema_properties: strings }),
  },
  'run-read-tool': {
    arguments: anyJson,
    expect: record({ is_error: opt(bool), text: opt(str), text_contains: strings, text_not_contains: strings }),
  },
  list: {
    expect: record({
      error: opt(str),
      entries: opt(
        list(
          record({
            call_id: opt(str),
            tool: nullable(str),
            bytes: opt(u64),
            lines: opt(u64),
            relative_path: opt(str),
            digest: opt(str),
          }),
        ),
      ),
    }),
  },
  sweep: {
    policy: record({ max_age_seconds: opt(u64), max_total_bytes: opt(u64), max_files: opt(u32) }),
    expect: record({
      error: opt(str),
      deleted: opt(list(record({ relative_path: opt(str), bytes: opt(u64), reason: opt(sweepReason) }))),
      kept_files: opt(u64),
      kept_bytes: opt(u64),
      skipped_contains: strings,
    }),
  },
  stats: { expect: record({ threads: opt(u32), files: opt(u64), bytes: opt(u64) }) },
};

export const OPS = Object.keys(STEP_FIELDS);

/** The ops that name their call as a cap step does. */
const CAP_OPS = ['cap', 'cap-parts', 'cap-mcp', 'stream'];

function step(v, path) {
  if (typeName(v) !== 'object') fail(path, `expected a step object, got ${typeName(v)}`);
  const { op, ...rest } = v;
  if (typeof op !== 'string' || !(op in STEP_FIELDS)) fail(path, `unknown op ${JSON.stringify(op)}`);
  const parsed = { op, ...record(STEP_FIELDS[op])(rest, `${path} (${op})`) };
  if (CAP_OPS.includes(op) && (parsed.call_id === undefined) === (parsed.call === undefined)) {
    fail(`${path} (${op})`, 'a cap step names its call by exactly one of "call_id" and "call"');
  }
  return parsed;
}

const vector = record({
  name: str,
  about: str,
  session: record({
    thread_id: str,
    key_hex: str,
    display_root: opt(str),
    display_root_default: opt(bool),
    preopen: opt(oneOf('read-write', 'read-only', 'none')),
    read_tool: opt(str),
    shell_hints: opt(bool),
    notable_patterns: opt(list(str)),
    image_tokens: opt(u32),
    audio_tokens: opt(u32),
    token_scale: opt(f64),
    retention_seconds: opt(u64),
    // As the Rust runner's serde defaults: no literals, the spill kept as it was.
    redaction: opt(record({ literals: opt(list(str)), spill: opt(bool) })),
  }),
  steps: list(step),
});

/** Parses one vector file's text; throws an Error naming the bad field. */
export function parseVector(json) {
  return vector(JSON.parse(json), 'vector');
}
