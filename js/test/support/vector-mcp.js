// `cap-mcp` steps: the input a runner sends, the invariants of every capped
// MCP result, and its expectations. Mirrors tests/tests/vectors_support/mcp.rs.

import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

import { buildText } from './vector-inputs.js';
import { checkNewFiles, refKey } from './vector-invariants.js';
import { excerpt } from './vector-check.js';
import { countLines } from './disk.js';

/** The key of the component's record in `_meta`. */
export const META_KEY = 'tool-output-cap/cap';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const utf8Length = (s) => Buffer.byteLength(s, 'utf8');
const show = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** `value` with every `{"gen": [...]}` object replaced by its text. */
function expand(value) {
  if (Array.isArray(value)) return value.map(expand);
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'gen') return buildText(value);
  return Object.fromEntries(keys.map((k) => [k, expand(value[k])]));
}

/** Compact JSON with every object's keys sorted (as the Rust runner's serde_json map). */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a step sends for `result`: a string as it is; any other value
 * serialised canonically. `value` is what the text parses to (or undefined),
 * `canonical` whether the text is that value's canonical form.
 */
export function inputOf(result) {
  if (typeof result === 'string') {
    let value;
    try {
      value = JSON.parse(result);
    } catch {
      value = undefined;
    }
    return { text: result, value, canonical: false };
  }
  const value = expand(result);
  return { text: canonical(value), value, canonical: true };
}

const blocks = (v) => (isObject(v) && Array.isArray(v.content) ? v.content : []);

/** The text that shares the budget: the block's `text`, or its resource's. */
function textOf(block) {
  if (!isObject(block)) return undefined;
  if (block.type === 'text') return typeof block.text === 'string' ? block.text : undefined;
  if (block.type !== 'resource' || !isObject(block.resource)) return undefined;
  const r = block.resource;
  const stringOrAbsent = (k) => r[k] === undefined || typeof r[k] === 'string';
  const valid = typeof r.uri === 'string' && stringOrAbsent('mimeType') && stringOrAbsent('blob');
  return valid && typeof r.text === 'string' ? r.text : undefined;
}

/** The joined text of a result's textual blocks, as cap-mcp budgets it. */
export const joinedText = (v) =>
  blocks(v)
    .map(textOf)
    .filter((t) => t !== undefined)
    .join('\n');

/** Media the budget does not count: an image or audio with string data and MIME type, or a valid resource with a blob. */
function isMedia(block) {
  if (!isObject(block)) return false;
  const str = (o, k) => typeof o[k] === 'string';
  if (block.type === 'image' || block.type === 'audio') return str(block, 'data') && str(block, 'mimeType');
  if (block.type !== 'resource' || !isObject(block.resource)) return false;
  const r = block.resource;
  const stringOrAbsent = (k) => r[k] === undefined || typeof r[k] === 'string';
  return str(r, 'uri') && str(r, 'blob') && stringOrAbsent('mimeType') && stringOrAbsent('text');
}

/** The blocks beside the texts that the budget counts (neither textual nor media). */
const otherBlocks = (v) => blocks(v).filter((b) => textOf(b) === undefined && !isMedia(b));

const HANDLED_MEMBERS = ['content', 'structuredContent', '_meta', 'isError'];

