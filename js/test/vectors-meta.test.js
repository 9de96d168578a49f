// The vector runner itself: it must reject malformed vectors, report wrong
// expectations with file and step, and its invariants must catch a broken
// component answer. A runner that cannot fail proves nothing.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { budget, openSession } from '../src/index.js';
import { freshDir, removeDir, tree } from './support/disk.js';
import { Checker } from './support/vector-check.js';
import { parseVector } from './support/vector-format.js';
import { flat, joinedText } from './support/vector-convert.js';
import {
  checkBatch,
  checkCap,
  checkNewFiles,
  checkPlan,
  checkPrune,
  mediaTokens,
} from './support/vector-invariants.js';
import { runVector } from './support/vector-run.js';

/** A small valid vector that the tests below break one field at a time (shared with the Rust and Python runners). */
const BASE = readFileSync(new URL('../../tests/vectors-selftest/base.json', import.meta.url), 'utf8');

const replaced = (from, to) => {
  assert.ok(BASE.includes(from), `BASE lacks ${from}`);
  return BASE.replace(from, to);
};

const runText = (json) => runVector('inline.json', parseVector(json));

/** BASE with a host-path step (step 2) before the classify step. */
const withHostPath = (step) => replaced('{ "op": "classify"', `${step},\n    { "op": "classify"`);

test('the base vector passes', async () => {
  assert.deepEqual(await runText(BASE), []);
});

test('wrong expectations fail, naming the file and step', async () => {
  const wrong = [
    ['"original_bytes": 3492', '"original_bytes": 3493', 'step 0'],
    ['"truncated": true', '"truncated": false', 'step 0'],
    ['"spilled": true', '"spilled": false', 'step 0'],
    [String.raw`["line 400\n"]`, String.raw`["line 401\n"]`, 'step 0'],
    [String.raw`"text": "line 2\nline 3\n"`, String.raw`"text": "line 2\nline 4\n"`, 'step 1'],
    ['"next_line": 4', '"next_line": null', 'step 1'],
    ['"count": 2, "max_bytes": 100,', '"count": 0, "max_bytes": 100,', 'step 1'],
    ['"request-too-large"', '"context-length-exceeded"', 'step 2'],
    ['"kind": "request-too-large"', '"kind": null', 'step 2'],
    ['"original_lines": 400,', '"original_lines": 400, "notable_lines": 1,', 'step 0'],
    ['"original_lines": 400,', '"original_lines": 400, "folded_lines": 3,', 'step 0'],
    ['"kind": "request-too-large"', '"kind": "request-too-large", "limit": 1000', 'step 2'],
    ['"kind": "request-too-large"', '"kind": "request-too-large", "unit": "bytes"', 'step 2'],
    ['"original_lines": 400,', '"original_lines": 400, "tokens": 1,', 'step 0'],
    ['"original_lines": 400,', '"original_lines": 400, "original_tokens": 1,', 'step 0'],
    // An expected error that does not happen fails too.
    ['"expect": { "text": "line 2', '"expect": { "error": "not-found", "text": "line 2', 'step 1'],
  ];
  for (const [from, to, step] of wrong) {
    const failures = await runText(replaced(from, to));
    assert.ok(
      failures.some((f) => f.startsWith(`inline.json ${step} `)),
      `${to} went unnoticed: ${JSON.stringify(failures)}`,
    );
  }
});

test('host-path steps: the mapping is checked, and a wrong or impossible expectation fails', async () => {
  const hostile = '{ "op": "host-path", "path": "/spill-host/t1/../../secret.txt", "expect": { "relative": null } }';
  assert.deepEqual(await runText(withHostPath(hostile)), []);
  const wrong = [
    '{ "op": "host-path", "path": "$spill:c1", "expect": { "relative": null } }',
    '{ "op": "host-path", "path": "$spill:c1", "expect": { "relative": "t1/c1-0000000000000000.txt" } }',
    '{ "op": "host-path", "path": "/spill-host/t1/../t1/x", "expect": { "relative": "t1/x" } }',
  ];
  for (const step of wrong) {
    const failures = await runText(withHostPath(step));
    const noticed = failures.some((f) => f.startsWith('inline.json step 2 '));
    assert.ok(noticed, `${step} went unnoticed: ${JSON.stringify(failures)}`);
  }
  const impossible = '{ "op": "host-path", "path": "$spill:c1", "expect": { "relative": "t1/../../x" } }';
  const failures = await runText(withHostPath(impossible));
  assert.ok(failures.some((f) => f.includes('bad vector')), JSON.stringify(failures));
});

