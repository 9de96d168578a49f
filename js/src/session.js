// One conversation thread's session: its own component instance and WASI
// shim, whose only preopen is the spill directory.

import { realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { SPILL_GUEST_PATH, instantiateComponent, sandboxedShim } from './component.js';
import * as convert from './convert.js';
import { translateErrors } from './errors.js';

/**
 * The real path of `dir` if it is an existing directory, else null. The shim
 * would accept a missing path as a preopen and fail every file operation in
 * it; granting nothing instead gives the documented "no spill directory"
 * notice.
 */
async function existingDirectory(dir) {
  try {
    const real = await realpath(dir);
    return (await stat(real)).isDirectory() ? real : null;
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
    throw err;
  }
}

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
  };
  // An empty path grants nothing, exactly like null (never the working directory).
  const requested = spillDir === null ? null : convert.string(spillDir, 'spillDir') || null;
  const hostDir = requested === null ? null : await existingDirectory(requested);
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
    }),
  );
  return new Session(instance, resource, hostDir, root);
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

  /** `call`: the call's id, or `{ id, tool?, exitCode?, isError? }`. */
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

  /** Releases the component's session; later calls throw. */
  close() {
    const resource = this.#resource;
    this.#resource = null;
    resource?.[Symbol.dispose ?? Symbol.for('dispose')]?.();
  }
}

if (Symbol.dispose) {
  Session.prototype[Symbol.dispose] = Session.prototype.close;
}

/**
 * Whether a relative path (the component's answer, or a reference's
 * relativePath) is `<thread>/<file>`: two plain names, so joining it onto the
 * granted directory cannot leave it, whatever it came from.
 */
function isPlainRelative(relative) {
  if (typeof relative !== 'string') return false;
  const segments = relative.split('/');
  return (
    segments.length === 2 &&
    segments.every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\\') && !s.includes('\0'))
  );
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
