// Compiled (not run) by types.test.js with `tsc --strict`: the package's
// .d.ts must accept real use and reject misuse (each @ts-expect-error must
// meet an error, or tsc fails).

import {
  type Call,
  type CapErrorCase,
  type CapReport,
  type ContentPart,
  type OverflowKind,
  type OverflowRef,
  ToolCapError,
  budget,
  classify,
  openSession,
} from 'tool-output-cap';

export async function agentTurn(spillDir: string, output: string): Promise<string> {
  const session = await openSession({
    threadId: 'thread-1',
    spillDir,
    key: new Uint8Array(32),
    readTool: 'read_spilled_output',
    shellHints: false,
    notablePatterns: ['QUOTA-EXCEEDED'],
  });
  const capped = session.cap(output, budget(16 * 1024, { maxLines: 200, keep: 'tail' }), 'call-1');
  const report: CapReport = capped.report;
  const bytes: number = report.originalBytes;
  const notable: number = report.notableLines + report.foldedLines;
  const gap: number | null = report.gapLine;
  const spill: OverflowRef | null = report.spill;
  if (spill !== null) {
    const size: bigint = spill.bytes;
    const relative: string = spill.relativePath;
    void relative;
    const page = session.readLines(spill.path, 1n, 10, 4096);
    const next: bigint | null = page.nextOffset;
    const hits = session.grep(spill.path, 'error', 5);
    const total: bigint = hits.totalMatches;
    const again = session.read(spill.path, 0, 100);
    void [size, next, total, again.text];
    const placeholder: string = session.prunedPlaceholder(spill);
    const file: string | null = session.hostPath(spill) ?? session.hostPath(spill.path);
    void [placeholder, file];
  }
  const parts: ContentPart[] = [
    { type: 'text', text: output },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'file:///x', text: 'y' } },
  ];
  const call: Call = { id: 'call-2', tool: 'cargo', exitCode: 101, isError: false };
  const structured = session.capParts(parts, budget(4096), call);
  const failed = session.cap(output, budget(4096), { id: 'call-3', isError: true });
  const why: string | null = failed.report.spillError;
  const pruned = session.prune([capped.text], { keepLast: 0, maxTotalBytes: 10_000n });
  const freed: bigint = session.purge();
  const kind: OverflowKind | null = await classify(413, '');
  try {
    session.read('../x', 0, 10);
  } catch (err) {
    if (err instanceof ToolCapError) {
      const which: CapErrorCase = err.case;
      void which;
    }
  }
  session.close();
  void [bytes, notable, gap, structured.parts, structured.report.truncated, why, pruned.replaced, freed, kind];

  // Misuse the types must refuse:
  // @ts-expect-error maxBytes is a number
  budget('16k');
  // @ts-expect-error the keep modes are a closed set
  budget(1024, { keep: 'middle' });
  // @ts-expect-error threadId is required
  await openSession({ spillDir });
  // @ts-expect-error u64 results are bigint, not number
  const wrong: number = capped.report.spill!.bytes;
  // @ts-expect-error an image part needs its mimeType
  const part: ContentPart = { type: 'image', data: '' };
  // @ts-expect-error cap-error cases are a closed set
  const notACase: CapErrorCase = 'timeout';
  // @ts-expect-error hostPath may answer null
  const always: string = session.hostPath('/spill/thread-1/x.txt');
  // @ts-expect-error the accounting is in report
  const flat: boolean = capped.truncated;
  // @ts-expect-error a call needs its id
  session.cap(output, budget(4096), { tool: 'cargo', exitCode: 2 });
  // @ts-expect-error an exit code is a number
  session.cap(output, budget(4096), { id: 'c', exitCode: '2' });
  // @ts-expect-error a call id is a string
  session.capParts(parts, budget(4096), 7);
  // @ts-expect-error shellHints is a boolean
  await openSession({ threadId: 't', shellHints: 'no' });
  // @ts-expect-error notablePatterns is a list of strings
  await openSession({ threadId: 't', notablePatterns: 'FATAL' });
  // @ts-expect-error a reference has a relative path
  const noRelative: OverflowRef = { path: '/p', bytes: 1n, lines: 1n, digest: 'd', tag: 't' };
  void [wrong, part, notACase, always, flat, noRelative];
  return capped.text;
}
