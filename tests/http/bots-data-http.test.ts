import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

const received: Array<{ envelope: { from: string; to: string[] }; mail: ParsedMail }> = [];
let smtp: SMTPServer;
let smtpUrl: string;

beforeAll(async () => {
  // A real SMTP server: it accepts mail for anyone except refused@example.com.
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, callback) {
      if (address.address === 'refused@example.com') callback(Object.assign(new Error('550 no such user'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            mail,
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({ SPILLWAY_SMTP_URL: smtpUrl, SPILLWAY_SMTP_FROM: 'Acme <no-reply@acme.example>' });
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const BOT_KEY = '123456:bot-key';

describe('messenger bot receivers and chat messages', () => {
  it('binds the chat of a number, reads it back, and sends a chat message through the bot with per-phone data', async () => {
    const put = await s.call('/chat_bot/bot_receiver/phone', { method: 'PUT', json: { phoneNumber: '+999 000 000 00', chatId: 4242 } });
    expect(put.status).toBe(200);
    expect(await json(put)).toMatchObject({ phoneNumber: '99900000000', chatId: 4242, botName: '' });
    expect(await json(await s.call('/chat_bot/bot_receiver/phone?phoneNumber=99900000000'))).toMatchObject({ chatId: 4242 });
    expect((await s.call('/chat_bot/bot_receiver/phone?phoneNumber=99900000099')).status).toBe(404);

    await s.call('/api/external-data/user-bonuses/99900000000', { json: { bonus: 120, level: 'gold' } });
    const res = await s.call('/api/myCodeBot/sendChatMessage', {
      json: { phoneNumber: '99900000000', fromName: 'Acme', text: 'Hi! You have %bonus% points (%level%)' },
      headers: { 'x-tg-bot-key': BOT_KEY },
    });
    expect(res.status).toBe(200);
    const accepted = await json(res);
    const status = await until(
      async () => json(await s.call(`/api/CascadeMessage/status_guid/${accepted.messageId}`)),
      (st) => st.status === 'delivered',
    );
    expect(status).toMatchObject({ status: 'delivered', channel: 'messenger', fromName: 'Acme' });
    const sent = s.server.simulator.sent.find((a: any) => a.channel === 'messenger' && a.to === '99900000000');
    expect(sent?.text).toBe('Hi! You have 120 points (gold)');
    // A placeholder the number's data lacks is refused, not sent as written.
    const unknown = await s.call('/api/myCodeBot/sendChatMessage', {
      json: { phoneNumber: '99900000000', fromName: 'Acme', text: 'Hi %name%' },
      headers: { 'x-tg-bot-key': BOT_KEY },
    });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).details).toEqual([
      {
        path: 'text',
        message:
          'unknown placeholder %name%: the per-phone data of 99900000000 has no such string, number or boolean member ' +
          '(upload it with POST /api/external-data/user-bonuses first)',
      },
    ]);
  });

  it('refuses a chat message without bot key, without a bound chat, or with a bad body', async () => {
    const body = { phoneNumber: '99900000000', text: 'Hi' };
    const noKey = await s.call('/api/myCodeBot/sendChatMessage', { json: body });
    expect(noKey.status).toBe(400);
    expect((await json(noKey)).details).toEqual([{ path: 'X-Tg-Bot-Key', message: 'header required' }]);
    const unbound = await s.call('/api/myCodeBot/sendChatMessage', {
      json: { ...body, phoneNumber: '99900000011' },
      headers: { 'x-tg-bot-key': BOT_KEY },
    });
    expect(unbound.status).toBe(404);
    const bad = await s.call('/api/myCodeBot/sendChatMessage', {
      json: { phoneNumber: 'x', text: '' },
      headers: { 'x-tg-bot-key': BOT_KEY },
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['phoneNumber', 'text']);
    // The fixture's account has two alpha-names: the message must name one, at the caller's own path.
    const unnamed = await s.call('/api/myCodeBot/sendChatMessage', { json: body, headers: { 'x-tg-bot-key': BOT_KEY } });
    expect(unnamed.status).toBe(400);
    expect((await json(unnamed)).details).toEqual([
      { path: 'fromName', message: 'fromName is required: the account has several alpha-names (Acme, Promo)' },
    ]);
    expect(
      (await s.call('/chat_bot/bot_receiver/phone', { method: 'PUT', json: { phoneNumber: '99900000000', chatId: 'abc' } })).status,
    ).toBe(400);
    expect(
      (await s.call('/chat_bot/bot_receiver/phone', { method: 'PUT', auth: 'none', json: { phoneNumber: '99900000000', chatId: 1 } }))
        .status,
    ).toBe(401);
  });

  it('counts and prices bot messages by date, bot and country', async () => {
    await until(
      async () => json(await s.call('/api/Costs/bots')),
      (c) => c.totalCount >= 1,
    );
    const costs = await json(await s.call('/api/Costs/bots'));
    expect(costs.items).toEqual([
      {
        date: new Date().toISOString().slice(0, 10),
        // The bot (the account's only one, ''), not the alpha-name the message went from.
        botName: '',
        channel: 'messenger',
        country: 'ZZ',
        count: 1,
        cost: expect.any(Number),
      },
    ]);
    expect(costs.totalCount).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    expect((await json(await s.call(`/api/Costs/bots?date=${today}&bot_name=`))).totalCount).toBe(1);
    expect((await json(await s.call(`/api/Costs/bots?date=${today}&bot_name=Acme`))).items).toEqual([]);
    expect((await json(await s.call('/api/Costs/bots?date=2020-01-01&date=2020-02-01'))).totalCount).toBe(0);
    expect((await s.call('/api/Costs/bots?date=soon')).status).toBe(400);
    // A date-time without an offset is UTC, as the chat hub reads expiresAt.
    expect((await json(await s.call(`/api/Costs/bots?date=${today}T00:00:00`))).totalCount).toBe(1);
    expect((await s.call('/api/Costs/bots?date=2026-02-01&date=2026-01-01')).status).toBe(400);
    expect((await s.call('/api/Costs/bots?country=GBR')).status).toBe(400);
    // Another account sees none of them.
    const other = await s.call('/api/client/provision', { json: { login: 'other-co', password: 'other-password' } });
    const key = (await json(other)).apiKey;
    expect((await json(await s.call('/api/Costs/bots', { headers: { 'x-authorization-key': key } }))).totalCount).toBe(0);
  });
});

describe('per-phone data', () => {
  it('stores data in bulk and per number, merging into earlier data, per account', async () => {
    const res = await s.call('/api/external-data/user-bonuses', {
      json: [
        { phoneNumber: '79990000001', bonus: 10 },
        { phoneNumber: '+7 999 000 00 02', bonus: 20, tier: 'silver' },
      ],
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ stored: 2 });
    expect(await json(await s.call('/api/external-data/user-bonuses/79990000002'))).toMatchObject({
      phoneNumber: '79990000002',
      data: { bonus: 20, tier: 'silver' },
    });
    // An upload merges: the members given replace the number's, null removes one, the others stay.
    const merged = await s.call('/api/external-data/user-bonuses/79990000002', { json: { bonus: 25, name: 'Ann' } });
    expect((await json(merged)).data).toEqual({ bonus: 25, tier: 'silver', name: 'Ann' });
    await s.call('/api/external-data/user-bonuses', { json: [{ phoneNumber: '79990000002', bonus: null, level: 3 }] });
    expect((await json(await s.call('/api/external-data/user-bonuses/79990000002'))).data).toEqual({
      tier: 'silver',
      name: 'Ann',
      level: 3,
    });
    // The merged record is limited, not only the upload: nothing of a request that would exceed it is kept.
    await s.call('/api/external-data/user-bonuses/79990000002', { json: { note: 'x'.repeat(10_000) } });
    const tooMuch = await s.call('/api/external-data/user-bonuses', {
      json: [
        { phoneNumber: '79990000009', bonus: 1 },
        { phoneNumber: '79990000002', more: 'y'.repeat(10_000) },
      ],
    });
    expect(tooMuch.status).toBe(400);
    expect((await json(tooMuch)).details).toEqual([
      { path: '[1]', message: 'too large once merged with the number’s data (remove members with null)' },
    ]);
    expect((await s.call('/api/external-data/user-bonuses/79990000009')).status).toBe(404);

    const other = await json(await s.call('/api/client/provision', { json: { login: 'data-co', password: 'other-password' } }));
    expect((await s.call('/api/external-data/user-bonuses/79990000002', { headers: { 'x-authorization-key': other.apiKey } })).status).toBe(
      404,
    );
  });

  it('rejects a bad bulk whole, a bad number, a non-object and too much data', async () => {
    const bad = await s.call('/api/external-data/user-bonuses', {
      json: [{ phoneNumber: '79990000003', bonus: 1 }, { phoneNumber: 'nope' }, { bonus: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['[1].phoneNumber', '[2].bonus', '[2].phoneNumber']);
    expect((await s.call('/api/external-data/user-bonuses/79990000003')).status).toBe(404);
    expect((await s.call('/api/external-data/user-bonuses', { json: [] })).status).toBe(400);
    const badNumber = await s.call('/api/external-data/user-bonuses/abc', { json: { bonus: 1 } });
    expect(badNumber.status).toBe(400);
    expect((await json(badNumber)).details[0].path).toBe('phoneNumber');
    expect((await s.call('/api/external-data/user-bonuses/79990000003', { json: [1, 2] })).status).toBe(400);
    expect((await s.call('/api/external-data/user-bonuses/79990000003', { json: { blob: 'x'.repeat(20_000) } })).status).toBe(400);
    expect((await s.call('/api/external-data/user-bonuses/79990000003', { auth: 'none', json: { bonus: 1 } })).status).toBe(401);
  });
});

describe('POST /api/email/send', () => {
  it('sends a real e-mail through SMTP and keeps its status record', async () => {
    const res = await s.call('/api/email/send', {
      json: { to: ['anna@example.com', 'ben@example.com'], subject: 'Your order', text: 'It shipped.', html: '<p>It <b>shipped</b>.</p>' },
    });
    expect(res.status).toBe(200);
    const record = await json(res);
    expect(record).toMatchObject({
      status: 'sent',
      to: ['anna@example.com', 'ben@example.com'],
      subject: 'Your order',
      from: 'Acme <no-reply@acme.example>',
      error: null,
    });
    expect(record.messageId).toMatch(/^<.+@.+>$/);

    const got = await until(
      async () => received.find((r) => r.mail.messageId === record.messageId),
      (r) => r !== undefined,
    );
    expect(got!.envelope).toEqual({ from: 'no-reply@acme.example', to: ['anna@example.com', 'ben@example.com'] });
    expect(got!.mail.subject).toBe('Your order');
    expect(got!.mail.text?.trim()).toBe('It shipped.');
    expect(got!.mail.html).toContain('<b>shipped</b>');
    expect(await json(await s.call(`/api/email/${record.id}`))).toEqual(record);
  });

  it('records a refusal of the SMTP server as failed', async () => {
    const record = await json(await s.call('/api/email/send', { json: { to: 'refused@example.com', subject: 'Hi', text: 'x' } }));
    expect(record).toMatchObject({ status: 'failed', messageId: null, sentAt: null });
    expect(record.error).toContain('550');
  });

  it('names the recipients the SMTP server refused when it took the e-mail for the others', async () => {
    const record = await json(
      await s.call('/api/email/send', { json: { to: ['carla@example.com', 'refused@example.com'], subject: 'Hi', text: 'x' } }),
    );
    expect(record).toMatchObject({ status: 'sent', error: 'the SMTP server refused refused@example.com' });
    const got = await until(
      async () => received.find((r) => r.mail.messageId === record.messageId),
      (r) => r !== undefined,
    );
    expect(got!.envelope.to).toEqual(['carla@example.com']);
  });

  it('refuses bad input and other accounts’ records, and answers 501 where e-mail is not configured', async () => {
    const before = received.length;
    const bad = await s.call('/api/email/send', { json: { to: 'not-an-address', subject: '' } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['subject', 'text', 'to']);
    expect(received.length).toBe(before);
    const other = await json(await s.call('/api/client/provision', { json: { login: 'mail-co', password: 'other-password' } }));
    expect((await s.call('/api/email/1', { headers: { 'x-authorization-key': other.apiKey } })).status).toBe(404);
    expect((await s.call('/api/email/abc')).status).toBe(400);
    expect((await s.call('/api/email/send', { auth: 'none', json: { to: 'a@example.com', subject: 'x', text: 'y' } })).status).toBe(401);

    const bare = await startServer();
    try {
      const res = await bare.call('/api/email/send', { json: { to: 'a@example.com', subject: 'x', text: 'y' } });
      expect(res.status).toBe(501);
      expect(await json(res)).toMatchObject({
        error: 'not_configured',
        status: 501,
        message: expect.stringContaining('SPILLWAY_SMTP_URL'),
      });
    } finally {
      await bare.close();
    }
  });
});
