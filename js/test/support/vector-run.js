// Running one vector through the real component: a fresh temp dir, one
// session, its steps in order. Mirrors tests/tests/vectors_support/run.rs.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';

import { classify, openSession, openSpillStore } from '../../src/index.js';
import { Checker, big } from './vector-check.js';
import {
  DEFAULT_DISPLAY_ROOT,
  budgetSpec,
  callId,
  decodeHex,
  endedCall,
  flat,
  fullBudgetSpec,
  joinedText,
  toBudget,
  toCall,
  toLimits,
  toPart,
  toPending,
  toPolicy,
  toSpec,
} from './vector-convert.js';
import { BadVector, buildText, substitute } from './vector-inputs.js';
import { checkMcpExpect, checkMcpInvariants, inputOf, outputText } from './vector-mcp.js';
import {
  checkBatch,
  checkCap,
  checkNewFiles,
  checkParts,
  checkPlan,
  checkPrune,
  isTwoPlainSegments,
  mediaTokens,
  refKey,
} from './vector-invariants.js';

/** The session's media costs when the vector sets none (session-settings in wit/types.wit). */
const DEFAULT_IMAGE_TOKENS = 1600;
const DEFAULT_AUDIO_TOKENS = 1000;

/** How close a calibrate step's scale must be to the expected one. */
const SCALE_TOLERANCE = 1e-9;
import { byteLength, countLines, freshDir, makeUnwritable, removeDir, tree } from './disk.js';

/**
 * Runs a parsed vector (see vector-format.js); `file` names it in messages.
 * Returns the failures, one line each, starting with "<file> step <i> (<op>)".
 */
export async function runVector(file, vector) {
  const failures = [];
  const dir = freshDir('vector-');
  const preopen = vector.session.preopen ?? 'read-write';
  let unlock = null;
  let session = null;
  try {
    if (preopen === 'read-only') unlock = makeUnwritable(dir);
    const { display_root: root, display_root_default: hostDefault } = vector.session;
    if (hostDefault === true && root !== undefined) {
      failures.push(`${file}: bad vector: display_root and display_root_default exclude each other`);
      return failures;
    }
    try {
      session = await openSession({
        threadId: vector.session.thread_id,
        spillDir: preopen === 'none' ? null : dir,
        // display_root_default: none given, the wrapper's default applies.
        displayRoot: hostDefault === true ? undefined : (root ?? DEFAULT_DISPLAY_ROOT),
        key: decodeHex(vector.session.key_hex),
        // Absent in the vector: absent here, so the wrapper's defaults apply
        // (no read tool, shell hints on, no patterns), as the format says.
        readTool: vector.session.read_tool,
        shellHints: vector.session.shell_hints,
        notablePatterns: vector.session.notable_patterns,
        imageTokens: vector.session.image_tokens,
        audioTokens: vector.session.audio_tokens,
        tokenScale: vector.session.token_scale,
        retentionSeconds: vector.session.retention_seconds,
        redaction: redactionOf(vector.session),
      });
    } catch (err) {
      failures.push(`${file}: cannot open the session: ${err.message}`);
      return failures;
    }
    const costs = {
      image: vector.session.image_tokens ?? DEFAULT_IMAGE_TOKENS,
      audio: vector.session.audio_tokens ?? DEFAULT_AUDIO_TOKENS,
    };
    const runner = new Runner(session, preopen === 'none' ? null : dir, costs, redactionOf(vector.session) ?? null);
    for (const [index, step] of vector.steps.entries()) {
      const chk = new Checker(`${file} step ${index} (${step.op})`, failures);
      try {
        await runner.step(chk, step);
      } catch (err) {
        if (!(err instanceof BadVector)) throw err;
        chk.fail(`bad vector: ${err.message}`);
      }
      if (chk.trapped) {
        chk.fail('the component trapped; the remaining steps were not run');
        break;
      }
    }
    return failures;
  } finally {
    session?.close();
    unlock?.();
    removeDir(dir);
  }
}

/** The session's redaction policy as the wrapper takes it (absent fields: the Rust runner's serde defaults). */
function redactionOf(session) {
  const r = session.redaction;
  return r === undefined ? undefined : { literals: r.literals ?? [], spill: r.spill ?? false };
}

