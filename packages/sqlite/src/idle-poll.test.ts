import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from './sqlite-storage.ts';

describe('idle polls take no write lock (sqlite)', () => {
  it('claims of due messages, receipts and webhook deliveries answer nothing at once while another writer holds the lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-idle-poll-'));
    // A busy timeout of 0: a poll that asked for the write lock would fail with SQLITE_BUSY.
    const storage = createSqliteStorage({ filename: join(dir, 'db.sqlite'), busyTimeoutMs: 0 });
    await storage.migrate();
    const other = createSqliteStorage({ filename: join(dir, 'db.sqlite') });
    try {
      other.db.exec('BEGIN IMMEDIATE');
      expect(await storage.claimDue(Date.now(), 100, 60_000, 'w1')).toEqual([]);
      expect(await storage.claimReceipts(Date.now(), 100, 60_000, 'w1')).toEqual([]);
      expect(await storage.claimDueDeliveries(Date.now(), 100, 60_000)).toEqual([]);
      other.db.exec('ROLLBACK');
    } finally {
      await other.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
