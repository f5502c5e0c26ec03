import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { FakeClock } from '@spillway/core';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { testDatabase } from '../support/test-database.ts';

// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const database = testDatabase('expired_step');
let clock: FakeClock;
let s: RunningFixture;
beforeAll(async () => {
  clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
  s = await startServer(database.env, { clock, designerDir: false });
});
afterAll(async () => {
  await s?.close();
  await database.drop();
});

type Status = {
  status: string;
  steps: Array<{ id: string; status: string | null; error: string | null }>;
  history: Array<{ status: string }>;
};
const statusOf = async (guid: string) => (await (await s.call(`/api/CascadeMessage/status_guid/${guid}`)).json()) as Status;

describe(`a cascade step that ends by its ttl without a delivery report (${database.label})`, () => {
  it('is `expired` in the status record, as in the history, the route stats and the edge it took', async () => {
    const created = await s.call('/api/routes', {
      json: {
        name: 'Chat then SMS on expiry',
        start: 'chat',
        steps: [
          { id: 'chat', channel: 'chatapp', timeoutSeconds: 10 },
          { id: 'sms', channel: 'sms' },
        ],
        edges: [{ from: 'chat', to: 'sms', on: 'expired' }],
      },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const route = (await created.json()) as { id: string };
    expect((await s.call(`/api/routes/${route.id}/binding`, { method: 'PUT', json: { alphaName: 'Promo' } })).status).toBe(200);
    // 99900000004: the simulator never reports, so each step ends by its time.
    const sent = await s.call('/api/CascadeMessage/send_message/async', {
      json: [{ fromName: 'Promo', toPhone: '99900000004', text: 'hi', ttl: 20 }],
    });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const [{ messageId }] = (await sent.json()) as [{ messageId: string }];

    // As the engine fixture does: the worker finishes what is due before and after the clock moves.
    const advance = async (ms: number) => {
      await s.server.engine.drain();
      await clock.advance(ms);
      await s.server.engine.drain();
    };
    await advance(10_000); // the chat-app step's timeout: expired, on to the SMS
    await advance(10_000); // the rest of the ttl: the SMS step expires too, and with it the cascade
    const status = await statusOf(messageId);
    expect(status.history.map((h) => h.status)).toEqual(['Sent', 'Expired', 'Sent', 'Expired']);
    // The cascade's own status stays in the interface's deliverystatus vocabulary.
    expect(status.status).toBe('undeliverable');
    expect(status.steps).toMatchObject([
      { id: 'chat', status: 'expired', error: 'no delivery report before the ttl' },
      { id: 'sms', status: 'expired', error: 'no delivery report before the ttl' },
    ]);

    const stats = await (await s.call(`/api/routes/${route.id}/stats`)).json();
    expect(stats).toMatchObject({
      steps: [
        { id: 'chat', expired: 1 },
        { id: 'sms', expired: 1 },
      ],
      edges: [{ from: 'chat', to: 'sms', on: 'expired', taken: 1 }],
    });
  });

  it('is in the OpenAPI document as a value of a step status', async () => {
    const doc = JSON.stringify(await (await s.call('/openapi.json')).json());
    expect(doc).toMatch(/"skipped","expired","superseded"/);
  });
});
