// One conversation thread's session: its own component instance and WASI
// shim, whose only preopen is the spill directory.

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { SPILL_GUEST_PATH, instantiateComponent, sandboxedShim } from './component.js';
import * as convert from './convert.js';
import { translateErrors } from './errors.js';
import { closedByUsing, drop, liveStream } from './resource.js';
import { PRIVATE_DIR_MODE, grantedDirectory, isPlainName } from './spill-dir.js';

const absent = (value) => value === undefined || value === null;

export async function openSession(options = {}) {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object such as { threadId, spillDir }');
  }
  const {
    threadId,
    spillDir = null,
    displayRoot,
    key,
    readTool,
    shellHints,
    notablePatterns,
    imageTokens,
    audioTokens,
    tokenScale,
    retentionSeconds,
    redaction,
  } = options;
  // Every argument is checked before any work: a wrong type is a TypeError,
  // an unusable value (a bad tool name or pattern) the component's
  // invalid-settings.
  const settingsKey = convert.toKey(key);
  const settings = {
    threadId: convert.string(threadId, 'threadId'),
    readTool: readTool === undefined || readTool === null ? undefined : convert.string(readTool, 'readTool'),
    shellHints: shellHints === undefined || shellHints === null ? true : convert.boolean(shellHints, 'shellHints'),
    notablePatterns:
      notablePatterns === undefined || notablePatterns === null
        ? []
        : convert.strings(notablePatterns, 'notablePatterns'),
    imageTokens: absent(imageTokens) ? undefined : convert.u32(imageTokens, 'imageTokens'),
    audioTokens: absent(audioTokens) ? undefined : convert.u32(audioTokens, 'audioTokens'),
    // The component clamps it to [0.5, 2]; NaN or an infinity is a caller's bug.
    tokenScale: absent(tokenScale) ? undefined : convert.finite(tokenScale, 'tokenScale'),
    // 0 is the component's invalid-settings, like every unusable value.
    retentionSeconds: absent(retentionSeconds) ? undefined : convert.u64(retentionSeconds, 'retentionSeconds'),
    redaction: convert.toRedaction(redaction),
  };
  // An empty path grants nothing, exactly like null (never the working directory).
  const requested = spillDir === null ? null : convert.string(spillDir, 'spillDir') || null;
  // A missing directory is created, readable by its owner only; one that is
  // not a directory and cannot be made one is granted as nothing.
  const hostDir = requested === null ? null : await grantedDirectory(requested);
  const root =
    displayRoot === undefined || displayRoot === null
      ? (hostDir ?? (requested === null ? SPILL_GUEST_PATH : resolve(requested)))
      : convert.string(displayRoot, 'displayRoot');
  const instance = await instantiateComponent(sandboxedShim(hostDir));
  const resource = translateErrors(() =>
    instance.capper.Session.open({
      threadId: settings.threadId,
      spillDir: SPILL_GUEST_PATH,
      displayRoot: root,
      key: settingsKey,
      readTool: settings.readTool,
      shellHints: settings.shellHints,
      notablePatterns: settings.notablePatterns,
      imageTokens: settings.imageTokens,
      audioTokens: settings.audioTokens,
      tokenScale: settings.tokenScale,
      retentionSeconds: settings.retentionSeconds,
      redaction: settings.redaction,
    }),
  );
  if (hostDir !== null) await createThreadFolder(hostDir, translateErrors(() => resource.threadFolder()));
  return new Session(instance, resource, hostDir, root);
}

/**
 * The thread folder, readable by its owner only: the component would create
 * it with the shim's default mode on its first spill. One that exists is
 * left as it is, and a directory that cannot be written (the read-only
 * grant on Node) is not an error: cut results then say why nothing was saved.
 */
async function createThreadFolder(hostDir, folder) {
  if (!isPlainName(folder)) return;
  try {
    await mkdir(join(hostDir, folder), { mode: PRIVATE_DIR_MODE });
  } catch {
    // EEXIST, or an unwritable directory: see above.
  }
}

export class Session {
  #instance;
  #resource;

