// Looking at and locking spill directories on the host.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

/** js/test-tmp/, where every test makes its temp dirs (ignored by git). */
export const TEST_TMP = new URL('../../test-tmp/', import.meta.url).pathname;

/** A fresh empty directory under TEST_TMP, as a real path (as sessions report it). */
export function freshDir(prefix = 'dir-') {
  mkdirSync(TEST_TMP, { recursive: true });
  return realpathSync(mkdtempSync(join(TEST_TMP, prefix)));
}

export const byteLength = (text) => Buffer.byteLength(text, 'utf8');

const isRoot = () => process.getuid?.() === 0;

/**
 * Makes `dir` really unwritable: preview2-shim has no read-only preopens, so
 * a read-only grant on Node is an unwritable host directory. Mode 0555 stops
 * other users; root ignores mode bits, so as root the directory is also made
 * immutable (`chattr +i`). A probe mkdir proves it; if it succeeds this
 * throws, so a test can never pass on a writable "read-only" directory.
 * Returns the function that undoes it.
 */
export function makeUnwritable(dir) {
  chmodSync(dir, 0o555);
  let immutable = false;
  const undo = () => {
    if (immutable) execFileSync('chattr', ['-i', dir]);
    chmodSync(dir, 0o755);
  };
  try {
    if (isRoot()) {
      execFileSync('chattr', ['+i', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
      immutable = true;
    }
    const probe = join(dir, 'probe-write');
    let writable = true;
    try {
      mkdirSync(probe);
      rmdirSync(probe);
    } catch (err) {
      if (err.code !== 'EPERM' && err.code !== 'EACCES') throw err;
      writable = false;
    }
    if (writable) {
      throw new Error(
        `cannot make ${dir} unwritable (uid ${process.getuid?.()}): mkdir inside still works, ` +
          'so a read-only preopen cannot be tested here',
      );
    }
  } catch (err) {
    undo();
    throw err;
  }
  return undo;
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}
