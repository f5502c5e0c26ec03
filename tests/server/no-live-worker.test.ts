import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, sendBatch, settled, spawnServer, startProcess, stopProcess } from '../support/server-process.ts';

// Scale-out with no worker process alive: the API process answered every send 200 and `/health`
// ok, and nothing was sent. `/health` now says how many workers are live on the database, and
// `/metrics` serves it with the age of the backlog nobody takes, so that an alert can fire. Real
// processes on one SQLite file; the log and the timing on a fake clock: tests/server/live-workers.test.ts.

const dir = mkdtempSync(join(tmpdir(), 'spillway-no-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Polls `read` until `done` holds, for a minute at most: the processes count every second, and a worker process takes seconds to start. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (done(value) || i === 600) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The gauges of the live workers and the backlog's age on `/metrics` at `port`. */
async function gauges(port: number): Promise<{ live: number; backlog: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return { live: value('spillway_workers_live'), backlog: value('spillway_backlog_age_seconds') };
}

/** Ten `/health` answers: the API's HTTP threads each answer some. */
async function health(port: number): Promise<unknown[]> {
  return Promise.all(Array.from({ length: 10 }, async () => (await fetch(`http://127.0.0.1:${port}/health`)).json()));
}
const every = (answer: unknown) => (answers: unknown[]) => answers.every((a) => JSON.stringify(a) === JSON.stringify(answer));

describe('spillway serve --role api with no worker process', () => {
  it('says so on /health and /metrics, and says when a worker runs and when it stopped', async () => {
    const db = join(dir, 'no-worker.db');
    const port = await freePort();
    const api = await startProcess({ SPILLWAY_DB: db, SPILLWAY_ROLE: 'api' }, port, children);
    expect(await health(port)).toSatisfy(every({ status: 'ok', workers: 0 }));

    // Accepted, and waiting: the backlog ages on /metrics.
    const ids = await sendBatch(port, 0);
    const waiting = await until(
      () => gauges(port),
      (g) => g.backlog >= 1,
    );
    expect(waiting.live).toBe(0);
    expect(waiting.backlog).toBeGreaterThanOrEqual(1);

    const metricsPort = await freePort();
    const worker = spawnServer({ SPILLWAY_DB: db, SPILLWAY_ROLE: 'worker', SPILLWAY_METRICS_PORT: String(metricsPort) }, 0, children);
    expect(await until(() => health(port), every({ status: 'ok', workers: 1 }))).toSatisfy(every({ status: 'ok', workers: 1 }));
    await settled(port, ids);
    expect(
      await until(
        () => gauges(port),
        (g) => g.backlog === 0,
      ),
    ).toEqual({ live: 1, backlog: 0 });
    // The worker process's own port says it too.
    expect(await (await fetch(`http://127.0.0.1:${metricsPort}/health`)).json()).toEqual({ status: 'ok', workers: 1, role: 'worker' });
    expect(
      await until(
        () => gauges(metricsPort),
        (g) => g.backlog === 0,
      ),
    ).toEqual({ live: 1, backlog: 0 });

    // A clean stop retires the worker: none is live at the next count, not after the stale time.
    expect(await stopProcess(worker, 'SIGTERM')).toBe(0);
    expect(await until(() => health(port), every({ status: 'ok', workers: 0 }))).toSatisfy(every({ status: 'ok', workers: 0 }));
    expect((await gauges(port)).live).toBe(0);
    expect(await stopProcess(api, 'SIGTERM')).toBe(0);
  }, 120_000);
});