/** The server's _meta members (as one _meta object) and members MCP does not define, as one JSON object; undefined when none. */
function topLevelExtras(v) {
  const members = [];
  if (isObject(v._meta) && Object.keys(v._meta).length > 0) members.push(['_meta', v._meta]);
  for (const [k, x] of Object.entries(v)) if (!HANDLED_MEMBERS.includes(k)) members.push([k, x]);
  if (members.length === 0) return undefined;
  return `{${members.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
}

/** The text spill when the extras were cut as text: each other block's JSON in place, media left out, top-level extras last. */
function joinedWithExtras(v) {
  const pieces = [];
  for (const b of blocks(v)) {
    const t = textOf(b);
    if (t !== undefined) pieces.push(t);
    else if (!isMedia(b)) pieces.push(canonical(b));
  }
  const top = topLevelExtras(v);
  if (top !== undefined) pieces.push(top);
  return pieces.join('\n');
}

/** Whether the blocks and members beside the texts were cut as text: the output lacks one of them. */
function extrasCut(input, output, rest, alike) {
  const blockMissing = otherBlocks(input).some((b) => !rest.some((o) => alike(o, b)));
  const metaMissing = isObject(input._meta)
    && Object.keys(input._meta).some((k) => k !== META_KEY && !(isObject(output._meta) && k in output._meta));
  const memberMissing = Object.keys(input).some((k) => !HANDLED_MEMBERS.includes(k) && !(k in output));
  return blockMissing || metaMissing || memberMissing;
}

const isPlainText = (b) => isObject(b) && b.type === 'text' && typeof b.text === 'string';
const outputTexts = (v) => blocks(v).filter(isPlainText).map((b) => b.text);

/** The output's text blocks joined by LF (what `text_contains` searches). */
export const outputText = (v) => outputTexts(v).join('\n');

/** A resource with a blob whose text was cut: an input block without its resource's text. */
function isTextlessResourceOfInput(b, input) {
  return input.some((i) => {
    if (textOf(i) === undefined || !isObject(i.resource)) return false;
    const { text: _text, ...resource } = i.resource;
    return isDeepStrictEqual({ ...i, resource }, b);
  });
}

/** Everything that holds for any cap-mcp answer; returns the parsed output, or null. */
export function checkMcpInvariants(chk, session, disk, sent, budget, resourceLink, got) {
  let output;
  try {
    output = JSON.parse(got.result);
  } catch {
    output = undefined;
  }
  if (!isObject(output)) {
    chk.fail(`the result is not a JSON object: ${excerpt(got.result)}`);
    return null;
  }
  const r = got.report;
  const changed = r.truncated || got.structuredDropped || r.redactions.length > 0;
  chk.ensure(
    changed === (got.result !== sent.text),
    () => `the result differs from the input exactly when something was cut, dropped or redacted (changed: ${changed})`,
  );
  const outBlocks = blocks(output);
  chk.ensure(outBlocks.every(isObject), () => 'a content block is not an object');
  const input = sent.value;
  if (input === undefined) return output;
  chk.ensure(isDeepStrictEqual(output.isError, input.isError), () => 'isError changed');
  if (budget.maxBytes > 0 && changed) {
    const texts = outputTexts(output);
    const bytes = texts.reduce((n, t) => n + utf8Length(t), 0);
    chk.ensure(bytes <= budget.maxBytes, () => `the text blocks hold ${bytes} bytes, over max_bytes ${budget.maxBytes}`);
    if (budget.maxLines !== undefined && budget.maxLines !== null) {
      const lines = texts.reduce((n, t) => n + countLines(t), 0);
      chk.ensure(lines <= budget.maxLines, () => `the text blocks hold ${lines} lines, over max_lines ${budget.maxLines}`);
    }
  }
  const cut = r.truncated || got.structuredDropped;
  const record = isObject(output._meta) ? output._meta[META_KEY] : undefined;
  chk.ensure(
    (record !== undefined) === cut,
    () => `_meta[${META_KEY}] is there: ${record !== undefined}, but cut or dropped: ${cut}`,
  );
  // Redaction rewrites every string the model is shown, beyond the texts:
  // then values are compared by their shape (keys, block types) only.
  const redacted = r.redactions.length > 0;
  const alike = (a, b) => isDeepStrictEqual(a, b) || (redacted && sameShape(a, b));
  const inBlocks = blocks(input);
  const links = resourceLink ? Number(r.spill !== null) + Number(got.structuredSpill !== null) : 0;
  const rest = outBlocks.slice(Number(cut) + links);
  // Blocks and members beside the texts that would take the texts' room are
  // cut as text, all of them: nothing of them is left in the result.
  const extrasAsText = r.truncated && extrasCut(input, output, rest, alike);
  if (extrasAsText) {
    const left = otherBlocks(input).some((b) => rest.some((o) => isDeepStrictEqual(o, b)));
    chk.ensure(!left, () => 'some blocks beside the texts were cut as text, not all');
  }
  if (isObject(input._meta) && !extrasAsText) {
    for (const [k, v] of Object.entries(input._meta)) {
      if (k === META_KEY) continue;
      chk.ensure(isObject(output._meta) && k in output._meta && alike(output._meta[k], v), () => `the input's _meta key ${show(k)} was not kept`);
    }
  }
  if (cut) {
    const notice = typeof outBlocks[0]?.text === 'string' ? outBlocks[0].text : '';
    chk.ensure(notice.startsWith('[toolcap] '), () => `the first block is not the notice: ${excerpt(notice)}`);
    const refs = session.findRefs(notice).map(refKey);
    for (const spill of [r.spill, got.structuredSpill].filter((s) => s !== null)) {
      chk.ensure(refs.includes(refKey(spill)), () => `the notice does not hold the reference ${show(spill)}`);
    }
  }
  if (r.truncated) {
    // Only the media pass through when the other blocks were cut as text.
    const kept = inBlocks.filter((b) => textOf(b) === undefined && (!extrasAsText || isMedia(b)));
    const passed = rest.filter((b) => !isPlainText(b) && !isTextlessResourceOfInput(b, inBlocks));
    const same = passed.length === kept.length && passed.every((b, i) => alike(b, kept[i]));
    chk.ensure(same, () => `the blocks that pass through changed: ${show(passed)} / ${show(kept)}`);
  } else if (r.redactions.length === 0) {
    chk.ensure(isDeepStrictEqual(rest, inBlocks), () => 'the content changed though no text was cut');
  }
  if (input.structuredContent !== undefined && !got.structuredDropped) {
    chk.ensure(alike(output.structuredContent, input.structuredContent), () => 'structuredContent changed');
  }
  checkMcpDisk(chk, session, disk, input, sent.canonical, extrasAsText, got);
  return output;
}

