import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, sendBatch, startProcess, stopProcess } from '../support/server-process.ts';

// The reference server checkpoints its SQLite file on a thread of its own: its HTTP and workers'
// threads commit with a backstop of 10,000 log pages, far above what this load writes, so only
// that thread copies the log into the database file while the server runs.

const dir = mkdtempSync(join(tmpdir(), 'spillway-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('the checkpoint thread', () => {
  it('copies the log into the database file while the server runs, and the server stops cleanly', async () => {
    const db = join(dir, 'spillway.db');
    const port = await freePort();
    const child = await startProcess({ SPILLWAY_DB: db, SPILLWAY_SIMULATOR_LATENCY_MS: '0' }, port, children);
    // Start-up's own writes are checkpointed within a few intervals of 200 ms.
    await new Promise((r) => setTimeout(r, 1_000));
    const before = statSync(db).size;
    for (let batch = 0; batch < 10; batch++) await sendBatch(port, batch);
    let size = before;
    for (let i = 0; i < 50 && size <= before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      size = statSync(db).size;
    }
    expect(size).toBeGreaterThan(before);
    expect(await stopProcess(child, 'SIGTERM')).toBe(0);
  });
});
