// Every thread's spilled outputs under one spill directory, for a host's
// retention: its own component instance whose only preopen is that directory.

import { SPILL_GUEST_PATH, instantiateComponent, sandboxedShim } from './component.js';
import * as convert from './convert.js';
import { translateErrors } from './errors.js';
import { closedByUsing, drop } from './resource.js';
import { requiredDirectory } from './spill-dir.js';

/**
 * Opens the spill directory `dir` (created with mode 0700 if missing; an fs
 * error if it cannot be) for statistics and sweeps across every thread.
 */
export async function openSpillStore(dir) {
  const requested = convert.string(dir, 'dir');
  // An empty path would be the working directory: never a spill directory.
  if (requested === '') throw new TypeError('dir must name the spill directory, got an empty string');
  const hostDir = await requiredDirectory(requested);
  const instance = await instantiateComponent(sandboxedShim(hostDir));
  const resource = translateErrors(() => instance.capper.SpillStore.open(SPILL_GUEST_PATH));
  return new SpillStore(resource, hostDir);
}

export class SpillStore {
  #resource;

  constructor(resource, spillDir) {
    this.#resource = resource;
    /** Real host path of the spill directory. */
    this.spillDir = spillDir;
    Object.freeze(this);
  }

  #call(method, ...args) {
    const resource = this.#resource;
    if (!resource) throw new Error('tool-output-cap: this spill store is closed');
    return translateErrors(() => resource[method](...args));
  }

  /** `{ threads, files, bytes, oldestMs, newestMs }` across every thread. */
  stats() {
    return convert.fromStoreStats(this.#call('stats'));
  }

  /**
   * Deletes spilled outputs, oldest first, until every limit of `policy`
   * (`{ maxAgeSeconds?, maxTotalBytes?, maxFiles? }`) holds; returns
   * `{ deleted, keptFiles, keptBytes, skipped }`. A reference to a deleted
   * file then reads as expired.
   */
  sweep(policy) {
    return convert.fromSweepReport(this.#call('sweep', convert.toRetentionPolicy(policy)));
  }

  /** Releases the store's instance; later calls throw. */
  close() {
    const resource = this.#resource;
    this.#resource = null;
    drop(resource);
  }
}

closedByUsing(SpillStore);
