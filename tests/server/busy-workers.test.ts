import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStorage } from '@spillway/sqlite';
import { startServer, until } from '../support/server-fixture.ts';
import { capturedLog, WARN } from '../support/server-log.ts';

// Another process holding the SQLite file's write lock past SPILLWAY_DB_BUSY_TIMEOUT_MS: the
// workers' commit fails, and is tried again once the lock is free. That is logged as a warning
// without a stack, not as a worker error, and the message is delivered all the same.

const dir = mkdtempSync(join(tmpdir(), 'spillway-busy-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('workers finding the database locked by another process', () => {
  it('log a warning, not an error, and deliver once the lock is free', async () => {
    const { logger, lines } = capturedLog();
    const file = join(dir, 'spillway.db');
    const f = await startServer(
      {
        SPILLWAY_DB: file,
        SPILLWAY_DB_BUSY_TIMEOUT_MS: '50',
        // The workers on the main thread, with the logger given here; the simulator answers after
        // 300 ms, while the lock is taken, so that the round's commit finds it taken.
        SPILLWAY_WORKER_THREAD: 'false',
        SPILLWAY_HTTP_THREADS: '1',
        SPILLWAY_SIMULATOR_LATENCY_MS: '300',
      },
      { logger },
    );
    const other = createSqliteStorage({ filename: file });
    try {
      const res = await f.call('/bat/messagelist', {
        json: { messages: [{ from: 'Acme', to: '+999123450001', type: 'sms', text: 'hi' }] },
      });
      expect(res.status).toBe(200);
      const id = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      other.db.exec('BEGIN IMMEDIATE');
      const busy = await until(
        async () => lines.filter((l) => l.msg === 'database busy: the workers try again'),
        (found) => found.length > 0,
      );
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]!.level).toBe(WARN);
      expect(busy[0]!.error).toMatch(/database is locked/);
      other.db.exec('ROLLBACK');
      const status = await until(
        async () => ((await (await f.call(`/bat/message/${id}`)).json()) as { deliverystatus: string }).deliverystatus,
        (s) => s === 'delivered',
      );
      expect(status).toBe('delivered');
      expect(lines.filter((l) => l.level > WARN)).toEqual([]);
    } finally {
      if (other.db.inTransaction) other.db.exec('ROLLBACK');
      await other.close();
      await f.close();
    }
  }, 30_000);

  it('webhook deliveries finding it busy log a warning without a stack too, and poll again', async () => {
    const { logger, lines } = capturedLog();
    const f = await startServer(
      { SPILLWAY_DB: join(dir, 'webhooks.db'), SPILLWAY_WORKER_THREAD: 'false', SPILLWAY_HTTP_THREADS: '1' },
      { logger },
    );
    try {
      // The deliveries' claim finds the file locked past the busy timeout, as better-sqlite3 says it.
      const storage = f.server.storage;
      const claim = storage.claimDueDeliveries.bind(storage);
      let refused = 0;
      storage.claimDueDeliveries = (...args) => {
        if (refused++ < 2) return Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
        return claim(...args);
      };
      const busy = await until(
        async () => lines.filter((l) => l.msg === 'database busy: webhook deliveries try again'),
        (found) => found.length >= 2,
      );
      expect(busy).toHaveLength(2);
      expect(busy[0]!.level).toBe(WARN);
      expect(busy[0]!.error).toBe('database is locked');
      // Polled again after it: the third claim went through to the storage.
      await until(
        async () => refused,
        (n) => n > 2,
      );
      expect(refused).toBeGreaterThan(2);
      expect(lines.filter((l) => l.level > WARN)).toEqual([]);
    } finally {
      await f.close();
    }
  }, 30_000);
});
