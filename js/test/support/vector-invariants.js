// What holds for every input, checked on every step whatever its
// expectations say (tests/vectors/README.md, "universal invariants").

import { readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { Checker, excerpt } from './vector-check.js';
import { flat, joinedText, toSpec } from './vector-convert.js';
import { byteLength, countLines, isDirectory, tempFiles, tree } from './disk.js';

/** An overflow reference as a comparable string. */
export const refKey = (r) =>
  JSON.stringify([r.path, r.relativePath, String(r.bytes), String(r.lines), r.digest, r.tag]);

const show = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** The fixed token costs of a cap step without media parts. */
export const NO_MEDIA = Object.freeze({ input: 0n, output: 0n });

/**
 * Budget kept with the notice (bytes, lines and tokens), unchanged when it
 * fits, exact sizes, tokens equal to the session's estimate, the spill file
 * equal to the input, its reference found last in the text, its relative
 * path consistent with its path and the host mapping, and no stray or
 * temporary file. `got` is a capped record with its report flat ({text,
 * truncated, ..., tokens, spill, spillError}); for parts, `text` is the
 * joined text and `fixed` the media costs of the input's and the output's
 * parts (mediaTokens), which `original_tokens` and `tokens` include.
 * `disk` is {root: host dir or null, before: tree(root) before the call}.
 */
export function checkCap(chk, session, disk, input, budget, got, fixed = NO_MEDIA) {
  const spillFile = checkResult(chk, session, disk, input, budget, got, fixed);
  checkNewFiles(chk, disk, spillFile === null ? [] : [spillFile]);
}

/**
 * Whether the cap worked on a redacted text (the report lists redactions):
 * then the checks against the input's bytes and tokens do not apply, only
 * what holds for any text (and its lines, which redaction keeps).
 */
const redacted = (got) => (got.redactions ?? []).length > 0;

// What the WIT's `original-tokens` says a report may count from samples when
// the budget has no `maxTokens`: a cut input over 64 KiB (within 20% of the
// whole estimate), an input that fits over 16 KiB (within 30%).
const SAMPLED_CUT = { exactUpTo: 64 * 1024, percent: 20n };
const SAMPLED_FIT = { exactUpTo: 16 * 1024, percent: 30n };

/** The bound in percent (a BigInt) of a count the report may give from samples, or null: exact. */
function sampledBound(inputBytes, budget, truncated) {
  const s = truncated ? SAMPLED_CUT : SAMPLED_FIT;
  return budget.maxTokens === null && inputBytes > s.exactUpTo ? s.percent : null;
}

/** `got` (BigInt) is `whole + fixed` (BigInts), or within `bound` percent of it when sampled. */
function tokensAgree(got, whole, fixed, bound) {
  const f = BigInt(fixed);
  if (bound === null) return got === whole + f;
  const diff = got - f - whole;
  return got >= f && (diff < 0n ? -diff : diff) * 100n <= whole * bound;
}

/**
 * checkCap without the look for stray files (cap-batch looks once for all
 * its results); returns the host file of the spill, or null. `disk.redaction`
 * is the session's redaction policy `{literals, spill}`, if any.
 */
export function checkResult(chk, session, disk, input, budget, got, fixed = NO_MEDIA) {
  const inputBytes = byteLength(input);
  const lines = countLines(input);
  const wasRedacted = redacted(got);
  chk.ensure(
    wasRedacted || got.originalBytes === inputBytes,
    () => `original_bytes ${got.originalBytes} but the input has ${inputBytes} bytes`,
  );
  chk.ensure(got.originalLines === lines, () => `original_lines ${got.originalLines} but the input has ${lines} lines`);
  const inputTokens = estimate(chk, session, input);
  const textTokens = estimate(chk, session, got.text);
  for (const literal of disk.redaction?.literals ?? []) {
    chk.ensure(!got.text.includes(literal), () => `the text shows the redacted literal ${show(literal)}`);
  }
  const bound = sampledBound(inputBytes, budget, got.truncated);
  if (inputTokens !== null && !wasRedacted) {
    const want = inputTokens + fixed.input;
    chk.ensure(
      tokensAgree(BigInt(got.originalTokens), inputTokens, fixed.input, bound),
      () => `original_tokens ${got.originalTokens} but estimate-tokens of the input${fixedNote(fixed.input)} is ${want}`,
    );
  }
  if (textTokens !== null) {
    const want = textTokens + fixed.output;
    chk.ensure(
      tokensAgree(BigInt(got.tokens), textTokens, fixed.output, got.truncated ? null : bound),
      () => `tokens ${got.tokens} but estimate-tokens of the text${fixedNote(fixed.output)} is ${want}`,
    );
  }
  const limited = budget.maxBytes !== 0;
  const withinTokens = (tokens) => !limited || budget.maxTokens === null || tokens <= BigInt(budget.maxTokens);
  const fits =
    !limited ||
    (inputBytes <= budget.maxBytes &&
      (budget.maxLines === null || lines <= budget.maxLines) &&
      (inputTokens === null || withinTokens(inputTokens)));
  if (wasRedacted) {
    // The cap saw the redacted text: only what holds for any text.
    if (got.truncated) checkCut(chk, input, budget, got);
  } else if (fits) {
    checkUnchanged(chk, input, got);
  } else {
    checkCut(chk, input, budget, got);
  }
  // The text's own tokens: media parts pass through uncounted by the budget.
  chk.ensure(
    textTokens === null || withinTokens(textTokens),
    () => `the text has ${textTokens} tokens, over max_tokens ${budget.maxTokens}`,
  );
  return checkSpill(chk, session, disk, input, got);
}

const fixedNote = (fixed) => (fixed === 0n ? '' : ` plus ${fixed} for media`);

/** The session's estimate of `text`, or null (and a failure) if the call failed. */
function estimate(chk, session, text) {
  try {
    return session.estimateTokens(text);
  } catch (err) {
    chk.fail(`estimate-tokens failed: ${err.message}`);
    return null;
  }
}

/**
 * What the parts other than texts cost in tokens (tests/vectors/README.md):
 * an image or audio part the session's image or audio tokens
 * (`costs` = {image, audio}), a resource's blob or an `other` part the
 * estimate of its string; text parts and resource texts nothing.
 */
export function mediaTokens(session, parts, costs) {
  let sum = 0n;
  for (const p of parts) {
    if (p.type === 'image') sum += BigInt(costs.image);
    else if (p.type === 'audio') sum += BigInt(costs.audio);
    else if (p.type === 'other') sum += session.estimateTokens(p.value);
    else if (p.type === 'resource' && typeof p.resource.blob === 'string') {
      sum += session.estimateTokens(p.resource.blob);
    }
  }
  return sum;
}

/** Bytes of `text` as the contents of a JSON string (JSON.stringify's escapes, no quotes). */
export const jsonStringBytes = (text) => byteLength(JSON.stringify(text)) - 2;

/**
 * Body bytes of a cap-batch result (tests/vectors/README.md): a text's
 * JSON-string length; a media part's data and MIME type; a resource's URI,
 * MIME type and blob, plus its text as a text; an `other` part's
 * JSON-string length.
 */
export function bodyBytes(result) {
  if (result.parts === undefined) return jsonStringBytes(result.text);
  let sum = 0;
  for (const p of result.parts) {
    if (p.type === 'text') sum += jsonStringBytes(p.text);
    else if (p.type === 'image' || p.type === 'audio') sum += byteLength(p.data) + byteLength(p.mimeType);
    else if (p.type === 'other') sum += jsonStringBytes(p.value);
    else {
      const r = p.resource;
      sum += byteLength(r.uri) + byteLength(r.mimeType ?? '') + byteLength(r.blob ?? '');
      if (typeof r.text === 'string') sum += jsonStringBytes(r.text);
    }
  }
  return sum;
}

function checkUnchanged(chk, input, got) {
  chk.ensure(!got.truncated, () => 'the input fits but truncated is true');
  chk.ensure(got.text === input, () => `the input fits but the text changed: ${excerpt(got.text)}`);
  chk.ensure(
    got.omittedBytes === 0 &&
      got.omittedLines === 0 &&
      got.gapLine === null &&
      got.spill === null &&
      got.spillError === null &&
      got.notableLines === 0 &&
      got.foldedLines === 0,
    () => `the input fits but the accounting says otherwise: ${show({ ...got, text: undefined })}`,
  );
}

function checkCut(chk, input, budget, got) {
  chk.ensure(got.truncated, () => 'the input does not fit but truncated is false');
  const textBytes = byteLength(got.text);
  chk.ensure(textBytes <= budget.maxBytes, () => `text has ${textBytes} bytes, over max_bytes ${budget.maxBytes}`);
  if (budget.maxLines !== null) {
    const lines = countLines(got.text);
    chk.ensure(lines <= budget.maxLines, () => `text has ${lines} lines, over max_lines ${budget.maxLines}`);
  }
  chk.ensure(
    got.omittedBytes > 0 && got.omittedBytes <= byteLength(input),
    () => `omitted_bytes ${got.omittedBytes} is impossible`,
  );
  chk.ensure(
    got.gapLine !== null && got.gapLine >= 1 && got.gapLine <= Math.max(countLines(input), 1),
    () => `gap_line ${got.gapLine} is not a line of the input`,
  );
  chk.ensure(
    (got.spill !== null) !== (got.spillError !== null),
    () => `a cut result needs exactly one of spill and spill_error: ${show(got.spill)} / ${show(got.spillError)}`,
  );
  // Full notices say "do not run it again", the compact ones of small
  // budgets "Do not re-run"; both say "could NOT be saved".
  const noticeOk =
    got.spill !== null
      ? got.text.includes('do not run it again') || got.text.includes('Do not re-run')
      : got.spillError !== null && got.text.includes('could NOT be saved');
  chk.ensure(noticeOk, () => `the notice does not say what became of the full output: ${excerpt(got.text)}`);
}

/**
 * The spill of one result: file, sizes, reference; returns its host file or
 * null. The file is the input byte for byte, except in a session whose
 * redaction policy redacts the spill too (`disk.redaction.spill`): then it
 * has the reference's size and lines and holds none of the literals.
 */
function checkSpill(chk, session, disk, input, got) {
  const spillFile = got.spill === null ? null : session.hostPath(got.spill);
  if (got.spill !== null) {
    const spill = got.spill;
    const redactedFile = disk.redaction?.spill === true;
    checkRelativePath(chk, session, disk.root, spill, spillFile);
    chk.ensure(
      (redactedFile || spill.bytes === BigInt(byteLength(input))) && spill.lines === BigInt(countLines(input)),
      () => `the reference's sizes do not match the input: ${show(spill)}`,
    );
    if (spillFile === null) {
      chk.fail(`the spill path is not under the display root: ${show(spill)}`);
    } else {
      try {
        const bytes = readFileSync(spillFile);
        if (redactedFile) {
          chk.ensure(
            BigInt(bytes.length) === spill.bytes && BigInt(countLines(bytes.toString('utf8'))) === spill.lines,
            () => `the spill file ${spillFile} (${bytes.length} bytes) does not have the reference's sizes`,
          );
          for (const literal of disk.redaction.literals) {
            chk.ensure(!bytes.includes(literal), () => `the spill file holds the redacted literal ${show(literal)}`);
          }
        } else {
          chk.ensure(
            bytes.equals(Buffer.from(input, 'utf8')),
            () => `the spill file ${spillFile} (${bytes.length} bytes) differs from the input (${byteLength(input)} bytes)`,
          );
        }
      } catch (err) {
        chk.fail(`cannot read the spill file ${spillFile}: ${err.message}`);
      }
    }
    try {
      const refs = session.findRefs(got.text);
      chk.ensure(
        refs.length > 0 && refKey(refs.at(-1)) === refKey(spill),
        () => `find-refs of the text found ${show(refs)}, not the spill reference last`,
      );
    } catch (err) {
      chk.fail(`find-refs failed: ${err.message}`);
    }
  }
  return spillFile;
}

/**
 * No temporary file, and no new file but the spill files `spillFiles` (host
 * paths), the catalog note `.<spill file>.meta` beside each, a thread
 * folder's `.expired` note, and thread folders.
 */
export function checkNewFiles(chk, disk, spillFiles) {
  if (disk.root === null) return;
  const leftovers = tempFiles(disk.root);
  chk.ensure(leftovers.length === 0, () => `temporary files left behind: ${show(leftovers)}`);
  const before = new Set(disk.before);
  const newFiles = tree(disk.root).filter((p) => !before.has(p) && !isDirectory(join(disk.root, p)));
  const allowed = spillFiles.map((f) => relative(disk.root, f)).flatMap((f) => [f, catalogNote(f)]);
  const isExpiredNote = (f) => f.split('/').length === 2 && f.endsWith('/.expired');
  chk.ensure(
    newFiles.every((f) => allowed.includes(f) || isExpiredNote(f)),
    () => `unexpected new files: ${show(newFiles)} (spills and their notes: ${show(allowed)})`,
  );
}

/** `<thread>/.<file>.meta`: the catalog note of the spill `<thread>/<file>`. */
const catalogNote = (spill) => {
  const at = spill.lastIndexOf('/');
  return `${spill.slice(0, at + 1)}.${spill.slice(at + 1)}.meta`;
};

/**
 * A reference's relative path is `<thread>/<file>`, its path ends with `/`
 * and it, and the host's mapping of the path (the component's relativePath,
 * through the wrapper's hostPath) and of the reference both give the granted
 * directory joined with it.
 */
function checkRelativePath(chk, session, root, spill, spillFile) {
  const rel = spill.relativePath;
  if (typeof rel !== 'string' || !isTwoPlainSegments(rel)) {
    chk.fail(`the reference's relative_path is not <thread>/<file>: ${show(spill)}`);
    return;
  }
  chk.ensure(spill.path.endsWith(`/${rel}`), () => `the reference's path does not end with /${rel}: ${show(spill)}`);
  if (root === null) return;
  const want = join(realpathSync(root), rel);
  let mapped;
  try {
    mapped = session.hostPath(spill.path);
  } catch (err) {
    chk.fail(`hostPath of the reference's path failed: ${err.message}`);
    return;
  }
  chk.ensure(mapped === want, () => `the host mapping of ${spill.path} is ${show(mapped)}, not ${want}`);
  chk.ensure(spillFile === want, () => `the host mapping of the reference is ${show(spillFile)}, not ${want}`);
}

/** `a/b` with two non-empty names, neither `.` nor `..`, no backslash or NUL. */
export function isTwoPlainSegments(rel) {
  const segments = rel.split('/');
  return segments.length === 2 && segments.every((x) => x !== '' && x !== '.' && x !== '..' && !/[\\\0]/.test(x));
}

/**
 * Fits: the parts unchanged. Cut: one text part where the first textual part
 * was; media, other parts and resources without text untouched and in place;
 * a resource with a blob in place without its text; other textual parts gone.
 */
export function checkParts(chk, input, got) {
  const output = got.parts.map(toSpec);
  if (!got.truncated) {
    const unchanged = input.map(toSpec);
    chk.ensure(isDeepStrictEqual(output, unchanged), () => 'the text fits but the parts changed');
    return;
  }
  // The preview goes where the first textual part was; textual parts go,
  // except that a resource with a blob stays in place without its text.
  const expected = [];
  let placed = false;
  for (const part of input) {
    const spec = toSpec(part);
    const textual = 'text' in spec || ('resource' in spec && spec.resource.text !== undefined);
    if (!textual) {
      expected.push(spec);
      continue;
    }
    if (!placed) {
      expected.push(null);
      placed = true;
    }
    if ('resource' in spec && spec.resource.blob !== undefined) {
      const { text: _dropped, ...rest } = spec.resource;
      expected.push({ resource: rest });
    }
  }
  const shape = output.map((p) => ('text' in p ? null : p));
  chk.ensure(
    isDeepStrictEqual(shape, expected),
    () => `non-text parts were not carried through in place: ${show(shape)} vs ${show(expected)}`,
  );
}

/**
 * Accounting adds up (bytes, and tokens as the session estimates each body),
 * only listed messages changed and each shrank, no genuine reference lost.
 */
export function checkPrune(chk, session, messages, got) {
  const sum = (texts) => texts.reduce((n, t) => n + BigInt(byteLength(t)), 0n);
  const before = sum(messages);
  const after = sum(got.messages);
  chk.ensure(got.totalBytes === after, () => `total_bytes ${got.totalBytes} but the bodies hold ${after}`);
  let tokens = 0n;
  for (const body of got.messages) {
    const n = estimate(chk, session, body);
    if (n === null) {
      tokens = null;
      break;
    }
    tokens += n;
  }
  chk.ensure(
    tokens === null || got.totalTokens === tokens,
    () => `total_tokens ${got.totalTokens} but estimate-tokens of the bodies add up to ${tokens}`,
  );
  const saved = before > after ? before - after : 0n;
  chk.ensure(got.bytesSaved === saved, () => `bytes_saved ${got.bytesSaved} but ${before} - ${after} were saved`);
  chk.ensure(got.messages.length === messages.length, () => 'prune changed the number of messages');
  messages.forEach((old, i) => {
    if (i >= got.messages.length) return;
    const now = got.messages[i];
    const listed = got.replaced.includes(i);
    chk.ensure(listed === (old !== now), () => `message ${i}: replaced lists it: ${listed}, but changed: ${old !== now}`);
    chk.ensure(!listed || byteLength(now) < byteLength(old), () => `message ${i} was replaced but did not shrink`);
  });
  const paths = (texts) => {
    const found = new Set();
    for (const t of texts) {
      let refs = [];
      try {
        refs = session.findRefs(t);
      } catch {
        // As the Rust runner: a failing find-refs finds nothing.
      }
      for (const r of refs) found.add(r.path);
    }
    return found;
  };
  const kept = paths(got.messages);
  const lost = [...paths(messages)].filter((p) => !kept.has(p));
  chk.ensure(lost.length === 0, () => `prune lost genuine references: ${show(lost)}`);
}

/**
 * plan: one budget per result, each valid. Valid means this session accepts
 * it: a cap of the empty text, which fits every valid budget (nothing is
 * cut, nothing written), fails only for an invalid one.
 */
export function checkPlan(chk, session, count, budgets) {
  chk.ensure(budgets.length === count, () => `${budgets.length} budgets for ${count} results`);
  budgets.forEach((budget, i) => {
    try {
      session.cap('', budget, 'plan-check');
    } catch (err) {
      chk.fail(`budget ${i} ${show(budget)} is not valid: ${err.message}`);
    }
  });
}

/**
 * cap-batch: one result per pending result, of its kind, each checked as a
 * cap or cap-parts step is, under the budget `plan` gives the same results
 * and limits (`planned`; the batch may cut a result further, never less, and
 * leaves a result that fits its planned budget unchanged); together their
 * tokens within max_tokens and their body bytes within max_body_bytes, and
 * no file on disk but their spills. `items` are the wrapper's pending
 * results ({call, text} or {call, parts}), `outputs` what capBatch returned,
 * `costs` the session's {image, audio} tokens.
 */
export function checkBatch(chk, session, disk, items, limits, planned, outputs, costs) {
  chk.ensure(outputs.length === items.length, () => `${outputs.length} results for ${items.length} pending results`);
  chk.ensure(
    planned === null || planned.length === items.length,
    () => `plan gave ${planned.length} budgets for ${items.length} results`,
  );
  const spills = [];
  let tokens = 0n;
  let body = 0;
  items.forEach((item, i) => {
    const out = outputs[i];
    if (out === undefined) return;
    const sub = new Checker(`${chk.label} result ${i}`, chk.failures);
    const isParts = item.parts !== undefined;
    if (isParts !== (out.parts !== undefined)) {
      sub.fail(`a ${isParts ? 'parts' : 'text'} result came back as ${show(Object.keys(out))}`);
      return;
    }
    tokens += BigInt(out.report.tokens);
    body += bodyBytes(out);
    const budget = planned?.[i];
    if (budget === undefined) {
      if (out.report.spill !== null) spills.push(session.hostPath(out.report.spill));
      return;
    }
    let spill;
    if (isParts) {
      const view = { ...flat(out), text: joinedText(out.parts) };
      const fixed = { input: mediaTokens(session, item.parts, costs), output: mediaTokens(session, out.parts, costs) };
      spill = checkResult(sub, session, disk, joinedText(item.parts), budget, view, fixed);
      checkParts(sub, item.parts, flat(out));
    } else {
      spill = checkResult(sub, session, disk, item.text, budget, flat(out));
    }
    if (spill !== null) spills.push(spill);
    if (sub.trapped) chk.trapped = true;
  });
  chk.ensure(
    limits.maxTokens === null || tokens <= limits.maxTokens,
    () => `the results take ${tokens} tokens together, over max_tokens ${limits.maxTokens}`,
  );
  chk.ensure(
    limits.maxBodyBytes === null || BigInt(body) <= limits.maxBodyBytes,
    () => `the results take ${body} body bytes together, over max_body_bytes ${limits.maxBodyBytes}`,
  );
  checkNewFiles(chk, disk, spills);
}
