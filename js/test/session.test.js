// The wrapper on Node: files on the host disk, sandboxing between sessions,
// BigInt sizes, errors as ToolCapError, owner-only folders, and the
// no-directory notice.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { CAP_ERROR_CASES, Session, ToolCapError, budget, classify, openSession } from '../src/index.js';
import { sandboxedShim } from '../src/component.js';
import { freshDir, makeUnwritable, removeDir } from './support/disk.js';

const KEY = new Uint8Array(32).fill(9);
const dirs = [];
after(() => dirs.forEach(removeDir));
const tempDir = () => {
  const dir = freshDir('session-');
  dirs.push(dir);
  return dir;
};

const BIG = Array.from({ length: 5000 }, (_, i) => `2024-05-01 step ${i + 1}: compiled module m${i}\n`).join('');
const expectCase = (call, wanted) =>
  assert.throws(call, (err) => err instanceof ToolCapError && err.case === wanted && err.message.length > 0);

test('a spill lands in the host directory, byte for byte, with BigInt sizes', async () => {
  const dir = tempDir();
  const session = await openSession({ threadId: 'thread-a', spillDir: dir, key: KEY });
  assert.equal(session.displayRoot, dir, 'displayRoot defaults to the real spill path');
  const input = `${BIG}ünïcödé ✓ 😀\n`;
  const { text, report } = session.cap(input, budget(4096), 'call-1');
  assert.equal(report.truncated, true);
  assert.equal(report.spillError, null);
  assert.ok(text.includes(report.spill.path));
  const { spill } = report;
  assert.ok(spill.path.startsWith(`${dir}/thread-a/call-1-`), spill.path);
  assert.equal(spill.relativePath, spill.path.slice(dir.length + 1));
  assert.equal(typeof spill.bytes, 'bigint');
  assert.equal(typeof spill.lines, 'bigint');
  assert.equal(spill.bytes, BigInt(Buffer.byteLength(input)));
  assert.equal(spill.lines, 5001n);
  // displayRoot is the real path, so the reference's path is the host file.
  assert.deepEqual(readFileSync(spill.path), Buffer.from(input, 'utf8'));
  assert.equal(session.hostPath(spill), spill.path);
  // The spill, and its catalog note beside it.
  const name = spill.path.split('/').pop();
  assert.deepEqual(readdirSync(join(dir, 'thread-a')).sort(), [`.${name}.meta`, name]);

  const page = session.readLines(spill.path, 2, 1, 200);
  assert.equal(page.text, '2024-05-01 step 2: compiled module m1\n');
  for (const key of ['offset', 'firstLine', 'nextOffset', 'nextLine', 'totalBytes']) {
    assert.equal(typeof page[key], 'bigint', key);
  }
  // u64 arguments take numbers and BigInts alike.
  assert.deepEqual(session.read(spill.path, 38n, 38), session.read(spill.path, 38, 38));
  const found = session.grep(spill.path, 'module m4999', 5);
  assert.equal(found.totalMatches, 1n);
  assert.equal(found.matches[0].line, 5000n);
  assert.equal(typeof session.purge(), 'bigint');
  assert.equal(existsSync(spill.path), false);
  session.close();
  assert.throws(() => session.findRefs(''), /closed/);
});

test('a second thread cannot read the first one\'s folder', async () => {
  const dir = tempDir();
  const first = await openSession({ threadId: 'first', spillDir: dir, key: KEY });
  const second = await openSession({ threadId: 'second', spillDir: dir, key: KEY });
  const {
    text,
    report: { spill },
  } = first.cap(BIG, budget(4096), 'c1');
  assert.ok(spill);
  const relative = spill.path.slice(dir.length + 1);
  for (const path of [spill.path, relative]) {
    expectCase(() => second.read(path, 0, 100), 'outside-root');
    expectCase(() => second.readLines(path, 1, 1, 100), 'outside-root');
    expectCase(() => second.grep(path, 'step', 1), 'outside-root');
  }
  assert.deepEqual(second.findRefs(text), []);
  assert.equal(first.findRefs(text).at(-1).path, spill.path);
  first.close();
  second.close();
});

test('a missing spill directory is created for the owner only, with its thread folder', async () => {
  const missing = join(tempDir(), 'does-not-exist', 'spill');
  const session = await openSession({ threadId: 'Thread-M', spillDir: missing, key: KEY });
  assert.equal(session.spillDir, missing);
  assert.equal(session.displayRoot, missing);
  const folder = session.threadFolder();
  assert.match(folder, /^Thread-M-[0-9a-f]{16}$/, 'an id with uppercase letters gets a hash');
  assert.deepEqual(readdirSync(missing), [folder], 'the thread folder exists before any spill');
  if (process.platform !== 'win32') {
    for (const dir of [join(missing, '..'), missing, join(missing, folder)]) {
      assert.equal(statSync(dir).mode & 0o777, 0o700, `${dir} is not 0700`);
    }
  }
  const { report } = session.cap(BIG, budget(4096), 'c1');
  assert.equal(report.spillError, null);
  assert.equal(report.spill.relativePath.split('/')[0], folder);
  session.close();
});

