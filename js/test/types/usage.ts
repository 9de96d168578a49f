// Compiled (not run) by types.test.js with `tsc --strict`: the package's
// .d.ts must accept real use and reject misuse (each @ts-expect-error must
// meet an error, or tsc fails).

import {
  type CapErrorCase,
  type ContentPart,
  type OverflowKind,
  type OverflowRef,
  ToolCapError,
  budget,
  classify,
  openSession,
} from 'tool-output-cap';

export async function agentTurn(spillDir: string, output: string): Promise<string> {
  const session = await openSession({ threadId: 'thread-1', spillDir, key: new Uint8Array(32) });
  const capped = session.cap(output, budget(16 * 1024, { maxLines: 200, keep: 'tail' }), 'call-1');
  const bytes: number = capped.originalBytes;
  const spill: OverflowRef | null = capped.spill;
  if (spill !== null) {
    const size: bigint = spill.bytes;
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
  const structured = session.capParts(parts, budget(4096), 'call-2');
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
  void [bytes, structured.parts, pruned.replaced, freed, kind];

  // Misuse the types must refuse:
  // @ts-expect-error maxBytes is a number
  budget('16k');
  // @ts-expect-error the keep modes are a closed set
  budget(1024, { keep: 'middle' });
  // @ts-expect-error threadId is required
  await openSession({ spillDir });
  // @ts-expect-error u64 results are bigint, not number
  const wrong: number = capped.spill!.bytes;
  // @ts-expect-error an image part needs its mimeType
  const part: ContentPart = { type: 'image', data: '' };
  // @ts-expect-error cap-error cases are a closed set
  const notACase: CapErrorCase = 'timeout';
  // @ts-expect-error hostPath may answer null
  const always: string = session.hostPath('/spill/thread-1/x.txt');
  void [wrong, part, notACase, always];
  return capped.text;
}
