// A call's `search` (what the tool searched for): accepted as a string or a
// list of alternatives by every method that takes a call, checked for its
// type before the call, held to the component's limits, and it makes a cut
// preview show the hits.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { ToolCapError, budget, openSession } from '../src/index.js';
import { toCall } from '../src/convert.js';
import { freshDir, removeDir } from './support/disk.js';

const KEY = new Uint8Array(32).fill(7);
const dirs = [];
after(() => dirs.forEach(removeDir));
const open = () => {
  const dir = freshDir('search-');
  dirs.push(dir);
  return openSession({ threadId: 't', spillDir: dir, key: KEY });
};

const BIG = Array.from({ length: 5000 }, (_, i) => `src/m${i}.rs:${i + 1}: let value_${i} = compute(${i});\n`).join('');
const B = budget(4096);
const LIMITS = { maxBodyBytes: 1_000_000 };
const mcpResult = (text) => JSON.stringify({ content: [{ type: 'text', text }] });

/** One run of each method that takes a call, returning its result. */
const EVERY_METHOD = {
  cap: (s, text, call) => s.cap(text, B, call),
  capParts: (s, text, call) => s.capParts([{ type: 'text', text }], B, call),
  capMcp: (s, text, call) => s.capMcp(mcpResult(text), B, call),
  capBatch: (s, text, call) => s.capBatch([{ call, text }], { ...LIMITS, ceiling: B })[0],
  stream: (s, text, call) => {
    const stream = s.stream(B, call);
    try {
      stream.write(text);
      return stream.finish();
    } finally {
      stream.close();
    }
  },
};

/** What the model is shown: cap's text, capParts' parts, capMcp's result JSON. */
const shown = (result) => result.text ?? result.result ?? JSON.stringify(result.parts);

/** The keys of a result and of its report, to compare shapes. */
const shape = (result) => ({ keys: Object.keys(result).sort(), report: Object.keys(result.report).sort() });

test('every method that takes a call accepts a search and returns the same shape', async () => {
  const session = await open();
  for (const [name, run] of Object.entries(EVERY_METHOD)) {
    const plain = run(session, BIG, { id: `${name}-plain` });
    for (const search of ['value_4000', ['value_4000', 'compute(12)'], null, undefined, '', '\n\n']) {
      const searched = run(session, BIG, { id: `${name}-search`, tool: 'grep', search });
      assert.deepEqual(shape(searched), shape(plain), `${name} with search ${JSON.stringify(search)}`);
      assert.equal(searched.report.truncated, true, name);
    }
    // A result that fits comes back unchanged, search or not.
    const small = run(session, 'one hit: value_1\n', { id: `${name}-small`, search: 'value_1' });
    assert.equal(small.report.truncated, false, name);
  }
  // plan checks a call it does not use: a search is allowed there too.
  assert.equal(session.plan([{ call: { id: 'p', search: ['a', 'b'] }, text: BIG }], LIMITS).length, 1);
  session.close();
});

test('a list of alternatives is joined with "\\n"; absent, null and a bare id are no search', () => {
  assert.equal(toCall({ id: 'c', search: ['foo', 'bar baz', 'x.y'] }).search, 'foo\nbar baz\nx.y');
  assert.equal(toCall({ id: 'c', search: [] }).search, '');
  assert.equal(toCall({ id: 'c', search: 'a\nb' }).search, 'a\nb');
  assert.equal(toCall({ id: 'c', search: null }).search, undefined);
  assert.equal(toCall({ id: 'c' }).search, undefined);
  assert.equal(toCall('c').search, undefined);
});

test('a search that is not a string or a list of strings is a TypeError naming the field', async () => {
  const session = await open();
  const misuse = [
    [7, /call\.search must be a string or an array of strings, got number/],
    [true, /call\.search must be a string or an array of strings, got boolean/],
    [{ pattern: 'x' }, /call\.search must be a string or an array of strings, got object/],
    [['ok', 7], /call\.search\[1\] must be a string, got number/],
    [['ok', null], /call\.search\[1\] must be a string, got null/],
  ];
  for (const [search, message] of misuse) {
    for (const [name, run] of Object.entries(EVERY_METHOD)) {
      assert.throws(() => run(session, BIG, { id: 'c', search }), (err) => {
        assert.ok(err instanceof TypeError, `${name}: ${err}`);
        assert.match(err.message.replace(/^results\[0\]\./, ''), message, name);
        return true;
      });
    }
  }
  assert.throws(() => session.plan([{ call: { id: 'p', search: 1 }, text: 'x' }], LIMITS), /results\[0\]\.call\.search/);
  // The names tools give what they searched for are not fields: refused, naming the one that is.
  for (const wrong of ['pattern', 'patterns', 'query']) {
    assert.throws(
      () => session.cap(BIG, B, { id: 'c', [wrong]: 'value_4000' }),
      (err) => err instanceof TypeError && err.message === `call.${wrong} is not a field; write call.search`,
    );
  }
  session.close();
});

const isInvalidArgument = (err) =>
  err instanceof ToolCapError && err.case === 'invalid-argument' && err.message.includes('search');

test('more than 16 alternatives, or one over 256 bytes, is the component\'s invalid-argument', async () => {
  const session = await open();
  const seventeen = Array.from({ length: 17 }, (_, i) => `alternative ${i}`);
  for (const [name, run] of Object.entries(EVERY_METHOD)) {
    // At the limits: accepted.
    run(session, BIG, { id: 'ok', search: seventeen.slice(0, 16) });
    run(session, BIG, { id: 'ok', search: 'a'.repeat(256) });
    run(session, BIG, { id: 'ok', search: `${'é'.repeat(128)}\n` });
    // Empty lines are not alternatives: 16 of them with blank lines between still fit.
    run(session, BIG, { id: 'ok', search: seventeen.slice(0, 16).join('\n\n') });
    // Over them: refused by the component, as a list or as lines.
    for (const search of [seventeen, seventeen.join('\n'), 'a'.repeat(257), ['ok', `${'é'.repeat(128)}x`]]) {
      assert.throws(() => run(session, BIG, { id: 'over', search }), isInvalidArgument, `${name}: ${search}`);
    }
  }
  session.close();
});

// One line of 300 KB, as grep prints a minified file, with the one hit in its middle.
const TOKEN = 'needle_7f3a9c21';
const half = Array.from({ length: 15_000 }, (_, i) => `v${i}=${(i * 7919) % 1000};`).join('');
const LONG_LINE = `dist/app.min.js:${half.slice(0, 150_000)}${TOKEN}${half.slice(0, 150_000)}\n`;

test("a cut preview of a search shows the hit, even in the middle of a 300 KB line", async () => {
  const session = await open();
  assert.ok(LONG_LINE.length > 300_000);
  for (const [name, run] of Object.entries(EVERY_METHOD)) {
    // Without the search, the middle of the line is cut away.
    const blind = run(session, LONG_LINE, { id: `${name}-blind`, tool: 'grep' });
    assert.equal(blind.report.truncated, true, name);
    assert.ok(!shown(blind).includes(TOKEN), `${name}: the hit is shown without a search`);
    for (const search of [TOKEN, ['no such text', TOKEN]]) {
      const found = run(session, LONG_LINE, { id: `${name}-search`, tool: 'grep', search });
      assert.equal(found.report.truncated, true, name);
      assert.ok(shown(found).includes(TOKEN), `${name}: no hit in the preview of ${JSON.stringify(search)}`);
    }
  }
  session.close();
});