test('a spill directory that cannot be created gives the notice, not an exception', async () => {
  const file = join(tempDir(), 'a-file');
  writeFileSync(file, 'not a directory');
  const missing = join(file, 'spill');
  const session = await openSession({ threadId: 't', spillDir: missing, key: KEY });
  assert.equal(session.spillDir, null);
  assert.equal(session.displayRoot, missing);
  const capped = session.cap(BIG, budget(4096), 'c1');
  assert.equal(capped.report.truncated, true);
  assert.equal(capped.report.spill, null);
  assert.match(capped.report.spillError, /no spill directory/);
  assert.match(capped.text, /could NOT be saved/);
  assert.ok(Buffer.byteLength(capped.text) <= 4096);
  expectCase(() => session.read('t/c1-0123456789abcdef.txt', 0, 100), 'no-spill-dir');
  expectCase(() => session.list(), 'no-spill-dir');
  session.close();
});

test('an existing spill directory and thread folder keep their modes', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'kept'), { mode: 0o755 });
  chmodSync(join(dir, 'kept'), 0o755);
  chmodSync(dir, 0o751);
  const session = await openSession({ threadId: 'kept', spillDir: dir, key: KEY });
  if (process.platform !== 'win32') {
    assert.equal(statSync(dir).mode & 0o777, 0o751);
    assert.equal(statSync(join(dir, 'kept')).mode & 0o777, 0o755);
  }
  session.close();
  chmodSync(dir, 0o755);
});

test('errors are ToolCapError with the cap-error case', async () => {
  const dir = tempDir();
  await assert.rejects(openSession({ threadId: '', spillDir: dir }), (err) => {
    return err instanceof ToolCapError && err.case === 'invalid-settings';
  });
  await assert.rejects(openSession({ threadId: 't', spillDir: dir, key: new Uint8Array(8) }), {
    name: 'ToolCapError',
    case: 'invalid-settings',
  });
  const session = await openSession({ threadId: 't', spillDir: dir });
  expectCase(() => session.cap('x', budget(10), 'c'), 'invalid-budget');
  expectCase(() => session.cap('x', budget(4096, { headPercent: 101 }), 'c'), 'invalid-budget');
  const { spill } = session.cap(BIG, budget(4096), 'c1').report;
  expectCase(() => session.read('t/c1-0123456789abcdef.txt', 0, 100), 'not-found');
  expectCase(() => session.read('../x', 0, 100), 'outside-root');
  expectCase(() => session.grep(spill.path, '', 1), 'invalid-argument');
  expectCase(() => session.prunedPlaceholder({ ...spill, tag: '0'.repeat(16) }), 'invalid-argument');
  assert.ok(CAP_ERROR_CASES.includes('no-spill-dir'));
  // Values jco would wrap silently are refused before the call.
  assert.throws(() => session.read(spill.path, -1, 100), RangeError);
  assert.throws(() => session.cap('x', budget(4096, { headPercent: 300 }), 'c'), RangeError);
  assert.throws(() => session.cap('x', budget(2 ** 32), 'c'), RangeError);
  assert.throws(() => session.readLines(spill.path, 1.5, 1, 100), TypeError);
  assert.throws(() => session.cap('x', budget(4096, { keep: 'middle' }), 'c'), TypeError);
  session.close();
});

test('a string with lone surrogates is capped with U+FFFD in their place', async () => {
  // No UTF-8 string holds a lone surrogate: jco encodes the string as
  // TextEncoder does, so the component sees U+FFFD (and so does the spill).
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const capped = session.cap('ok \ud800 bad\n'.repeat(2), budget(4096), 'c1');
  assert.equal(capped.text, 'ok \ufffd bad\n'.repeat(2));
  session.close();
});

test('capParts passes media through untouched and in place', async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
  const blob = { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAEC' } };
  const parts = [{ type: 'text', text: BIG }, image, blob, { type: 'text', text: 'tail text' }];
  const capped = session.capParts(parts, budget(4096), 'parts-1');
  assert.equal(capped.report.truncated, true);
  assert.equal(capped.parts.length, 3);
  assert.equal(capped.parts[0].type, 'text');
  assert.match(capped.parts[0].text, /full content at/);
  assert.deepEqual(capped.parts[1], image);
  assert.deepEqual(capped.parts[2], blob);
  assert.deepEqual(readFileSync(capped.report.spill.path, 'utf8'), `${BIG}\ntail text`);
  const small = [image, { type: 'text', text: 'fits' }];
  assert.deepEqual(session.capParts(small, budget(4096), 'parts-2').parts, small);
  session.close();
});

