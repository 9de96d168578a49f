// Types of tool-output-cap for Node. Sizes of one string are `number`
// (u32); totals, offsets and line numbers of spilled files are `bigint`
// (u64, exact). Arguments of u64 type accept `number | bigint`.

/** Which part of an oversized tool result the preview keeps. */
export type Keep = 'head' | 'tail' | 'head-and-tail';

/**
 * How much of a tool result may reach the model; every limit includes the
 * notice. `budget(maxBytes)` fills in the defaults.
 */
export interface Budget {
  /** Most UTF-8 bytes of returned text, notice included; 0 disables capping. */
  maxBytes: number;
  /** Most lines of returned text; absent or null: no line limit. */
  maxLines?: number | null;
  /** Preview lines longer than this are shortened and marked first; budget left over flows back to them (see the WIT); absent or null: kept whole. */
  maxLineBytes?: number | null;
  /** Default 'head-and-tail'. */
  keep?: Keep;
  /** With 'head-and-tail', the head's share of the preview, 0 to 100. Default 40. */
  headPercent?: number;
  /**
   * Most estimated tokens of returned text, notice included, as the session's
   * estimator counts them (`estimateTokens`); absent or null: no token limit.
   * Must leave room for the notice in tokens, else 'invalid-budget'.
   */
  maxTokens?: number | null;
}

/** A genuine reference to a spilled file, verified by the session's key. */
export interface OverflowRef {
  /** Display root, `/`, then `<thread>/<call>-<digest>.txt`. */
  path: string;
  /** `<thread>/<call>-<digest>.txt`, relative to the spill directory: what the tag covers. */
  relativePath: string;
  /** Size of the full output in bytes. */
  bytes: bigint;
  /** Number of lines of the full output. */
  lines: bigint;
  /** First 16 hex digits of the BLAKE3 hash of the full output. */
  digest: string;
  /** 16 hex digits of HMAC-SHA-256 over the relative path, sizes and digest. */
  tag: string;
}

/**
 * The tool call a result came from. `cap` and `capParts` also take a bare
 * string, which is `{ id }`: no tool name, no failure.
 */
export interface Call {
  /** Names the spill file; any text is accepted and mapped to a safe name. */
  id: string;
  /** The tool's name (e.g. `bash`), quoted in the notice of a failed call. */
  tool?: string | null;
  /** The command's exit code, an s32; non-zero means the call failed. */
  exitCode?: number | null;
  /** The tool reported a failure (MCP `isError`). Default false. */
  isError?: boolean | null;
  /**
   * What the tool searched for, when it was a search (a `grep` or `rg`
   * command, a tool's `pattern` or `query` argument): literal text, one
   * alternative per line as grep reads its patterns, or an array of
   * alternatives (joined with "\n"). A cut preview then shows a window
   * around the first hits, even inside a line of megabytes. Absent, null or
   * only empty lines: no search. At most 16 alternatives of at most 256
   * bytes each, else a ToolCapError `invalid-argument`.
   */
  search?: string | readonly string[] | null;
}

/** What a cap did, in numbers: the same for `cap` and `capParts`. Absent values are null. */
export interface CapReport {
  /** True when the input did not fit and the text is a preview. */
  truncated: boolean;
  originalBytes: number;
  originalLines: number;
  /** Bytes of the input not shown verbatim in the preview (0 if not truncated). */
  omittedBytes: number;
  /** Lines of the input of which no byte is shown in the preview. */
  omittedLines: number;
  /** 1-based line where the first omitted byte lies; null if nothing was omitted. */
  gapLine: number | null;
  /** Notable lines (errors, failures, panics) of the omitted middle shown with their line numbers. */
  notableLines: number;
  /** Preview lines folded into "more lines like the one above" markers. */
  foldedLines: number;
  /**
   * Estimated tokens of the input (for parts: its text plus the fixed cost of
   * each image, audio, resource blob and other part). Counted whole under a
   * budget with `maxTokens` when within `maxBytes` (for parts and MCP
   * results: the texts within what the rest leaves them of `maxBytes`);
   * otherwise a large input is estimated from evenly spread samples (the
   * WIT's `original-tokens` states the bounds).
   */
  originalTokens: number;
  /** Estimated tokens of what is returned (the text, or the parts likewise). */
  tokens: number;
  /** Where the full output was saved, when it was truncated and saved. */
  spill: OverflowRef | null;
  /** Why it could not be saved; the notice says "could NOT be saved" too. */
  spillError: string | null;
  /** Secrets replaced by the session's redaction policy, per kind; empty without one. */
  redactions: RedactionCount[];
}

