import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import { createTestServer, startServer } from '../support/server-fixture.ts';
import { capturedLog } from '../support/server-log.ts';

// A clock passed to createServer (a test's fake one) cannot cross to another thread: a server on
// a database file ran its workers, and some of its connections, on threads that kept the system's
// time. A social state made at the fake time was found expired by a request that another HTTP
// thread served (tests/http/social-webhook-retry-http.test.ts failed so on PostgreSQL, one run in
// four). With its own clock, the server runs on one thread.

const dir = mkdtempSync(join(tmpdir(), 'spillway-own-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a server on a database file that would run threads, and answers how it says it runs. */
async function howItRuns(options: { clock?: ReturnType<typeof createFakeClock> }, file: string) {
  const { logger, lines } = capturedLog();
  const f = await startServer(
    { SPILLWAY_DB: join(dir, file), SPILLWAY_HTTP_THREADS: '2', SPILLWAY_WORKER_THREAD: 'true' },
    { ...options, logger },
  );
  await f.close();
  return lines.find((l) => l.msg === 'spillway is listening');
}

describe('a server given its own clock', () => {
  it('runs its workers and its HTTP on the thread that has the clock', async () => {
    expect(await howItRuns({ clock: createFakeClock(Date.UTC(2030, 0, 1, 9)) }, 'own-clock.db')).toMatchObject({
      workers: 'in process',
      httpThreads: 1,
    });
  });

  it('runs threads with the system clock, as without one', async () => {
    expect(await howItRuns({}, 'system-clock.db')).toMatchObject({ workers: 'thread', httpThreads: 2 });
  });
});

describe("the server's own fetch", () => {
  // It answers before listen() (the OpenAPI writer calls it so), through the app: the app skipped
  // the stopped server's 503 too, and a request after close() reached a closed database (a 500).
  it('answers before listen() and 503 after close()', async () => {
    const server = await createTestServer();
    try {
      expect((await server.fetch(new Request('http://spillway.local/health'))).status).toBe(200);
    } finally {
      await server.close();
    }
    expect((await server.fetch(new Request('http://spillway.local/health'))).status).toBe(503);
  });
});