test('prune replaces stale bodies with placeholders that keep the reference', async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const {
    text,
    report: { spill },
  } = session.cap(BIG, budget(4096), 'c1');
  const pruned = session.prune([text, 'recent'], { keepLast: 1 });
  assert.deepEqual(pruned.replaced, [0]);
  assert.equal(pruned.messages[0], session.prunedPlaceholder(spill));
  assert.equal(typeof pruned.bytesSaved, 'bigint');
  assert.deepEqual(session.findRefs(pruned.messages[0]), [spill]);
  session.close();
});

test('classify works without a session and on one', async () => {
  const proxy = { kind: 'request-too-large', limit: null, requested: null, unit: null };
  assert.deepEqual(await classify(413, '<html>Request Entity Too Large</html>'), proxy);
  assert.equal(await classify(429, 'rate limited'), null);
  const session = await openSession({ threadId: 't' });
  assert.equal(session.classify(200, 'ok'), null);
  assert.deepEqual(session.classify(413, '<html>Request Entity Too Large</html>'), proxy);
  // No spillDir: nothing granted, and notices say so.
  assert.equal(session.spillDir, null);
  assert.equal(session.displayRoot, '/spill');
  assert.match(session.cap(BIG, budget(4096), 'c').report.spillError, /no spill directory/);
  session.close();
});

test('the sandbox grants one preopen, no environment and no arguments but a name', async () => {
  process.env.TOOLCAP_SECRET_FOR_TEST = 'must-not-leak';
  const imports = sandboxedShim('/some/dir').getImportObject();
  const preopens = imports['wasi:filesystem/preopens'].getDirectories();
  assert.deepEqual(preopens.map(([, guestPath]) => guestPath), ['/spill']);
  assert.deepEqual(imports['wasi:cli/environment'].getEnvironment(), []);
  assert.deepEqual(imports['wasi:cli/environment'].getArguments(), ['tool-output-cap']);
  assert.deepEqual(sandboxedShim(null).getImportObject()['wasi:filesystem/preopens'].getDirectories(), []);
  delete process.env.TOOLCAP_SECRET_FOR_TEST;
});

test('a session sees only its own spill directory, not its parent', async () => {
  const parent = tempDir();
  const dir = join(parent, 'spill');
  mkdirSync(dir);
  writeFileSync(join(parent, 'secret.txt'), 'secret');
  const session = await openSession({ threadId: 't', spillDir: dir, key: KEY });
  expectCase(() => session.read('../secret.txt', 0, 100), 'outside-root');
  expectCase(() => session.read(join(parent, 'secret.txt'), 0, 100), 'outside-root');
  session.close();
});

test('an unwritable directory (the read-only grant on Node) really refuses writes', () => {
  const dir = tempDir();
  const undo = makeUnwritable(dir);
  try {
    assert.throws(() => writeFileSync(join(dir, 'x'), 'x'), { code: /EPERM|EACCES/ });
    assert.throws(() => mkdirSync(join(dir, 'sub')), { code: /EPERM|EACCES/ });
  } finally {
    undo();
  }
  writeFileSync(join(dir, 'x'), 'x');
});

test('a kept key (Buffer or Uint8Array) verifies references of an earlier session', async () => {
  const dir = tempDir();
  const first = await openSession({ threadId: 't', spillDir: dir, key: Buffer.alloc(32, 9) });
  const {
    text,
    report: { spill },
  } = first.cap(BIG, budget(4096), 'c1');
  first.close();
  const again = await openSession({ threadId: 't', spillDir: dir, key: KEY });
  assert.deepEqual(again.findRefs(text), [spill]);
  assert.equal(again.read(spill.path, 0, 16).text, BIG.slice(0, 16));
  again.close();
  // Without the key (a random one per session) the reference does not verify.
  const other = await openSession({ threadId: 't', spillDir: dir });
  assert.deepEqual(other.findRefs(text), []);
  other.close();
});

test('an empty spillDir grants nothing, like null, never the working directory', async () => {
  const cwd = process.cwd();
  const work = tempDir();
  process.chdir(work);
  try {
    const session = await openSession({ threadId: 'empty', spillDir: '', key: KEY });
    assert.equal(session.spillDir, null);
    assert.equal(session.displayRoot, '/spill');
    const { report } = session.cap(BIG, budget(4096), 'c1');
    assert.equal(report.spill, null);
    assert.match(report.spillError, /no spill directory/);
    assert.equal(session.hostPath('/spill/empty/c1-0123456789abcdef.txt'), null);
    session.close();
    assert.deepEqual(readdirSync(work), [], 'nothing was written into the working directory');
  } finally {
    process.chdir(cwd);
  }
});