/** A budget of the vector format, room for a notice, no other limit. */
const CEILING = { max_bytes: 4000, max_lines: null, max_line_bytes: null, keep: 'head-and-tail', head_percent: 40 };

/** The new ops of the token issue, one step each, after BASE's steps (which end at step 2). */
function newOpSteps() {
  const log = (tag) => ({ gen: [{ lines: `${tag} line {n} of the build`, count: 300 }] });
  const limits = () => ({ max_tokens: 4000, max_body_bytes: 9000, floor_bytes: 0, ceiling: { ...CEILING } });
  return [
    { op: 'estimate-tokens', text: '', expect: { tokens: 0 } },
    { op: 'calibrate', text: 'short', actual_tokens: 100, expect: { scale: 1 } },
    { op: 'plan', results: [{ text: log('a') }, { parts: [{ text: log('b') }] }], limits: limits(), expect: {} },
    {
      op: 'cap-batch',
      results: [
        { call_id: 'b1', text: log('a') },
        {
          call: { id: 'b2', tool: 'fetch' },
          parts: [{ text: log('b') }, { image: { data: 'AAAA', mime_type: 'image/png' } }],
        },
        { call_id: 'b3', text: 'small' },
      ],
      limits: limits(),
      expect: { results: [{ truncated: true, spilled: true }, { truncated: true }, { text: 'small', truncated: false }] },
    },
    { op: 'read-lines', path: '$spill:b2', first_line: 1, count: 1, max_bytes: 100, expect: { text: 'b line 1 of the build\n' } },
  ];
}

/** BASE with the new-op steps (3 to 7) appended, after `edit` changed them. */
function withNewOps(edit) {
  const vector = JSON.parse(BASE);
  const steps = newOpSteps();
  edit(steps);
  vector.steps.push(...steps);
  return JSON.stringify(vector);
}

/** Malformed new-op steps, each of which the parser must refuse. */
const NEW_OP_MISTAKES = [
  (s) => (s[0].expect.estimate = 0),
  (s) => delete s[1].actual_tokens,
  (s) => (s[1].expect.scale = '1'),
  (s) => (s[2].results[0].call_id = 'c'),
  (s) => (s[2].results[0].parts = []),
  (s) => (s[2].results[1] = {}),
  (s) => (s[2].limits.ceiling.max_tokens = -1),
  (s) => delete s[2].limits.floor_bytes,
  (s) => (s[2].limits.maxTokens = 5),
  (s) => (s[2].expect.budgets = [{ max_bytes: 1 }]),
  (s) => delete s[3].results[0].call_id,
  (s) => (s[3].results[0].call = { id: 'b1' }),
  (s) => (s[3].results[2].parts = []),
  (s) => (s[3].expect.results[0].body_bytes = 5),
  (s) => (s[3].expect.results = 'all'),
  (s) => (s[0].op = 'estimate'),
];

test('the new ops run, and their wrong expectations fail, naming the step', async () => {
  assert.deepEqual(await runText(withNewOps(() => {})), []);
  const wrong = [
    [(s) => (s[0].expect.tokens = 1), 'step 3'],
    // Limits with no room for a notice fail the step.
    [(s) => (s[2].limits.max_tokens = 1), 'step 5'],
    [(s) => (s[1].expect.scale = 1.0001), 'step 4'],
    [(s) => (s[2].expect.budgets = [CEILING, CEILING]), 'step 5'],
    [(s) => (s[2].expect.error = 'invalid-budget'), 'step 5'],
    [(s) => (s[2].limits.max_body_bytes = 100), 'step 5'],
    [(s) => (s[3].expect.results[2].text = 'smalL'), 'step 6'],
    [(s) => (s[3].expect.results[1].parts = [{ text: 'x' }]), 'step 6'],
    [(s) => (s[3].expect.results[0].tokens = 1), 'step 6'],
  ];
  for (const [edit, step] of wrong) {
    const failures = await runText(withNewOps(edit));
    const noticed = failures.some((f) => f.startsWith(`inline.json ${step} `));
    assert.ok(noticed, `${edit} went unnoticed: ${JSON.stringify(failures)}`);
  }
  // An expectation per result, or none: a count that differs is a bad vector.
  const failures = await runText(withNewOps((s) => s[3].expect.results.pop()));
  assert.ok(failures.some((f) => f.includes('bad vector')), JSON.stringify(failures));
  // The session's media costs and scale reach the component.
  const priced = JSON.parse(withNewOps((s) => (s[1].expect.scale = 1.25)));
  priced.session.token_scale = 1.25;
  assert.deepEqual(await runText(JSON.stringify(priced)), []);
});

