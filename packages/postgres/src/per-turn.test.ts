import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perTurn } from './pg-util.ts';
import { createPostgresStorage } from './postgres-storage.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('perTurn (PostgreSQL)', () => {
  it('shares one read per key in a turn, reads again in the next turn, and keeps no failed read', async () => {
    let reads = 0;
    let fail = false;
    const memo = perTurn(async (key: string) => {
      reads++;
      if (fail) throw new Error('down');
      return `${key}:${reads}`;
    });
    const [a, b] = await Promise.all([memo.get('a'), memo.get('a')]);
    expect([a, b, reads]).toEqual(['a:1', 'a:1', 1]);
    await nextTurn();
    expect(await memo.get('a')).toBe('a:2');
    await nextTurn();
    fail = true;
    const failed = memo.get('a');
    await expect(failed).rejects.toThrow('down');
    fail = false;
    // The same turn (no setImmediate in between): the failed read was dropped, not kept.
    expect(await memo.get('a')).toBe('a:4');
    memo.clear();
    expect(await memo.get('a')).toBe('a:5');
  });
});

// These need a PostgreSQL server: run them with DATABASE_URL=postgres://... set.
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('reads memoized per turn in the PostgreSQL storage', () => {
  let db: TestDatabase;
  beforeAll(() => {
    db = createTestDatabase(url!);
  });
  afterAll(async () => {
    await db.end();
  });

  /** Two storages on one schema, each with its own pool, as two processes would open it. */
  async function twoProcesses() {
    const schema = db.schemaName();
    const a = createPostgresStorage({ connectionString: url!, schema });
    await a.migrate();
    const b = createPostgresStorage({ connectionString: url!, schema });
    await b.migrate();
    const account = await a.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'x', currency: 'EUR' }, 0);
    const close = async () => {
      await a.close();
      await b.close();
      await db.drop(schema);
    };
    return { a, b, account, close };
  }

  it('a write through this pool is read back at once, whichever store made it', async () => {
    const { a, account, close } = await twoProcesses();
    try {
      expect(await a.listAlphaNames(account.id)).toEqual([]);
      await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
      expect((await a.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
      await a.setAlphaNameCallback(account.id, 'Shop', 'https://example.com/cb');
      expect((await a.listAlphaNames(account.id))[0]!.callbackUrl).toBe('https://example.com/cb');

      const before = await a.credentialRevision();
      const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
      await a.revokeApiKey(account.id, key.id);
      const afterKey = await a.credentialRevision();
      expect(afterKey).toBeGreaterThan(before);
      // The chat hub store bumps through the same pool's memo.
      await a.revokeToken({ jti: 'token-1', expiresAt: null }, 0);
      expect(await a.credentialRevision()).toBeGreaterThan(afterKey);
    } finally {
      await close();
    }
  });

  it("another process's change is seen by the reads of the next turn", async () => {
    const { a, b, account, close } = await twoProcesses();
    try {
      await nextTurn();
      const revision = await b.credentialRevision();
      await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
      const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
      await a.revokeApiKey(account.id, key.id);
      await nextTurn();
      expect((await b.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
      expect(await b.credentialRevision()).toBeGreaterThan(revision);
    } finally {
      await close();
    }
  });
});
