// `toolcap mcp --listen` driven by the TypeScript SDK's Streamable HTTP
// client, in front of server-filesystem from npm: a 3 MiB file capped with
// the notice first and paged back exactly, an image byte for byte, a client
// token required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, realpathSync, openSync, closeSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { READ_TOOL, filesystemServer, readAll, refsIn, scratch, toolcapBin } from './helpers.js';

const TOKEN = 'node-client-token-7Yp';

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function listening(port) {
  for (let i = 0; i < 600; i++) {
    const up = await new Promise((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

// `toolcap mcp --listen` in front of `server`, stopped when the test ends.
async function listen(t, dir, server, ...options) {
  const port = await freePort();
  const log = openSync(join(dir, 'listen.log'), 'a');
  const child = spawn(toolcapBin(), [
    'mcp', '--spill-dir', join(dir, 'spill'), '--key-file', join(dir, 'key'),
    '--listen', String(port), ...options, '--', ...server,
  ], { stdio: ['ignore', log, log], env: { ...process.env, LISTEN_TOKEN: TOKEN } });
  t.after(async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    closeSync(log);
  });
  await listening(port);
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

async function client(t, url, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const c = new Client({ name: 'toolcap-e2e-node-http', version: '1.0.0' });
  await c.connect(transport);
  t.after(() => c.close());
  return c;
}

test('over HTTP: a 3 MiB file is capped and paged back, an image arrives intact', async (t) => {
  const dir = scratch(t);
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  const original = Buffer.from(Array.from({ length: 60000 }, (_, i) => `${i}\tover HTTP — ünïcödé\n`).join('').repeat(2));
  writeFileSync(join(shared, 'big.txt'), original);
  const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(512 * 1024)]);
  writeFileSync(join(shared, 'picture.png'), image);
  const url = await listen(t, dir, filesystemServer(realpathSync(shared)), '--client-token', '${LISTEN_TOKEN}');
  const c = await client(t, url, TOKEN);
  const path = join(realpathSync(shared), 'big.txt');
  const raw = await c.request({ method: 'tools/call', params: { name: 'read_text_file', arguments: { path } } }, CallToolResultSchema);
  assert.ok(raw.content[0].text.startsWith('[toolcap]'), raw.content[0].text);
  const ref = refsIn(raw.content[0].text).find((r) => r.bytes === original.length);
  assert.ok(ref, raw.content[0].text);
  assert.ok((await readAll(c, ref.path)).equals(original));
  const media = await c.request(
    { method: 'tools/call', params: { name: 'read_media_file', arguments: { path: join(realpathSync(shared), 'picture.png') } } },
    CallToolResultSchema,
  );
  const block = media.content.find((b) => b.type === 'image');
  assert.ok(Buffer.from(block.data, 'base64').equals(image));
  assert.ok((await c.listTools()).tools.some((tool) => tool.name === READ_TOOL));
});

test('over HTTP: a client without the token is refused', async (t) => {
  const dir = scratch(t);
  const url = await listen(t, dir, filesystemServer(realpathSync(dir)), '--client-token', '${LISTEN_TOKEN}');
  await assert.rejects(() => client(t, url, undefined), /401|Unauthorized|client token is needed/);
  await assert.rejects(() => client(t, url, 'wrong'), /401|Unauthorized|client token is needed/);
});