  constructor(instance, resource, spillDir, displayRoot) {
    this.#instance = instance;
    this.#resource = resource;
    /** Real host path of the granted spill directory, or null if none was granted. */
    this.spillDir = spillDir;
    /** What paths in notices start with. */
    this.displayRoot = displayRoot;
    Object.freeze(this);
  }

  #live() {
    if (!this.#resource) throw new Error('tool-output-cap: this session is closed');
    return this.#resource;
  }

  #call(method, ...args) {
    const resource = this.#live();
    return translateErrors(() => resource[method](...args));
  }

  /**
   * `call`: the call's id, or `{ id, tool?, exitCode?, isError?, search? }`;
   * `search` (a string, one literal alternative per line, or an array of
   * them) is what the tool searched for: a cut preview shows the first hits.
   */
  cap(output, budget, call) {
    return convert.fromCapped(
      this.#call('cap', convert.string(output, 'output'), convert.toBudget(budget), convert.toCall(call)),
    );
  }

  capParts(parts, budget, call) {
    if (!Array.isArray(parts)) throw new TypeError('parts must be an array of content parts');
    return convert.fromCappedParts(
      this.#call(
        'capParts',
        parts.map((part, i) => convert.toPart(part, i)),
        convert.toBudget(budget),
        convert.toCall(call),
      ),
    );
  }

  /**
   * Fits an MCP `CallToolResult`, given as its JSON text, to `budget`: the
   * very same string when it fits, else a valid result with the notice as
   * its first text block (see the WIT's `cap-mcp`). `options`:
   * `{ resourceLink? }`.
   */
  capMcp(result, budget, call, options = {}) {
    return convert.fromCappedMcp(
      this.#call(
        'capMcp',
        convert.string(result, 'result'),
        convert.toBudget(budget),
        convert.toCall(call),
        convert.toMcpOptions(options),
      ),
    );
  }

  /**
   * One budget per pending result of a turn (`{ text }` or `{ parts }`; a
   * `call` is allowed, checked and not used), so that together they fit
   * `limits`.
   */
  plan(results, limits) {
    const pending = pendingList(results, false).map((r) => r.pending);
    return this.#call('plan', pending, convert.toLimits(limits)).map(convert.fromBudget);
  }

  /**
   * Plans and caps a turn: `results` are `{ call, text }` or `{ call, parts }`;
   * each comes back as cap() or capParts() would return it, in order, and
   * together they fit `limits`.
   */
  capBatch(results, limits) {
    const turn = pendingList(results, true).map(({ call, pending }) => [call, pending]);
    return this.#call('capBatch', turn, convert.toLimits(limits)).map(convert.fromBatchResult);
  }

  /** The session's token estimate of `text` (a BigInt, u64). */
  estimateTokens(text) {
    return this.#call('estimateTokens', convert.string(text, 'text'));
  }

  /**
   * Tells the estimator what the provider counted for `text`; returns the
   * new scale (also `tokenScale`). Texts under 256 bytes are ignored.
   */
  calibrate(text, actualTokens) {
    return this.#call('calibrate', convert.string(text, 'text'), convert.u64(actualTokens, 'actualTokens'));
  }

  /**
   * The estimator's current scale: 1, or the `tokenScale` the session was
   * opened with (clamped to [0.5, 2]), as calibrate() has moved it since.
   * Pass it as `tokenScale` to the thread's next session to keep the
   * calibration.
   */
  get tokenScale() {
    // calibrate() ignores a text under 256 bytes and returns the scale as it is.
    return this.#call('calibrate', '', 0n);
  }

  findRefs(text) {
    return this.#call('findRefs', convert.string(text, 'text')).map(convert.fromRef);
  }

  prunedPlaceholder(ref) {
    return this.#call('prunedPlaceholder', convert.toRef(ref));
  }

  read(path, offset, maxBytes) {
    return convert.fromPage(
      this.#call(
        'read',
        convert.string(path, 'path'),
        convert.u64(offset, 'offset'),
        convert.u32(maxBytes, 'maxBytes'),
      ),
    );
  }

  readLines(path, firstLine, count, maxBytes) {
    return convert.fromPage(
      this.#call(
        'readLines',
        convert.string(path, 'path'),
        convert.u64(firstLine, 'firstLine'),
        convert.u32(count, 'count'),
        convert.u32(maxBytes, 'maxBytes'),
      ),
    );
  }

  grep(path, pattern, maxMatches) {
    return convert.fromGrep(
      this.#call(
        'grep',
        convert.string(path, 'path'),
        convert.string(pattern, 'pattern'),
        convert.u32(maxMatches, 'maxMatches'),
      ),
    );
  }

  prune(messages, policy) {
    if (!Array.isArray(messages)) throw new TypeError('messages must be an array of strings');
    const bodies = messages.map((m, i) => convert.string(m, `messages[${i}]`));
    return convert.fromPruned(this.#call('prune', bodies, convert.toPolicy(policy)));
  }

  purge() {
    return this.#call('purge');
  }

  classify(status, body) {
    this.#live();
    return classifyWith(this.#instance, status, body);
  }

  /**
   * The host file of a reference or of a display path, or null. A reference
   * maps through its `relativePath` (`<thread>/<file>`, what its tag covers)
   * if its `path` ends with `/` and that relative path. A string maps only
   * if it is exactly `<displayRoot>/<thread>/<file>` of this session's thread
   * with a spill-file name (the component's relativePath decides); anything
   * else (`..`, `//`, another thread, a temporary file) gives null. Either
   * way the relative path is joined onto the granted directory only if it is
   * two plain names, so the result never leaves it; null when nothing was
   * granted. It does not check a reference's tag: use findRefs() for that.
   */
  hostPath(refOrPath) {
    let relative;
    if (typeof refOrPath === 'string') {
      relative = this.#call('relativePath', refOrPath) ?? null;
    } else {
      this.#live();
      // A reference's two paths name the same file, or it maps nowhere.
      const path = refOrPath?.path;
      relative = refOrPath?.relativePath;
      if (typeof path !== 'string' || typeof relative !== 'string' || !path.endsWith(`/${relative}`)) return null;
    }
    if (this.spillDir === null || !isPlainRelative(relative)) return null;
    return join(this.spillDir, relative);
  }

  /**
   * The thread's folder name inside the spill directory: the thread id
   * itself when it is a short lowercase name, else with a hash appended.
   */
  threadFolder() {
    return this.#call('threadFolder');
  }

  /**
   * The model-facing read tool, `{ name, description, inputSchema }`
   * (`inputSchema` is the JSON Schema as compact JSON text): register it with
   * the model as it is.
   */
  readTool() {
    return convert.fromReadToolSpec(this.#call('readTool'));
  }

  /**
   * Runs one call of the read tool with the model's arguments (the JSON
   * text, or the object a provider's SDK parsed). Never throws for a model's
   * mistake: `{ text, isError }`, where `text` says what went wrong.
   */
  runReadTool(args) {
    return convert.fromReadToolOutput(this.#call('runReadTool', convert.toToolArguments(args)));
  }

  /** This thread's spilled outputs, oldest first: `{ reference, createdMs, callId, tool }`. */
  list() {
    return this.#call('list').map(convert.fromSpillEntry);
  }

  /**
   * Starts capping a result that arrives in chunks: write() each chunk
   * (bytes or a string), then finish() gives what cap() gives on the whole.
   */
  stream(budget, call) {
    return new CapStream(this.#call('stream', convert.toBudget(budget), convert.toCall(call)));
  }

  /**
   * capMcp() of a result too large to hand over whole: `skeleton` is the
   * result's JSON with the text of content block `block` (a text block's or
   * an embedded resource's) written `""`; write() that string's body as
   * received (between its quotes, `rawBytes` bytes in all) in pieces, then
   * finish() gives what capMcp() gives for the whole result. The text must
   * be sure to be cut (`rawBytes` over six times `maxBytes`), else
   * 'invalid-argument'.
   */
  streamMcp(skeleton, block, rawBytes, budget, call, options = {}) {
    return new McpStream(
      this.#call(
        'streamMcp',
        convert.string(skeleton, 'skeleton'),
        convert.u32(block, 'block'),
        convert.u64(rawBytes, 'rawBytes'),
        convert.toBudget(budget),
        convert.toCall(call),
        convert.toMcpOptions(options),
      ),
    );
  }

  /** Releases the component's session; later calls throw. */
  close() {
    const resource = this.#resource;
    this.#resource = null;
    drop(resource);
  }
}

closedByUsing(Session);

/**
 * An MCP result whose huge text is written in pieces (see
 * `Session.streamMcp`): `write(raw)` each piece of the string's body,
 * `finish()` for the capped result. A failed write ends the stream.
 */
export class McpStream {
  #resource;

  constructor(resource) {
    this.#resource = resource;
    Object.freeze(this);
  }

  #live() {
    return liveStream(this.#resource);
  }

  /** Adds the next piece of the string's raw body (a string, cut anywhere between characters). */
  write(raw) {
    const piece = convert.string(raw, 'raw');
    const resource = this.#live();
    translateErrors(() => resource.write(piece));
  }

  /** The capped result, as capMcp() gives it; a second call throws 'invalid-argument'. */
  finish() {
    const resource = this.#live();
    return convert.fromCappedMcp(translateErrors(() => resource.finish()));
  }

  /** Releases the stream (an unfinished one's temporary file is deleted); later calls throw. */
  close() {
    const resource = this.#resource;
    this.#resource = null;
    drop(resource);
  }
}

closedByUsing(McpStream);

/**
 * One tool result written in chunks: `write(chunk)` as it arrives,
 * `bytesWritten()`, and `finish()` for the capped result, the same that
 * `cap` gives on the whole text. A character split between chunks is
 * joined; invalid UTF-8 becomes U+FFFD.
 */
export class CapStream {
  #resource;

  constructor(resource) {
    this.#resource = resource;
    Object.freeze(this);
  }

  #live() {
    return liveStream(this.#resource);
  }

  /** Adds the next bytes (a Uint8Array or Buffer) or the UTF-8 of a string. */
  write(chunk) {
    const bytes = convert.toChunk(chunk);
    const resource = this.#live();
    translateErrors(() => resource.write(bytes));
  }

  /** Total bytes written so far (a BigInt, u64). */
  bytesWritten() {
    return this.#live().bytesWritten();
  }

  /**
   * How the command ended, once it has: `finish()` then gives what `cap()`
   * gives with this exit code in the call (a non-zero code is stated first
   * in the notice, and the preview leans to the tail). An s32, else
   * RangeError; after `finish()` it throws 'invalid-argument'.
   */
  setExitCode(code) {
    const exitCode = convert.s32(code, 'code');
    const resource = this.#live();
    translateErrors(() => resource.setExitCode(exitCode));
  }

  /** `{ text, report }` of everything written; a second call throws 'invalid-argument'. */
  finish() {
    const resource = this.#live();
    return convert.fromCapped(translateErrors(() => resource.finish()));
  }

  /** Releases the stream (an unfinished one's temporary file is deleted); later calls throw. */
  close() {
    const resource = this.#resource;
    this.#resource = null;
    drop(resource);
  }
}

closedByUsing(CapStream);

/**
 * Whether a relative path (the component's answer, or a reference's
 * relativePath) is `<thread>/<file>`: two plain names, so joining it onto the
 * granted directory cannot leave it, whatever it came from.
 */
function isPlainRelative(relative) {
  if (typeof relative !== 'string') return false;
  const segments = relative.split('/');
  return segments.length === 2 && segments.every(isPlainName);
}

/** The results of plan() or capBatch(), checked and converted. */
function pendingList(results, withCall) {
  if (!Array.isArray(results)) {
    const items = withCall ? '{ call, text } or { call, parts }' : '{ text } or { parts }';
    throw new TypeError(`results must be an array of ${items}`);
  }
  return results.map((item, i) => convert.toPending(item, i, withCall));
}

/** `{ kind, limit, requested, unit }` for a size rejection, else null. */
export function classifyWith(instance, status, body) {
  const overflow = translateErrors(() =>
    instance.errors.classify(convert.u16(status, 'status'), convert.string(body, 'body')),
  );
  return overflow === undefined ? null : convert.fromOverflow(overflow);
}
