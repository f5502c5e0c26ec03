import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher, createSpillway } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import { holdMigrationLock, testDatabase } from '../support/test-database.ts';

// A start can wait without bound: PostgreSQL migrations wait for the migration lock another
// process holds (SQLite's wait is bounded by its busy timeout and blocks the thread). The stop
// still keeps its deadline. Runs in CI's PostgreSQL suite (SPILLWAY_TEST_STORAGE=postgres).
const database = testDatabase('stop_while_starting');

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!database.url)('stop() while start() waits for the migration lock', () => {
  it('keeps its deadline, warns, and the start fails instead of starting the workers after it', async () => {
    cleanups.push(() => database.drop());
    const lock = await holdMigrationLock(database, cleanups);

    const warned: Array<{ message: string; meta?: Record<string, unknown> }> = [];
    const spillway = createSpillway({
      storage: createPostgresStorage({ connectionString: database.url, schema: database.schema }),
      channels: [createSimulator({ latencyMs: 0 })],
      hasher: createNodeHasher({ N: 1024 }),
      logger: { info: () => {}, warn: (message, meta) => void warned.push({ message, meta }), error: () => {} },
    });
    const started = spillway.start().then(
      () => 'started',
      (error: Error) => error.message,
    );
    // The start is waiting on the lock.
    await Promise.race([lock.waited(), started.then((how) => Promise.reject(new Error(`the start ended: ${how}`)))]);

    const t0 = performance.now();
    await spillway.stop({ graceMs: 500 });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(warned).toContainEqual(expect.objectContaining({ meta: expect.objectContaining({ startRunning: true }) }));

    // The lock is let go: the start fails (its pool was closed, or it finds the stop) and does
    // not start what the stop stopped.
    await lock.release();
    expect(await started).not.toBe('started');
    expect((await spillway.fetch(new Request('http://localhost/health'))).status).toBe(503);
  });
});
