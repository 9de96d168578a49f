// The API of the read tool, streaming, the catalog and retention on Node:
// a stream gives what cap gives, the read tool round trip, list, a sweep
// whose deleted spill then reads as expired, and owner-only folders.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { CapStream, McpStream, SpillStore, ToolCapError, budget, openSession, openSpillStore } from '../src/index.js';
import { freshDir, removeDir } from './support/disk.js';

const KEY = new Uint8Array(32).fill(7);
const dirs = [];
after(() => dirs.forEach(removeDir));
const tempDir = () => {
  const dir = freshDir('stream-store-');
  dirs.push(dir);
  return dir;
};
const expectCase = (call, wanted, message = /./) =>
  assert.throws(call, (err) => err instanceof ToolCapError && err.case === wanted && message.test(err.message));

const LOG = Array.from({ length: 3000 }, (_, i) => `step ${i + 1}: compiled unit u${i} ✓ 😀\n`).join('');

test('a 20 MiB stream in 64 KiB chunks, its exit code given at the end, gives what cap gives, and its spill is the input', async () => {
  const session = await openSession({ threadId: 'stream', spillDir: tempDir(), key: KEY });
  // Multi-byte characters, so chunk boundaries split some of them.
  const line = (i) => `${String(i).padStart(7, '0')} building ünïcödé módule ✓ 😀 ${'x'.repeat(i % 50)}\n`;
  const parts = [];
  let size = 0;
  for (let i = 0; size < 20 * 1024 * 1024; i++) {
    parts.push(line(i));
    size += Buffer.byteLength(parts.at(-1));
  }
  const input = `${parts.join('')}error[E0425]: the last line failed\n`;
  const bytes = Buffer.from(input, 'utf8');
  const b = budget(16 * 1024);
  const call = { id: 'build', tool: 'cargo', exitCode: 101 };

  // The exit code is known once the output has ended, as for a command.
  const stream = session.stream(b, { id: call.id, tool: call.tool });
  assert.ok(stream instanceof CapStream);
  const chunk = 64 * 1024;
  for (let at = 0; at < bytes.length; at += chunk) stream.write(bytes.subarray(at, at + chunk));
  assert.equal(stream.bytesWritten(), BigInt(bytes.length));
  stream.setExitCode(call.exitCode);
  const streamed = stream.finish();
  stream.close();

  assert.equal(streamed.report.truncated, true);
  assert.equal(streamed.report.originalBytes, bytes.length);
  assert.ok(Buffer.byteLength(streamed.text) <= b.maxBytes);
  assert.match(streamed.text, /The tool `cargo` failed \(exit code 101\)/);
  assert.ok(readFileSync(session.hostPath(streamed.report.spill)).equals(bytes), 'the spill file is the input');
  assert.deepEqual(session.cap(input, b, call), streamed, 'cap of the whole text gives the same result');
  session.close();
});

test('a stream takes strings and bytes, joins split characters, and finishes once', async () => {
  const session = await openSession({ threadId: 'chunks', spillDir: tempDir(), key: KEY });
  const stream = session.stream(budget(4096), 'c1');
  stream.write('abc ');
  stream.write(new Uint8Array([0xc3])); // the first byte of "é"
  stream.write(Buffer.from([0xa9, 0x0a]));
  stream.write(new Uint8Array([0xff])); // invalid UTF-8: U+FFFD, as a lossy decode of the whole
  assert.equal(stream.bytesWritten(), 8n);
  assert.throws(() => stream.setExitCode(1.5), TypeError);
  assert.throws(() => stream.setExitCode(2 ** 31), RangeError);
  assert.equal(stream.finish().text, 'abc é\n\uFFFD');
  expectCase(() => stream.finish(), 'invalid-argument');
  expectCase(() => stream.write('more'), 'invalid-argument');
  expectCase(() => stream.setExitCode(1), 'invalid-argument');
  assert.throws(() => stream.write(42), TypeError);
  stream.close();
  assert.throws(() => stream.bytesWritten(), /closed/);
  expectCase(() => session.stream(budget(10), 'c2'), 'invalid-budget');
  assert.throws(() => session.stream(budget(4096), { tool: 'x' }), TypeError);
  // An abandoned stream leaves no temporary file.
  const abandoned = session.stream(budget(4096), 'c3');
  abandoned.write(LOG.repeat(20));
  abandoned.close();
  const folder = join(session.spillDir, session.threadFolder());
  assert.deepEqual(readdirSync(folder).filter((name) => name.startsWith('.tmp')), []);
  session.close();
});

