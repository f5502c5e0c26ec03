import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/server-process.ts';
import { SPILLWAY_CLI } from '../support/spillway-command.ts';
import { holdMigrationLock, testDatabase } from '../support/test-database.ts';

// `spillway serve` whose start waits for PostgreSQL's migration lock (another process migrating,
// or one stuck holding it): a SIGTERM still ends it, past its deadline, saying why. Runs in CI's
// PostgreSQL suite (SPILLWAY_TEST_STORAGE=postgres).
const database = testDatabase('serve_stop_while_starting');

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!database.url)('spillway serve stopped while its start waits for the migration lock', () => {
  it('exits 1 once the deadline and the backstop are past, and says so on stderr', async () => {
    cleanups.push(() => database.drop());
    const lock = await holdMigrationLock(database, cleanups);

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
    await Promise.race([lock.waited(), exited.then((code) => Promise.reject(new Error(`spillway serve exited ${code}: ${stderr}`)))]);

    const t0 = performance.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    // 500 ms of grace, 250 of settling, 2000 of backstop, and a loaded machine's slack.
    expect(performance.now() - t0).toBeLessThan(8000);
    expect(stderr).toMatch(/shutdown overran its deadline/);
  }, 60_000);
});