/** How many secrets of one kind were replaced (`[redacted: <kind>]`). */
export interface RedactionCount {
  /**
   * The name the replacement shows: `aws-access-key`, `aws-secret-key`, `google-api-key`,
   * `azure-key`, `github-token`, `gitlab-token`, `openai-key`, `anthropic-key`,
   * `openrouter-key`, `groq-key`, `xai-key`, `huggingface-token`, `stripe-key`, `npm-token`,
   * `pypi-token`, `docker-token`, `digitalocean-token`, `slack-token`, `slack-webhook`, `jwt`,
   * `bearer-token`, `private-key`, `password`, `secret` or `literal` (one of the policy's
   * `literals`).
   */
  kind: string;
  count: number;
}

export interface Capped {
  /**
   * The text to give the model: the input unchanged if it fit, else preview +
   * notice. The notice of a failed call starts by stating the failure.
   */
  text: string;
  report: CapReport;
}

/** How `capMcp` shapes a result that did not fit. */
export interface McpOptions {
  /** Also add `resource_link` blocks (`file://` URIs) to the spilled files. Default false. */
  resourceLink?: boolean;
}

/** An MCP `CallToolResult` fitted to a budget. */
export interface CappedMcp {
  /**
   * The result as JSON: exactly the input string if it fit; else a valid
   * `CallToolResult` with the notice as its own first `text` block, the
   * preview in place of the first textual block, other blocks untouched, and
   * the reference and accounting under `_meta["tool-output-cap/cap"]`.
   */
  result: string;
  /** The accounting of the joined text of the content blocks. */
  report: CapReport;
  /** `structuredContent` did not fit and was left out whole (and saved). */
  structuredDropped: boolean;
  /** Where the dropped `structuredContent` was saved, exactly as received. */
  structuredSpill: OverflowRef | null;
}

/** Content parts in the shape of MCP's `CallToolResult.content`. */
export interface TextPart {
  type: 'text';
  text: string;
}
export interface MediaPart {
  type: 'image' | 'audio';
  /** Base64 data, carried through untouched. */
  data: string;
  mimeType: string;
}
export interface EmbeddedResource {
  uri: string;
  mimeType?: string | null;
  /** Shares the text budget with text parts. */
  text?: string | null;
  /** Base64, carried through untouched. */
  blob?: string | null;
}
export interface ResourcePart {
  type: 'resource';
  /** In results, absent fields are left out (as in MCP), never null. */
  resource: EmbeddedResource;
}
/** Anything else, e.g. a JSON-encoded part of an unknown type: carried through. */
export interface OtherPart {
  type: 'other';
  value: string;
}
export type ContentPart = TextPart | MediaPart | ResourcePart | OtherPart;

export interface CappedParts {
  /**
   * If it fit, the parts as given. If cut: a text part with preview + notice
   * stands where the first textual part was; textual parts are removed,
   * except a resource with a blob, which stays in place without its text
   * (after the preview if it was the first textual part); every other part
   * stays in place untouched.
   */
  parts: ContentPart[];
  /** The accounting of the joined text (text parts and resource texts, joined by LF). */
  report: CapReport;
}

/** A page of a spilled file, cut on UTF-8 character boundaries. */
export interface Page {
  text: string;
  /** Byte offset where `text` starts. */
  offset: bigint;
  /** 1-based line that holds `offset`. */
  firstLine: bigint;
  /** Where the next page starts; null at the end of the file. */
  nextOffset: bigint | null;
  /** Line that starts at `nextOffset` when the page ended on a line boundary; else null. */
  nextLine: bigint | null;
  /** Size of the whole file. */
  totalBytes: bigint;
}

export interface GrepMatch {
  line: bigint;
  offset: bigint;
  /** The line around the occurrence (at most about 200 bytes each side). */
  excerpt: string;
  excerptOffset: bigint;
}

export interface GrepResult {
  /** The first occurrences in file order, at most `maxMatches`. */
  matches: GrepMatch[];
  /** All occurrences in the file. */
  totalMatches: bigint;
}

