// Building step arguments: generators, and `$spill:` / `$capped:` references
// to earlier cap steps (tests/vectors/README.md, "Inputs").

/** An error in the vector itself (reported as "bad vector: ..."). */
export class BadVector extends Error {}

/** The text a text input stands for: a plain string or {"gen": [...]}. */
export function buildText(input) {
  if (typeof input === 'string') return input;
  return input.gen.map((segment, i) => emit(segment, i)).join('');
}

function emit(segment, index) {
  const { text, times, lines, from, count } = segment;
  if (text !== undefined && lines === undefined && from === undefined && count === undefined) {
    return text.repeat(times ?? 1);
  }
  if (lines !== undefined && count !== undefined && text === undefined && times === undefined) {
    const first = from ?? 1;
    const out = [];
    for (let n = first; n < first + count; n++) {
      out.push(`${lines.replaceAll('{n}', String(n))}\n`);
    }
    return out.join('');
  }
  throw new BadVector(
    `generator segment ${index}: a segment is either {"text", "times"} or ` +
      '{"lines", "from", "count"} (count required)',
  );
}

/**
 * Replaces every `$spill:<id>` and `$capped:<id>` in `s` (an id is a run of
 * [A-Za-z0-9_-]) from `calls`: id -> {spillPath: string|null, text}; and
 * every `$host-dir` by `hostDir`, the canonical path of the granted directory
 * (found by the runner, not asked of the wrapper), or null if none.
 */
export function substitute(s, calls, hostDir = null) {
  return s.replace(/\$(?:host-dir|(spill|capped):([A-Za-z0-9_-]*))/g, (token, kind, id) => {
    if (kind === undefined) {
      if (hostDir === null) throw new BadVector(`${token} in a session that granted no directory`);
      return hostDir;
    }
    const recorded = calls.get(id);
    if (!recorded) throw new BadVector(`$${kind}:${id} names no earlier cap step`);
    if (kind === 'capped') return recorded.text;
    if (recorded.spillPath === null) throw new BadVector(`$spill:${id}: that cap step did not spill`);
    return recorded.spillPath;
  });
}