class Runner {
  constructor(session, dir, costs, redaction) {
    this.session = session;
    /** The session's redaction policy `{literals, spill}`, or null. */
    this.redaction = redaction;
    /** The tokens of an image and an audio part in this session: {image, audio}. */
    this.costs = costs;
    /** The host directory granted as the preopen, or null. */
    this.dir = dir;
    /** `$host-dir`: its canonical path, found here, not asked of the wrapper. */
    this.hostDir = dir === null ? null : realpathSync(dir);
    /** Earlier cap steps by call id, for `$spill:` and `$capped:`. */
    this.calls = new Map();
    /** Their spill references, for `pruned-placeholder`. */
    this.refs = new Map();
  }

  step(chk, step) {
    const e = step.expect;
    switch (step.op) {
      case 'cap':
        return this.cap(chk, step, e);
      case 'cap-parts':
        return this.capParts(chk, step, e);
      case 'cap-mcp':
        return this.capMcp(chk, step, e);
      case 'find-refs':
        return this.findRefs(chk, step, e);
      case 'pruned-placeholder':
        return this.placeholder(chk, step, e);
      case 'read':
      case 'read-lines':
        return this.read(chk, step, e);
      case 'grep':
        return this.grep(chk, step, e);
      case 'prune':
        return this.prune(chk, step, e);
      case 'host-path':
        return this.hostPath(chk, step, e);
      case 'purge':
        return this.purge(chk, e);
      case 'classify':
        return this.classify(chk, step, e);
      case 'estimate-tokens':
        return this.estimateTokens(chk, step, e);
      case 'calibrate':
        return this.calibrate(chk, step, e);
      case 'plan':
        return this.plan(chk, step, e);
      case 'cap-batch':
        return this.capBatch(chk, step, e);
      case 'stream':
        return this.stream(chk, step, e);
      case 'read-tool':
        return this.readTool(chk, e);
      case 'run-read-tool':
        return this.runReadTool(chk, step, e);
      case 'list':
        return this.list(chk, e);
      case 'sweep':
        return this.sweep(chk, step, e);
      case 'stats':
        return this.stats(chk, e);
      default:
        throw new BadVector(`unknown op ${step.op}`);
    }
  }

  disk() {
    return { root: this.dir, before: this.dir === null ? [] : tree(this.dir), redaction: this.redaction };
  }

  resolve(text) {
    return substitute(text, this.calls, this.hostDir);
  }

  resolveAll(texts) {
    return (texts ?? []).map((t) => this.resolve(t));
  }

  /** `e` with `$spill:`/`$capped:` resolved in its substring lists, as in every op. */
  resolveExpect(e) {
    return {
      ...e,
      text_contains: this.resolveAll(e.text_contains),
      text_not_contains: this.resolveAll(e.text_not_contains),
    };
  }

  cap(chk, s, e) {
    if (e.parts !== undefined) throw new BadVector('`parts` is an expectation of cap-parts only');
    const input = buildText(s.input);
    const budget = toBudget(s.budget);
    const disk = this.disk();
    const result = chk.outcome(e.error, () => this.session.cap(input, budget, toCall(s)));
    if (!result) return;
    const got = flat(result.value);
    checkCap(chk, this.session, disk, input, budget, got);
    this.checkCapped(chk, e, got);
    this.record(callId(s), got);
  }