test('an empty displayRoot is an invalid-settings error', async () => {
  await assert.rejects(openSession({ threadId: 't', spillDir: tempDir(), displayRoot: '' }), {
    name: 'ToolCapError',
    case: 'invalid-settings',
    message: /display-root/,
  });
});

test('hostPath maps only <displayRoot>/<thread>/<spill file> into the granted directory', async () => {
  const dir = tempDir();
  const session = await openSession({ threadId: 't1', spillDir: dir, displayRoot: '/r', key: KEY });
  const { spill } = session.cap(BIG, budget(4096), 'c1').report;
  const file = spill.path.slice('/r/t1/'.length);
  assert.equal(session.hostPath(spill), join(dir, 't1', file));
  assert.equal(session.hostPath(spill.path), join(dir, 't1', file));
  assert.deepEqual(readFileSync(session.hostPath(spill), 'utf8'), BIG);
  const hostile = [
    '/r/../secret.txt',
    '/r/t1/../../secret.txt',
    `/r//t1/${file}`,
    `/r/t1//${file}`,
    `/r/t1/../t1/${file}`,
    `/r/t2/${file}`,
    `t1/${file}`,
    `/rr/t1/${file}`,
    `/r/t1/.tmp-${file}`,
    `/r/t1/${file}/`,
    '/r',
    '',
  ];
  for (const path of hostile) assert.equal(session.hostPath(path), null, path);
  assert.equal(session.hostPath(null), null);
  assert.equal(session.hostPath({ path: 42 }), null);
  session.close();
  assert.throws(() => session.hostPath(spill), /closed/);
});

test('hostPath refuses an answer of the component that is not two plain names', () => {
  // A stand-in for the component, to test the wrapper's own second check.
  const answering = (relative) => new Session({}, { relativePath: () => relative }, '/granted', '/r');
  assert.equal(answering('t1/c1-0123456789abcdef.txt').hostPath('/r/x'), '/granted/t1/c1-0123456789abcdef.txt');
  const bad = [undefined, null, '', '..', '../x', 't1/..', './x', '/etc/passwd', 't1/../../x', 't1/a/b', 't1/'];
  bad.push('t1/..\\x', '..\\t1/x', 't1/x\0');
  for (const relative of bad) {
    assert.equal(answering(relative).hostPath('/r/x'), null, JSON.stringify(relative));
  }
  // A reference maps through its own relativePath, checked the same way.
  const mapper = answering(null);
  const ref = (path, relativePath) => ({ path, relativePath, bytes: 1n, lines: 1n, digest: 'd', tag: 't' });
  assert.equal(mapper.hostPath(ref('/r/t1/x.txt', 't1/x.txt')), '/granted/t1/x.txt');
  for (const relative of bad) {
    assert.equal(mapper.hostPath(ref(`/r/${relative}`, relative)), null, JSON.stringify(relative));
  }
  // ...and its path must name the same file.
  assert.equal(mapper.hostPath(ref('/r/t1/y.txt', 't1/x.txt')), null);
  assert.equal(mapper.hostPath(ref('/r/t1xt1/x.txt', 't1/x.txt')), null);
  assert.equal(mapper.hostPath({ relativePath: 't1/x.txt' }), null);
  // Nothing granted: null whatever the component answers.
  assert.equal(new Session({}, { relativePath: () => 't1/x' }, null, '/r').hostPath('/r/t1/x'), null);
});

/** The notice's first line: the line that starts with `[toolcap] `. */
const noticeLine = (text) => text.split('\n').find((line) => line.startsWith('[toolcap] '));

test("a failed call's notice starts by stating the failure", async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const failed = session.cap(BIG, budget(16 * 1024), { id: 'build', tool: 'cargo', exitCode: 2 });
  assert.ok(noticeLine(failed.text).startsWith('[toolcap] The tool `cargo` failed (exit code 2). '), failed.text);
  // The call id still names the spill file.
  assert.match(failed.report.spill.relativePath, /^t\/build-[0-9a-f]{16}\.txt$/);
  const reported = session.cap(BIG, budget(4096), { id: 'mcp', isError: true });
  assert.ok(noticeLine(reported.text).startsWith('[toolcap] The tool failed (it reported an error). '), reported.text);
  const parts = session.capParts([{ type: 'text', text: BIG }], budget(4096), { id: 'p', tool: 'bash', exitCode: -1 });
  assert.ok(noticeLine(parts.parts[0].text).startsWith('[toolcap] The tool `bash` failed (exit code -1). '));
  // A call that did not fail states nothing: a bare id, exit code 0, isError false.
  for (const call of ['ok', { id: 'ok' }, { id: 'ok', tool: 'cargo', exitCode: 0, isError: false }]) {
    const { text } = session.cap(BIG, budget(4096), call);
    assert.ok(!noticeLine(text).includes('failed'), text);
  }
  // null fields are absent fields.
  const nulls = session.cap(BIG, budget(4096), { id: 'n', tool: null, exitCode: null, isError: null });
  assert.ok(!noticeLine(nulls.text).includes('failed'));
  session.close();
});

