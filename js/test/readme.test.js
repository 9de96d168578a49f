// The README's JavaScript block (between the JS section markers) is run as
// it is, so the documentation cannot drift from the package.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { freshDir, removeDir } from './support/disk.js';

const README = new URL('../../README.md', import.meta.url);

/** The one ```js block between the JS section markers of the root README. */
function readmeSnippet() {
  const text = readFileSync(README, 'utf8');
  const section = text.match(/<!-- JS-SECTION-START[^>]*-->([\s\S]*?)<!-- JS-SECTION-END -->/);
  assert.ok(section, 'the README has no JS section markers');
  const blocks = [...section[1].matchAll(/```js\n([\s\S]*?)```/g)];
  assert.equal(blocks.length, 1, 'the JS section must hold exactly one ```js block');
  return blocks[0][1];
}

const dir = freshDir('readme-');
after(() => removeDir(dir));

test('the README snippet runs and its assertions hold', () => {
  const snippet = readmeSnippet();
  assert.match(snippet, /from 'tool-output-cap'/);
  assert.match(snippet, /assert/);
  // Written inside js/, the package name resolves to this package itself
  // (Node's self-reference through "exports"), as it would once installed.
  const script = join(dir, 'readme-snippet.mjs');
  writeFileSync(script, snippet);
  execFileSync(process.execPath, [script], { env: { ...process.env, TMPDIR: dir }, stdio: 'pipe' });
});
