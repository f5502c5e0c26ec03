import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN, startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({ SPILLWAY_REACHABILITY_TTL: '3600' });
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
/** 06: every chat channel refuses the number (not on this channel); SMS delivers. */
const NUMBER = '99900000006';

const cascadeTo = async (to: string) => {
  const res = await s.call('/api/CascadeMessage/send_message', {
    json: [{ fromName: 'Acme', toPhone: to, text: 'Hello', chatappMessage: { text: 'Hello' } }],
    headers: { 'x-viber-auth-token': 'viber-key' },
  });
  expect(res.status).toBe(200);
  const [{ messageId }] = await json(res);
  return until(
    async () => json(await s.call(`/api/CascadeMessage/status_guid/${messageId}`)),
    (st) => st.status === 'delivered',
  );
};

describe('GET/DELETE /api/reachability/{phoneNumber}', () => {
  it('shows what a cascade learnt, skips it next time, and forgets it on DELETE', async () => {
    const empty = await s.call(`/api/reachability/${NUMBER}`);
    expect(empty.status).toBe(200);
    expect(await json(empty)).toEqual({ phoneNumber: NUMBER, ttlSeconds: 3600, unreachable: [] });

    const first = await cascadeTo(NUMBER);
    const refused = first.steps.filter((st: any) => st.status === 'undeliverable').map((st: any) => st.channel);
    expect(refused.length).toBeGreaterThan(0);

    const memory = await json(await s.call(`/api/reachability/+${NUMBER}`, { auth: 'basic' }));
    expect(memory.phoneNumber).toBe(NUMBER);
    expect(memory.unreachable.map((e: any) => e.channel).sort()).toEqual([...refused].sort());
    const entry = memory.unreachable[0];
    expect(entry).toMatchObject({ reason: 'the recipient is not on this channel (simulator)', driver: 'simulator' });
    expect(Date.parse(entry.until) - Date.parse(entry.since)).toBe(3600_000);

    const second = await cascadeTo(NUMBER);
    expect(second.steps.filter((st: any) => refused.includes(st.channel)).map((st: any) => st.status)).toEqual(
      refused.map(() => 'skipped'),
    );

    const one = await s.call(`/api/reachability/${NUMBER}?channel=${refused[0]}`, { method: 'DELETE' });
    expect(await json(one)).toEqual({ phoneNumber: NUMBER, cleared: 1 });
    const all = await s.call(`/api/reachability/${NUMBER}`, { method: 'DELETE' });
    expect(await json(all)).toEqual({ phoneNumber: NUMBER, cleared: refused.length - 1 });
    expect((await json(await s.call(`/api/reachability/${NUMBER}`))).unreachable).toEqual([]);
  });

  it('answers 401 without credentials and a clear 400 for a bad number or channel', async () => {
    expect((await s.call(`/api/reachability/${NUMBER}`, { auth: 'none' })).status).toBe(401);
    expect((await s.call(`/api/reachability/${NUMBER}`, { auth: 'none', method: 'DELETE' })).status).toBe(401);
    const bad = await s.call('/api/reachability/12');
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ error: 'validation_failed', status: 400, details: [{ path: 'phoneNumber' }] });
    const channel = await s.call(`/api/reachability/${NUMBER}?channel=pigeon`, { method: 'DELETE' });
    expect(channel.status).toBe(400);
    expect(await json(channel)).toMatchObject({ error: 'validation_failed', details: [{ path: 'channel' }] });
  });

  it("never shows or clears another account's memory", async () => {
    await s.server.engine.accounts.create({ login: 'rival', password: 'rival-password-1', balance: 10 });
    const { key } = await s.server.engine.accounts.createKey((await s.server.engine.accounts.getByLogin('rival'))!.id);
    await cascadeTo(NUMBER);
    const acme = (await s.server.engine.accounts.getByLogin(LOGIN))!;
    const before = await s.server.engine.reachability.show(acme.id, NUMBER);
    expect(before.entries.length).toBeGreaterThan(0);
    const rival = { 'x-authorization-key': key };
    expect((await json(await s.call(`/api/reachability/${NUMBER}`, { headers: rival }))).unreachable).toEqual([]);
    expect(await json(await s.call(`/api/reachability/${NUMBER}`, { headers: rival, method: 'DELETE' }))).toEqual({
      phoneNumber: NUMBER,
      cleared: 0,
    });
    expect((await s.server.engine.reachability.show(acme.id, NUMBER)).entries).toEqual(before.entries);
  });
});

describe('the OpenAPI document', () => {
  it('lists both reachability routes as a Spillway extension', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    const path = doc.paths['/api/reachability/{phoneNumber}'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get']);
    for (const op of [path.get, path.delete]) {
      expect(op.tags).toEqual(['reachability']);
      expect(op.description).toMatch(/^A Spillway extension/);
    }
  });
});
