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

/** A fresh instance of the component, seeing only what `shim` grants. */
export async function instantiateComponent(shim) {
  const { instantiate } = await loadBindings();
  return instantiate(compiledCoreModule, shim.getImportObject());
}
