//! Transpiles the guest component into js/generated/ with jco.
//! `npm run build` (from js/); TOOLCAP_WASM=<path> builds another .wasm.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const jsRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const defaultWasm = '../target/wasm-guest/wasm32-wasip2/guest/tool_output_cap.wasm';
const wasm = resolve(jsRoot, process.env.TOOLCAP_WASM || defaultWasm);
const outDir = resolve(jsRoot, 'generated');

if (!existsSync(wasm)) {
  console.error(`build: no component at ${wasm}; run \`make guest\` in the repository root first`);
  process.exit(1);
}

// A stale file from an older build must not survive next to the new ones.
rmSync(outDir, { recursive: true, force: true });

// `--instantiation async`: the wrapper passes each session its own WASI shim
// (its own preopen), instead of the process-wide shim a static import binds.
const jcoPackage = resolve(jsRoot, 'node_modules/@bytecodealliance/jco');
const jcoCli = resolve(jcoPackage, JSON.parse(readFileSync(resolve(jcoPackage, 'package.json'))).bin.jco);
const result = spawnSync(
  process.execPath,
  [jcoCli, 'transpile', wasm, '--instantiation', 'async', '--name', 'toolcap', '--quiet', '-o', outDir],
  { stdio: 'inherit' },
);
if (result.status !== 0) {
  console.error(`build: jco transpile failed (exit ${result.status ?? result.signal})`);
  process.exit(1);
}