test('strict parsing rejects unknown fields, ops and shapes', () => {
  const broken = [
    replaced('"about"', '"comment": 1, "about"'),
    replaced('"thread_id"', '"threadId": "x", "thread_id"'),
    replaced('"op": "classify"', '"op": "classify-error"'),
    replaced('"call_id": "c1",', '"call_id": "c1", "callid": "c1",'),
    replaced('"truncated": true', '"truncated": true, "trunc": true'),
    replaced('"from": 1,', '"from": 1, "step": 2,'),
    replaced('"keep": "tail"', '"keep": "middle"'),
    replaced('"call_id": "c1",', ''),
    replaced('"key_hex"', '"preopen": "rw", "key_hex"'),
    replaced('"body": ""', '"body": 7'),
    replaced(String.raw`"text": "line 2`, String.raw`"txt": "line 2`),
    replaced('"head_percent": 0', '"head_percent": 300'),
    replaced('"max_bytes": 1200', '"max_bytes": -1'),
    replaced('"first_line": 2', '"first_line": 2.5'),
    replaced('"expect": { "kind"', '"kind"').replace('"request-too-large" }', '"request-too-large"'),
    withHostPath('{ "op": "host-path", "path": "/x", "expect": { "relative": 7 } }'),
    withHostPath('{ "op": "host-path", "path": "/x", "expect": { "relative_path": null } }'),
    withHostPath('{ "op": "host-path", "path": "/x", "call_id": "c1", "expect": {} }'),
    withHostPath('{ "op": "host-path", "expect": { "relative": null } }'),
    withHostPath('{ "op": "host-path", "path": "/x" }'),
    withHostPath('{ "op": "host-path", "path": "/x", "expect": {} }'),
    replaced('"key_hex"', '"display_root_default": "yes", "key_hex"'),
    // A cap step names its call by exactly one of call_id and call.
    replaced('"call_id": "c1",', '"call_id": "c1", "call": { "id": "c1" },'),
    replaced('"call_id": "c1",', '"call": { "id": "c1", "exitCode": 2 },'),
    replaced('"call_id": "c1",', '"call": { "tool": "cargo" },'),
    replaced('"call_id": "c1",', '"call": { "id": "c1", "exit_code": 2.5 },'),
    replaced('"call_id": "c1",', '"call": { "id": "c1", "exit_code": 2147483648 },'),
    replaced('"call_id": "c1",', '"call": { "id": "c1", "is_error": "yes" },'),
    replaced('"call_id": "c1",', '"call": "c1",'),
    // A vector's search is a string (lines of alternatives), as in the WIT.
    replaced('"call_id": "c1",', '"call": { "id": "c1", "search": 7 },'),
    replaced('"call_id": "c1",', '"call": { "id": "c1", "search": ["line 7"] },'),
    replaced('"call_id": "c1",', '"call": { "id": "c1", "pattern": "line 7" },'),
    replaced('"truncated": true', '"truncated": true, "notable_lines": -1'),
    replaced('"truncated": true', '"truncated": true, "folded_lines": "2"'),
    replaced('"key_hex"', '"read_tool": 7, "key_hex"'),
    replaced('"key_hex"', '"shell_hints": "no", "key_hex"'),
    replaced('"key_hex"', '"notable_patterns": "FATAL", "key_hex"'),
    replaced('"key_hex"', '"notable_patterns": [1], "key_hex"'),
    replaced('"key_hex"', '"token_scale": "1.5", "key_hex"'),
    replaced('"key_hex"', '"image_tokens": -1, "key_hex"'),
    replaced('"head_percent": 0', '"head_percent": 0, "max_tokens": "many"'),
    replaced('"truncated": true', '"truncated": true, "tokens": -1'),
    // limit, requested and unit only describe a size error.
    replaced('"kind": "request-too-large"', '"kind": null, "limit": 5'),
    replaced('"kind": "request-too-large"', '"kind": "request-too-large", "unit": "lines"'),
    replaced('"kind": "request-too-large"', '"kind": "request-too-large", "requested": -1'),
    replaced('"kind": "request-too-large"', '"kind": "request-too-large", "amount": 5'),
    ...NEW_OP_MISTAKES.map((mistake) => withNewOps(mistake)),
  ];
  for (const json of broken) {
    assert.notEqual(json, BASE);
    assert.throws(() => parseVector(json), undefined, `accepted:\n${json}`);
  }
  assert.doesNotThrow(() => parseVector(BASE));
  const hostPath = '{ "op": "host-path", "path": "/x", "expect": { "relative": null } }';
  assert.doesNotThrow(() => parseVector(withHostPath(hostPath)));
  const call = '"call": { "id": "c1", "tool": "cargo", "exit_code": -2, "is_error": true },';
  assert.doesNotThrow(() => parseVector(replaced('"call_id": "c1",', call)));
  for (const search of ['"line 7"', '"line 7\\nline 9"', 'null']) {
    const searched = `"call": { "id": "c1", "search": ${search} },`;
    assert.doesNotThrow(() => parseVector(replaced('"call_id": "c1",', searched)), searched);
  }
  const settings = '"read_tool": "read_spilled_output", "shell_hints": false, "notable_patterns": ["QUOTA"], "key_hex"';
  assert.doesNotThrow(() => parseVector(replaced('"key_hex"', settings)));
  const tokens = '"image_tokens": 85, "audio_tokens": 0, "token_scale": 1.25, "key_hex"';
  assert.doesNotThrow(() => parseVector(replaced('"key_hex"', tokens)));
  assert.doesNotThrow(() => parseVector(withNewOps(() => {})));
});

