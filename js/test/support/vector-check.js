// Comparing one step's answer with its expectations.

import { isDeepStrictEqual, inspect } from 'node:util';

import { ToolCapError } from '../../src/index.js';

const show = (v) => inspect(v, { depth: 6, breakLength: Infinity, maxStringLength: 600 });

/** Collects the failures of one step, each prefixed with the step's label. */
export class Checker {
  constructor(label, failures) {
    this.label = label;
    this.failures = failures;
    /** Set when the component trapped: the session is unusable. */
    this.trapped = false;
  }

  fail(message) {
    this.failures.push(`${this.label}: ${message}`);
  }

  ensure(ok, message) {
    if (!ok) this.fail(message());
  }

  /**
   * Runs `call`. Returns {value} if it succeeded and no error was expected;
   * otherwise records why not and returns null. `wantError` is the expected
   * cap-error case, if any.
   */
  outcome(wantError, call) {
    let value;
    try {
      value = call();
    } catch (err) {
      const got = err instanceof ToolCapError ? err.case : 'runtime';
      if (got === 'runtime') this.trapped = true;
      if (wantError !== got) {
        const want = wantError === undefined ? 'success' : `error ${wantError}`;
        this.fail(`expected ${want}, got ${got}: ${err?.message ?? show(err)}`);
      }
      return null;
    }
    if (wantError !== undefined) {
      this.fail(`expected error ${wantError}, but the call succeeded`);
      return null;
    }
    return { value };
  }

  /** An exact expectation: `want` undefined means "not checked". */
  exact(field, want, got) {
    if (want === undefined || isDeepStrictEqual(want, got)) return;
    this.fail(`${field}: expected ${show(want)}, got ${show(got)}`);
  }

  /** An exact text expectation; the failure shows where the texts part. */
  text(field, want, got) {
    if (want === undefined || want === got) return;
    this.fail(`${field} differs: ${describeDifference(want, got)}`);
  }

  substrings(contains = [], notContains = [], got) {
    for (const needle of contains) {
      if (!got.includes(needle)) this.fail(`text does not contain ${show(needle)}: ${excerpt(got)}`);
    }
    for (const needle of notContains) {
      if (got.includes(needle)) this.fail(`text contains ${show(needle)}: ${excerpt(got)}`);
    }
  }
}

/** u64 expectations are JSON numbers, answers BigInts: compare exactly. */
export const big = (n) => (n === undefined || n === null ? n : BigInt(n));

const utf8 = (s) => Buffer.from(s, 'utf8');

/** Where two texts part (in UTF-8 bytes), with some context and both sizes. */
export function describeDifference(want, got) {
  const a = utf8(want);
  const b = utf8(got);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  const context = (buf) => show(buf.subarray(Math.max(0, common - 40), common + 80).toString('utf8'));
  return (
    `expected ${a.length} bytes, got ${b.length} bytes; first difference at byte ${common}: ` +
    `expected ...${context(a)}..., got ...${context(b)}...`
  );
}

/** The start and end of a possibly huge text, for failure messages. */
export function excerpt(text) {
  const each = 300;
  if (text.length <= 2 * each) return show(text);
  return `${show(text.slice(0, each))} ... ${show(text.slice(-each))} (${utf8(text).length} bytes)`;
}
