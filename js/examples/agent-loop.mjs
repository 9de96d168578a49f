//! A fake agent loop: a tool returns a 4 MiB minified bundle (one line), the
//! host caps it before the model sees it, and the model reads a piece back.
//! Run: `node js/examples/agent-loop.mjs` (after `make js-setup`).
//! It asserts what it prints, so it exits non-zero if anything breaks.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { budget, openSession } from '../src/index.js';

// A minified bundle: 4 MiB on a single line, with one interesting spot.
function minifiedBundle() {
  const chunk = 'function a(b){return b&&b.c?b.c(d):void 0}var e=a({c:f});';
  const needle = 'throw new Error("config.timeout must be a number")';
  const half = chunk.repeat(Math.floor((2 * 1024 * 1024) / chunk.length));
  return `${half}${needle};${half}\n`;
}

const spillDir = mkdtempSync(join(tmpdir(), 'toolcap-example-'));
const session = await openSession({ threadId: 'agent-thread-1', spillDir });
try {
  const output = minifiedBundle();
  console.log(`tool "cat dist/app.min.js" returned ${Buffer.byteLength(output)} bytes on 1 line`);

  // What the model gets instead: at most 8 KiB, notice included. The call
  // record names the spill file and tells the notice whether the tool failed.
  const capped = session.cap(output, budget(8 * 1024), { id: 'call-cat-bundle', tool: 'cat', exitCode: 0 });
  console.log(`\n--- the model sees (${Buffer.byteLength(capped.text)} bytes) ---`);
  console.log(capped.text.replace(/[^\n]{600,}/g, (line) => `${line.slice(0, 160)}... [${line.length} chars]`));
  const { report } = capped;
  assert.equal(report.truncated, true);
  assert.ok(Buffer.byteLength(capped.text) <= 8 * 1024);
  assert.ok(report.spill, report.spillError ?? 'no spill');
  assert.equal(report.spill.relativePath, `agent-thread-1/${report.spill.path.split('/').pop()}`);
  assert.equal(session.hostPath(report.spill), report.spill.path);
  assert.deepEqual(readFileSync(report.spill.path), Buffer.from(output));
  const spilled = report.spill.path;

  // The model greps the spilled file for the error it is looking for...
  const found = session.grep(spilled, 'config.timeout', 3);
  assert.equal(found.totalMatches, 1n);
  const [match] = found.matches;
  console.log(`\n--- grep "config.timeout": line ${match.line}, byte ${match.offset} ---`);
  console.log(match.excerpt);
  assert.ok(match.excerpt.includes('must be a number'));

  // ...and reads the bytes around it.
  const page = session.read(spilled, match.offset - 40n, 160);
  console.log(`\n--- read at byte ${page.offset} (next page at ${page.nextOffset}) ---`);
  console.log(page.text);
  assert.ok(page.text.includes('throw new Error("config.timeout'));

  // Line 1 is the whole bundle: read-lines gives its first 200 bytes.
  const line = session.readLines(spilled, 1, 1, 200);
  console.log(`\n--- read-lines 1 (200 bytes of ${line.totalBytes}) ---`);
  console.log(line.text);
  assert.equal(line.firstLine, 1n);
  assert.equal(Buffer.byteLength(line.text), 200);
} finally {
  session.close();
  rmSync(spillDir, { recursive: true, force: true });
}
