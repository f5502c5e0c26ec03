import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import { createSqliteStorage } from '@spillway/sqlite';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two storages over one database, as two engine processes would open it. */
async function sharedDatabase(): Promise<[Storage, Storage]> {
  const url = process.env['DATABASE_URL'];
  if (process.env['SPILLWAY_TEST_STORAGE'] === 'postgres' && url) {
    const schema = `spillway_two_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const a = createPostgresStorage({ connectionString: url, schema });
    const b = createPostgresStorage({ connectionString: url, schema });
    await a.migrate();
    await b.migrate();
    cleanups.push(async () => {
      await a.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await a.close();
      await b.close();
    });
    return [a, b];
  }
  const dir = mkdtempSync(join(tmpdir(), 'spillway-two-'));
  const a = createSqliteStorage({ filename: join(dir, 'shared.db') });
  const b = createSqliteStorage({ filename: join(dir, 'shared.db') });
  await a.migrate();
  await b.migrate();
  cleanups.push(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return [a, b];
}

describe('two engines on one database', () => {
  // Two apps starting on one database at once each ensure their account: both found no account,
  // both created it, and the second died on "login shop is taken".
  it('ensure one account at once: both answer the one account', async () => {
    const [storageA, storageB] = await sharedDatabase();
    const a = createEngine({ storage: storageA, channels: [createSimulator()], hasher: createNodeHasher({ N: 2 ** 12 }) });
    const b = createEngine({ storage: storageB, channels: [createSimulator()], hasher: createNodeHasher({ N: 2 ** 12 }) });
    const ensured = await Promise.all([
      a.accounts.ensure({ login: 'shop', password: 'shop-password' }),
      b.accounts.ensure({ login: 'shop', password: 'shop-password' }),
    ]);
    expect(ensured[0].id).toBe(ensured[1].id);
    expect(await a.accounts.authenticatePassword('shop', 'shop-password')).toMatchObject({ id: ensured[0].id });
  });

  it('share the work: every message is sent by exactly one of them and ends delivered', async () => {
    const [storageA, storageB] = await sharedDatabase();
    const simA = createSimulator({ latencyMs: 5 });
    const simB = createSimulator({ latencyMs: 5 });
    const a = createEngine({ storage: storageA, channels: [simA], hasher: createNodeHasher(), batchSize: 50 });
    const b = createEngine({ storage: storageB, channels: [simB], hasher: createNodeHasher(), batchSize: 50 });
    const account = await a.accounts.create({ login: 'shop', password: 'shop-password', balance: 1000 });
    await a.accounts.approveAlphaName(account.id, 'Shop');
    const res = await a.messages.send(account.id, {
      messages: Array.from({ length: 600 }, (_, i) => ({
        from: 'Shop',
        to: `9990000${String(i).padStart(4, '0')}00`,
        type: 'sms',
        text: `m${i}`,
      })),
    });
    const ids = res.messages.map((m) => m.messageId);
    a.start();
    b.start();
    cleanups.push(async () => {
      await a.stop();
      await b.stop();
    });
    // Bounded wait for a real-time run: 600 messages at 5 ms latency take well under a second.
    for (let i = 0; i < 400; i++) {
      const done = (await storageA.getMessages(ids)).every((m) => m.status === 'delivered');
      if (done) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const messages = await storageA.getMessages(ids);
    expect(messages.filter((m) => m.status !== 'delivered')).toEqual([]);
    const sentA = new Set(simA.sent.map((s) => s.messageId));
    const sentB = new Set(simB.sent.map((s) => s.messageId));
    expect(sentA.size).toBeGreaterThan(0);
    expect(sentB.size).toBeGreaterThan(0);
    expect([...sentA].filter((id) => sentB.has(id))).toEqual([]);
    expect(sentA.size + sentB.size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) {
      expect((await storageA.history(id)).map((h) => h.status)).toEqual(['Sent', 'Delivered']);
    }
  });
});
