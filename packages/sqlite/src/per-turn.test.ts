import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStorage } from './sqlite-storage.ts';
import { perTurn } from './sqlite-util.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('perTurn', () => {
  it('reads once per key in a turn of the event loop, and again in the next turn', async () => {
    const db = new Database(':memory:');
    let reads = 0;
    const memo = perTurn(db, (key: string) => `${key}:${++reads}`);
    expect(memo.get('a')).toBe('a:1');
    expect(memo.get('a')).toBe('a:1');
    expect(memo.get('b')).toBe('b:2');
    await Promise.resolve(); // microtasks stay in the turn
    expect(memo.get('a')).toBe('a:1');
    await nextTurn();
    expect(memo.get('a')).toBe('a:3');
    db.close();
  });

  it('reads again after clear, and never memoizes inside a transaction', () => {
    const db = new Database(':memory:');
    let reads = 0;
    const memo = perTurn(db, () => ++reads);
    expect(memo.get(1)).toBe(1);
    memo.clear();
    expect(memo.get(1)).toBe(2);
    db.transaction(() => {
      expect(memo.get(1)).toBe(3);
      expect(memo.get(1)).toBe(4);
    })();
    db.close();
  });
});

describe('reads memoized per turn in the SQLite storage', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function twoHandles() {
    dir = mkdtempSync(join(tmpdir(), 'spillway-per-turn-'));
    const a = createSqliteStorage({ filename: join(dir, 'db.sqlite') });
    await a.migrate();
    const b = createSqliteStorage({ filename: join(dir, 'db.sqlite') });
    await b.migrate();
    const account = await a.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'x', currency: 'EUR' }, 0);
    return { a, b, account };
  }

  it('an alpha-name written through this handle is listed at once, in the same turn', async () => {
    const { a, b, account } = await twoHandles();
    expect(await a.listAlphaNames(account.id)).toEqual([]);
    await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
    expect((await a.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
    await a.setAlphaNameCallback(account.id, 'Shop', 'https://example.com/cb');
    expect((await a.listAlphaNames(account.id))[0]!.callbackUrl).toBe('https://example.com/cb');
    await a.close();
    await b.close();
  });

  it("another handle's change is seen from the next turn on", async () => {
    const { a, b, account } = await twoHandles();
    expect(await b.listAlphaNames(account.id)).toEqual([]);
    const revision = await b.credentialRevision();
    await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
    const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
    await a.revokeApiKey(account.id, key.id);
    // Within the turn, b answers what it read at the turn's start ...
    expect(await b.listAlphaNames(account.id)).toEqual([]);
    expect(await b.credentialRevision()).toBe(revision);
    await nextTurn();
    // ... and the next turn reads the committed change.
    expect((await b.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
    expect(await b.credentialRevision()).toBeGreaterThan(revision);
    await a.close();
    await b.close();
  });

  it('a revocation through this handle moves the revision at once, whichever store bumped it', async () => {
    const { a, account } = await twoHandles();
    const before = await a.credentialRevision();
    const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
    await a.revokeApiKey(account.id, key.id);
    const afterKey = await a.credentialRevision();
    expect(afterKey).toBeGreaterThan(before);
    // The chat hub store bumps through its own reader of the same handle.
    await a.revokeToken({ jti: 'token-1', expiresAt: null }, 0);
    expect(await a.credentialRevision()).toBeGreaterThan(afterKey);
    await a.close();
  });
});
