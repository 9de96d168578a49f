// Shared by the node --test files: where the parts are, a TS SDK client
// session over stdio, and the read tool's pages put back together.
import { existsSync, accessSync, constants, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const MCP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO = resolve(MCP_DIR, '..', '..');
export const READ_TOOL = 'read_spilled_output';
// The most a read-tool page may hold (core/src/read_tool/args.rs).
export const PAGE_BYTES = 65536;

function installed(path, setup) {
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`${setup}\` first`);
  return path;
}

export function toolcapBin() {
  const path = process.env.TOOLCAP_BIN || join(REPO, 'target', 'release', 'toolcap');
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `the toolcap binary is missing at ${path}: build it with \`cargo build --release -p toolcap\` ` +
        '(or `make mcp-test`), or point TOOLCAP_BIN at it',
    );
  }
  return path;
}

export const everythingServer = () => [
  installed(join(MCP_DIR, 'node_modules', '.bin', 'mcp-server-everything'), 'make mcp-setup'),
];
export const filesystemServer = (...allowed) => [
  installed(join(MCP_DIR, 'node_modules', '.bin', 'mcp-server-filesystem'), 'make mcp-setup'),
  ...allowed,
];

// A temporary folder for one test (spill dir, key file, logs), removed after.
export function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function proxyArgv(dir, server, ...options) {
  return [
    toolcapBin(), 'mcp',
    '--spill-dir', join(dir, 'spill'),
    '--key-file', join(dir, 'key'),
    ...options,
    '--', ...server,
  ];
}

// A connected SDK client for the process `argv`, closed when the test ends;
// its stderr goes to `log`.
export async function connect(t, argv, log) {
  const fd = openSync(log, 'a');
  const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1), stderr: fd });
  const client = new Client({ name: 'toolcap-e2e-node', version: '1.0.0' });
  await client.connect(transport);
  t.after(async () => {
    await client.close();
    closeSync(fd);
  });
  return client;
}

// The same conversation with the server directly, then through the proxy.
export async function directAndProxied(t, dir, server, conversation, ...options) {
  const direct = await connect(t, server, join(dir, 'direct.log'));
  const expected = await conversation(direct);
  await direct.close();
  const proxied = await connect(t, proxyArgv(dir, server, ...options), join(dir, 'proxy.log'));
  const got = await conversation(proxied);
  await proxied.close();
  return [expected, got];
}

// The reference line that ends a notice (core/src/refs.rs).
const REF = /full content at (.+?)\] \(ref bytes=(\d+) lines=(\d+) blake3=[0-9a-f]+ tag=[0-9a-f]+\)/g;

export function refsIn(text) {
  return [...text.matchAll(REF)].map((m) => ({ path: m[1], bytes: Number(m[2]), lines: Number(m[3]) }));
}

const HEADER = / — bytes (\d+)-(\d+) of (\d+)(?: \(from inside line \d+\))?$/;
const NUMBERED = /^ *\d+\t/;
const NEXT_CALL = 'More: call again with ';

// One byte-mode page of the read tool: the file bytes it shows.
export function parsePage(text) {
  const lines = text.split('\n');
  const header = HEADER.exec(lines[0]);
  if (!header) throw new Error(`not a byte-mode page header: ${lines[0]}`);
  const [first, last, size] = header.slice(1, 4).map(Number);
  const contents = [];
  let i = 1;
  for (; i < lines.length && NUMBERED.test(lines[i]); i++) contents.push(lines[i].replace(NUMBERED, ''));
  const trailer = lines.slice(i);
  // Every shown line ends with LF; the page's last line had none when the
  // page cuts it or the file ends without one.
  const unterminated = trailer[0].startsWith('[line ') || trailer[0].startsWith('End of file (no line break');
  const body = Buffer.from(contents.join('\n') + (unterminated ? '' : '\n'));
  const more = trailer.find((l) => l.startsWith(NEXT_CALL));
  return { first, last, size, body, next: more ? JSON.parse(more.slice(NEXT_CALL.length)) : null };
}

// The whole spilled file through the read tool, following each page's next call.
export async function readAll(client, path) {
  const parts = [];
  let offset = 0;
  for (;;) {
    const result = await client.callTool({ name: READ_TOOL, arguments: { path, offset, max_bytes: PAGE_BYTES } });
    if (result.isError) throw new Error(`the read tool failed at ${offset}: ${result.content[0].text}`);
    const page = parsePage(result.content[0].text);
    if (page.first !== offset) throw new Error(`asked for ${offset}, got a page from ${page.first}`);
    if (page.body.length !== page.last - page.first + 1) throw new Error(`page ${page.first}-${page.last} holds ${page.body.length} bytes`);
    parts.push(page.body);
    if (!page.next) {
      if (page.last + 1 !== page.size) throw new Error(`ended at ${page.last} of ${page.size}`);
      return Buffer.concat(parts);
    }
    offset = page.next.offset;
  }
}