  /**
   * The input's UTF-8 written in chunks of `chunk_bytes` (cycled; a chunk
   * may split a character), given `exit_code_at_end` (if any) after the last
   * write, finished, checked as a cap step; then `cap` of the same input,
   * with that exit code in the call, must give the identical result.
   */
  stream(chk, s, e) {
    if (e.parts !== undefined) throw new BadVector('`parts` is an expectation of cap-parts only');
    if (s.chunk_bytes.length === 0 || s.chunk_bytes.includes(0)) {
      throw new BadVector('chunk_bytes needs sizes of at least 1');
    }
    const input = buildText(s.input);
    const bytes = Buffer.from(input, 'utf8');
    const budget = toBudget(s.budget);
    const disk = this.disk();
    const result = chk.outcome(e.error, () => {
      const stream = this.session.stream(budget, toCall(s));
      try {
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const size = s.chunk_bytes[i % s.chunk_bytes.length];
          stream.write(bytes.subarray(at, at + size));
          at += size;
        }
        const written = stream.bytesWritten();
        chk.ensure(written === BigInt(bytes.length), () => `bytesWritten() is ${written} after ${bytes.length} bytes`);
        if (s.exit_code_at_end !== undefined) stream.setExitCode(s.exit_code_at_end);
        return stream.finish();
      } finally {
        stream.close();
      }
    });
    if (!result) return;
    const streamed = result.value;
    const whole = chk.outcome(undefined, () => this.session.cap(input, budget, endedCall(s)));
    if (whole) {
      chk.ensure(
        isDeepStrictEqual(whole.value, streamed),
        () => `the stream's result differs from cap's: ${show(streamed)} / ${show(whole.value)}`,
      );
    }
    const got = flat(streamed);
    checkCap(chk, this.session, disk, input, budget, got);
    this.checkCapped(chk, e, got);
    this.record(callId(s), got);
  }

  /** A cap expectation, with `$spill:`/`$capped:` resolved, and the spill's text under redaction. */
  checkCapped(chk, e, got) {
    checkCapped(chk, this.resolveExpect(e), got);
    if (e.redactions !== undefined) {
      chk.exact('redactions', nonZero(e.redactions), redactionCounts(got.redactions));
    }
    if (e.spill_text !== undefined) {
      const file = got.spill === null ? null : this.session.hostPath(got.spill);
      if (file === null) {
        chk.fail('spill_text: nothing was spilled into the granted directory');
        return;
      }
      const want = buildText(e.spill_text);
      let text;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        chk.fail(`cannot read the spill file ${file}: ${err.message}`);
        return;
      }
      chk.text('spill_text', want, text);
    }
  }

  capParts(chk, s, e) {
    const parts = s.parts.map(toPart);
    const joined = joinedText(parts);
    const budget = toBudget(s.budget);
    const disk = this.disk();
    const result = chk.outcome(e.error, () => this.session.capParts(parts, budget, toCall(s)));
    if (!result) return;
    const capped = flat(result.value);
    const view = { ...capped, text: joinedText(capped.parts) };
    const fixed = {
      input: mediaTokens(this.session, parts, this.costs),
      output: mediaTokens(this.session, capped.parts, this.costs),
    };
    checkCap(chk, this.session, disk, joined, budget, view, fixed);
    checkParts(chk, parts, capped);
    this.checkCapped(chk, e, view);
    chk.exact('parts', e.parts, capped.parts.map(toSpec));
    this.record(callId(s), view);
  }

  capMcp(chk, s, e) {
    const sent = inputOf(s.result);
    const budget = toBudget(s.budget);
    const disk = this.disk();
    const resourceLink = s.options?.resource_link === true;
    const result = chk.outcome(e.error, () =>
      this.session.capMcp(sent.text, budget, toCall(s), { resourceLink }),
    );
    if (!result) return;
    const got = result.value;
    const output = checkMcpInvariants(chk, this.session, disk, sent, budget, resourceLink, got);
    if (output === null) return;
    // Recorded first: the expectations may name this step's spills.
    // `$spill:<id>` names the text's spill, `$spill:<id>-structured` the
    // structured content's; `$capped:` the text blocks.
    const text = outputText(output);
    for (const [id, spill] of [
      [callId(s), got.report.spill],
      [`${callId(s)}-structured`, got.structuredSpill],
    ]) {
      this.calls.set(id, { spillPath: spill?.path ?? null, text });
      if (spill) this.refs.set(id, spill);
      else this.refs.delete(id);
    }
    const resolved = {
      ...this.resolveExpect(e),
      notice_contains: this.resolveAll(e.notice_contains),
      meta_record: e.meta_record === undefined || e.meta_record === null ? e.meta_record : this.resolveJson(e.meta_record),
    };
    checkMcpExpect(chk, resolved, sent, got, output);
  }

  record(callId, got) {
    this.calls.set(callId, { spillPath: got.spill?.path ?? null, text: got.text });
    if (got.spill) this.refs.set(callId, got.spill);
    else this.refs.delete(callId);
  }

  findRefs(chk, s, e) {
    const text = this.resolve(buildText(s.text));
    const wantPaths = e.paths === undefined ? undefined : this.resolveAll(e.paths);
    const result = chk.outcome(undefined, () => this.session.findRefs(text));
    if (!result) return;
    const refs = result.value;
    chk.exact('count', big(e.count), BigInt(refs.length));
    chk.exact('paths', wantPaths, refs.map((r) => r.path));
  }

  placeholder(chk, s, e) {
    const original = this.refs.get(s.call_id);
    if (!original) throw new BadVector(`call ${JSON.stringify(s.call_id)} has no spill reference`);
    const reference = { ...original };
    const t = s.tamper ?? {};
    if (t.path !== undefined) reference.path = this.resolve(t.path);
    if (t.digest !== undefined) reference.digest = t.digest;
    if (t.tag !== undefined) reference.tag = t.tag;
    if (t.bytes !== undefined) reference.bytes = BigInt(t.bytes);
    if (t.lines !== undefined) reference.lines = BigInt(t.lines);
    const result = chk.outcome(e.error, () => this.session.prunedPlaceholder(reference));
    if (!result) return;
    const text = result.value;
    chk.substrings(this.resolveAll(e.text_contains), this.resolveAll(e.text_not_contains), text);
    chk.text('text', e.text, text);
    let found = [];
    try {
      found = this.session.findRefs(text);
    } catch {
      // Reported below as "found nothing".
    }
    chk.ensure(
      found.length === 1 && refKey(found[0]) === refKey(reference),
      () => `find-refs of the placeholder found ${found.map(refKey)}, not ${refKey(reference)}`,
    );
  }

  read(chk, s, e) {
    const path = this.resolve(s.path);
    const lines = s.op === 'read-lines';
    const result = chk.outcome(e.error, () =>
      lines
        ? this.session.readLines(path, s.first_line, s.count, s.max_bytes)
        : this.session.read(path, s.offset, s.max_bytes),
    );
    if (!result) return;
    const page = result.value;
    const bytes = byteLength(page.text);
    if (lines) {
      const count = countLines(page.text);
      chk.ensure(
        bytes <= s.max_bytes && count <= s.count,
        () => `the page exceeds ${s.count} lines or ${s.max_bytes} bytes (${count} lines, ${bytes} bytes)`,
      );
    } else {
      chk.ensure(bytes <= s.max_bytes, () => `the page has ${bytes} bytes, over ${s.max_bytes}`);
    }
    chk.exact('offset', big(e.offset), page.offset);
    chk.exact('first_line', big(e.first_line), page.firstLine);
    chk.exact('next_offset', big(e.next_offset), page.nextOffset);
    chk.exact('next_line', big(e.next_line), page.nextLine);
    chk.exact('total_bytes', big(e.total_bytes), page.totalBytes);
    chk.substrings(this.resolveAll(e.text_contains), this.resolveAll(e.text_not_contains), page.text);
    chk.text('text', e.text, page.text);
  }

  grep(chk, s, e) {
    const path = this.resolve(s.path);
    const result = chk.outcome(e.error, () => this.session.grep(path, s.pattern, s.max_matches));
    if (!result) return;
    const found = result.value;
    chk.ensure(found.matches.length <= s.max_matches, () => `${found.matches.length} matches, over max_matches`);
    chk.exact('total_matches', big(e.total_matches), found.totalMatches);
    if (e.matches === undefined) return;
    if (e.matches.length !== found.matches.length) {
      chk.fail(`matches: expected ${e.matches.length} entries, got ${found.matches.length}`);
      return;
    }
    e.matches.forEach((w, i) => {
      const g = found.matches[i];
      chk.exact(`matches[${i}].line`, big(w.line), g.line);
      chk.exact(`matches[${i}].offset`, big(w.offset), g.offset);
      chk.text(`matches[${i}].excerpt`, w.excerpt, g.excerpt);
      chk.exact(`matches[${i}].excerpt_offset`, big(w.excerpt_offset), g.excerptOffset);
    });
  }

  prune(chk, s, e) {
    const messages = s.messages.map((m) => this.resolve(buildText(m)));
    const result = chk.outcome(e.error, () => this.session.prune(messages, toPolicy(s.policy)));
    if (!result) return;
    const pruned = result.value;
    checkPrune(chk, this.session, messages, pruned);
    chk.exact('replaced', e.replaced, pruned.replaced);
    chk.exact('bytes_saved', big(e.bytes_saved), pruned.bytesSaved);
    chk.exact('total_bytes', big(e.total_bytes), pruned.totalBytes);
    chk.exact('total_tokens', big(e.total_tokens), pruned.totalTokens);
    chk.exact('messages', e.messages, pruned.messages);
  }

  /**
   * The host's mapping of a display path: the granted directory joined with
   * `relative`, or null. Whatever the vector says, an answer must lie inside
   * the granted directory.
   */
  hostPath(chk, s, e) {
    const path = this.resolve(s.path);
    const want = e.relative === null ? null : this.hostFile(e.relative);
    const result = chk.outcome(undefined, () => this.session.hostPath(path));
    if (!result) return;
    const got = result.value;
    chk.exact('host path', want, got);
    if (got === null) return;
    const rel = this.hostDir === null ? null : relative(this.hostDir, got);
    chk.ensure(
      rel !== null && isTwoPlainSegments(rel) && join(this.hostDir, rel) === got,
      () => `the host path ${JSON.stringify(got)} is not <thread>/<file> inside the granted ${this.hostDir}`,
    );
  }

  /** The host file an expected `relative` stands for. */
  hostFile(rel) {
    if (!isTwoPlainSegments(rel)) throw new BadVector(`relative must be <thread>/<file>, got ${JSON.stringify(rel)}`);
    if (this.hostDir === null) throw new BadVector('relative must be null when no directory is granted');
    return join(this.hostDir, rel);
  }

  purge(chk, e) {
    const result = chk.outcome(e.error, () => this.session.purge());
    if (result) chk.exact('freed', big(e.freed), result.value);
  }

  async classify(chk, s, e) {
    const body = buildText(s.body);
    // Through the top-level classify(), which the session's method shares.
    let overflow;
    try {
      overflow = await classify(s.status, body);
    } catch (err) {
      chk.trapped = true;
      chk.fail(`classify failed: ${err.message}`);
      return;
    }
    // No overflow: every field is "none".
    const got = overflow ?? { kind: null, limit: null, requested: null, unit: null };
    chk.exact('kind', e.kind, got.kind);
    chk.exact('limit', big(e.limit), got.limit);
    chk.exact('requested', big(e.requested), got.requested);
    chk.exact('unit', e.unit, got.unit);
    // The session's own classify() must agree.
    const own = chk.outcome(undefined, () => this.session.classify(s.status, body));
    if (own) {
      chk.ensure(
        isDeepStrictEqual(own.value, overflow),
        () => `session.classify gave ${inspect(own.value)}, classify gave ${inspect(overflow)}`,
      );
    }
  }

  estimateTokens(chk, s, e) {
    const result = chk.outcome(undefined, () => this.session.estimateTokens(buildText(s.text)));
    if (result) chk.exact('tokens', big(e.tokens), result.value);
  }

  calibrate(chk, s, e) {
    const result = chk.outcome(undefined, () => this.session.calibrate(buildText(s.text), s.actual_tokens));
    if (!result) return;
    const scale = result.value;
    if (e.scale !== undefined) {
      chk.ensure(Math.abs(scale - e.scale) <= SCALE_TOLERANCE, () => `scale: expected ${e.scale}, got ${scale}`);
    }
    // The wrapper's tokenScale is the scale the session now estimates with.
    const now = chk.outcome(undefined, () => this.session.tokenScale);
    if (now) chk.ensure(now.value === scale, () => `tokenScale is ${now.value} after calibrate returned ${scale}`);
  }

  plan(chk, s, e) {
    const items = s.results.map(toPending);
    const limits = toLimits(s.limits);
    const result = chk.outcome(e.error, () => this.session.plan(items, limits));
    if (!result) return;
    const budgets = result.value;
    checkPlan(chk, this.session, items.length, budgets);
    chk.exact('budgets', e.budgets?.map(fullBudgetSpec), budgets.map(budgetSpec));
  }

  capBatch(chk, s, e) {
    if (e.results !== undefined && e.results.length !== s.results.length) {
      throw new BadVector(`expect.results lists ${e.results.length} results for ${s.results.length} pending results`);
    }
    e.results?.forEach((want, i) => {
      if (want.parts !== undefined && s.results[i].parts === undefined) {
        throw new BadVector(`expect.results[${i}]: \`parts\` is an expectation of a parts result only`);
      }
    });
    const items = s.results.map(toPending);
    const limits = toLimits(s.limits);
    // The budgets cap-batch starts from (plan is deterministic and writes
    // nothing): the invariants check each result against its own.
    let planned = null;
    try {
      planned = this.session.plan(items, limits);
    } catch {
      // cap-batch must then fail too; checked below.
    }
    const disk = this.disk();
    const result = chk.outcome(e.error, () => this.session.capBatch(items, limits));
    if (!result) return;
    const outputs = result.value;
    chk.ensure(planned !== null, () => 'cap-batch succeeded where plan of the same results and limits failed');
    checkBatch(chk, this.session, disk, items, limits, planned, outputs, this.costs);
    outputs.forEach((out, i) => {
      const view = out.parts === undefined ? flat(out) : { ...flat(out), text: joinedText(out.parts) };
      const want = e.results?.[i];
      if (want !== undefined) {
        const sub = new Checker(`${chk.label} result ${i}`, chk.failures);
        this.checkCapped(sub, want, view);
        if (out.parts !== undefined) sub.exact('parts', want.parts, out.parts.map(toSpec));
      }
      const id = callId(s.results[i]);
      if (id !== undefined) this.record(id, view);
    });
  }

  readTool(chk, e) {
    const result = chk.outcome(undefined, () => this.session.readTool());
    if (!result) return;
    const spec = result.value;
    chk.exact('name', e.name, spec.name);
    for (const needle of e.description_contains ?? []) {
      chk.ensure(spec.description.includes(needle), () => `the description does not contain ${show(needle)}`);
    }
    let schema;
    try {
      schema = JSON.parse(spec.inputSchema);
    } catch (err) {
      chk.fail(`the input schema is not JSON: ${err.message}`);
      return;
    }
    const properties = Object.keys(schema?.properties ?? {}).sort();
    chk.exact('schema_properties', e.schema_properties && [...e.schema_properties].sort(), properties);
  }

  /**
   * The arguments as the model would send them: a string as it is, any other
   * JSON value through the wrapper's own serialisation (an object) or
   * JSON.stringify; `$spill:`/`$capped:`/`$host-dir` resolved in its strings.
   */
  runReadTool(chk, s, e) {
    const args = this.resolveJson(s.arguments);
    // A string or an object goes to the wrapper as it is; a bare number,
    // boolean or null as its JSON text.
    const sent = typeof args === 'string' || (typeof args === 'object' && args !== null) ? args : JSON.stringify(args);
    const result = chk.outcome(undefined, () => this.session.runReadTool(sent));
    if (!result) return;
    const out = result.value;
    chk.exact('is_error', e.is_error, out.isError);
    chk.substrings(this.resolveAll(e.text_contains), this.resolveAll(e.text_not_contains), out.text);
    chk.text('text', e.text, out.text);
  }

  /** `value` with every string in it resolved. */
  resolveJson(value) {
    if (typeof value === 'string') return this.resolve(value);
    if (Array.isArray(value)) return value.map((v) => this.resolveJson(v));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolveJson(v)]));
    }
    return value;
  }

  /** The catalog, in order; every entry's reference genuine. */
  list(chk, e) {
    const result = chk.outcome(e.error, () => this.session.list());
    if (!result) return;
    const entries = result.value;
    for (const entry of entries) {
      let found = [];
      try {
        found = this.session.findRefs(this.session.prunedPlaceholder(entry.reference));
      } catch {
        // Reported below as "found nothing".
      }
      chk.ensure(
        found.length === 1 && refKey(found[0]) === refKey(entry.reference),
        () => `the catalog's reference is not genuine: ${show(entry.reference)}`,
      );
    }
    if (e.entries === undefined) return;
    if (e.entries.length !== entries.length) {
      chk.fail(`entries: expected ${e.entries.length}, got ${entries.length}: ${show(entries)}`);
      return;
    }
    e.entries.forEach((w, i) => {
      const g = entries[i];
      chk.exact(`entries[${i}].call_id`, w.call_id, g.callId);
      chk.exact(`entries[${i}].tool`, w.tool, g.tool);
      chk.exact(`entries[${i}].bytes`, big(w.bytes), g.reference.bytes);
      chk.exact(`entries[${i}].lines`, big(w.lines), g.reference.lines);
      chk.exact(`entries[${i}].relative_path`, w.relative_path, g.reference.relativePath);
      chk.exact(`entries[${i}].digest`, w.digest, g.reference.digest);
    });
  }

  /** A spill store opened on the granted directory, closed after `use`. */
  async withStore(use) {
    if (this.dir === null) throw new BadVector('sweep and stats need a preopen');
    const store = await openSpillStore(this.dir);
    try {
      return use(store);
    } finally {
      store.close();
    }
  }

  async sweep(chk, s, e) {
    const policy = {
      maxAgeSeconds: s.policy.max_age_seconds ?? null,
      maxTotalBytes: s.policy.max_total_bytes ?? null,
      maxFiles: s.policy.max_files ?? null,
    };
    const disk = this.disk();
    await this.withStore((store) => {
      const result = chk.outcome(e.error, () => store.sweep(policy));
      if (!result) return;
      const report = result.value;
      if (e.deleted !== undefined) {
        if (e.deleted.length !== report.deleted.length) {
          chk.fail(`deleted ${show(report.deleted)}, expected ${e.deleted.length} files`);
        } else {
          e.deleted.forEach((w, i) => {
            const g = report.deleted[i];
            chk.exact(`deleted[${i}].relative_path`, w.relative_path, g.relativePath);
            chk.exact(`deleted[${i}].bytes`, big(w.bytes), g.bytes);
            chk.exact(`deleted[${i}].reason`, w.reason, g.reason);
          });
        }
      }
      chk.exact('kept_files', big(e.kept_files), report.keptFiles);
      chk.exact('kept_bytes', big(e.kept_bytes), report.keptBytes);
      for (const needle of e.skipped_contains ?? []) {
        chk.ensure(
          report.skipped.some((k) => k.includes(needle)),
          () => `no skipped entry contains ${show(needle)}: ${show(report.skipped)}`,
        );
      }
      // What it says it deleted is gone; what is left keeps every limit.
      for (const d of report.deleted) {
        const file = isTwoPlainSegments(d.relativePath) ? join(this.hostDir, d.relativePath) : null;
        chk.ensure(file !== null && !existsSync(file), () => `the swept ${d.relativePath} is still there`);
      }
      // A file its notice promised for longer is kept whatever the policy,
      // and named in `skipped`: only the others must obey the limits.
      const held = BigInt(report.skipped.filter((k) => k.includes('as its notice promised')).length);
      chk.ensure(
        policy.maxFiles === null || report.keptFiles - held <= BigInt(policy.maxFiles),
        () => `${report.keptFiles} files kept (${held} promised), over max_files ${policy.maxFiles}`,
      );
      chk.ensure(
        policy.maxTotalBytes === null || report.keptBytes <= BigInt(policy.maxTotalBytes) || held === report.keptFiles,
        () => `${report.keptBytes} bytes kept, over max_total_bytes ${policy.maxTotalBytes}, not all promised`,
      );
      checkNewFiles(chk, disk, []);
    });
  }

  async stats(chk, e) {
    await this.withStore((store) => {
      const result = chk.outcome(undefined, () => store.stats());
      if (!result) return;
      const stats = result.value;
      chk.exact('threads', e.threads, stats.threads);
      chk.exact('files', big(e.files), stats.files);
      chk.exact('bytes', big(e.bytes), stats.bytes);
    });
  }
}

