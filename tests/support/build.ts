import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/**
 * Vitest's global setup: builds the packages and the server (`tsc -b`, half a second when nothing
 * changed) before any test runs, so that the tests that start `spillway` in a child process run
 * the built CLI of the sources under test (`tests/support/spillway-command.ts`). A type error does
 * not stop the run (tsc still emits, and `pnpm typecheck` is where it fails): it is printed.
 */
export default function build(): void {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (tsc.error) throw tsc.error;
  if (tsc.status !== 0) console.warn(`tsc -b tsconfig.build.json exited ${tsc.status}:\n${tsc.stdout}${tsc.stderr}`);
}