test('a call is a string id or a Call object, checked before the call', async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const misuse = [
    [undefined, TypeError],
    [null, TypeError],
    [42, TypeError],
    [['c1'], TypeError],
    [{}, TypeError],
    [{ id: 7 }, TypeError],
    [{ id: 'c', tool: 5 }, TypeError],
    [{ id: 'c', exitCode: '2' }, TypeError],
    [{ id: 'c', exitCode: 1.5 }, TypeError],
    [{ id: 'c', exitCode: 2 ** 31 }, RangeError],
    [{ id: 'c', exitCode: -(2 ** 31) - 1 }, RangeError],
    [{ id: 'c', isError: 'yes' }, TypeError],
    [{ id: 'c', isError: 1 }, TypeError],
    // The snake_case spellings would be ignored silently: refused instead.
    [{ id: 'c', exit_code: 2 }, TypeError],
    [{ id: 'c', is_error: true }, TypeError],
  ];
  for (const [call, kind] of misuse) {
    assert.throws(() => session.cap(BIG, budget(4096), call), kind, JSON.stringify(call));
    assert.throws(() => session.capParts([{ type: 'text', text: 'x' }], budget(4096), call), kind);
  }
  // The extremes of an s32 are accepted.
  for (const exitCode of [2 ** 31 - 1, -(2 ** 31)]) {
    const { text } = session.cap(BIG, budget(4096), { id: 'c', exitCode });
    assert.ok(noticeLine(text).includes(`(exit code ${exitCode})`), text);
  }
  session.close();
});

test('readTool and shellHints change the notice', async () => {
  const dir = tempDir();
  const plain = await openSession({ threadId: 't', spillDir: dir, key: KEY });
  const sandboxed = await openSession({
    threadId: 't',
    spillDir: dir,
    key: KEY,
    readTool: 'read_spilled_output',
    shellHints: false,
  });
  const named = await openSession({ threadId: 't', spillDir: dir, key: KEY, readTool: 'mcp__toolcap__read' });
  const b = budget(16 * 1024);
  const byDefault = plain.cap(BIG, b, 'c1').text;
  assert.match(byDefault, /grep -n -F/);
  assert.match(byDefault, /the read tool/);
  const noShell = sandboxed.cap(BIG, b, 'c1').text;
  assert.doesNotMatch(noShell, /grep -n|sed -n/);
  assert.match(noShell, /read_spilled_output/);
  const both = named.cap(BIG, b, 'c1').text;
  assert.match(both, /grep -n -F/);
  assert.match(both, /mcp__toolcap__read/);
  // shellHints: true and null are the default.
  for (const shellHints of [true, null]) {
    const again = await openSession({ threadId: 't', spillDir: dir, key: KEY, shellHints });
    assert.equal(again.cap(BIG, b, 'c1').text, byDefault);
    again.close();
  }
  // The references stay genuine for every session of the thread and key.
  assert.deepEqual(plain.findRefs(noShell), sandboxed.findRefs(noShell));
  for (const session of [plain, sandboxed, named]) session.close();
});

test('an unusable read tool or notable pattern is invalid-settings at open', async () => {
  const dir = tempDir();
  const refused = [
    { readTool: '' },
    { readTool: 'read tool' },
    { readTool: 'read`tool' },
    { readTool: 'x'.repeat(65) },
    { notablePatterns: [''] },
    { notablePatterns: ['two\nlines'] },
    { notablePatterns: ['x'.repeat(201)] },
    { notablePatterns: Array.from({ length: 65 }, (_, i) => `P${i}`) },
  ];
  for (const options of refused) {
    await assert.rejects(
      openSession({ threadId: 't', spillDir: dir, key: KEY, ...options }),
      (err) => err instanceof ToolCapError && err.case === 'invalid-settings' && err.message.length > 0,
      JSON.stringify(options).slice(0, 80),
    );
  }
  // The limits themselves are fine.
  const accepted = await openSession({
    threadId: 't',
    spillDir: dir,
    key: KEY,
    readTool: 'x'.repeat(64),
    notablePatterns: [...Array.from({ length: 63 }, (_, i) => `P${i}`), 'y'.repeat(200)],
  });
  assert.equal(accepted.cap('fits', budget(4096), 'c').text, 'fits');
  accepted.close();
  // Wrong types are TypeErrors, before any instance is made.
  const mistyped = [
    { readTool: 7 },
    { shellHints: 'no' },
    { shellHints: 0 },
    { notablePatterns: 'FATAL' },
    { notablePatterns: [1] },
    { notablePatterns: [null] },
  ];
  for (const options of mistyped) {
    await assert.rejects(openSession({ threadId: 't', spillDir: dir, ...options }), TypeError, JSON.stringify(options));
  }
  await assert.rejects(openSession(null), TypeError);
});

