// The vector runner's JavaScript host (tests/vectors/ADAPTERS.md): reads one
// JSON request per line on stdin, drives the package's public API, and
// writes one JSON answer per line on stdout, in order. Values on the wire are
// serde's JSON of the Rust records (snake_case fields, PascalCase enum and
// variant cases); the package speaks camelCase, kebab-case enums, MCP-shaped
// parts and BigInt u64s. This file converts between the two and checks
// nothing: the runner does.

import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

import { ToolCapError, classify, openSession, openSpillStore } from '../src/index.js';

// stdout carries answers only: a stray log line would desynchronise the runner.
console.log = console.info = console.debug = console.error;

// ---------------------------------------------------------------------------
// JSON with exact u64s. JSON.parse and JSON.stringify round integers beyond
// 2^53, so such literals travel as marked strings in between.

const MARK = `u64:${randomUUID()}:`;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const isSafe = (n) => n >= -MAX_SAFE && n <= MAX_SAFE;
// A string (skipped whole, so digits inside it are left alone), or an
// integer literal of 16 digits or more that is not part of a float.
const LONG_INTEGER = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g;
const MARKED = new RegExp(`"${MARK}(-?\\d+)"`, 'g');

function parseExact(line) {
  const marked = line.replace(LONG_INTEGER, (m) => (m.startsWith('"') || isSafe(BigInt(m)) ? m : `"${MARK}${m}"`));
  return JSON.parse(marked, (_key, v) =>
    typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v,
  );
}

const stringifyExact = (value) => JSON.stringify(value).replace(MARKED, '$1');

// ---------------------------------------------------------------------------
// Generic conversions: record keys, absent options, u64s, enum cases.

const camel = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const snake = (key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** `HeadAndTail` -> `head-and-tail` (a WIT case as jco spells it). */
const kebab = (name) => name.replace(/(?<!^)[A-Z]/g, '-$&').toLowerCase();
/** `head-and-tail` -> `HeadAndTail` (the case as serde spells it). */
const pascal = (name) => name.replace(/(?:^|-)([a-z0-9])/g, (_, c) => c.toUpperCase());

/** A wire value with every record's keys in camelCase. */
function fromWire(value) {
  if (Array.isArray(value)) return value.map(fromWire);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), fromWire(v)]));
}

/** A package value for the wire: snake_case keys, undefined as null, u64s as numbers. */
function toWire(value) {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return isSafe(value) ? Number(value) : `${MARK}${value}`;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Array.from(value, toWire);
  if (typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), toWire(v)]));
}

/** The one member of a serde variant: [case, payload]. */
function variantOf(value, what) {
  const entries = value !== null && typeof value === 'object' ? Object.entries(value) : [];
  if (entries.length !== 1) throw new TypeError(`${what} must be an object with one member, got ${JSON.stringify(value)}`);
  return entries[0];
}

// ---------------------------------------------------------------------------
// Specific conversions, where the package's shape is not a plain rename.

const budgetIn = (b) => ({ ...fromWire(b), keep: kebab(b.keep) });
const budgetOut = (b) => ({ ...toWire(b), keep: pascal(b.keep) });
const limitsIn = (l) => ({ ...fromWire(l), ceiling: budgetIn(l.ceiling) });

/** `{"Image": {data, mime_type}}` -> `{type: 'image', data, mimeType}` (MCP's shape). */
function partIn(variant) {
  const [tag, val] = variantOf(variant, 'a content part');
  const type = tag.toLowerCase();
  switch (type) {
    case 'text':
      return { type, text: val };
    case 'other':
      return { type, value: val };
    case 'resource':
      return { type, resource: fromWire(val) };
    default:
      return { type, ...fromWire(val) };
  }
}

/** The reverse of partIn; the package leaves absent resource fields out. */
function partOut(part) {
  switch (part.type) {
    case 'text':
      return { Text: part.text };
    case 'other':
      return { Other: part.value };
    case 'resource': {
      const { uri, mimeType, text, blob } = part.resource;
      return { Resource: toWire({ uri, mimeType, text, blob }) };
    }
    default:
      return { [pascal(part.type)]: toWire({ data: part.data, mimeType: part.mimeType }) };
  }
}

const cappedPartsOut = (c) => ({ parts: c.parts.map(partOut), report: toWire(c.report) });

/** `{"Text": s}` / `{"Parts": [...]}` -> `{text}` / `{parts}`, as plan and capBatch take them. */
function pendingIn(variant) {
  const [tag, val] = variantOf(variant, 'a pending result');
  if (tag === 'Text') return { text: val };
  if (tag === 'Parts') return { parts: val.map(partIn) };
  throw new TypeError(`a pending result is Text or Parts, got ${tag}`);
}

/** capBatch gives back what cap (a text) or capParts (parts) would. */
const batchOut = (r) => (Array.isArray(r.parts) ? { Parts: cappedPartsOut(r) } : { Text: toWire(r) });

function overflowOut(o) {
  if (o === null || o === undefined) return null;
  return { ...toWire(o), kind: pascal(o.kind), unit: o.unit == null ? null : pascal(o.unit) };
}