export interface PrunePolicy {
  /**
   * Keep the newest this many messages; absent or null: no age limit. An
   * older body without a reference becomes a marker only when that at least
   * halves it (over a limit below, every saving counts).
   */
  keepLast?: number | null;
  /** Then prune the oldest until bodies total at most this; absent or null: no byte limit. */
  maxTotalBytes?: number | bigint | null;
  /** Likewise in estimated tokens; both hold when both are set. Absent or null: no token limit. */
  maxTotalTokens?: number | bigint | null;
}

export interface Pruned {
  messages: string[];
  /** Indices of the messages this call replaced. */
  replaced: number[];
  bytesSaved: bigint;
  totalBytes: bigint;
  /** Estimated tokens of the bodies after pruning. */
  totalTokens: bigint;
}

/**
 * One pending result of a turn, for `plan`: its text, or its MCP content
 * parts. A `call` may be there (the same objects as for `capBatch`) and is
 * not used.
 */
export type PendingResult =
  | { text: string; parts?: undefined | null; call?: string | Call | null }
  | { parts: readonly ContentPart[]; text?: undefined | null; call?: string | Call | null };

/** One pending result of a turn, for `capBatch`: its call and its text or parts. */
export type BatchItem =
  | { call: string | Call; text: string; parts?: undefined | null }
  | { call: string | Call; parts: readonly ContentPart[]; text?: undefined | null };

/** What `capBatch` returns for an item: as `cap` for a text, as `capParts` for parts. */
export type BatchOutput<T> = T extends { parts: readonly ContentPart[] } ? CappedParts : Capped;

/**
 * What the next request has left for this turn's results. Absent or null
 * limits mean none.
 */
export interface RequestLimits {
  /**
   * Tokens of the model's window left for the results (the window minus the
   * rest of the conversation and the answer's reserve), as the session's
   * estimator counts them.
   */
  maxTokens?: number | bigint | null;
  /**
   * Request body bytes left for the results (a proxy's body limit minus the
   * rest of the request). A text counts as the contents of a JSON string
   * (escapes included), media as their data and MIME type.
   */
  maxBodyBytes?: number | bigint | null;
  /** Text bytes every result keeps at least, when the limits allow it. Default 0. */
  floorBytes?: number | null;
  /**
   * The per-result budget: no result gets more, and its other fields (lines,
   * keep, ...) shape every planned budget. Default `budget(16384)`;
   * `maxBytes` 0 sets no per-result ceiling.
   */
  ceiling?: Budget | null;
}

/** Why a provider rejected a request for its size. */
export type OverflowKind = 'request-too-large' | 'context-length-exceeded';

/** The unit of the amounts a provider states. */
export type SizeUnit = 'tokens' | 'bytes' | 'characters';

/** A rejection for size, with the amounts when the body states them (else null). */
export interface Overflow {
  kind: OverflowKind;
  /** The limit the body states (e.g. 128000n), in `unit`. */
  limit: bigint | null;
  /** What the request needed by the body's account (e.g. 131392n), in `unit`. */
  requested: bigint | null;
  /** The unit of `limit` and `requested`; null when the body states neither. */
  unit: SizeUnit | null;
}

/** The model-facing read tool, to register with the model as it is. */
export interface ReadToolSpec {
  /** The session's `readTool`, or the component's default name. */
  name: string;
  /** What the tool does, written for a model. */
  description: string;
  /** JSON Schema of the arguments object, as compact JSON text (`JSON.parse` it for an SDK). */
  inputSchema: string;
}

/** What one call of the read tool gives back to the model. */
export interface ReadToolOutput {
  /** Bounded text for the model; never cap or spill it again. */
  text: string;
  /** The call was a mistake (bad arguments, a foreign path, an expired file): MCP's `isError`. */
  isError: boolean;
}

/** One spilled output of the thread, as `list()` returns it. */
export interface SpillEntry {
  /** A genuine reference to the file. */
  reference: OverflowRef;
  /** When it was saved, in milliseconds since the Unix epoch (`new Date(Number(ms))`). */
  createdMs: bigint;
  /** The id of the call whose output it is. */
  callId: string;
  /** That call's tool, if the host gave one. */
  tool: string | null;
}