test('references carry their relative path, <thread>/<file>', async () => {
  const dir = tempDir();
  const session = await openSession({ threadId: 't1', spillDir: dir, displayRoot: '/r', key: KEY });
  const { text, report } = session.cap(BIG, budget(4096), 'c1');
  const { spill } = report;
  assert.match(spill.relativePath, /^t1\/c1-[0-9a-f]{16}\.txt$/);
  assert.equal(spill.path, `/r/${spill.relativePath}`);
  assert.equal(session.hostPath(spill), join(dir, spill.relativePath));
  assert.equal(session.hostPath(spill.path), join(dir, spill.relativePath));
  // findRefs and the pruned placeholder carry it too.
  assert.deepEqual(session.findRefs(text), [spill]);
  assert.deepEqual(session.findRefs(session.prunedPlaceholder(spill)), [spill]);
  // The relative path is read back like the display path.
  assert.equal(session.read(spill.relativePath, 0, 16).text, BIG.slice(0, 16));
  // It is part of what the tag covers: another one does not verify.
  const other = { ...spill, relativePath: spill.relativePath.replace('c1-', 'c2-') };
  expectCase(() => session.prunedPlaceholder(other), 'invalid-argument');
  assert.throws(() => session.prunedPlaceholder({ ...spill, relativePath: undefined }), TypeError);
  // The guest's own path form is no longer accepted.
  expectCase(() => session.read(`/spill/${spill.relativePath}`, 0, 16), 'outside-root');
  session.close();
});

// A turn of parallel tool calls whose results each fit the per-result
// ceiling but overflow the next request together.

/** `n` bytes of log lines, each ending in LF. */
const logOf = (n, tag) => {
  const line = (i) => `${tag} ${String(i).padStart(6, '0')} build output ok\n`;
  const lines = Array.from({ length: Math.ceil(n / 40) + 1 }, (_, i) => line(i));
  return lines.join('').slice(0, n - 1) + '\n';
};
/** Bytes a text adds to a JSON request body (JSON.stringify's escapes, no quotes). */
const bodyBytes = (text) => Buffer.byteLength(JSON.stringify(text)) - 2;
const CEILING = budget(16 * 1024);
const TURN = [logOf(12 * 1024, 'alpha'), logOf(12 * 1024, 'beta'), logOf(1024, 'gamma')];

test('classify states the limit and the amount the request needed', async () => {
  const body = JSON.stringify({
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in " +
        '131392 tokens. Please reduce the length of the messages.',
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  });
  const want = { kind: 'context-length-exceeded', limit: 128000n, requested: 131392n, unit: 'tokens' };
  assert.deepEqual(await classify(400, body), want);
  const session = await openSession({ threadId: 't' });
  assert.deepEqual(session.classify(400, body), want);
  // What a host sheds: the amounts are exact BigInts (u64).
  const { limit, requested } = session.classify(400, body);
  assert.equal(requested - limit, 3392n);
  session.close();
});

test('plan shares what the request has left among results that each fit alone', async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  // Each result fits the ceiling on its own...
  for (const text of TURN) assert.equal(session.cap(text, CEILING, 'alone').report.truncated, false);
  // ...but the proxy in front of the model takes 16 KiB of results at most.
  const limits = { maxBodyBytes: 16 * 1024, ceiling: CEILING };
  const budgets = session.plan(TURN.map((text) => ({ text })), limits);
  assert.equal(budgets.length, 3);
  const [a, b, c] = budgets;
  // The small result keeps everything (its budget is the ceiling); the two
  // large ones share the rest equally (max-min fair), each below its size.
  assert.deepEqual(c, { ...CEILING, maxTokens: null });
  assert.deepEqual(a, b);
  assert.ok(a.maxBytes < Buffer.byteLength(TURN[0]), `${a.maxBytes}`);
  assert.ok(a.maxBytes + b.maxBytes + bodyBytes(TURN[2]) <= 16 * 1024);
  // The ceiling's other fields shape every budget.
  for (const planned of budgets) {
    assert.deepEqual(
      { ...planned, maxBytes: 0, maxTokens: null },
      { ...CEILING, maxBytes: 0, maxTokens: null },
    );
  }
  // The same input gives the same plan (prompt caches depend on it).
  assert.deepEqual(session.plan(TURN.map((text) => ({ text })), limits), budgets);
  // A token limit sets maxTokens on the budgets of cut results.
  const byTokens = session.plan(TURN.map((text) => ({ text })), { maxTokens: 4000n, ceiling: CEILING });
  assert.ok(byTokens[0].maxTokens !== null && byTokens[0].maxTokens < Number(session.estimateTokens(TURN[0])));
  // No limit: everything fits, nothing is cut.
  assert.deepEqual(session.plan(TURN.map((text) => ({ text })), {}), [CEILING, CEILING, CEILING]);
  session.close();
});

