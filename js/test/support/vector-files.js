// The shared vector files: every *.json of tests/vectors, found at run time.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const VECTORS_DIR = new URL('../../../tests/vectors/', import.meta.url).pathname;

/** Every *.json in VECTORS_DIR, sorted by name, as absolute paths. */
export function vectorFiles() {
  return readdirSync(VECTORS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(VECTORS_DIR, name));
}
