// Compiled (not run) by types.test.js with `tsc --strict`: the package's
// .d.ts must accept real use and reject misuse (each @ts-expect-error must
// meet an error, or tsc fails).

import {
  type Call,
  type CapErrorCase,
  type CapReport,
  type ContentPart,
  type Overflow,
  type OverflowKind,
  type OverflowRef,
  type BatchItem,
  type Budget,
  type Capped,
  type CappedParts,
  type PendingResult,
  type RequestLimits,
  type SizeUnit,
  type CapStream,
  type CappedMcp,
  type McpStream,
  type ReadToolSpec,
  type RedactionCount,
  type SpillEntry,
  type StoreStats,
  type SweepReason,
  type SweepReport,
  ToolCapError,
  budget,
  classify,
  openSession,
  openSpillStore,
} from 'tool-output-cap';

export async function agentTurn(spillDir: string, output: string): Promise<string> {
  const session = await openSession({
    threadId: 'thread-1',
    spillDir,
    key: new Uint8Array(32),
    readTool: 'read_spilled_output',
    shellHints: false,
    notablePatterns: ['QUOTA-EXCEEDED'],
    imageTokens: 1200,
    audioTokens: null,
    tokenScale: 1.1,
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
  const searched: Call[] = [
    { id: 'grep-1', tool: 'bash', search: 'needle' },
    { id: 'grep-2', search: ['needle', 'haystack'] as const },
    { id: 'grep-3', search: null },
  ];
  void searched;
  const structured = session.capParts(parts, budget(4096), call);
  const failed = session.cap(output, budget(4096), { id: 'call-3', isError: true });
  const why: string | null = failed.report.spillError;
  const pruned = session.prune([capped.text], { keepLast: 0, maxTotalBytes: 10_000n });
  const freed: bigint = session.purge();
  const overflow: Overflow | null = await classify(413, '');
  const kind: OverflowKind | undefined = overflow?.kind;
  const limit: bigint | null | undefined = overflow?.limit;
  const unit: SizeUnit | null | undefined = session.classify(400, '')?.unit;
  void [limit, unit];

  // A turn of parallel tool calls, fitted to what the next request has left.
  const limits: RequestLimits = { maxTokens: 20_000, maxBodyBytes: 64_000n, ceiling: budget(16 * 1024) };
  const planned: Required<Budget>[] = session.plan([{ text: output }, { parts }, { call: 'c', text: '' }], limits);
  const plannedTokens: number | null = planned[0].maxTokens;
  const [first, second] = session.capBatch(
    [
      { call: 'a', text: output },
      { call: { id: 'b', tool: 'mcp', isError: false }, parts },
    ],
    { maxTokens: 20_000n },
  );
  const firstText: string = first.text;
  const secondParts: ContentPart[] = second.parts;
  const tokens: number = first.report.tokens + second.report.originalTokens;
  const items: BatchItem[] = [{ call: 'a', text: output }];
  const anyOut: (Capped | CappedParts)[] = session.capBatch(items, {});
  const pending: PendingResult[] = items;
  const estimate: bigint = session.estimateTokens(output);
  const scale: number = session.calibrate(output, 1234) + session.calibrate(output, 1234n);
  const carried = await openSession({ threadId: 'thread-1', tokenScale: session.tokenScale });
  const prunedTokens: bigint = session.prune([output], { maxTotalTokens: 1000 }).totalTokens;
  void [plannedTokens, firstText, secondParts, tokens, anyOut, pending, estimate, scale, carried, prunedTokens];
  session.cap(output, budget(4096, { maxTokens: 1000 }), 'c');
  try {
    session.read('../x', 0, 10);
  } catch (err) {
    if (err instanceof ToolCapError) {
      const which: CapErrorCase = err.case;
      void which;
    }
  }
  // The read tool, streaming, the catalog and retention.
  const spec: ReadToolSpec = session.readTool();
  const schema: unknown = JSON.parse(spec.inputSchema);
  const answer = session.runReadTool({ path: '/spill/thread-1/c-0123456789abcdef.txt', line: 1 });
  const isError: boolean = answer.isError || session.runReadTool('{"path": "x"}').isError;
  const stream: CapStream = session.stream(budget(4096), { id: 'c', tool: 'bash' });
  stream.write(new Uint8Array([104, 105]));
  stream.write('more\n');
  const written: bigint = stream.bytesWritten();
  stream.setExitCode(2);
  const streamed: Capped = stream.finish();
  const redactions: RedactionCount[] = streamed.report.redactions;
  stream.close();
  const pieces: McpStream = session.streamMcp('{"content":[{"type":"text","text":""}]}', 0, 1n << 20n, budget(4096), 'm');
  pieces.write('line\\n');
  const piecesCapped: CappedMcp = pieces.finish();
  pieces.close();
  const entries: SpillEntry[] = session.list();
  const created: bigint = entries[0].createdMs;
  const folder: string = session.threadFolder();
  const store = await openSpillStore(spillDir);
  const stats: StoreStats = store.stats();
  const swept: SweepReport = store.sweep({ maxAgeSeconds: 7n * 86_400n, maxTotalBytes: 1 << 30, maxFiles: 1000 });
  const reason: SweepReason | undefined = swept.deleted[0]?.reason;
  store.close();
  const private_ = await openSession({
    threadId: 't',
    spillDir,
    retentionSeconds: 604_800,
    redaction: { literals: ['hunter2-secret'], spill: true },
  });
  private_.close();
  void [schema, isError, written, redactions, created, folder, stats.oldestMs, reason, piecesCapped];

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
  // @ts-expect-error a search is a string or a list of strings
  session.cap(output, budget(4096), { id: 'c', search: 7 });
  // @ts-expect-error a call id is a string
  session.capParts(parts, budget(4096), 7);
  // @ts-expect-error shellHints is a boolean
  await openSession({ threadId: 't', shellHints: 'no' });
  // @ts-expect-error notablePatterns is a list of strings
  await openSession({ threadId: 't', notablePatterns: 'FATAL' });
  // @ts-expect-error a reference has a relative path
  const noRelative: OverflowRef = { path: '/p', bytes: 1n, lines: 1n, digest: 'd', tag: 't' };
  // @ts-expect-error classify gives the overflow record, not the kind alone
  const bareKind: OverflowKind | null = await classify(413, '');
  // @ts-expect-error a token estimate is a u64: bigint
  const smallEstimate: number = session.estimateTokens(output);
  // @ts-expect-error a parts result has no text
  const noText: string = second.text;
  // @ts-expect-error a text result has no parts
  const noParts: ContentPart[] = first.parts;
  // @ts-expect-error capBatch needs each result's call
  session.capBatch([{ text: output }], {});
  // @ts-expect-error a pending result is text or parts, not both
  session.plan([{ text: output, parts }], {});
  // @ts-expect-error maxTokens of a budget is a u32 number
  budget(4096, { maxTokens: 10n });
  // @ts-expect-error tokenScale is a number
  await openSession({ threadId: 't', tokenScale: '1.2' });
  // @ts-expect-error tokenScale is read-only: calibrate() moves it
  session.tokenScale = 2;
  // @ts-expect-error a stream chunk is bytes or a string
  stream.write([1, 2, 3]);
  // @ts-expect-error an exit code is a number
  stream.setExitCode('2');
  // @ts-expect-error maxFiles of a sweep is a u32 number
  store.sweep({ maxFiles: 10n });
  // @ts-expect-error the sweep reasons are a closed set
  const notAReason: SweepReason = 'size';
  // @ts-expect-error createdMs is a u64: bigint
  const createdNumber: number = entries[0].createdMs;
  // @ts-expect-error redaction literals are a list
  await openSession({ threadId: 't', redaction: { literals: 'hunter2-secret' } });
  // @ts-expect-error the read tool's arguments are JSON text or an object
  session.runReadTool(42);
  void [wrong, part, notACase, always, flat, noRelative, bareKind, smallEstimate, noText, noParts];
  void [notAReason, createdNumber];
  return capped.text;
}
