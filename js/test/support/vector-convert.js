// Between the vector format (snake_case JSON) and the wrapper's values.

import { BadVector, buildText } from './vector-inputs.js';

export const DEFAULT_DISPLAY_ROOT = '/spill-host';

export function toBudget(spec) {
  return {
    maxBytes: spec.max_bytes,
    maxLines: spec.max_lines ?? null,
    maxLineBytes: spec.max_line_bytes ?? null,
    keep: spec.keep,
    headPercent: spec.head_percent,
    maxTokens: spec.max_tokens ?? null,
  };
}

/** A wrapper budget (a plan's) as a vector writes it, every limit given (null: none). */
export function budgetSpec(b) {
  return {
    max_bytes: b.maxBytes,
    max_lines: b.maxLines,
    max_line_bytes: b.maxLineBytes,
    keep: b.keep,
    head_percent: b.headPercent,
    max_tokens: b.maxTokens,
  };
}

/** A parsed vector budget with its absent limits as null, to compare whole budgets. */
export const fullBudgetSpec = (spec) => budgetSpec(toBudget(spec));

/** `limits` of plan and cap-batch as the wrapper takes them (u64s as BigInt). */
export function toLimits(spec) {
  const big = (n) => (n === undefined ? null : BigInt(n));
  return {
    maxTokens: big(spec.max_tokens),
    maxBodyBytes: big(spec.max_body_bytes),
    floorBytes: spec.floor_bytes,
    ceiling: toBudget(spec.ceiling),
  };
}

/**
 * A cap step's call as the wrapper takes it: `call_id` as the bare string id
 * (the wrapper's shorthand), `call` as a Call object. The format parser has
 * made sure exactly one is given.
 */
export function toCall(step) {
  if (step.call === undefined) return step.call_id;
  const { id, tool, exit_code: exitCode, is_error: isError, search } = step.call;
  return { id, tool: tool ?? null, exitCode: exitCode ?? null, isError: isError ?? false, search: search ?? null };
}

/** A stream step's call as it ended: with `exit_code_at_end`, if given, as its exit code. */
export function endedCall(step) {
  if (step.exit_code_at_end === undefined) return toCall(step);
  const call = toCall(step);
  const base = typeof call === 'string' ? { id: call, tool: null, isError: false } : call;
  return { ...base, exitCode: step.exit_code_at_end };
}

/** The id a cap step's call goes by, for `$spill:` and `$capped:`. */
export const callId = (step) => step.call?.id ?? step.call_id;

/** A capped record with its report flat, as vectors and invariants see it. */
export const flat = ({ report, ...rest }) => ({ ...rest, ...report });

export function toPolicy(spec) {
  return {
    keepLast: spec.keep_last ?? null,
    maxTotalBytes: spec.max_total_bytes ?? null,
    maxTotalTokens: spec.max_total_tokens ?? null,
  };
}

/**
 * A vector's pending result as the wrapper takes it: `{text}` or `{parts}`,
 * with `call` (as a cap step's) when the vector names one.
 */
export function toPending(spec) {
  const item = spec.text !== undefined ? { text: buildText(spec.text) } : { parts: spec.parts.map(toPart) };
  if (spec.call !== undefined || spec.call_id !== undefined) item.call = toCall(spec);
  return item;
}

export function decodeHex(hex) {
  if (hex.length % 2 !== 0) throw new BadVector(`key_hex has an odd number of digits: ${JSON.stringify(hex)}`);
  if (!/^[0-9a-fA-F]*$/.test(hex)) throw new BadVector(`key_hex is not hex: ${JSON.stringify(hex)}`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** A vector part (`{"image": {...}}`) as a wrapper part (`{type: 'image', ...}`). */
export function toPart(spec) {
  const [[kind, v]] = Object.entries(spec);
  switch (kind) {
    case 'text':
      return { type: 'text', text: buildText(v) };
    case 'image':
    case 'audio':
      return { type: kind, data: v.data, mimeType: v.mime_type };
    case 'resource':
      return {
        type: 'resource',
        resource: { uri: v.uri, mimeType: v.mime_type ?? null, text: v.text ?? null, blob: v.blob ?? null },
      };
    default:
      return { type: 'other', value: v };
  }
}

/** A wrapper part as a vector writes it (texts plain, absent fields left out). */
export function toSpec(part) {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image':
    case 'audio':
      return { [part.type]: { data: part.data, mime_type: part.mimeType } };
    case 'resource': {
      const { uri, mimeType, text, blob } = part.resource;
      const r = { uri };
      if (mimeType !== undefined && mimeType !== null) r.mime_type = mimeType;
      if (text !== undefined && text !== null) r.text = text;
      if (blob !== undefined && blob !== null) r.blob = blob;
      return { resource: r };
    }
    default:
      return { other: part.value };
  }
}

/** The text of text parts and resource texts, in order, joined by LF. */
export function joinedText(parts) {
  const texts = [];
  for (const p of parts) {
    if (p.type === 'text') texts.push(p.text);
    else if (p.type === 'resource' && p.resource.text !== undefined && p.resource.text !== null) {
      texts.push(p.resource.text);
    }
  }
  return texts.join('\n');
}
