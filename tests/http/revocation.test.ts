import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, createFakeClock } from '@spillway/core';
import type { FakeClock, Storage } from '@spillway/core';
import { createHttpApp, createNodeHasher, createTokenService, serve } from '@spillway/http';
import type { TokenService } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import { createSqliteStorage } from '@spillway/sqlite';
import { afterEach, describe, expect, it } from 'vitest';

const quiet = { info() {}, warn() {}, error() {} };
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const hasher = createNodeHasher({ N: 1024 });
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One server process over `storage`: its own engine, token service, auth cache and fake clock. */
async function startProcess(storage: Storage, authCache: { revocationCheckMs?: number } = {}) {
  const clock: FakeClock = createFakeClock(Date.UTC(2026, 10, 23, 12));
  const engine = createEngine({ storage, channels: [], hasher, clock });
  const tokens: TokenService = createTokenService({ storage, clock, secret: 'x'.repeat(32) });
  await tokens.ready();
  const app = createHttpApp({ engine, tokens, defaultMetrics: false, logger: quiet, authCache });
  const server = await serve({ fetch: app.fetch, port: 0 });
  cleanups.push(() => server.close());
  const balance = async (headers: Record<string, string>) =>
    (await fetch(`http://127.0.0.1:${server.port}/bat/balance`, { headers })).status;
  return { engine, tokens, clock, balance };
}

/** Two storages over one database, as two processes would open it. */
type OpenPair = () => Promise<[Storage, Storage]>;

function revocationSuite(name: string, openPair: OpenPair | null) {
  describe.skipIf(!openPair)(`revocation at once (${name})`, () => {
    async function twoProcesses(bOptions: { revocationCheckMs?: number } = {}) {
      const [storageA, storageB] = await openPair!();
      const a = await startProcess(storageA);
      const b = await startProcess(storageB, bOptions);
      const account = await a.engine.accounts.create({ login: `shop${Math.random().toString(36).slice(2, 8)}`, password: 'old-password' });
      const { key, apiKey } = await a.engine.accounts.createKey(account.id);
      return { a, b, account, key, apiKey };
    }

    it('a revoked API key stops working in the process that revoked it and in another, without waiting for the cache', async () => {
      const { a, b, account, key, apiKey } = await twoProcesses();
      const headers = { 'x-authorization-key': key };
      for (let i = 0; i < 2; i++) {
        expect(await a.balance(headers)).toBe(200);
        expect(await b.balance(headers)).toBe(200);
      }
      expect(await a.engine.accounts.revokeKey(account.id, apiKey.id)).toBe(true);
      expect(await a.balance(headers)).toBe(401);
      expect(await b.balance(headers)).toBe(401);
    });

    it('a replaced password stops working everywhere at once', async () => {
      const { a, b, account } = await twoProcesses();
      const old = { authorization: basic(account.login, 'old-password') };
      expect(await a.balance(old)).toBe(200);
      expect(await b.balance(old)).toBe(200);
      await a.engine.accounts.ensure({ login: account.login, password: 'new-password' });
      expect(await a.balance(old)).toBe(401);
      expect(await b.balance(old)).toBe(401);
      expect(await b.balance({ authorization: basic(account.login, 'new-password') })).toBe(200);
    });

    it('a revoked client token stops working everywhere at once', async () => {
      const { a, b, account } = await twoProcesses();
      const { token } = await a.tokens.issueClientToken(account.id);
      const bearer = { authorization: `Bearer ${token}` };
      expect(await a.balance(bearer)).toBe(200);
      expect(await b.balance(bearer)).toBe(200);
      const verified = await a.tokens.verify(token);
      if (!verified.ok) throw new Error('expected a valid token');
      await a.tokens.revoke(verified.claims);
      expect(await a.balance(bearer)).toBe(403);
      expect(await b.balance(bearer)).toBe(403);
    });

    it('with a check interval, another process drops a revoked key once the interval has passed (injected clock)', async () => {
      const { a, b, account, key, apiKey } = await twoProcesses({ revocationCheckMs: 1000 });
      const headers = { 'x-authorization-key': key };
      expect(await b.balance(headers)).toBe(200);
      await a.engine.accounts.revokeKey(account.id, apiKey.id);
      // Still inside B's interval: B has not re-read the revision yet.
      await b.clock.advance(999);
      expect(await b.balance(headers)).toBe(200);
      await b.clock.advance(1);
      expect(await b.balance(headers)).toBe(401);
    });
  });
}

revocationSuite('SQLite file shared by two processes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-revocation-'));
  const open = async () => {
    const storage = createSqliteStorage({ filename: join(dir, 'db.sqlite') });
    await storage.migrate();
    cleanups.push(() => storage.close());
    return storage;
  };
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return [await open(), await open()];
});

const databaseUrl = process.env['DATABASE_URL'];
revocationSuite(
  'PostgreSQL, two pools',
  databaseUrl
    ? async () => {
        const schema = `spillway_revocation_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
        const open = async () => {
          const storage = createPostgresStorage({ connectionString: databaseUrl, schema });
          await storage.migrate();
          cleanups.push(() => storage.close());
          return storage;
        };
        const first = await open();
        cleanups.push(async () => {
          await first.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        });
        return [first, await open()];
      }
    : null,
);