/** A redaction expectation without its zero counts: absent kinds are 0. */
function nonZero(counts) {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A report's redactions as `{kind: count}` (summed per kind, zero counts left out). */
function redactionCounts(list) {
  const counts = {};
  for (const { kind, count } of list) counts[kind] = (counts[kind] ?? 0) + count;
  return nonZero(counts);
}

const show = (v) => inspect(v, { depth: 6, breakLength: Infinity, maxStringLength: 300 });


/** The expectations of cap and cap-parts on their shared accounting. */
function checkCapped(chk, e, got) {
  chk.exact('truncated', e.truncated, got.truncated);
  chk.exact('spilled', e.spilled, got.spill !== null);
  chk.exact('original_bytes', e.original_bytes, got.originalBytes);
  chk.exact('original_lines', e.original_lines, got.originalLines);
  chk.exact('omitted_bytes', e.omitted_bytes, got.omittedBytes);
  chk.exact('omitted_lines', e.omitted_lines, got.omittedLines);
  chk.exact('gap_line', e.gap_line, got.gapLine);
  chk.exact('notable_lines', e.notable_lines, got.notableLines);
  chk.exact('folded_lines', e.folded_lines, got.foldedLines);
  chk.exact('original_tokens', e.original_tokens, got.originalTokens);
  chk.exact('tokens', e.tokens, got.tokens);
  if (e.spill_error_contains !== undefined) {
    if (got.spillError === null) chk.fail(`expected a spill_error containing ${JSON.stringify(e.spill_error_contains)}, got none`);
    else
      chk.ensure(
        got.spillError.includes(e.spill_error_contains),
        () => `spill_error ${JSON.stringify(got.spillError)} does not contain ${JSON.stringify(e.spill_error_contains)}`,
      );
  }
  chk.substrings(e.text_contains, e.text_not_contains, got.text);
  chk.text('text', e.text, got.text);
}
