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

export async function openSession(options = {}) {
  const { threadId, spillDir = null, displayRoot, key } = options;
  const settingsKey = convert.toKey(key);
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
      threadId: convert.string(threadId, 'threadId'),
      spillDir: SPILL_GUEST_PATH,
      displayRoot: root,
      key: settingsKey,
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

  cap(output, budget, callId) {
    return convert.fromCapped(
      this.#call(
        'cap',
        convert.string(output, 'output'),
        convert.toBudget(budget),
        convert.string(callId, 'callId'),
      ),
    );
  }

  capParts(parts, budget, callId) {
    if (!Array.isArray(parts)) throw new TypeError('parts must be an array of content parts');
    return convert.fromCappedParts(
      this.#call(
        'capParts',
        parts.map(convert.toPart),
        convert.toBudget(budget),
        convert.string(callId, 'callId'),
      ),
    );
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
   * The host file of a reference (or of its display path), or null. Only a
   * path that is exactly `<displayRoot>/<thread>/<file>` of this session's
   * thread with a spill-file name maps (the component decides); anything
   * else (`..`, `//`, another thread, a temporary file) gives null, as does a
   * session without a granted directory. The result always lies inside the
   * granted directory. It does not check the reference's tag: use findRefs()
   * for that.
   */
  hostPath(refOrPath) {
    const path = typeof refOrPath === 'string' ? refOrPath : refOrPath?.path;
    if (typeof path !== 'string') return null;
    const relative = this.#call('relativePath', path) ?? null;
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
 * Whether the component's answer is `<thread>/<file>`: two plain names, so
 * joining it onto the granted directory cannot leave it, whatever the
 * component said.
 */
function isPlainRelative(relative) {
  if (typeof relative !== 'string') return false;
  const segments = relative.split('/');
  return (
    segments.length === 2 &&
    segments.every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\\') && !s.includes('\0'))
  );
}

export function classifyWith(instance, status, body) {
  const kind = translateErrors(() =>
    instance.errors.classify(convert.u16(status, 'status'), convert.string(body, 'body')),
  );
  return kind ?? null;
}
