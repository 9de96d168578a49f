// The runnable example is a test: it asserts what it prints.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, test } from 'node:test';

import { freshDir, removeDir } from './support/disk.js';

const EXAMPLE = new URL('../examples/agent-loop.mjs', import.meta.url).pathname;
const dir = freshDir('example-');
after(() => removeDir(dir));

test('the agent-loop example runs and exits 0', () => {
  const out = execFileSync(process.execPath, [EXAMPLE], { env: { ...process.env, TMPDIR: dir }, encoding: 'utf8' });
  assert.match(out, /the model sees/);
  assert.match(out, /config\.timeout must be a number/);
});