/** Which spilled outputs a sweep deletes, oldest first; absent or null: no limit of that kind. */
export interface RetentionPolicy {
  /** Delete outputs saved more than this many seconds ago. */
  maxAgeSeconds?: number | bigint | null;
  /** Then delete the oldest until all outputs total at most this many bytes. */
  maxTotalBytes?: number | bigint | null;
  /** Then delete the oldest until at most this many remain (a u32). */
  maxFiles?: number | null;
}

/** Why a sweep deleted a file. */
export type SweepReason = 'age' | 'total-bytes' | 'file-count' | 'stale-temporary';

export interface SweptFile {
  /** `<thread>/<file>` inside the spill directory. */
  relativePath: string;
  bytes: bigint;
  /** When it was saved (milliseconds since the Unix epoch). */
  createdMs: bigint;
  reason: SweepReason;
}

export interface SweepReport {
  /** The files deleted, oldest first. */
  deleted: SweptFile[];
  keptFiles: bigint;
  keptBytes: bigint;
  /** Entries left alone, each with why (links, temporary files of a cap in progress, foreign files). */
  skipped: string[];
}

export interface StoreStats {
  /** Thread folders. */
  threads: number;
  files: bigint;
  bytes: bigint;
  /** When the oldest and newest were saved (ms since the epoch); null when there are none. */
  oldestMs: bigint | null;
  newestMs: bigint | null;
}

/**
 * Opt-in secret redaction: built-in secret patterns, plus the host's literals. Built in: AWS
 * access and secret keys, Google API keys, Azure account keys, GitHub and GitLab tokens, OpenAI,
 * Anthropic, OpenRouter, Groq and xAI API keys, Hugging Face, npm, PyPI, Docker Hub and
 * DigitalOcean tokens, Stripe keys, Slack tokens and webhooks, JWTs, `Authorization: Bearer`
 * values, PEM private key blocks and `password=`/`secret=`-style assignments.
 */
export interface RedactionPolicy {
  /** Secrets the host holds, replaced wherever they occur; at most 64, each 4 to 512 bytes on one line. Default []. */
  literals?: readonly string[] | null;
  /** Also redact the saved file; default false: only what the model is shown is redacted. */
  spill?: boolean | null;
}

/** The cases of the component's `cap-error`. */
export type CapErrorCase =
  | 'invalid-budget'
  | 'invalid-settings'
  | 'invalid-argument'
  | 'outside-root'
  | 'not-found'
  | 'no-spill-dir'
  | 'io'
  | 'other';

export const CAP_ERROR_CASES: readonly CapErrorCase[];

/** A call failed with a `cap-error`. Wrong argument types throw TypeError/RangeError instead. */
export class ToolCapError extends Error {
  constructor(errorCase: CapErrorCase, message: string);
  readonly name: 'ToolCapError';
  /** The cap-error case, e.g. 'invalid-budget'. */
  readonly case: CapErrorCase;
}

export interface SessionOptions {
  /** The conversation; spills go to `<spillDir>/<thread>/`. Must not be empty. */
  threadId: string;
  /**
   * Host directory granted to the component (its only preopen), created with
   * mode 0700 if it does not exist. Absent, null, empty, or neither a
   * directory nor creatable: nothing is granted and cut results say the
   * output could not be saved.
   */
  spillDir?: string | null;
  /**
   * What paths in notices start with; must not be empty. Default: the real
   * path of spillDir (its absolute path if it does not exist), or `/spill`
   * when spillDir is absent, null or empty.
   */
  displayRoot?: string | null;
  /** HMAC key, at least 16 bytes; default: random per session. */
  key?: Uint8Array | null;
  /**
   * Name of the host's read tool (e.g. `read_spilled_output`): notices tell
   * the model to call it. 1 to 64 ASCII letters, digits, `_`, `-`, `.` or
   * `:`, else ToolCapError 'invalid-settings'. Absent or null: notices speak
   * of "the read tool". Counts against the budget minimum.
   */
  readTool?: string | null;
  /** Show `grep`/`sed` commands in notices; set false when the agent has no shell. Default true. */
  shellHints?: boolean | null;
  /**
   * The host's own notable-line patterns: literal, case-sensitive substrings
   * added to the built-in failure patterns. At most 64, each 1 to 200 bytes
   * on one line, else ToolCapError 'invalid-settings'. Default [].
   */
  notablePatterns?: readonly string[] | null;
  /** Tokens the estimator counts for one image part (a u32). Default 1600. */
  imageTokens?: number | null;
  /** Tokens the estimator counts for one audio part (a u32). Default 1000. */
  audioTokens?: number | null;
  /**
   * The estimator's starting scale, as an earlier session's `tokenScale` or
   * `calibrate()` gave it; clamped to [0.5, 2] by the component. A finite
   * number, else RangeError. Default 1.
   */
  tokenScale?: number | null;
  /**
   * How long the host keeps spills (the `maxAgeSeconds` of its sweeps), in
   * seconds: notices then say "kept for 7 days", and each spill's note
   * records that promise, so that no sweep (of any host or policy) deletes
   * the file sooner; an identical output capped again renews it. A u64, at
   * least 1, else ToolCapError 'invalid-settings'. Absent or null: not
   * stated, nothing promised.
   */
  retentionSeconds?: number | bigint | null;
  /** Secret redaction; absent or null redacts nothing. */
  redaction?: RedactionPolicy | null;
}

