import { createEngine, createFakeClock } from '@spillway/core';
import type { Engine } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createHttpApp, createNodeHasher, serve } from '@spillway/http';
import type { NodeHasher, RunningServer } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { afterEach, describe, expect, it } from 'vitest';

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const quiet = { info() {}, warn() {}, error() {} };

let running: { server: RunningServer; close(): Promise<void> } | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(hasher: NodeHasher) {
  const storage = createSqliteStorage();
  await storage.migrate();
  const engine: Engine = createEngine({ storage, channels: [createSimulator()], hasher, clock: createFakeClock() });
  const account = await engine.accounts.create({ login: 'shop', password: 'correct horse' });
  const { key } = await engine.accounts.createKey(account.id);
  const app = createHttpApp({ engine, defaultMetrics: false, logger: quiet });
  const server = await serve({ fetch: app.fetch, port: 0 });
  running = {
    server,
    close: async () => {
      await server.close();
      await storage.close();
    },
  };
  const url = `http://127.0.0.1:${server.port}`;
  return { engine, storage, key, url };
}

describe('auth under a password spray', () => {
  it('answers the spray with 429s while an API-key request is served without waiting for the hashing queue', async () => {
    // A cost high enough that the queue stays busy for a while on any machine.
    const hasher = createNodeHasher({ N: 2 ** 15, concurrency: 1 });
    const { key, url } = await start(hasher);
    const spray = Array.from({ length: 40 }, (_, i) =>
      fetch(`${url}/bat/balance`, { headers: { authorization: basic(i % 2 ? 'shop' : `made-up-${i}`, `wrong-${i}`) } }),
    );
    // Wait until the spray has filled the queue.
    while (hasher.queueStats().active === 0) await new Promise((r) => setTimeout(r, 5));

    const keyResponse = await fetch(`${url}/bat/balance`, { headers: { 'x-authorization-key': key } });
    const stillBusy = hasher.queueStats();
    expect(keyResponse.status).toBe(200);
    // The key was checked while password hashes were still running or waiting: it never queued behind them.
    expect(stillBusy.active + stillBusy.queued).toBeGreaterThan(0);

    const answers = await Promise.all(spray);
    const statuses = answers.map((r) => r.status);
    // The per-address limit (20 free failures from 127.0.0.1, the 21st starts the lock) refuses the
    // rest of the spray at once.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(21);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(19);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const limited = answers.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited', status: 429 });
  });

  it('locks a login after 5 failures with a 429 that is answered before any hashing', async () => {
    const hasher = createNodeHasher({ N: 1024 });
    const { url } = await start(hasher);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${url}/bat/balance`, { headers: { authorization: basic('shop', `guess-${i}`) } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    // Even the right password waits out the lock: guessing cannot go on at full speed.
    const right = await fetch(`${url}/bat/balance`, { headers: { authorization: basic('shop', 'correct horse') } });
    expect(right.status).toBe(429);
  });
});

describe('password hashes are upgraded on login', () => {
  it('re-hashes a cheaper stored hash with the current cost after a successful login', async () => {
    const storage = createSqliteStorage();
    await storage.migrate();
    const old = createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 1024 }), clock: createFakeClock() });
    await old.accounts.create({ login: 'shop', password: 'correct horse' });
    expect((await storage.findAccountByLogin('shop'))!.passwordHash).toMatch(/^scrypt\$1024\$/);

    const current = createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 4096 }), clock: createFakeClock() });
    expect(await current.accounts.authenticatePassword('shop', 'wrong')).toBeNull();
    expect((await storage.findAccountByLogin('shop'))!.passwordHash).toMatch(/^scrypt\$1024\$/);
    expect(await current.accounts.authenticatePassword('shop', 'correct horse')).not.toBeNull();
    expect((await storage.findAccountByLogin('shop'))!.passwordHash).toMatch(/^scrypt\$4096\$8\$1\$/);
    expect(await current.accounts.authenticatePassword('shop', 'correct horse')).not.toBeNull();
    await storage.close();
  });
});