test('a call record reaches the component, and $spill: finds the step by its id', async () => {
  const failed = replaced('"call_id": "c1",', '"call": { "id": "c1", "tool": "cargo", "exit_code": 2 },');
  const stated = '"text_contains": ["[toolcap] The tool `cargo` failed (exit code 2). ", ';
  assert.deepEqual(await runText(failed.replace('"text_contains": [', stated)), []);
  // The same statement is absent when the call is named only by its id.
  const failures = await runText(BASE.replace('"text_contains": [', stated));
  assert.ok(failures.some((f) => f.startsWith('inline.json step 0 ')), JSON.stringify(failures));
  // A call that did not fail (exit code 0, no error) states nothing.
  const ok = replaced('"call_id": "c1",', '"call": { "id": "c1", "exit_code": 0, "is_error": false },');
  const silent = '"text_not_contains": ["failed"], "text_contains": [';
  assert.deepEqual(await runText(ok.replace('"text_contains": [', silent)), []);
});

/** A one-step vector: a cut of 400 lines by a call that searched for `search`, expecting `expect`. */
const searchVector = (search, expect) =>
  JSON.stringify({
    name: 'search',
    about: "a call's search reaches the component",
    session: { thread_id: 't1', key_hex: '000102030405060708090a0b0c0d0e0f' },
    steps: [
      {
        op: 'cap',
        call: { id: 'c1', tool: 'grep', search },
        input: { gen: [{ lines: 'line {n}', from: 1, count: 400 }] },
        budget: { max_bytes: 1200, keep: 'head-and-tail', head_percent: 40 },
        expect,
      },
    ],
  });

test("a call's search reaches the component: over its limits it is invalid-argument", async () => {
  const lines = (n) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');
  assert.deepEqual(await runText(searchVector(lines(16), { truncated: true })), []);
  assert.deepEqual(await runText(searchVector(lines(17), { error: 'invalid-argument' })), []);
  assert.deepEqual(await runText(searchVector('x'.repeat(257), { error: 'invalid-argument' })), []);
  // The runner notices a search the component refused when the vector expects a cut.
  const failures = await runText(searchVector(lines(17), { truncated: true }));
  assert.ok(failures.some((f) => f.startsWith('inline.json step 0 ')), JSON.stringify(failures));
});

/** A one-step vector: a cut with room for the full notice, under `settings`. */
const settingsVector = (settings, expect) =>
  JSON.stringify({
    name: 'settings',
    about: 'session settings reach the notice',
    session: { thread_id: 't1', key_hex: '000102030405060708090a0b0c0d0e0f', ...settings },
    steps: [
      {
        op: 'cap',
        call_id: 'c1',
        input: { gen: [{ lines: 'line {n}', count: 4000 }] },
        budget: { max_bytes: 8000, max_lines: null, max_line_bytes: null, keep: 'tail', head_percent: 0 },
        expect: { truncated: true, spilled: true, ...expect },
      },
    ],
  });

