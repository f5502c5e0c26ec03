import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// A member that nearly names a known one was silently dropped: "scheduledSent" (the interface
// spells it "sheduledSent") sent a scheduled cascade at once. It is refused, saying what was meant.

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const BOTS = { 'x-tg-bot-key': '123456:tg-test', 'x-viber-auth-token': 'viber-test-token' };
const post = (path: string, json: unknown) => s.call(path, { json, headers: BOTS });
const odd = (name: string) => `unknown member; did you mean "${name}"? (the interface spells it so)`;
const stored = async (trackinId: string) => (await s.call(`/api/CascadeMessage/status_id/${trackinId}`)).status !== 404;

describe('cascade members that nearly name a known one', () => {
  it('refuses scheduledSent and whetherCheckSession with 400 at their paths, and stores nothing', async () => {
    const res = await post('/api/CascadeMessage/send_message/async', [
      {
        id: 'sched-typo',
        fromName: 'Acme',
        toPhone: '99900000001',
        text: 'hi',
        scheduledSent: '2030-01-01T00:00:00Z',
        whetherCheckSession: true,
      },
    ]);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'validation_failed',
      status: 400,
      details: [
        { path: '[0].scheduledSent', message: odd('sheduledSent') },
        { path: '[0].whetherCheckSession', message: odd('wheterCheckSession') },
      ],
    });
    expect(await stored('sched-typo')).toBe(false);
  });

  it('still accepts a member that nearly names none', async () => {
    const res = await post('/api/CascadeMessage/send_message/async', [
      { id: 'unrelated-ok', fromName: 'Acme', toPhone: '99900000000', text: 'hi', messageId: 'm-1', priority: 'high' },
    ]);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stored('unrelated-ok')).toBe(true);
  });

  it('refuses them in the overview shape and in a broadcast, at the template or the recipient', async () => {
    const overview = await post('/api/CascadeMessage/send_message/async', {
      fromName: 'Acme',
      messages: [{ recipient: '99900000000', text: 'hi', id: 'ov-typo', scheduledSent: '2030-01-01T00:00:00Z' }],
    });
    expect(overview.status).toBe(400);
    expect((await overview.json()).details).toEqual([{ path: 'messages[0].scheduledSent', message: odd('sheduledSent') }]);
    expect(await stored('ov-typo')).toBe(false);

    const broadcast = await post('/api/CascadeMessage/broadcast', {
      fromName: 'Acme',
      text: 'hi',
      scheduledSent: '2030-01-01T00:00:00Z',
      recipients: [
        { toPhone: '99900000000', id: 'bc-typo-0' },
        { toPhone: '99900000001', id: 'bc-typo-1', Text: 'own' },
      ],
    });
    expect(broadcast.status).toBe(400);
    expect((await broadcast.json()).details).toEqual([
      { path: 'scheduledSent', message: odd('sheduledSent') },
      { path: 'recipients[1].Text', message: 'unknown member; did you mean "text"?' },
    ]);
    expect(await stored('bc-typo-0')).toBe(false);

    const misnamed = await post('/api/CascadeMessage/broadcast', { fromName: 'Acme', text: 'hi', recipient: ['99900000000'] });
    expect(misnamed.status).toBe(400);
    expect((await misnamed.json()).details).toContainEqual({ path: 'recipient', message: 'unknown member; did you mean "recipients"?' });
  });
});

describe('message items that nearly name a known member', () => {
  it('refuses sheduledAt on /bat/messagelist with 400 at its path, and sends nothing', async () => {
    const before = ((await (await s.call('/bat/balance')).json()) as { balance: number }).balance;
    const res = await s.call('/bat/messagelist', {
      json: {
        messages: [
          { from: 'Acme', to: '99900000000', type: 'sms', text: 'hi', customerMessageId: 'sms-typo', sheduledAt: '2030-01-01T00:00:00Z' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'validation_failed',
      details: [{ path: 'messages[0].sheduledAt', message: 'Unknown field; did you mean "scheduledAt"?' }],
    });
    expect(((await (await s.call('/bat/balance')).json()) as { balance: number }).balance).toBe(before);
  });
});
