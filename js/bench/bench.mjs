//! Times the component's two hot paths through jco on Node: a small result
//! that fits (returned unchanged) and a 4 MiB result that is cut and spilled.
//! Run: `node js/bench/bench.mjs [--small FILE] [--large FILE] [--spill-dir DIR] [--quick]`
//! Prints one JSON line on stdout (for the Rust bench report) and a summary
//! on stderr.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { openSession } from '../src/index.js';

const { values: args } = parseArgs({
  options: {
    small: { type: 'string' },
    large: { type: 'string' },
    'spill-dir': { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});

const SMALL_BUDGET = { maxBytes: 131072, maxLines: null, maxLineBytes: 2000, keep: 'head-and-tail', headPercent: 40 };
const LARGE_BUDGET = { maxBytes: 16384, maxLines: 400, maxLineBytes: 2000, keep: 'head-and-tail', headPercent: 40 };

/** ASCII log lines up to `bytes` bytes. */
function logLines(bytes) {
  const lines = [];
  let size = 0;
  for (let n = 1; size < bytes; n++) {
    const line = `2024-05-01T12:00:00.${String(n % 1000).padStart(3, '0')}Z INFO worker-${n % 7} processed item ${n} in ${n % 97} ms\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const small = args.small ? readFileSync(args.small, 'utf8') : logLines(1024);
const large = args.large ? readFileSync(args.large, 'utf8') : logLines(4 * 1024 * 1024);
const ownSpillDir = args['spill-dir'] === undefined;
const spillDir = args['spill-dir'] ?? mkdtempSync(join(tmpdir(), 'toolcap-bench-'));

const session = await openSession({
  threadId: 'bench-thread',
  spillDir,
  displayRoot: '/spill-root',
  key: new Uint8Array(32).fill(7),
});

try {
  // (1) small: fits, comes back unchanged. Median of per-call batch means.
  const batches = args.quick ? 5 : 20;
  const perBatch = args.quick ? 50 : 200;
  const fits = session.cap(small, SMALL_BUDGET, 'bench-call');
  assert.equal(fits.report.truncated, false, 'the small input must fit its budget');
  for (let i = 0; i < perBatch; i++) session.cap(small, SMALL_BUDGET, 'bench-call');
  const smallNs = [];
  for (let b = 0; b < batches; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) session.cap(small, SMALL_BUDGET, 'bench-call');
    smallNs.push(Number(process.hrtime.bigint() - start) / perBatch);
  }

  // (2) large: cut and spilled (the same file is rewritten each run).
  const runs = args.quick ? 3 : 15;
  const warmups = args.quick ? 1 : 3;
  const cut = session.cap(large, LARGE_BUDGET, 'bench-call');
  const why = cut.report.spillError;
  assert.ok(cut.report.truncated && cut.report.spill, `the large input must be cut and spilled: ${why}`);
  for (let i = 1; i < warmups; i++) session.cap(large, LARGE_BUDGET, 'bench-call');
  const largeNs = [];
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    const capped = session.cap(large, LARGE_BUDGET, 'bench-call');
    largeNs.push(Number(process.hrtime.bigint() - start));
    assert.ok(capped.report.spill);
  }

  const result = {
    host: 'js',
    small_bytes: Buffer.byteLength(small),
    small_median_ns: Math.round(median(smallNs)),
    large_bytes: Buffer.byteLength(large),
    large_median_ns: Math.round(median(largeNs)),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stderr.write(
    `js (node ${process.version}): ` +
      `small ${result.small_bytes} B fits: ${(result.small_median_ns / 1000).toFixed(1)} µs/call ` +
      `(median of ${batches} batches of ${perBatch}); ` +
      `large ${result.large_bytes} B cut + spill: ${(result.large_median_ns / 1e6).toFixed(2)} ms/call ` +
      `(median of ${runs})\n`,
  );
} finally {
  session.close();
  if (ownSpillDir) rmSync(spillDir, { recursive: true, force: true });
}
