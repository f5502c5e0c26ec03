import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let fixture: RunningFixture;
beforeAll(async () => {
  fixture = await startServer({}, { designerDir: false });
});
afterAll(() => fixture.close());

describe('GET /api/routes/{id}/stats', () => {
  it('counts, per step and edge of the revision, the cascades that reached it, were delivered there or fell through', async () => {
    const created = await fixture.call('/api/routes', {
      json: {
        name: 'Chat then SMS',
        start: 'chat',
        steps: [
          { id: 'chat', channel: 'chatapp' },
          { id: 'sms', channel: 'sms' },
        ],
        edges: [{ from: 'chat', to: 'sms', on: 'undeliverable' }],
      },
    });
    const route = (await created.json()) as { id: string };
    await fixture.call(`/api/routes/${route.id}/binding`, { method: 'PUT', json: { alphaName: 'Promo' } });
    // 01: undeliverable on the chat-app, SMS delivers; 00: delivered at once; 03: permanent error (no edge: the end).
    const sent = await fixture.call('/api/CascadeMessage/send_message/async', {
      json: ['99900000001', '99900000000', '99900000003'].map((toPhone) => ({ toPhone, fromName: 'Promo', text: 'hi' })),
    });
    const accepted = (await sent.json()) as { messageId: string }[];
    for (const { messageId } of accepted) {
      await until(
        async () => (await (await fixture.call(`/api/CascadeMessage/status_guid/${messageId}`)).json()) as { status: string },
        (s) => s.status !== 'processing' && s.status !== 'scheduled',
      );
    }

    const res = await fixture.call(`/api/routes/${route.id}/stats`);
    expect(res.status).toBe(200);
    const stats = await res.json();
    expect(stats).toMatchObject({
      route: `${route.id}@1`,
      cascades: 3,
      byStatus: { delivered: 2, permanenterror: 1 },
      steps: [
        { id: 'chat', reached: 3, delivered: 1, failed: 2, expired: 0, skipped: 0, cost: 0.09 },
        { id: 'sms', reached: 1, delivered: 1, failed: 0, cost: 0.05 },
      ],
      edges: [{ index: 0, from: 'chat', to: 'sms', on: 'undeliverable', taken: 1 }],
    });
    expect(stats.cost).toBeCloseTo(0.14, 6);
    expect(stats.steps[0].medianSeconds).toBeGreaterThanOrEqual(0);

    // A window before the sends counts nothing.
    const before = await (await fixture.call(`/api/routes/${route.id}/stats?until=2020-01-01T00:00:00Z`)).json();
    expect(before).toMatchObject({ cascades: 0, steps: [{ reached: 0, medianSeconds: null }, { reached: 0 }] });
  });

  it('answers the built-in routes, and clear errors for a bad window, an unknown route or revision', async () => {
    expect((await fixture.call('/api/routes/default/stats')).status).toBe(200);
    const bad = await fixture.call('/api/routes/default/stats?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'since' }] });
    expect((await fixture.call('/api/routes/default/stats?since=yesterday')).status).toBe(400);
    // Read as every time field is: seconds and the offset's colon optional, an offset required.
    const short = await fixture.call(
      `/api/routes/default/stats?since=2026-01-01T03:00${encodeURIComponent('+0300')}&until=2026-01-02T00:00Z`,
    );
    expect(await short.json()).toMatchObject({ since: '2026-01-01T00:00:00.000Z', until: '2026-01-02T00:00:00.000Z' });
    const local = await fixture.call('/api/routes/default/stats?since=2026-01-01T00:00');
    expect(await local.json()).toMatchObject({ details: [{ path: 'since', message: expect.stringContaining('no offset') }] });
    expect((await fixture.call('/api/routes/rt_nope/stats')).status).toBe(404);
    expect((await fixture.call('/api/routes/default/stats?revision=7')).status).toBe(404);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await fixture.call('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/api/routes/{id}/stats');
  });
});