/** The spills hold the joined text and the structured content (as sent); nothing else appeared. */
function checkMcpDisk(chk, session, disk, input, isCanonical, extrasAsText, got) {
  const redacted = got.report.redactions.length > 0;
  const files = [];
  const expectFile = (ref, content) => {
    const file = session.hostPath(ref.path);
    if (file === null) {
      chk.fail(`the spill path is not under the display root: ${show(ref)}`);
      return;
    }
    let bytes;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      chk.fail(`cannot read ${file}: ${err.message}`);
      return;
    }
    chk.ensure(BigInt(bytes.length) === ref.bytes, () => `${file} is not the reference's size`);
    if (content !== null) {
      chk.ensure(bytes.equals(Buffer.from(content, 'utf8')), () => `the spill file ${file} differs from what it stands for`);
    }
    files.push(file);
  };
  if (got.report.spill !== null) {
    // Blocks beside the texts cut as text are their JSON as sent.
    const joined = extrasAsText ? (isCanonical ? joinedWithExtras(input) : null) : joinedText(input);
    expectFile(got.report.spill, redacted ? null : joined);
  }
  if (got.structuredSpill !== null) {
    const known = !redacted && isCanonical && input.structuredContent !== undefined;
    expectFile(got.structuredSpill, known ? canonical(input.structuredContent) : null);
  }
  checkNewFiles(chk, disk, files);
}

/** Whether `want` is `got` or, for objects, a subset of it (recursively). */
function subset(want, got) {
  if (isObject(want) && isObject(got)) return Object.entries(want).every(([k, v]) => k in got && subset(v, got[k]));
  return isDeepStrictEqual(want, got);
}

/** The expectations of a cap-mcp step, `e` with `$spill:`/`$capped:` resolved. */
export function checkMcpExpect(chk, e, sent, got, output) {
  const r = got.report;
  chk.exact('unchanged', e.unchanged, got.result === sent.text);
  chk.exact('truncated', e.truncated, r.truncated);
  chk.exact('spilled', e.spilled, r.spill !== null);
  chk.exact('original_bytes', e.original_bytes, r.originalBytes);
  chk.exact('original_lines', e.original_lines, r.originalLines);
  chk.exact('omitted_bytes', e.omitted_bytes, r.omittedBytes);
  chk.exact('original_tokens', e.original_tokens, r.originalTokens);
  chk.exact('tokens', e.tokens, r.tokens);
  if (e.redactions !== undefined) {
    const want = Object.fromEntries(Object.entries(e.redactions).filter(([, n]) => n !== 0));
    chk.exact('redactions', want, Object.fromEntries(r.redactions.map(({ kind, count }) => [kind, count])));
  }
  chk.exact('structured_dropped', e.structured_dropped, got.structuredDropped);
  chk.exact('structured_spilled', e.structured_spilled, got.structuredSpill !== null);
  const outBlocks = blocks(output);
  chk.exact('content_types', e.content_types, outBlocks.map((b) => (typeof b?.type === 'string' ? b.type : '')));
  const notice = typeof outBlocks[0]?.text === 'string' ? outBlocks[0].text : '';
  for (const needle of e.notice_contains ?? []) {
    chk.ensure(notice.includes(needle), () => `the notice does not contain ${show(needle)}: ${excerpt(notice)}`);
  }
  chk.substrings(e.text_contains, e.text_not_contains, outputText(output));
  for (const needle of e.result_contains ?? []) {
    chk.ensure(got.result.includes(needle), () => `the result does not contain ${show(needle)}`);
  }
  for (const needle of e.result_not_contains ?? []) {
    chk.ensure(!got.result.includes(needle), () => `the result contains ${show(needle)}`);
  }
  const inBlocks = blocks(sent.value);
  for (const [o, i] of e.same_blocks ?? []) {
    chk.ensure(
      outBlocks[o] !== undefined && isDeepStrictEqual(outBlocks[o], inBlocks[i]),
      () => `output block ${o} is not input block ${i}`,
    );
  }
  chk.exact('is_error', e.is_error, output.isError === true);
  if (e.meta_record !== undefined) {
    const record = isObject(output._meta) ? output._meta[META_KEY] : undefined;
    if (e.meta_record === null) {
      chk.ensure(record === undefined, () => `meta_record: expected none, got ${show(record)}`);
    } else {
      chk.ensure(record !== undefined && subset(e.meta_record, record), () => `meta_record: ${show(e.meta_record)} is not within ${show(record)}`);
    }
  }
}

/** Whether two JSON values differ at most in their strings (what redaction
 * rewrites): same kinds, same keys, same lengths of lists. */
function sameShape(a, b) {
  if (typeof a === 'string' && typeof b === 'string') return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameShape(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameShape(a[k], b[k]));
  }
  return isDeepStrictEqual(a, b);
}
