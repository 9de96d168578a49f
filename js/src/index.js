// tool-output-cap for Node: cap tool results to a budget, spill the full
// output into a directory, read it back, prune old tool messages, fit a
// whole turn of results to what the next request has left, and sweep old
// spills.

import { instantiateComponent, sandboxedShim } from './component.js';
import {
  DEFAULT_HEAD_PERCENT,
  DEFAULT_KEEP,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_LINES,
} from './convert.js';
import { classifyWith } from './session.js';

export { CAP_ERROR_CASES, ToolCapError } from './errors.js';
export { CapStream, McpStream, Session, openSession } from './session.js';
export { SpillStore, openSpillStore } from './spill-store.js';

/**
 * A budget of `maxBytes` with the Rust host's defaults: at most 400 lines,
 * preview lines cut at 2000 bytes, head and tail kept (40 % head), no token
 * limit.
 */
export function budget(maxBytes, overrides = {}) {
  return {
    maxBytes,
    maxLines: DEFAULT_MAX_LINES,
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    keep: DEFAULT_KEEP,
    headPercent: DEFAULT_HEAD_PERCENT,
    maxTokens: null,
    ...overrides,
  };
}

// classify() needs no files: one instance with no preopen serves the process.
let classifier = null;

/**
 * Whether an HTTP error response means "the request was too large":
 * `{ kind, limit, requested, unit }` (amounts as BigInt, or null when the
 * body states none), or null.
 */
export async function classify(status, body) {
  classifier ??= instantiateComponent(sandboxedShim(null)).catch((err) => {
    classifier = null;
    throw err;
  });
  return classifyWith(await classifier, status, body);
}
