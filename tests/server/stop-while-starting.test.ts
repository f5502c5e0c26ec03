import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStorage } from '@spillway/postgres';
import { freePort } from '../support/server-process.ts';
import { SPILLWAY_CLI } from '../support/spillway-command.ts';
import { testDatabase } from '../support/test-database.ts';

// `spillway serve` whose start waits for PostgreSQL's migration lock (another process migrating,
// or one stuck holding it): a SIGTERM still ends it, past its deadline, saying why. Runs in CI's
// PostgreSQL suite (SPILLWAY_TEST_STORAGE=postgres).
const database = testDatabase('serve_stop_while_starting');
const MIGRATION_LOCK = 0x5350_494c;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!database.url)('spillway serve stopped while its start waits for the migration lock', () => {
  it('exits 1 once the deadline and the backstop are past, and says so on stderr', async () => {
    cleanups.push(() => database.drop());
    const other = createPostgresStorage({ connectionString: database.url, schema: database.schema });
    cleanups.push(() => other.close());
    const holder = await other.pool.connect();
    cleanups.push(() => holder.release());
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, database.schema]);
    cleanups.push(() => holder.query('ROLLBACK'));

    const child = spawn(process.execPath, [...SPILLWAY_CLI, 'serve'], {
      env: {
        ...process.env,
        ...database.env,
        PORT: String(await freePort()),
        SPILLWAY_LOG_LEVEL: 'info',
        SPILLWAY_SHUTDOWN_GRACE_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Its start is waiting on the lock (it would not exit by itself).
    await expect(Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000, 'running'))])).resolves.toBe('running');

    const t0 = performance.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    // 500 ms of grace, 250 of settling, 2000 of backstop, and a loaded machine's slack.
    expect(performance.now() - t0).toBeLessThan(8000);
    expect(stderr).toMatch(/shutdown overran its deadline/);
  }, 60_000);
});