test('capBatch returns the turn within every limit, each result as cap or capParts would', async () => {
  const dir = tempDir();
  const session = await openSession({ threadId: 't', spillDir: dir, key: KEY, imageTokens: 1200 });
  const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
  const limits = { maxTokens: 5000, maxBodyBytes: 16 * 1024, ceiling: CEILING };
  const [first, second, third] = session.capBatch(
    [
      { call: { id: 'build', tool: 'cargo', exitCode: 0 }, text: TURN[0] },
      { call: 'fetch', parts: [{ type: 'text', text: TURN[1] }, image] },
      { call: 'status', text: TURN[2] },
    ],
    limits,
  );
  assert.equal(first.report.truncated, true);
  assert.equal(second.report.truncated, true);
  assert.equal(third.report.truncated, false);
  assert.equal(third.text, TURN[2]);
  // The parts result keeps its image in place, after the preview.
  assert.equal(second.parts.length, 2);
  assert.deepEqual(second.parts[1], image);
  // Together within the token limit (media counted) and the body limit.
  const tokens = first.report.tokens + second.report.tokens + third.report.tokens;
  assert.ok(tokens <= 5000, `${tokens} tokens`);
  const previewOf = second.parts[0].text;
  assert.equal(BigInt(second.report.tokens), session.estimateTokens(previewOf) + 1200n);
  const body =
    bodyBytes(first.text) + bodyBytes(previewOf) + image.data.length + image.mimeType.length + bodyBytes(third.text);
  assert.ok(body <= 16 * 1024, `${body} body bytes`);
  // Cut results were spilled whole and can be read back.
  assert.deepEqual(readFileSync(session.hostPath(first.report.spill), 'utf8'), TURN[0]);
  assert.deepEqual(readFileSync(session.hostPath(second.report.spill), 'utf8'), TURN[1]);
  assert.match(first.report.spill.relativePath, /^t\/build-/);
  session.close();
});

test('estimateTokens is the estimate cap reports, as a BigInt', async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const tokens = session.estimateTokens(TURN[2]);
  assert.equal(typeof tokens, 'bigint');
  assert.ok(tokens > 0n);
  assert.equal(session.estimateTokens(''), 0n);
  assert.ok(session.estimateTokens(TURN[0]) > tokens);
  const fits = session.cap(TURN[2], CEILING, 'c');
  assert.equal(BigInt(fits.report.tokens), tokens);
  assert.equal(fits.report.originalTokens, fits.report.tokens);
  // A token limit cuts what the byte limit lets through.
  const limited = session.cap(TURN[0], budget(16 * 1024, { maxTokens: 1000 }), 'c');
  assert.equal(limited.report.truncated, true);
  assert.ok(limited.report.tokens <= 1000);
  assert.equal(BigInt(limited.report.tokens), session.estimateTokens(limited.text));
  assert.equal(BigInt(limited.report.originalTokens), session.estimateTokens(TURN[0]));
  // Media parts cost the session's fixed amounts.
  const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
  const audio = { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' };
  const media = session.capParts([{ type: 'text', text: 'hi' }, image, audio], CEILING, 'm');
  assert.equal(BigInt(media.report.tokens), session.estimateTokens('hi') + 1600n + 1000n);
  const custom = await openSession({ threadId: 't', imageTokens: 85, audioTokens: 0 });
  assert.equal(BigInt(custom.capParts([image, audio], CEILING, 'm').report.tokens), 85n);
  // prune counts tokens too, and can prune by them.
  const pruned = session.prune([TURN[0], TURN[2]], { maxTotalTokens: tokens + 200n });
  assert.deepEqual(pruned.replaced, [0]);
  assert.equal(typeof pruned.totalTokens, 'bigint');
  assert.equal(pruned.totalTokens, session.estimateTokens(pruned.messages[0]) + tokens);
  custom.close();
  session.close();
});

