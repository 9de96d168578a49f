// The shipped .d.ts, checked by the TypeScript compiler: test/types/usage.ts
// uses the whole API as a TypeScript host would, and marks misuse that the
// types must refuse with @ts-expect-error (an unmet one fails the check).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const jsRoot = fileURLToPath(new URL('..', import.meta.url));

test('index.d.ts type-checks real use and refuses misuse (tsc --strict)', () => {
  const tsc = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'test/types'],
    { cwd: jsRoot, encoding: 'utf8' },
  );
  assert.equal(tsc.status, 0, `tsc failed:\n${tsc.stdout}${tsc.stderr}`);
});
