import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, expect, it, vi } from 'vitest';
import type * as Threads from '../../apps/server/src/threads.ts';
import { startServer } from '../support/server-fixture.ts';
import { capturedLog } from '../support/server-log.ts';

// The workers' thread of a SQLite file's server ends on its own (here: terminated, as an error it
// does not survive would end it). Found by a scale-out run: the process went on answering sends
// with 200 and /health ok while nothing was sent, with one log line.

const started: Worker[] = [];
vi.mock('../../apps/server/src/threads.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Threads>();
  return {
    ...real,
    startThread: async (name: string, data: unknown) => {
      const thread = await real.startThread(name, data);
      if (name === 'worker-thread') started.push(thread);
      return thread;
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), 'spillway-workers-failed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("tells onWorkersFailed and logs an error when the workers' thread ends without being asked, not when close() ends it", async () => {
  const { logger, lines } = capturedLog();
  const failed: Error[] = [];
  // One HTTP thread: the workers' thread is what is watched, and each extra thread loads the whole
  // server from source (seconds a start, on a loaded machine).
  const f = await startServer(
    { SPILLWAY_DB: join(dir, 'failed.db'), SPILLWAY_HTTP_THREADS: '1' },
    { logger, onWorkersFailed: (e) => void failed.push(e) },
  );
  try {
    expect(started).toHaveLength(1);
    await started[0]!.terminate();
    await expect.poll(() => failed.length).toBe(1);
    expect(lines.filter((l) => l.msg.startsWith("the workers' thread ended"))).toEqual([expect.objectContaining({ level: 50 })]);
  } finally {
    await f.close();
  }
  // A second server, closed as usual: its thread's end is no failure.
  const g = await startServer(
    { SPILLWAY_DB: join(dir, 'closed.db'), SPILLWAY_HTTP_THREADS: '1' },
    { logger, onWorkersFailed: (e) => void failed.push(e) },
  );
  await g.close();
  expect(failed).toHaveLength(1);
  // Two servers with a workers' thread each start in seconds apiece on a loaded machine.
}, 45_000);
