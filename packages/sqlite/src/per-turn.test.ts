import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPerTurnReadsContract } from '@spillway/core/testing';
import { createSqliteStorage } from './sqlite-storage.ts';

/** Two handles on one file, as two processes would open it. */
async function openTwo() {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-per-turn-'));
  const a = createSqliteStorage({ filename: join(dir, 'db.sqlite') });
  await a.migrate();
  const b = createSqliteStorage({ filename: join(dir, 'db.sqlite') });
  await b.migrate();
  const close = async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { a, b, close };
}

runPerTurnReadsContract({ name: 'sqlite', openTwo });

describe('reads memoized per turn (sqlite, synchronous reads)', () => {
  it("another handle's change is not seen within a turn that already read, and is in the next", async () => {
    const { a, b, close } = await openTwo();
    try {
      const account = await a.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'x', currency: 'EUR' }, 0);
      expect(await b.listAlphaNames(account.id)).toEqual([]);
      const revision = await b.credentialRevision();
      await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
      const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
      await a.revokeApiKey(account.id, key.id);
      // Within the turn, b answers what it read at the turn's start (the reads are synchronous:
      // no await above left the turn) ...
      expect(await b.listAlphaNames(account.id)).toEqual([]);
      expect(await b.credentialRevision()).toBe(revision);
      await new Promise<void>((resolve) => setImmediate(resolve));
      // ... and the next turn reads the committed change.
      expect((await b.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
      expect(await b.credentialRevision()).toBeGreaterThan(revision);
    } finally {
      await close();
    }
  });
});
