import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

/** Runs `spillway <args>` from source against the SQLite file `db`; its stdout parsed as JSON. */
export async function cli(db: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(
    join(root, 'node_modules/.bin/tsx'),
    ['--conditions=@spillway/source', join(root, 'apps/server/src/cli.ts'), ...args],
    { env: { ...process.env, DATABASE_URL: '', SPILLWAY_DB: db, SPILLWAY_LOG_LEVEL: 'silent' } },
  );
  return JSON.parse(stdout);
}