test('session settings of a vector reach the component', async () => {
  const sandboxed = { read_tool: 'read_spilled_output', shell_hints: false };
  const named = { text_contains: ['read it with the read_spilled_output tool'] };
  const shell = { text_contains: ['grep -n -F'] };
  assert.deepEqual(await runText(settingsVector(sandboxed, named)), []);
  assert.deepEqual(await runText(settingsVector({}, shell)), []);
  // Each expectation fails under the other settings: they did change the notice.
  assert.notDeepEqual(await runText(settingsVector(sandboxed, shell)), []);
  assert.notDeepEqual(await runText(settingsVector({}, named)), []);
  // An unusable setting fails the vector at open, naming the file.
  for (const bad of [{ read_tool: 'read tool' }, { notable_patterns: [''] }]) {
    const failures = await runText(settingsVector(bad, {}));
    assert.ok(failures.some((f) => f.startsWith('inline.json: cannot open the session')), JSON.stringify(failures));
  }
});

test('a generator that mixes both segment kinds is a bad vector', async () => {
  const failures = await runText(replaced('"from": 1,', '"from": 1, "text": "x",'));
  assert.ok(failures.some((f) => f.includes('bad vector')), JSON.stringify(failures));
});

test('$host-dir and display_root_default: the granted directory, found by the runner', async () => {
  // With the wrapper's default display root, notices show the granted directory.
  const hostDefault = replaced('"key_hex"', '"display_root_default": true, "key_hex"');
  const shown = '"text_contains": ["full content at $host-dir/t1/c1-", ';
  assert.deepEqual(await runText(hostDefault.replace('"text_contains": [', shown)), []);
  assert.notDeepEqual(await runText(BASE.replace('"text_contains": [', shown)), []);
  const both = replaced('"key_hex"', '"display_root_default": true, "display_root": "/r", "key_hex"');
  assert.ok((await runText(both)).some((f) => f.includes('exclude each other')));
  const noDir = replaced('"key_hex"', '"preopen": "none", "key_hex"').replace('"spilled": true', '"spilled": false');
  const failures = await runText(noDir.replace('"text_contains": [', '"text_contains": ["$host-dir", '));
  const refused = failures.some((f) => f.includes('$host-dir in a session that granted no directory'));
  assert.ok(refused, JSON.stringify(failures));
});

test('a $spill: of an unknown call is an error in the vector, not a pass', async () => {
  const failures = await runText(replaced('$spill:c1', '$spill:c9'));
  assert.ok(failures.some((f) => f.includes('$spill:c9')), JSON.stringify(failures));
});

test('the invariants catch a broken answer of the component', async () => {
  const dir = freshDir('meta-');
  after(() => removeDir(dir));
  const session = await openSession({ threadId: 't1', spillDir: dir, displayRoot: '/spill-host' });
  const input = 'a line of output\n'.repeat(500);
  const b = budget(1000, { maxLines: null, maxLineBytes: null, headPercent: 50 });
  const good = flat(session.cap(input, b, 'c1'));
  const failuresOf = (view, text = input, disk = { root: dir, before: [] }) => {
    const failures = [];
    checkCap(new Checker('corrupted', failures), session, disk, text, b, view);
    return failures;
  };
  assert.deepEqual(failuresOf(good), []);

  const corruptions = {
    'over max_bytes': (v) => ({ ...v, text: v.text + 'x'.repeat(900) }),
    original_bytes: (v) => ({ ...v, originalBytes: v.originalBytes - 1 }),
    original_lines: (v) => ({ ...v, originalLines: v.originalLines + 1 }),
    truncated: (v) => ({ ...v, truncated: false }),
    'neither spill nor error': (v) => ({ ...v, spill: null }),
    'reference missing from the text': (v) => ({ ...v, text: v.text.replace('full content at', 'full content @') }),
    'forged tag': (v) => ({ ...v, spill: { ...v.spill, tag: '0'.repeat(16) } }),
    'relative path of another file': (v) => ({
      ...v,
      spill: { ...v.spill, relativePath: v.spill.relativePath.replace('c1-', 'c2-') },
    }),
    'relative path with ..': (v) => ({ ...v, spill: { ...v.spill, relativePath: `t1/../${v.spill.relativePath}` } }),
    'relative path of one segment': (v) => ({
      ...v,
      spill: { ...v.spill, relativePath: v.spill.relativePath.split('/')[1] },
    }),
    'relative path missing': (v) => ({ ...v, spill: { ...v.spill, relativePath: undefined } }),
  };
  for (const [what, corrupt] of Object.entries(corruptions)) {
    assert.notDeepEqual(failuresOf(corrupt(good)), [], `${what} went unnoticed`);
  }
  // A fitting input must come back unchanged.
  const now = { root: dir, before: tree(dir) };
  const fits = flat(session.cap('short', b, 'c2'));
  assert.deepEqual(failuresOf(fits, 'short', now), []);
  assert.notDeepEqual(failuresOf({ ...fits, text: 'shorT' }, 'short', now), []);
  assert.notDeepEqual(failuresOf({ ...fits, notableLines: 1 }, 'short', now), []);
  assert.notDeepEqual(failuresOf({ ...fits, foldedLines: 1 }, 'short', now), []);
  // The spill file must hold the input, and no temporary file may linger.
  const file = session.hostPath(good.spill);
  writeFileSync(file, 'tampered');
  assert.notDeepEqual(failuresOf(good), []);
  writeFileSync(file, input);
  assert.deepEqual(failuresOf(good), []);
  writeFileSync(join(dir, 't1', '.tmp-leftover'), 'x');
  assert.notDeepEqual(failuresOf(good), []);
  session.close();
});

