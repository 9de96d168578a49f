// What holds for every input, checked on every step whatever its
// expectations say (tests/vectors/README.md, "universal invariants").

import { readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { excerpt } from './vector-check.js';
import { toSpec } from './vector-convert.js';
import { byteLength, countLines, isDirectory, tempFiles, tree } from './disk.js';

/** An overflow reference as a comparable string. */
export const refKey = (r) =>
  JSON.stringify([r.path, r.relativePath, String(r.bytes), String(r.lines), r.digest, r.tag]);

const show = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));

/**
 * Budget kept with the notice, unchanged when it fits, exact sizes, the spill
 * file equal to the input, its reference found last in the text, its
 * relative path consistent with its path and the host mapping, and no stray
 * or temporary file. `got` is a capped record with its report flat
 * ({text, truncated, ..., spill, spillError}).
 * `disk` is {root: host dir or null, before: tree(root) before the call}.
 */
export function checkCap(chk, session, disk, input, budget, got) {
  const inputBytes = byteLength(input);
  const lines = countLines(input);
  chk.ensure(got.originalBytes === inputBytes, () => `original_bytes ${got.originalBytes} but the input has ${inputBytes} bytes`);
  chk.ensure(got.originalLines === lines, () => `original_lines ${got.originalLines} but the input has ${lines} lines`);
  const fits =
    budget.maxBytes === 0 || (inputBytes <= budget.maxBytes && (budget.maxLines === null || lines <= budget.maxLines));
  if (fits) checkUnchanged(chk, input, got);
  else checkCut(chk, input, budget, got);
  checkDisk(chk, session, disk, input, got);
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

function checkDisk(chk, session, disk, input, got) {
  const spillFile = got.spill === null ? null : session.hostPath(got.spill);
  if (got.spill !== null) {
    const spill = got.spill;
    checkRelativePath(chk, session, disk.root, spill, spillFile);
    chk.ensure(
      spill.bytes === BigInt(byteLength(input)) && spill.lines === BigInt(countLines(input)),
      () => `the reference's sizes do not match the input: ${show(spill)}`,
    );
    if (spillFile === null) {
      chk.fail(`the spill path is not under the display root: ${show(spill)}`);
    } else {
      try {
        const bytes = readFileSync(spillFile);
        chk.ensure(
          bytes.equals(Buffer.from(input, 'utf8')),
          () => `the spill file ${spillFile} (${bytes.length} bytes) differs from the input (${byteLength(input)} bytes)`,
        );
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
  if (disk.root === null) return;
  const leftovers = tempFiles(disk.root);
  chk.ensure(leftovers.length === 0, () => `temporary files left behind: ${show(leftovers)}`);
  // Only the spill file itself (and its thread folder) may appear.
  const before = new Set(disk.before);
  const newFiles = tree(disk.root).filter((p) => !before.has(p) && !isDirectory(join(disk.root, p)));
  const allowed = spillFile === null ? [] : [relative(disk.root, spillFile)];
  chk.ensure(
    newFiles.every((f) => allowed.includes(f)),
    () => `unexpected new files: ${show(newFiles)} (spill: ${show(allowed)})`,
  );
}

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

/** Accounting adds up, only listed messages changed and each shrank, no genuine reference lost. */
export function checkPrune(chk, session, messages, got) {
  const sum = (texts) => texts.reduce((n, t) => n + BigInt(byteLength(t)), 0n);
  const before = sum(messages);
  const after = sum(got.messages);
  chk.ensure(got.totalBytes === after, () => `total_bytes ${got.totalBytes} but the bodies hold ${after}`);
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
