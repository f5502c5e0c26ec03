import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher, createSpillway } from '@spillway/http';
import type { Spillway, SpillwayOptions } from '@spillway/http';
import type { Storage } from '@spillway/core';
import { createSqliteStorage } from '@spillway/sqlite';
import { testStorage } from '../support/engine-fixture.ts';

// An embedded Spillway answered `GET /api/routes/{id}/stats` with 404 "No route for ..." unless the
// `routeStats` option was given, where the reference server (and the designer's traffic view)
// always has it. The built-in storages now carry their reader; runs on SQLite and, with
// SPILLWAY_TEST_STORAGE=postgres, PostgreSQL.

const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
const running: Spillway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function statsOf(storage: Storage, options: Partial<SpillwayOptions> = {}) {
  const spillway = createSpillway({
    storage,
    channels: [createSimulator({ latencyMs: 5 })],
    hasher: createNodeHasher({ N: 2 ** 12 }),
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    basePath: '/spillway',
    ...options,
  });
  running.push(spillway);
  const server = await spillway.listen({ port: 0 });
  await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
  return fetch(`http://127.0.0.1:${server.port}/spillway/api/routes/default/stats`, { headers: { authorization: auth } });
}

describe('createSpillway: route stats', () => {
  it('are served without the routeStats option, over the storage given', async () => {
    const res = await statsOf(await testStorage());
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ route: 'default@1', cascades: 0 });
  });

  it('answer 501 naming the routeStats option over a storage that cannot read them', async () => {
    const { routeTraffic: _, ...storage } = createSqliteStorage();
    const res = await statsOf(storage);
    expect(res.status).toBe(501);
    expect(await res.json()).toMatchObject({ error: 'not_configured', message: expect.stringContaining('routeStats') });
  });
});
