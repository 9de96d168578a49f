// Host directories granted to the component: found, or created readable by
// their owner only (tool output can hold anything a command printed).

import { mkdir, realpath, stat } from 'node:fs/promises';

/** The mode of a spill directory and thread folder the wrapper creates. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * The real path of `dir` if it is an existing directory, else null. The shim
 * would accept a missing path as a preopen and fail every file operation in
 * it; granting nothing instead gives the documented "no spill directory"
 * notice.
 */
export async function existingDirectory(dir) {
  try {
    const real = await realpath(dir);
    return (await stat(real)).isDirectory() ? real : null;
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * The directory to grant for `dir`: its real path, after creating it (and
 * any missing parents) with mode 0700 if it does not exist. Null when it is
 * not a directory and cannot be made one (a file is in the way, no
 * permission), as the Rust host does: the session then says why nothing can
 * be saved.
 */
export async function grantedDirectory(dir) {
  const existing = await existingDirectory(dir);
  if (existing !== null) return existing;
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch {
    return null;
  }
  return existingDirectory(dir);
}

/**
 * Like grantedDirectory, but a directory that cannot be created is an error
 * (the fs error of mkdir): a spill store has nothing to do without one.
 */
export async function requiredDirectory(dir) {
  const existing = await existingDirectory(dir);
  if (existing !== null) return existing;
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const created = await existingDirectory(dir);
  if (created === null) throw new Error(`tool-output-cap: ${dir} is not a directory`);
  return created;
}

/** One plain file or folder name: not empty, `.` or `..`, no separator or NUL. */
export function isPlainName(name) {
  return (
    typeof name === 'string' &&
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !name.includes('\0')
  );
}