test('the token invariants catch a broken answer of the component', async () => {
  const dir = freshDir('meta-tokens-');
  after(() => removeDir(dir));
  const session = await openSession({ threadId: 't1', spillDir: dir, displayRoot: '/spill-host' });
  const costs = { image: 1600, audio: 1000 };
  // Lines that differ in letters, so that the preview folds none of them.
  const word = (i) => (((i + 1) * 2654435761) % 2 ** 32).toString(36);
  const input = Array.from({ length: 500 }, (_, i) => `${word(i)} output\n`).join('');
  const b = budget(4000, { maxLines: null, maxLineBytes: null, maxTokens: 800 });
  const check = (fn) => {
    const failures = [];
    fn(new Checker('corrupted', failures));
    return failures;
  };
  const capOf = (view, text = input, fixed = undefined) =>
    check((chk) => checkCap(chk, session, { root: dir, before: tree(dir) }, text, b, view, fixed));
  const good = flat(session.cap(input, b, 'c1'));
  assert.equal(good.truncated, true);
  assert.deepEqual(capOf(good), []);
  assert.notDeepEqual(capOf({ ...good, tokens: good.tokens + 1 }), [], 'tokens');
  assert.notDeepEqual(capOf({ ...good, originalTokens: good.originalTokens - 1 }), [], 'original_tokens');
  // A text over max_tokens (its tokens reported honestly) is caught.
  const long = `${good.text}${' token'.repeat(900)}`;
  const over = { ...good, text: long, tokens: Number(session.estimateTokens(long)) };
  assert.ok(capOf(over).some((f) => f.includes('over max_tokens')), JSON.stringify(capOf(over)));
  // A text that fits in bytes but not in tokens must be cut, not returned unchanged.
  const dense = '{}'.repeat(1500);
  const denseTokens = Number(session.estimateTokens(dense));
  const unchanged = {
    ...good,
    text: dense,
    truncated: false,
    originalBytes: 3000,
    originalLines: 1,
    originalTokens: denseTokens,
    tokens: denseTokens,
    omittedBytes: 0,
    omittedLines: 0,
    gapLine: null,
    spill: null,
    spillError: null,
  };
  assert.ok(session.estimateTokens(dense) > 800n);
  assert.notDeepEqual(capOf(unchanged, dense), []);

  // Parts: media costs the session's fixed amounts.
  const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
  const parts = [{ type: 'text', text: 'hello' }, image];
  const capped = flat(session.capParts(parts, b, 'p1'));
  const view = { ...capped, text: joinedText(capped.parts) };
  const fixed = { input: mediaTokens(session, parts, costs), output: mediaTokens(session, capped.parts, costs) };
  assert.equal(fixed.input, 1600n);
  assert.deepEqual(capOf(view, 'hello', fixed), []);
  assert.notDeepEqual(capOf(view, 'hello', { input: 1000n, output: 1000n }), [], 'media costs');

  // prune: total_tokens is the sum of the bodies' estimates.
  const messages = [input, 'recent'];
  const pruned = session.prune(messages, { keepLast: 1 });
  assert.deepEqual(check((chk) => checkPrune(chk, session, messages, pruned)), []);
  const miscounted = { ...pruned, totalTokens: pruned.totalTokens + 1n };
  assert.notDeepEqual(check((chk) => checkPrune(chk, session, messages, miscounted)), []);

  // plan: one valid budget per result.
  const planned = session.plan([{ text: input }, { text: input }], { maxTokens: 2000n });
  assert.deepEqual(check((chk) => checkPlan(chk, session, 2, planned)), []);
  assert.notDeepEqual(check((chk) => checkPlan(chk, session, 3, planned)), []);
  assert.notDeepEqual(check((chk) => checkPlan(chk, session, 2, [planned[0], { ...planned[1], maxBytes: 10 }])), []);

  // cap-batch: of its kind, each within its planned budget, together within the limits.
  const items = [
    { call: 'b1', text: input },
    { call: 'b2', parts },
  ];
  const limits = { maxTokens: 3000n, maxBodyBytes: 6000n, floorBytes: 0, ceiling: budget(4000) };
  const plan = session.plan(items, limits);
  const disk = { root: dir, before: tree(dir) };
  const outputs = session.capBatch(items, limits);
  const batch = (outs, lim = limits, p = plan) =>
    check((chk) => checkBatch(chk, session, disk, items, lim, p, outs, costs));
  assert.deepEqual(batch(outputs), []);
  assert.notDeepEqual(batch(outputs.slice(0, 1)), [], 'a missing result');
  const wrongKind = [outputs[0], { text: 'hello', report: outputs[1].report }];
  assert.notDeepEqual(batch(wrongKind), [], 'a result of the wrong kind');
  assert.notDeepEqual(batch(outputs, { ...limits, maxTokens: 1600n }), [], 'over max_tokens together');
  assert.notDeepEqual(batch(outputs, { ...limits, maxBodyBytes: 100n }), [], 'over max_body_bytes together');
  const tight = plan.map((x) => ({ ...x, maxBytes: 700 }));
  assert.notDeepEqual(batch(outputs, limits, tight), [], 'a result over its planned budget');
  session.close();
});

