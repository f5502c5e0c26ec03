import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '@spillway/core';
import { createSqliteStorage } from './sqlite-storage.ts';
import type { SqliteStorage } from './sqlite-storage.ts';

// A file storage answers status reads from a second connection, in one read transaction a turn of
// the event loop (TurnReader). What a read sees: every commit made before the turn's first read,
// and every write of this storage, whenever it was made.

const dir = mkdtempSync(join(tmpdir(), 'spillway-turn-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
let files = 0;

/** Stores one message of `accountId`, accepted at once: its id. */
async function ingestOne(storage: SqliteStorage, accountId: number): Promise<number> {
  const result = await storage.ingest({
    accountId,
    at: 10,
    chargeDescription: 'message',
    messages: [
      {
        kind: 'message',
        guid: null,
        trackinId: null,
        customerMessageId: null,
        content: '',
        steps: [{ channel: 'sms', type: 'sms', from: 'Acme', to: '491510000000', text: 'hi', ttl: null, partsCount: 1, rate: 0, cost: 0 }],
        status: 'processing',
        snapshot: { value: 'sending', context: { step: 0 } },
        routeRef: null,
        dueAt: 10,
        expiresAt: null,
        meta: null,
        work: [],
        charge: 0,
        history: [],
      },
    ],
  });
  if (result.status !== 'accepted') throw new Error(result.status);
  return result.ids[0]!;
}

/** A storage on a new file holding one message of an account, accepted at once. */
async function withMessage(): Promise<{ storage: SqliteStorage; filename: string; id: number; accountId: number }> {
  const filename = join(dir, `db-${++files}.db`);
  const storage = createSqliteStorage({ filename });
  await storage.migrate();
  const account = await storage.createAccount({ login: `a${files}`, name: 'A', passwordHash: 'h', currency: 'EUR' }, 1);
  return { storage, filename, id: await ingestOne(storage, account.id), accountId: account.id };
}

const entry = (messageId: number, status: HistoryEntry['status'], at: number): HistoryEntry => ({
  messageId,
  step: 0,
  channel: 'sms',
  status,
  at,
  error: null,
});
/** A storage holding one message, and another storage (another connection) on the same file, for `run`; closed after it. */
async function withTwoConnections(
  run: (storage: SqliteStorage, other: SqliteStorage, id: number, accountId: number) => Promise<void>,
): Promise<void> {
  const { storage, filename, id, accountId } = await withMessage();
  const other = createSqliteStorage({ filename });
  try {
    await run(storage, other, id, accountId);
  } finally {
    await other.close();
    await storage.close();
  }
}
const statuses = async (storage: SqliteStorage, id: number) => (await storage.getMessageWithHistory(id))!.history.map((h) => h.status);

describe('status reads of a file storage', () => {
  it('see a write of the same storage made after a read of the same turn', async () => {
    const { storage, id } = await withMessage();
    try {
      expect(await statuses(storage, id)).toEqual([]);
      await storage.appendHistory([entry(id, 'Sent', 20)]);
      expect(await statuses(storage, id)).toEqual(['Sent']);
    } finally {
      await storage.close();
    }
  });

  it("see another connection's commit from the next turn on, not within a turn that read before it", () =>
    withTwoConnections(async (storage, other, id) => {
      await nextTurn();
      expect(await statuses(storage, id)).toEqual([]);
      await other.appendHistory([entry(id, 'Sent', 20)]);
      // The turn's snapshot was taken by its first read.
      expect(await statuses(storage, id)).toEqual([]);
      await nextTurn();
      expect(await statuses(storage, id)).toEqual(['Sent']);
    }));

  it("find a message another connection stored within the turn, after the turn's snapshot", () =>
    withTwoConnections(async (storage, other, id, accountId) => {
      await nextTurn();
      expect(await statuses(storage, id)).toEqual([]);
      // Another thread accepts a message and answers its client, who asks for its status at once:
      // the ask can land in a turn whose snapshot is older than the acceptance.
      const stored = await ingestOne(other, accountId);
      const read = await storage.getMessageWithHistory(stored);
      expect(read?.message.id).toBe(stored);
      // An id nobody stored is still not found.
      expect(await storage.getMessageWithHistory(stored + 1)).toBeNull();
    }));

  it('end their read transaction with the turn, so that a checkpoint can take the whole log', () =>
    withTwoConnections(async (storage, other, id) => {
      await nextTurn();
      await statuses(storage, id);
      await other.appendHistory([entry(id, 'Sent', 20)]);
      await nextTurn();
      // TRUNCATE waits for no reader: it fails (busy = 1) if a read transaction still holds an older snapshot.
      const [result] = other.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number }>;
      expect(result).toMatchObject({ busy: 0, log: 0 });
    }));
});