test('the read tool: its spec, a capped result read back, and a mistake as isError', async () => {
  const session = await openSession({
    threadId: 'reader',
    spillDir: tempDir(),
    key: KEY,
    readTool: 'read_spilled_output',
  });
  const spec = session.readTool();
  assert.equal(spec.name, 'read_spilled_output');
  assert.ok(spec.description.length > 0);
  const schema = JSON.parse(spec.inputSchema);
  assert.equal(schema.type, 'object');
  assert.ok('path' in schema.properties && 'line' in schema.properties, spec.inputSchema);

  const { text, report } = session.cap(LOG, budget(4096), 'c1');
  assert.match(text, /read_spilled_output/);
  const page = session.runReadTool({ path: report.spill.path, line: 1 });
  assert.equal(page.isError, false, page.text);
  assert.match(page.text, /step 1: compiled unit u0/);
  // The JSON text as the model sent it works the same.
  assert.deepEqual(session.runReadTool(JSON.stringify({ path: report.spill.path, line: 1 })), page);
  const found = session.runReadTool({ path: report.spill.path, grep: 'unit u2999' });
  assert.equal(found.isError, false, found.text);
  assert.match(found.text, /step 3000/);

  // Mistakes a model makes come back as isError with what to do instead.
  for (const mistake of [{ line: 1 }, { path: '/etc/passwd' }, '{"path": ', { path: report.spill.path, lines: 'all' }]) {
    const out = session.runReadTool(mistake);
    assert.equal(out.isError, true, `${JSON.stringify(mistake)}: ${out.text}`);
    assert.ok(out.text.length > 0);
  }
  // A value that is neither JSON text nor an object is the host's bug.
  for (const wrong of [42, null, undefined, true]) assert.throws(() => session.runReadTool(wrong), TypeError);
  session.close();
});

test('list: every spill of the thread, oldest first, with genuine references', async () => {
  const session = await openSession({ threadId: 'catalog', spillDir: tempDir(), key: KEY });
  assert.deepEqual(session.list(), []);
  const first = session.cap(LOG, budget(4096), 'c1').report.spill;
  // Identical output under another call id: the thread already holds it,
  // so the reference names the first call's file and nothing is written.
  const second = session.cap(LOG, budget(4096), 'c2').report.spill;
  assert.deepEqual(second, first);
  // A stream over 4 MiB, spilled as it arrives, notes its call's tool in
  // the catalog.
  const stream = session.stream(budget(4096), { id: 'c3', tool: 'bash' });
  const chunk = Buffer.from(LOG);
  for (let written = 0; written <= 4 * 1024 * 1024; written += chunk.length) stream.write(chunk);
  const third = stream.finish().report.spill;
  stream.close();
  const entries = session.list();
  assert.deepEqual(
    entries.map((e) => [e.callId, e.reference.relativePath]),
    [
      ['c1', first.relativePath],
      ['c3', third.relativePath],
    ],
  );
  assert.equal(entries[1].tool, 'bash');
  assert.deepEqual(entries[1].reference, third);
  for (const entry of entries) {
    assert.equal(typeof entry.createdMs, 'bigint');
    assert.deepEqual(session.findRefs(session.prunedPlaceholder(entry.reference)), [entry.reference]);
  }
  assert.ok(entries[0].createdMs <= entries[1].createdMs);
  session.close();
});

test('a sweep deletes a spill, which then reads as expired', async () => {
  const dir = tempDir();
  // No retention stated: nothing promised, so any sweep may delete it (a
  // promised file outlives every sweep: the retention-promise vector).
  const session = await openSession({ threadId: 'old', spillDir: dir, key: KEY });
  const { text, report } = session.cap(LOG, budget(4096), 'c1');
  assert.doesNotMatch(text, /kept for/);
  const store = await openSpillStore(dir);
  assert.ok(store instanceof SpillStore);
  assert.equal(store.spillDir, dir);
  const before = store.stats();
  assert.equal(before.threads, 1);
  assert.equal(before.files, 1n);
  assert.equal(before.bytes, report.spill.bytes);
  assert.equal(typeof before.oldestMs, 'bigint');

  // Nothing is old enough for an age limit of a day.
  assert.deepEqual(store.sweep({ maxAgeSeconds: 86_400 }).deleted, []);
  const swept = store.sweep({ maxFiles: 0 });
  assert.deepEqual(
    swept.deleted.map((d) => [d.relativePath, d.bytes, d.reason]),
    [[report.spill.relativePath, report.spill.bytes, 'file-count']],
  );
  assert.equal(swept.keptFiles, 0n);
  assert.equal(swept.keptBytes, 0n);
  assert.deepEqual(store.stats(), { threads: 1, files: 0n, bytes: 0n, oldestMs: null, newestMs: null });

  expectCase(() => session.read(report.spill.path, 0, 100), 'not-found', /expired/);
  const out = session.runReadTool({ path: report.spill.path });
  assert.equal(out.isError, true);
  assert.match(out.text, /expired/);
  // The store's own note, and nothing else, is left in the thread folder.
  assert.deepEqual(readdirSync(join(dir, session.threadFolder())), ['.expired']);
  store.close();
  assert.throws(() => store.stats(), /closed/);
  session.close();
});