/** A vector of the stream, read-tool, list and retention ops, which the tests below break one field at a time. */
function retentionVector(edit = () => {}) {
  const log = (tag, count = 300) => ({ gen: [{ lines: `${tag} line {n} of the build`, count }] });
  const b = { max_bytes: 2400, max_lines: null, max_line_bytes: null, keep: 'head-and-tail', head_percent: 40 };
  const vector = {
    name: 'retention',
    about: 'the ops of the read tool, streaming, the catalog and retention',
    session: {
      thread_id: 't1',
      key_hex: '000102030405060708090a0b0c0d0e0f',
      read_tool: 'read_spilled_output',
      // No retention stated: nothing is promised, so the sweep may delete.
    },
    steps: [
      { op: 'cap', input: log('a'), budget: b, call_id: 'c1', expect: { truncated: true, spilled: true } },
      {
        op: 'stream',
        input: { gen: [{ text: 'ünïcödé ✓ 😀 ', times: 20 }, { lines: 'b line {n} of the build', count: 300 }] },
        budget: b,
        call: { id: 's1', tool: 'bash' },
        chunk_bytes: [1, 7, 4096],
        expect: { truncated: true, spilled: true, text_contains: ['read_spilled_output'], redactions: {} },
      },
      {
        op: 'read-tool',
        expect: { name: 'read_spilled_output', description_contains: ['full output'], schema_properties: ['path', 'line', 'lines', 'offset', 'max_bytes', 'grep', 'max_matches'] },
      },
      { op: 'run-read-tool', arguments: { path: '$spill:c1', line: 2, lines: 1 }, expect: { is_error: false, text_contains: ['a line 2 of the build'], text_not_contains: ['a line 3 of'] } },
      { op: 'run-read-tool', arguments: 'not json', expect: { is_error: true } },
      { op: 'list', expect: { entries: [{ call_id: 'c1', lines: 300 }, { call_id: 's1', lines: 300 }] } },
      { op: 'stats', expect: { threads: 1, files: 2 } },
      { op: 'sweep', policy: { max_files: 1 }, expect: { deleted: [{ reason: 'file-count' }], kept_files: 1 } },
      { op: 'read', path: '$spill:c1', offset: 0, max_bytes: 100, expect: { error: 'not-found', text_contains: [] } },
    ],
  };
  edit(vector.steps, vector);
  return JSON.stringify(vector);
}