function sweepOut(report) {
  const wire = toWire(report);
  wire.deleted = report.deleted.map((d) => ({ ...toWire(d), reason: pascal(d.reason) }));
  return wire;
}

/** The session's key: the runner's hex, checked (Buffer.from would stop at a bad digit). */
function keyIn(hex) {
  if (hex === null || hex === undefined) return undefined;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new TypeError(`key_hex is not an even number of hex digits: ${hex}`);
  return Buffer.from(hex, 'hex');
}

// ---------------------------------------------------------------------------
// The ops.

let session = null;

function live() {
  if (session === null) throw new Error('no session is open');
  return session;
}

function closeSession() {
  session?.close();
  session = null;
}

async function open({ session: settings, dir }) {
  closeSession();
  // null is "the package's default": undefined, as openSession reads it.
  const given = Object.fromEntries(Object.entries(fromWire(settings)).map(([k, v]) => [k, v ?? undefined]));
  // No read-only option in this package: the runner made `dir` unwritable.
  const { keyHex, readOnly: _readOnly, ...rest } = given;
  session = await openSession({ ...rest, key: keyIn(keyHex), spillDir: dir ?? null });
  return null;
}

/** The input in chunks of the sizes given (cycled), so a chunk may split a character. */
function stream({ input, chunk_bytes: sizes, exit_code_at_end: exitCode, budget, call }) {
  if (sizes.length === 0 || sizes.some((n) => !(n > 0))) throw new RangeError('chunk_bytes needs sizes of at least 1');
  const bytes = Buffer.from(input, 'utf8');
  const capStream = live().stream(budgetIn(budget), fromWire(call));
  try {
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = sizes[i % sizes.length];
      capStream.write(bytes.subarray(at, at + size));
      at += size;
    }
    if (exitCode !== null && exitCode !== undefined) capStream.setExitCode(exitCode);
    const written = capStream.bytesWritten();
    return { capped: toWire(capStream.finish()), bytes_written: toWire(written) };
  } finally {
    capStream.close();
  }
}

/** A spill store on `dir` for one call, closed after it. */
async function withStore(dir, use) {
  const store = await openSpillStore(dir);
  try {
    return use(store);
  } finally {
    store.close();
  }
}

const OPS = {
  open,
  close: () => (closeSession(), null),
  cap: (r) => toWire(live().cap(r.input, budgetIn(r.budget), fromWire(r.call))),
  'cap-parts': (r) => cappedPartsOut(live().capParts(r.parts.map(partIn), budgetIn(r.budget), fromWire(r.call))),
  'cap-mcp': (r) =>
    toWire(live().capMcp(r.result, budgetIn(r.budget), fromWire(r.call), fromWire(r.options) ?? undefined)),
  stream,
  'find-refs': (r) => toWire(live().findRefs(r.text)),
  'pruned-placeholder': (r) => live().prunedPlaceholder(fromWire(r.reference)),
  read: (r) => toWire(live().read(r.path, r.offset, r.max_bytes)),
  'read-lines': (r) => toWire(live().readLines(r.path, r.first_line, r.count, r.max_bytes)),
  grep: (r) => toWire(live().grep(r.path, r.pattern, r.max_matches)),
  prune: (r) => toWire(live().prune(r.messages, fromWire(r.policy))),
  purge: () => toWire(live().purge()),
  'host-path': (r) => toWire(live().hostPath(r.path)),
  'estimate-tokens': (r) => toWire(live().estimateTokens(r.text)),
  calibrate: (r) => live().calibrate(r.text, r.actual_tokens),
  plan: (r) => live().plan(r.results.map(pendingIn), limitsIn(r.limits)).map(budgetOut),
  'cap-batch': (r) =>
    live()
      .capBatch(
        r.results.map(([call, pending]) => ({ call: fromWire(call), ...pendingIn(pending) })),
        limitsIn(r.limits),
      )
      .map(batchOut),
  'read-tool': () => toWire(live().readTool()),
  'run-read-tool': (r) => toWire(live().runReadTool(r.arguments)),
  list: () => toWire(live().list()),
  classify: async (r) => overflowOut(await classify(r.status, r.body)),
  sweep: (r) => withStore(r.dir, (store) => sweepOut(store.sweep(fromWire(r.policy)))),
  stats: (r) => withStore(r.dir, (store) => toWire(store.stats())),
};

/** One request line's answer: `{ok}`, or `{error}` with the cap-error case or `runtime`. */
async function answer(line) {
  try {
    const request = parseExact(line);
    // hasOwn: an op named like an Object.prototype member is unknown too.
    if (!Object.hasOwn(OPS, request?.op)) throw new Error(`unknown op ${JSON.stringify(request?.op)}`);
    return { ok: (await OPS[request.op](request)) ?? null };
  } catch (err) {
    const known = err instanceof ToolCapError;
    if (!known) console.error(err);
    return { error: { case: known ? err.case : 'runtime', message: String(err?.message ?? err) } };
  }
}

function writeLine(text) {
  return new Promise((resolve, reject) => process.stdout.write(`${text}\n`, (err) => (err ? reject(err) : resolve())));
}

async function main() {
  // Strictly in order: each answer is written before the next line is read.
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    await writeLine(stringifyExact(await answer(line)));
  }
  closeSession();
}

await main();
