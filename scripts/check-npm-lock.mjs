//! Fails when an npm lock file would not install from nothing: every package
//! entry needs a `version`, and every one npm fetches needs `resolved` and
//! `integrity` (npm ci stops with "Invalid Version:" on the first, and a
//! cache hides the second). `node scripts/check-npm-lock.mjs LOCK...`

import { readFileSync } from 'node:fs';

let problems = 0;
for (const lockPath of process.argv.slice(2)) {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  if (lock.lockfileVersion < 2 || !lock.packages) {
    console.error(`${lockPath}: lockfileVersion ${lock.lockfileVersion} has no "packages"; regenerate it with npm 7 or newer`);
    problems += 1;
    continue;
  }
  for (const [where, entry] of Object.entries(lock.packages)) {
    // "" is the project itself; links point at folders of this repository.
    if (where === '' || entry.link) continue;
    const missing = ['version', 'resolved', 'integrity'].filter((field) => !entry[field]);
    if (missing.length > 0) {
      console.error(`${lockPath}: ${where} has no ${missing.join(', ')}`);
      problems += 1;
    }
  }
}
if (problems > 0) {
  console.error(
    `${problems} incomplete lock entries: regenerate the lock with an empty cache, e.g.\n` +
      '  rm package-lock.json && npm install --package-lock-only --omit-lockfile-registry-resolved=false --cache "$(mktemp -d)"',
  );
  process.exit(1);
}