/**
 * One tool result written in chunks, capped at the end exactly as `cap`
 * would cap the whole text.
 */
export class CapStream {
  private constructor();
  /** Adds the next bytes, or a string's UTF-8. A character split between chunks is joined. */
  write(chunk: Uint8Array | string): void;
  /** Total bytes written so far. */
  bytesWritten(): bigint;
  /**
   * How the command ended, once it has (any time before `finish()`; the last
   * call counts): `finish()` then gives what `cap()` gives with this exit
   * code in the call, a non-zero code stated first in the notice and the
   * preview leaning to the tail. An s32, else RangeError; after `finish()`
   * throws 'invalid-argument'.
   */
  setExitCode(code: number): void;
  /** The capped result of everything written; a second call throws 'invalid-argument'. */
  finish(): Capped;
  /** Releases the stream; an unfinished one leaves no file. Later calls throw. */
  close(): void;
  [Symbol.dispose](): void;
}

/** An MCP result whose huge text is written in pieces: see `Session.streamMcp`. */
export class McpStream {
  private constructor();
  /** Adds the next piece of the string's raw body (escapes and all); a failed write ends the stream. */
  write(raw: string): void;
  /** The capped result, as `capMcp` gives it for the whole result; a second call throws 'invalid-argument'. */
  finish(): CappedMcp;
  /** Releases the stream; an unfinished one leaves no file. Later calls throw. */
  close(): void;
  [Symbol.dispose](): void;
}

/** Every thread's spills under one spill directory, for retention. */
export class SpillStore {
  private constructor();
  /** Real host path of the spill directory. */
  readonly spillDir: string;
  stats(): StoreStats;
  /** Deletes spilled outputs, oldest first, until every limit holds; their references then read as expired. */
  sweep(policy: RetentionPolicy): SweepReport;
  close(): void;
  [Symbol.dispose](): void;
}

