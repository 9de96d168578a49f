// `toolcap mcp` driven by the official TypeScript SDK client, in front of
// server-everything and server-filesystem from npm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  READ_TOOL, connect, directAndProxied, everythingServer, filesystemServer, proxyArgv, readAll, refsIn, scratch,
} from './helpers.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

test('tools/list is the server\'s tools plus the read tool', async (t) => {
  const dir = scratch(t);
  const [direct, proxied] = await directAndProxied(t, dir, everythingServer(), async (c) => (await c.listTools()).tools);
  const added = proxied.pop();
  // Capped tools lose their outputSchema (a dropped structuredContent must
  // not fail the client's check) and state the result size Claude Code may
  // show whole (the default budget, 24576 bytes, plus a quarter); nothing
  // else of the list changes.
  assert.ok(direct.some((tool) => tool.outputSchema));
  const asCapped = ({ outputSchema, _meta, ...tool }) => ({
    ...tool,
    _meta: { ...(_meta ?? {}), 'anthropic/maxResultSizeChars': 30720 },
  });
  assert.deepEqual(proxied, direct.map(asCapped));
  assert.equal(added.name, READ_TOOL);
  assert.deepEqual(added.inputSchema.required, ['path']);
});

test('a capped echo names its spill, and the read tool gives back the exact bytes', async (t) => {
  const dir = scratch(t);
  const message = Array.from({ length: 30000 }, (_, i) => `${i} naïve ✓ 🐢 line\r\n`).join('');
  const original = Buffer.from(`Echo: ${message}`);
  const client = await connect(t, proxyArgv(dir, everythingServer(), '--max-bytes', '6000'), join(dir, 'proxy.log'));
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  const notice = result.content[0];
  assert.equal(notice.type, 'text');
  assert.ok(notice.text.startsWith('[toolcap]'), notice.text);
  const textBytes = result.content.filter((b) => b.type === 'text').reduce((n, b) => n + Buffer.byteLength(b.text), 0);
  assert.ok(textBytes <= 6000, `${textBytes} bytes of text`);
  const [ref] = refsIn(notice.text);
  assert.equal(ref.bytes, original.length);
  assert.ok(realpathSync(ref.path).startsWith(realpathSync(join(dir, 'spill'))));
  assert.ok(readFileSync(ref.path).equals(original));
  assert.ok((await readAll(client, ref.path)).equals(original));
});

test('an image arrives intact', async (t) => {
  const dir = scratch(t);
  const [direct, proxied] = await directAndProxied(t, dir, everythingServer(), (c) => c.callTool({ name: 'get-tiny-image', arguments: {} }));
  assert.deepEqual(proxied, direct);
  const images = proxied.content.filter((b) => b.type === 'image');
  assert.equal(images.length, 1);
  assert.ok(Buffer.from(images[0].data, 'base64').subarray(0, 8).equals(PNG_MAGIC));
});

test('small results are the same as the server\'s', async (t) => {
  const dir = scratch(t);
  const conversation = async (c) => [
    await c.callTool({ name: 'echo', arguments: { message: 'small and unchanged' } }),
    await c.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
    await c.callTool({ name: 'get-structured-content', arguments: { location: 'Los Angeles' } }),
    await c.listResources(),
    await c.listPrompts(),
  ];
  const [direct, proxied] = await directAndProxied(t, dir, everythingServer(), conversation);
  assert.deepEqual(proxied, direct);
});

test('a capped read of a 3 MiB file through server-filesystem', async (t) => {
  const dir = scratch(t);
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  const original = Buffer.from(Array.from({ length: 60000 }, (_, i) => `${i}\tsome text — ünïcödé\n`).join('').repeat(2));
  writeFileSync(join(shared, 'big.txt'), original);
  const client = await connect(t, proxyArgv(dir, filesystemServer(realpathSync(shared))), join(dir, 'proxy.log'));
  const path = join(realpathSync(shared), 'big.txt');
  // Through the request API first, which leaves the result as it came.
  const raw = await client.request({ method: 'tools/call', params: { name: 'read_text_file', arguments: { path } } }, CallToolResultSchema);
  assert.ok(raw.content[0].text.startsWith('[toolcap]'), raw.content[0].text);
  const ref = refsIn(raw.content[0].text).find((r) => r.bytes === original.length);
  assert.ok(ref, raw.content[0].text);
  assert.ok((await readAll(client, ref.path)).equals(original));
  // Then as an agent calls it, having listed the tools first: callTool then
  // checks the result against the tool's outputSchema.
  await client.listTools();
  const called = await client.callTool({ name: 'read_text_file', arguments: { path } });
  assert.ok(called.content[0].text.startsWith('[toolcap]'));
});