test('openSpillStore creates a missing directory for the owner only, and checks its arguments', async () => {
  const parent = tempDir();
  const dir = join(parent, 'a', 'spill');
  const store = await openSpillStore(dir);
  assert.equal(store.spillDir, dir);
  if (process.platform !== 'win32') {
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(parent, 'a')).mode & 0o777, 0o700);
  }
  assert.deepEqual(store.stats(), { threads: 0, files: 0n, bytes: 0n, oldestMs: null, newestMs: null });
  for (const [policy, kind] of [
    [{ max_files: 1 }, TypeError],
    [{ maxFiles: -1 }, RangeError],
    [{ maxTotalBytes: 1.5 }, TypeError],
    [{ maxAgeSeconds: '1d' }, TypeError],
    [null, TypeError],
  ]) {
    assert.throws(() => store.sweep(policy), kind, JSON.stringify(policy));
  }
  assert.deepEqual(store.sweep({}).deleted, []);
  store.close();
  await assert.rejects(openSpillStore(''), TypeError);
  await assert.rejects(openSpillStore(7), TypeError);
  const file = join(parent, 'file');
  writeFileSync(file, 'x');
  await assert.rejects(openSpillStore(file), { code: 'EEXIST' });
});

test('retentionSeconds and redaction are checked and reach the component', async () => {
  const dir = tempDir();
  await assert.rejects(openSession({ threadId: 't', spillDir: dir, retentionSeconds: 0 }), {
    name: 'ToolCapError',
    case: 'invalid-settings',
  });
  await assert.rejects(openSession({ threadId: 't', retentionSeconds: -1 }), RangeError);
  await assert.rejects(openSession({ threadId: 't', retentionSeconds: '7d' }), TypeError);
  await assert.rejects(openSession({ threadId: 't', redaction: ['hunter2'] }), TypeError);
  await assert.rejects(openSession({ threadId: 't', redaction: { literals: 'hunter2' } }), TypeError);
  await assert.rejects(openSession({ threadId: 't', redaction: { spill: 'yes' } }), TypeError);
  const big = await openSession({ threadId: 't', spillDir: dir, retentionSeconds: 10n ** 12n });
  big.close();
});

test('redaction replaces a literal in the text and counts it', async () => {
  const dir = tempDir();
  const session = await openSession({
    threadId: 't',
    spillDir: dir,
    key: KEY,
    redaction: { literals: ['hunter2-secret'], spill: true },
  });
  const { text, report } = session.cap('login ok, token hunter2-secret\n', budget(4096), 'c1');
  assert.equal(text, 'login ok, token [redacted: literal]\n');
  assert.deepEqual(report.redactions, [{ kind: 'literal', count: 1 }]);
  await assert.rejects(openSession({ threadId: 't', redaction: { literals: ['ab'] } }), {
    name: 'ToolCapError',
    case: 'invalid-settings',
  });
  session.close();
});

// The WIT (spill-entry.tool) promises the tool of every spill.
test('a capped spill notes its call\'s tool in the catalog', async () => {
  const session = await openSession({ threadId: 'tools', spillDir: tempDir(), key: KEY });
  session.cap(LOG, budget(4096), { id: 'c1', tool: 'bash' });
  assert.deepEqual(
    session.list().map((e) => [e.callId, e.tool]),
    [['c1', 'bash']],
  );
  session.close();
});

test('streamMcp in pieces gives what capMcp gives for the whole result, and refuses a skeleton or body that does not add up', async () => {
  const session = await openSession({ threadId: 'mcp-pieces', spillDir: tempDir(), key: KEY });
  const log = `${LOG.repeat(4)}error: the "last" step failed in C:\\build\n`;
  const result = (text) =>
    JSON.stringify({
      content: [
        { type: 'text', text: 'before' },
        { type: 'resource', resource: { uri: 'file:///build.log', text } },
      ],
      structuredContent: { status: 'failed' },
      isError: true,
    });
  const skeleton = result('');
  const quoted = JSON.stringify(log);
  const body = quoted.slice(1, -1);
  const b = budget(4096);
  const stream = session.streamMcp(skeleton, 1, Buffer.byteLength(body), b, 'pieces');
  assert.ok(stream instanceof McpStream);
  // Pieces cut anywhere, escapes included (each ends on a character).
  for (let at = 0; at < body.length; at += 7777) stream.write(body.slice(at, at + 7777));
  const streamed = stream.finish();
  stream.close();
  assert.equal(streamed.report.truncated, true);
  assert.deepEqual(session.capMcp(result(log), b, 'pieces'), streamed, 'capMcp of the whole result gives the same');
  assert.equal(readFileSync(session.hostPath(streamed.report.spill), 'utf8'), `before\n${log}`);

  expectCase(() => session.streamMcp(result('x'), 1, 1 << 20, b, 'c'), 'invalid-argument', /content\[1\]/);
  expectCase(() => session.streamMcp(skeleton, 1, 6 * 4096, b, 'c'), 'invalid-argument', /sure to be cut/);
  const short = session.streamMcp(skeleton, 1, 100_000, b, 'c');
  expectCase(() => short.write('a'.repeat(100_001)), 'invalid-argument', /longer than the 100000 bytes/);
  expectCase(() => short.write('a'), 'invalid-argument', /finished, or failed/);
  short.close();
  session.close();
});