test('the retention ops run, and their wrong expectations fail, naming the step', async () => {
  assert.deepEqual(await runText(retentionVector()), []);
  const wrong = [
    [(s) => (s[1].expect.text_contains = ['kept for 8 days']), 'step 1'],
    [(s) => (s[1].expect.redactions = { literal: 1 }), 'step 1'],
    [(s) => (s[1].expect.original_lines = 301), 'step 1'],
    [(s) => (s[2].expect.name = 'read_tool_output'), 'step 2'],
    [(s) => s[2].expect.schema_properties.pop(), 'step 2'],
    [(s) => (s[2].expect.description_contains = ['nonsense']), 'step 2'],
    [(s) => (s[3].expect.is_error = true), 'step 3'],
    [(s) => (s[3].expect.text_contains = ['a line 3 of the build']), 'step 3'],
    [(s) => (s[5].expect.entries[1].call_id = 'c2'), 'step 5'],
    [(s) => s[5].expect.entries.pop(), 'step 5'],
    [(s) => (s[5].expect.entries[0].tool = 'bash'), 'step 5'],
    [(s) => (s[6].expect.files = 3), 'step 6'],
    [(s) => (s[6].expect.threads = 2), 'step 6'],
    [(s) => (s[7].expect.deleted[0].reason = 'age'), 'step 7'],
    [(s) => (s[7].expect.kept_files = 2), 'step 7'],
    [(s) => (s[7].expect.skipped_contains = ['symbolic link']), 'step 7'],
    [(s) => (s[0].expect.spill_text = 'not the input'), 'step 0'],
  ];
  for (const [edit, step] of wrong) {
    const failures = await runText(retentionVector(edit));
    const noticed = failures.some((f) => f.startsWith(`inline.json ${step} `));
    assert.ok(noticed, `${edit} went unnoticed: ${JSON.stringify(failures)}`);
  }
  // Chunks of no bytes, and a store without a granted directory, are errors in the vector.
  for (const edit of [
    (s) => (s[1].chunk_bytes = []),
    (s) => (s[1].chunk_bytes = [4, 0]),
    (s, v) => {
      v.session.preopen = 'none';
      s.splice(0, 6);
      s.splice(1);
    },
  ]) {
    const failures = await runText(retentionVector(edit));
    assert.ok(failures.some((f) => f.includes('bad vector')), JSON.stringify(failures));
  }
});

test('strict parsing of the retention ops and session fields', () => {
  const mistakes = [
    (s) => (s[1].chunk_bytes = 64),
    (s) => (s[1].chunk_bytes = [-1]),
    (s) => delete s[1].chunk_bytes,
    (s) => (s[1].call_id = 's1'),
    (s) => (s[1].expect.redactions = { literal: -1 }),
    (s) => (s[1].expect.redactions = ['literal']),
    (s) => (s[2].expect.schema = []),
    (s) => (s[2].path = 'x'),
    (s) => delete s[3].arguments,
    (s) => (s[3].expect.isError = true),
    (s) => (s[5].expect.entries[0].callId = 'c1'),
    (s) => (s[5].expect.count = 2),
    (s) => (s[6].expect.error = 'io'),
    (s) => (s[7].policy.maxFiles = 1),
    (s) => (s[7].policy.max_files = -1),
    (s) => (s[7].expect.deleted[0].reason = 'size'),
    (s) => delete s[7].policy,
    (s, v) => (v.session.retention_seconds = -1),
    (s, v) => (v.session.redaction = { literals: 'x' }),
    (s, v) => (v.session.redaction = { literals: [], spill: 'yes' }),
    (s, v) => (v.session.redaction = { literals: [], redact_spill: true }),
    (s) => (s[0].op = 'sweep-all'),
  ];
  for (const mistake of mistakes) {
    const json = retentionVector(mistake);
    assert.throws(() => parseVector(json), undefined, `accepted:\n${json}`);
  }
  assert.doesNotThrow(() => parseVector(retentionVector()));
  const redacting = retentionVector((s, v) => (v.session.redaction = { literals: ['hunter2-secret'] }));
  assert.doesNotThrow(() => parseVector(redacting));
});

test('the new-files invariant allows catalog and expiry notes, and nothing else', async () => {
  const dir = freshDir('meta-notes-');
  after(() => removeDir(dir));
  mkdirSync(join(dir, 't1'));
  const spill = join(dir, 't1', 'c1-0123456789abcdef.txt');
  writeFileSync(spill, 'x');
  const failuresWith = (extra) => {
    const before = tree(dir);
    writeFileSync(join(dir, extra), 'x');
    const failures = [];
    checkNewFiles(new Checker('notes', failures), { root: dir, before }, [spill]);
    rmSync(join(dir, extra));
    return failures;
  };
  assert.deepEqual(failuresWith('t1/.c1-0123456789abcdef.txt.meta'), []);
  assert.deepEqual(failuresWith('t1/.expired'), []);
  assert.notDeepEqual(failuresWith('t1/.c2-0123456789abcdef.txt.meta'), []);
  assert.notDeepEqual(failuresWith('.expired'), []);
  assert.notDeepEqual(failuresWith('t1/stray.txt'), []);
  assert.notDeepEqual(failuresWith('t1/.tmp-0123-c1.txt'), []);
});
