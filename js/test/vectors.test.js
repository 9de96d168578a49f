// Runs every shared vector in tests/vectors/*.json through the component, as
// the Rust and Python tests do. `VECTOR=<part of a file name>` limits the run.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { test } from 'node:test';

import { OPS, parseVector } from './support/vector-format.js';
import { vectorFiles } from './support/vector-files.js';
import { runVector } from './support/vector-run.js';

const only = process.env.VECTOR ?? '';
const files = vectorFiles().filter((path) => basename(path).includes(only));

test('the vector folder holds the shared vectors', () => {
  assert.ok(files.length >= 25 || only !== '', `only ${files.length} vector files`);
});

for (const path of files) {
  const label = basename(path);
  test(`vector ${label}`, async () => {
    const vector = parseVector(readFileSync(path, 'utf8'));
    assert.equal(vector.name, basename(path, '.json'), `${label}: name is not the file name`);
    const failures = await runVector(label, vector);
    assert.deepEqual(failures, [], `${failures.length} check(s) failed:\n${failures.join('\n')}`);
  });
}

test('the vectors use every op', () => {
  const used = new Set(vectorFiles().flatMap((p) => parseVector(readFileSync(p, 'utf8')).steps.map((s) => s.op)));
  assert.deepEqual(OPS.filter((op) => !used.has(op)), []);
});
