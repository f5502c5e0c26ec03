import { mkdirSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';

const codeOf = (error: unknown): unknown => (error as NodeJS.ErrnoException | null)?.code;

/**
 * Creates the folder of `file` and the folders above it that are missing, one level at a time, or
 * throws naming the folder that cannot be made or the file in the way. Node 20's
 * `mkdirSync(folder, { recursive: true })` never returns for a folder under `/proc` (a start with
 * `SPILLWAY_DB=/proc/x/spillway.db` neither ran nor failed, nor did `createSqliteStorage` on such a file); one level at a time, each `mkdir`
 * fails at once with what is wrong.
 */
export function ensureFolderOf(file: string): void {
  const missing: string[] = [];
  let folder = dirname(file);
  for (;;) {
    let found: Stats;
    try {
      found = statSync(folder);
    } catch (error) {
      // ENOTDIR: a file above it is in the way, found further up.
      const parent = dirname(folder);
      if ((codeOf(error) !== 'ENOENT' && codeOf(error) !== 'ENOTDIR') || parent === folder) throw error;
      missing.unshift(folder);
      folder = parent;
      continue;
    }
    if (!found.isDirectory()) throw new Error(`"${folder}" is not a folder`);
    break;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process starting on the same file.
      if (codeOf(error) === 'EEXIST' && statSync(folder).isDirectory()) continue;
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`cannot create the folder "${folder}": ${reason}`, { cause: error });
    }
  }
}
