import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const balance = async () => (await json(await s.call('/bat/balance'))).balance as number;
const delivered = (id: number) =>
  until(
    async () => json(await s.call(`/bat/message/${id}`)),
    (m) => m.deliverystatus === 'delivered',
  );

describe('POST /api/GMSMessage/send_message and /v1', () => {
  it('sends one message through the engine, billed, with per-phone data in the text', async () => {
    await s.call('/api/external-data/user-bonuses', { json: [{ phoneNumber: '99900000000', bonus: 77 }] });
    for (const path of ['/api/GMSMessage/send_message', '/api/GMSMessage/send_message/v1']) {
      const before = await balance();
      const res = await s.call(path, { json: { from: 'Acme', to: '99900000000', text: 'You have %bonus% points' } });
      expect(res.status).toBe(200);
      const sent = await json(res);
      expect(sent).toMatchObject({ from: 'Acme', to: '99900000000', text: 'You have 77 points', type: 'sms', partsCount: 1 });
      expect(sent.messagelistId).toBeGreaterThan(0);
      const status = await delivered(sent.messageId);
      expect(status.deliverystatus).toBe('delivered');
      expect(await balance()).toBeCloseTo(before - status.cost, 6);
    }
  });

  it('refuses a placeholder the recipient’s per-phone data lacks, at the text as the client named it', async () => {
    const refused = await s.call('/api/GMSMessage/send_message', { json: { from: 'Acme', to: '99900000000', text: 'Hello %name%' } });
    expect(refused.status).toBe(400);
    expect((await json(refused)).details).toEqual([
      {
        path: 'text',
        message:
          'unknown placeholder %name%: the per-phone data of 99900000000 has no such string, number or boolean member ' +
          '(upload it with POST /api/external-data/user-bonuses first)',
      },
    ]);
    const form = new URLSearchParams({ sender: 'Acme', phone: '99900000009', message: 'Hi %name%' });
    const ip2sms = await s.call('/ip2sms', { method: 'POST', body: form });
    expect(ip2sms.status).toBe(400);
    expect((await json(ip2sms)).details).toEqual([
      { path: 'message', message: expect.stringContaining('99900000009 has no per-phone data') },
    ]);
    const list = await s.call('/bat/messagelist', {
      json: { messages: [{ from: 'Acme', to: '99900000000', type: 'sms', text: 'ok %bonus%, not %nope%' }] },
    });
    expect(list.status).toBe(400);
    expect((await json(list)).details).toEqual([{ path: 'messages[0].text', message: expect.stringContaining('%nope%') }]);
  });

  it('validates like /bat/messagelist, with the message’s own paths, and authenticates', async () => {
    const bad = await s.call('/api/GMSMessage/send_message', { json: { from: 'NotOurs', to: 'abc', text: 'x' } });
    expect(bad.status).toBe(400);
    const paths = (await json(bad)).details.map((d: any) => d.path);
    expect(paths).toContain('to');
    expect(paths.every((p: string) => !p.startsWith('messages'))).toBe(true);
    expect((await s.call('/api/GMSMessage/send_message/v1', { json: [{ from: 'Acme' }] })).status).toBe(400);
    expect(
      (await s.call('/api/GMSMessage/send_message', { auth: 'none', json: { from: 'Acme', to: '99900000000', text: 'x' } })).status,
    ).toBe(401);
    const again = { from: 'Acme', to: '99900000000', text: 'once', customerMessageId: 'gms-1' };
    const first = await json(await s.call('/api/GMSMessage/send_message', { json: again }));
    expect((await json(await s.call('/api/GMSMessage/send_message', { json: again }))).messageId).toBe(first.messageId);
    expect((await s.call('/api/GMSMessage/send_message', { json: { ...again, text: 'other' } })).status).toBe(409);
  });
});

describe('POST /ip2sms', () => {
  it('takes form-encoded parameters with classic names, one message per number', async () => {
    const form = new URLSearchParams({ sender: 'Acme', phone: '99900000000,99900000002', message: 'Hello' });
    const res = await s.call('/ip2sms', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.messages.map((m: any) => m.to)).toEqual(['99900000000', '99900000002']);
    expect((await delivered(body.messages[0].messageId)).deliverystatus).toBe('delivered');
  });

  it('takes query parameters and JSON too', async () => {
    const q = await s.call('/ip2sms?from=Acme&to=99900000000&text=Hi', { method: 'POST' });
    expect(q.status).toBe(200);
    expect((await json(q)).messages).toHaveLength(1);
    const j = await s.call('/ip2sms', { json: { from: 'Acme', to: '99900000000', text: 'Hi' } });
    expect(j.status).toBe(200);
  });

  it('refuses missing parameters, foreign names, other bodies and missing credentials', async () => {
    const missing = await s.call('/ip2sms?from=Acme', { method: 'POST' });
    expect(missing.status).toBe(400);
    expect((await json(missing)).details.map((d: any) => d.path).sort()).toEqual(['text', 'to']);
    expect((await s.call('/ip2sms?from=NotOurs&to=99900000000&text=Hi', { method: 'POST' })).status).toBe(400);
    expect((await s.call('/ip2sms', { method: 'POST', body: '<xml/>', headers: { 'content-type': 'application/xml' } })).status).toBe(415);
    expect((await s.call('/ip2sms?from=Acme&to=99900000000&text=Hi', { method: 'POST', auth: 'none' })).status).toBe(401);
  });

  it("addresses the engine's errors to the parameters sent, not to the message list it makes of them", async () => {
    const paths = async (query: string) => {
      const res = await s.call(`/ip2sms?${query}`, { method: 'POST' });
      expect(res.status).toBe(400);
      return (await json(res)).details.map((d: { path: string }) => d.path);
    };
    // Named as sent: `phone` and `sender` (tests/http/ip2sms-alias-errors-http.test.ts).
    expect(await paths('sender=Acme&phone=12&message=Hi')).toEqual(['phone']);
    expect(await paths('sender=Acme&phone=99900000000,12&message=Hi')).toEqual(['phone[1]']);
    // A sender the account does not own, once however many recipients share it.
    expect(await paths('sender=NotOurs&phone=99900000000,99900000001&message=Hi')).toEqual(['sender']);
  });

  it('answers a form body it cannot read with a JSON 400, not a 500', async () => {
    const garbled = await s.call('/ip2sms', {
      method: 'POST',
      body: 'garbage',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(garbled.status).toBe(400);
    expect(await json(garbled)).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/^Malformed form body/) });
  });
});

describe('POST /ip2sms/chatapp_mess', () => {
  it('sends one chat-app message through the engine', async () => {
    const res = await s.call('/ip2sms/chatapp_mess', { json: { from: 'Acme', to: '99900000000', text: 'Your order shipped' } });
    expect(res.status).toBe(200);
    const sent = await json(res);
    expect(sent).toMatchObject({ type: 'chatapp_service', to: '99900000000' });
    const status = await delivered(sent.messageId);
    expect(status.extendedStatuses[0].channel).toBe('chatapp');
  });

  it('refuses non chat-app types and bad bodies', async () => {
    const sms = await s.call('/ip2sms/chatapp_mess', { json: { from: 'Acme', to: '99900000000', text: 'x', type: 'sms' } });
    expect(sms.status).toBe(400);
    expect((await json(sms)).details).toEqual([{ path: 'type', message: 'must be a chatapp_* type' }]);
    expect((await s.call('/ip2sms/chatapp_mess', { json: { from: 'Acme' } })).status).toBe(400);
  });
});