export class Session {
  private constructor();
  /** Real host path of the granted spill directory, or null. */
  readonly spillDir: string | null;
  readonly displayRoot: string;
  /** `call` is the call's id, or a Call record (a failed call is stated first in the notice). */
  cap(output: string, budget: Budget, call: string | Call): Capped;
  capParts(parts: ContentPart[], budget: Budget, call: string | Call): CappedParts;
  /**
   * Fits an MCP `CallToolResult` (its JSON text) to `budget`. ToolCapError
   * 'invalid-argument' when it is not JSON, not an object, or its content is
   * not a list of objects.
   */
  capMcp(result: string, budget: Budget, call: string | Call, options?: McpOptions): CappedMcp;
  /**
   * `capMcp` of a result too large to hand over whole: `skeleton` is the
   * result with the text of content block `block` (a text block's or an
   * embedded resource's) written `""`; write that string's raw body
   * (`rawBytes` bytes) in pieces, then `finish()` gives what `capMcp` gives
   * for the whole result. 'invalid-argument' unless the text is sure to be
   * cut (`rawBytes` over six times `maxBytes`).
   */
  streamMcp(
    skeleton: string,
    block: number,
    rawBytes: number | bigint,
    budget: Budget,
    call: string | Call,
    options?: McpOptions,
  ): McpStream;
  /**
   * One budget per pending result of a turn, so that together they fit what
   * the next request has left: max-min fair, results that fit keep
   * everything, media counts first. ToolCapError 'invalid-budget' when the
   * ceiling is invalid or the limits leave a result less than a notice needs.
   */
  plan(results: readonly PendingResult[], limits: RequestLimits): Required<Budget>[];
  /**
   * Plans and caps a turn of parallel tool calls: each result capped (and
   * spilled) as `cap` or `capParts` would with its planned budget, in order,
   * together within every limit. Fails as `plan` does.
   */
  capBatch<const T extends readonly BatchItem[]>(
    results: T,
    limits: RequestLimits,
  ): { -readonly [K in keyof T]: BatchOutput<T[K]> };
  /** The session's token estimate of `text`. */
  estimateTokens(text: string): bigint;
  /**
   * Reports what the provider counted for `text`; the scale moves toward the
   * true ratio by a bounded step (clamped to [0.5, 2]) and is returned.
   * Texts under 256 bytes are ignored.
   */
  calibrate(text: string, actualTokens: number | bigint): number;
  /** The estimator's current scale; carry it to the next session as `tokenScale`. */
  readonly tokenScale: number;
  /** Genuine references in `text`, in order of appearance. */
  findRefs(text: string): OverflowRef[];
  /** `[tool output pruned; full content at <path>] (ref ...)`. */
  prunedPlaceholder(ref: OverflowRef): string;
  read(path: string, offset: number | bigint, maxBytes: number): Page;
  readLines(path: string, firstLine: number | bigint, count: number, maxBytes: number): Page;
  /** Literal (not regex) search. */
  grep(path: string, pattern: string, maxMatches: number): GrepResult;
  /** Replaces stale bodies (oldest first) by their references' placeholders, or a short marker. */
  prune(messages: string[], policy: PrunePolicy): Pruned;
  /** Deletes this thread's spill folder; returns the bytes freed. */
  purge(): bigint;
  classify(status: number, body: string): Overflow | null;
  /** The thread's folder name inside the spill directory. */
  threadFolder(): string;
  /** The model-facing read tool: name, description and JSON Schema. */
  readTool(): ReadToolSpec;
  /**
   * Runs one read-tool call with the model's arguments: the JSON text, or
   * the object an SDK parsed (serialised with JSON.stringify). Its `path`
   * may be the notice's path, the notice text, the file's name alone, the
   * path's `file://` URI (as `resource_link` blocks give it) or a Markdown
   * link to it. A model's
   * mistake is `isError`, never an exception.
   */
  runReadTool(args: string | object): ReadToolOutput;
  /** This thread's spilled outputs, oldest first. ToolCapError 'no-spill-dir' without a directory. */
  list(): SpillEntry[];
  /** Starts capping a result that arrives in chunks. ToolCapError 'invalid-budget' as `cap`. */
  stream(budget: Budget, call: string | Call): CapStream;
  /**
   * Host path of a reference's file (its tag is not verified), always inside
   * `spillDir`. A reference maps through its `relativePath` (two plain names,
   * and its `path` must end with `/` + it). A string maps only if it is
   * exactly `<displayRoot>/<thread>/<file>` of this session's thread with a
   * spill file name (no `..`, `//`, other thread or temporary file). Null
   * otherwise, and when no directory was granted.
   */
  hostPath(refOrPath: OverflowRef | string): string | null;
  /** Releases the session; later calls throw. */
  close(): void;
  [Symbol.dispose](): void;
}

/**
 * Opens a session with its own component instance and sandbox. A missing
 * spillDir is created (mode 0700), and so is the thread folder.
 */
export function openSession(options: SessionOptions): Promise<Session>;

/**
 * Opens the spill directory `dir` (created with mode 0700 if missing) for
 * statistics and sweeps across every thread, in its own instance.
 */
export function openSpillStore(dir: string): Promise<SpillStore>;

/** A budget with the defaults: maxLines 400, maxLineBytes 2000, 'head-and-tail', headPercent 40, no maxTokens. */
export function budget(maxBytes: number, overrides?: Partial<Budget>): Required<Budget>;

/** Classifies an HTTP error response (on a shared instance with no files). */
export function classify(status: number, body: string): Promise<Overflow | null>;