test('calibrate moves the scale, and tokenScale carries it to the next session', async () => {
  const session = await openSession({ threadId: 't', key: KEY });
  assert.equal(session.tokenScale, 1);
  const estimate = session.estimateTokens(TURN[0]);
  // Texts under 256 bytes teach nothing.
  assert.equal(session.calibrate('short', 1000), 1);
  // The provider counted twice the estimate: the scale moves up, by a bounded step.
  const scale = session.calibrate(TURN[0], estimate * 2n);
  assert.ok(scale > 1 && scale <= 1.25, `${scale}`);
  assert.equal(session.tokenScale, scale);
  const scaled = session.estimateTokens(TURN[0]);
  assert.ok(scaled > estimate, `${scaled} after ${estimate}`);
  // The wrapper never reopens an instance behind the caller's back; a host
  // carries the calibration to the thread's next session with tokenScale.
  session.close();
  const next = await openSession({ threadId: 't', key: KEY, tokenScale: scale });
  assert.equal(next.tokenScale, scale);
  assert.equal(next.estimateTokens(TURN[0]), scaled);
  next.close();
  // The component clamps the scale to [0.5, 2]; the wrapper refuses what is not a number.
  const clamped = await openSession({ threadId: 't', tokenScale: 5 });
  assert.equal(clamped.tokenScale, 2);
  clamped.close();
  await assert.rejects(openSession({ threadId: 't', tokenScale: Number.NaN }), RangeError);
  await assert.rejects(openSession({ threadId: 't', tokenScale: '1.5' }), TypeError);
  await assert.rejects(openSession({ threadId: 't', imageTokens: -1 }), RangeError);
  await assert.rejects(openSession({ threadId: 't', audioTokens: 1.5 }), TypeError);
  assert.throws(() => session.tokenScale, /closed/);
});

test('plan and capBatch refuse unusable limits with ToolCapError, misuse with TypeError', async () => {
  const session = await openSession({ threadId: 't', spillDir: tempDir(), key: KEY });
  const turn = TURN.map((text, i) => ({ call: `c${i}`, text }));
  // An invalid ceiling, and limits that leave a result less than a notice needs.
  expectCase(() => session.plan(turn, { ceiling: { maxBytes: 10 } }), 'invalid-budget');
  expectCase(() => session.plan(turn, { ceiling: budget(4096, { maxTokens: 1 }) }), 'invalid-budget');
  expectCase(() => session.plan(turn, { maxBodyBytes: 1000 }), 'invalid-budget');
  expectCase(() => session.capBatch(turn, { maxTokens: 500 }), 'invalid-budget');
  // Media alone over the limit: no cut of the text can help.
  const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
  expectCase(() => session.plan([{ parts: [image] }], { maxTokens: 100 }), 'invalid-budget');
  assert.deepEqual(readdirSync(join(session.spillDir, session.threadFolder())), [], 'a refused batch writes nothing');
  const misuse = [
    [() => session.plan('text', {}), TypeError],
    [() => session.plan([{}], {}), TypeError],
    [() => session.plan([{ text: 'a', parts: [] }], {}), TypeError],
    [() => session.plan([{ text: 7 }], {}), TypeError],
    [() => session.plan([{ parts: [{ type: 'video' }] }], {}), TypeError],
    [() => session.plan([{ text: 'a', call: 7 }], {}), TypeError],
    [() => session.plan([{ text: 'a' }]), TypeError],
    [() => session.plan([{ text: 'a' }], { max_tokens: 10 }), TypeError],
    [() => session.plan([{ text: 'a' }], { maxBytes: 10 }), TypeError],
    [() => session.plan([{ text: 'a' }], { maxTokens: -1 }), RangeError],
    [() => session.plan([{ text: 'a' }], { maxBodyBytes: 1.5 }), TypeError],
    [() => session.plan([{ text: 'a' }], { floorBytes: 2 ** 32 }), RangeError],
    [() => session.plan([{ text: 'a' }], { ceiling: budget(4096, { maxTokens: -1 }) }), RangeError],
    [() => session.capBatch([{ text: 'a' }], {}), TypeError],
    [() => session.capBatch([{ call: { id: 'c', exit_code: 1 }, text: 'a' }], {}), TypeError],
    [() => session.estimateTokens(7), TypeError],
    [() => session.calibrate('x', -1), RangeError],
    [() => session.prune([], { maxTotalTokens: -1 }), RangeError],
  ];
  for (const [call, kind] of misuse) assert.throws(call, kind, call.toString());
  // A plan's results may carry their calls: the same list serves both.
  assert.equal(session.plan(turn, {}).length, 3);
  assert.deepEqual(session.capBatch([], {}), []);
  session.close();
});
