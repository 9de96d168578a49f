// Loading the transpiled component: core modules compiled once per process,
// one instance per WASI shim.

import { readFile } from 'node:fs/promises';
import { WASIShim } from '@bytecodealliance/preview2-shim/instantiation';

const generatedDir = new URL('../generated/', import.meta.url);

/** Guest path under which the component looks for its spill directory. */
export const SPILL_GUEST_PATH = '/spill';

let bindings = null;
const coreModules = new Map();

async function loadBindings() {
  bindings ??= import(new URL('toolcap.js', generatedDir).href).catch((err) => {
    bindings = null;
    throw new Error(
      'tool-output-cap: the transpiled component is missing; run `npm run build` in js/ ' +
        `(or \`make js-setup\` in the repository root): ${err.message}`,
    );
  });
  return bindings;
}

// Compiling is the expensive part of instantiation, and a compiled
// WebAssembly.Module can be instantiated any number of times.
function compiledCoreModule(name) {
  let module = coreModules.get(name);
  if (!module) {
    module = readFile(new URL(name, generatedDir)).then((bytes) => WebAssembly.compile(bytes));
    coreModules.set(name, module);
    // A failed read must not be cached forever.
    module.catch(() => coreModules.delete(name));
  }
  return module;
}

/**
 * The WASI imports of one instance: at most the host directory `hostDir` as
 * SPILL_GUEST_PATH, no environment, no arguments but a name, no network.
 */
export function sandboxedShim(hostDir) {
  return new WASIShim({
    sandbox: {
      preopens: hostDir ? { [SPILL_GUEST_PATH]: hostDir } : {},
      env: {},
      args: ['tool-output-cap'],
      enableNetwork: false,
    },
  });
}

// What the guest's own `open-at` of "." would pass: the directory itself,
// for reading, without following a link.
const SAME_DIRECTORY = [{ symlinkFollow: false }, '.', { directory: true }, { read: true }];

/**
 * The import object of `shim`, with each preopen handed out as the same
 * directory opened through it. preview2-shim 0.26.1's preopen descriptors
 * refuse `read-directory` (bad-descriptor) and `stat` (invalid), which the
 * spill store needs to walk the thread folders; a descriptor that the shim's
 * own `open-at` returns has both, and its paths are confined to the same host
 * directory by the same code. Each call opens a fresh one: jco disposes a
 * descriptor (closing it) when the guest drops its handle. Only the shim's
 * public WASI interface is used; nothing of it is patched.
 */
export function importsOf(shim) {
  const imports = shim.getImportObject();
  const preopens = imports['wasi:filesystem/preopens'];
  return {
    ...imports,
    'wasi:filesystem/preopens': {
      ...preopens,
      getDirectories: () => preopens.getDirectories().map(([descriptor, guestPath]) => [reopen(descriptor), guestPath]),
    },
  };
}

/** `preopen` opened through itself; the preopen as it is if that fails (say, the directory went away). */
function reopen(preopen) {
  try {
    return preopen.openAt(...SAME_DIRECTORY);
  } catch {
    return preopen;
  }
}

/** A fresh instance of the component, seeing only what `shim` grants. */
export async function instantiateComponent(shim) {
  const { instantiate } = await loadBindings();
  return instantiate(compiledCoreModule, importsOf(shim));
}
