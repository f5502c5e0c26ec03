import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpillwayError, systemClock } from '@spillway/core';
import type { ChannelDriver, InboundReport, Receipt } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { startKannel, kannelMissing } from '../testing/kannel-process.ts';
import type { KannelProcess } from '../testing/kannel-process.ts';
import { startRouteHost } from '../testing/route-host.ts';
import type { RouteHost } from '../testing/route-host.ts';
import { createKannelDriver, kannelMoUrl } from './kannel.ts';
import { dlrOutcome, sendsmsOutcome } from './kannel-status.ts';
import { callbackToken } from '../shared/callback-token.ts';

// One real Kannel (bearerbox, smsbox, fakesmsc) for the whole file, on free ports.
let kannel: KannelProcess;
let host: RouteHost;
const secret = 'test-secret';

beforeAll(async () => {
  host = await startRouteHost();
  if (kannelMissing) return;
  kannel = await startKannel({ moUrl: kannelMoUrl({ callbackBaseUrl: host.url, callbackSecret: secret, password: '' }) });
});
afterAll(async () => {
  await kannel?.stop();
  await host?.close();
});

const driver = (over: Partial<Parameters<typeof createKannelDriver>[0]> = {}): ChannelDriver =>
  createKannelDriver({
    sendsmsUrl: kannel.sendsmsUrl,
    username: 'spillway',
    password: kannel.password,
    callbackBaseUrl: host.url,
    callbackSecret: secret,
    ...over,
  });

runChannelDriverContract({
  name: 'kannel (a real bearerbox and smsbox, fakesmsc as the SMSC)',
  skip: kannelMissing ?? false,
  time: 'real',
  create: () => driver(),
  serve: (d, ctx) => host.serve(d, ctx),
  deliverableRecipient: '4915112345678',
  receiptsAfterRestart: true,
  failures: [
    { name: 'sendsms refuses the password (403)', failure: 'permanent', create: () => driver({ password: 'wrong' }) },
    { name: 'sendsms refuses an empty receiver (400)', failure: 'permanent', recipient: '' },
    { name: 'Kannel is not reachable', failure: 'temporary', create: () => driver({ sendsmsUrl: 'http://127.0.0.1:9/cgi-bin/sendsms' }) },
  ],
});

describe.skipIf(kannelMissing)(`kannel driver against a real Kannel${kannelMissing ? ` (skipped: ${kannelMissing})` : ''}`, () => {
  it('hands the text to the SMSC, in UCS-2 when it needs it, and reads delivery through the dlr-url', async () => {
    const d = driver();
    const reports: Receipt[] = [];
    const ctx = { clock: systemClock, report: async (r: Receipt) => void reports.push(r) };
    const unserve = await host.serve(d, ctx);
    try {
      const base = { accountId: 1, step: 0, try: 0, partsCount: 1, channel: 'sms' as const, type: 'sms' as const, from: 'Shop', ttl: 600 };
      expect(
        await d.send({ ...base, messageId: 7001, idempotencyKey: '7001:0:0', to: '4915100000001', text: 'Ihr Code: 1234' }, ctx),
      ).toEqual({
        outcome: 'accepted',
      });
      expect(await d.send({ ...base, messageId: 7002, idempotencyKey: '7002:0:0', to: '4915100000002', text: 'Код: 1234' }, ctx)).toEqual({
        outcome: 'accepted',
      });
      const end = Date.now() + 10_000;
      while (reports.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(reports).toEqual(
        expect.arrayContaining([
          { messageId: 7001, step: 0, outcome: 'delivered' },
          { messageId: 7002, step: 0, outcome: 'delivered' },
        ]),
      );
      const got = kannel.received();
      expect(got).toContain('Shop 4915100000001 text Ihr Code: 1234');
      // UCS-2 reaches the SMSC as UTF-16BE (url-encoded by fakesmsc).
      expect(got).toContain('Shop 4915100000002 ucs-2 %04%1A%04%3E%044%00%3A%00+%001%002%003%004');
      // Kannel called the DLR URL for the SMSC's acceptance (8) and the delivery (1).
      expect(host.seen.filter((s) => s.includes('m=7001&')).map((s) => /type=(\d+)/.exec(s)?.[1])).toEqual(['8', '1']);
    } finally {
      await unserve();
    }
  });

  it('hands MO messages from the SMSC to ctx.inbound', async () => {
    const d = driver();
    const inbound: InboundReport[] = [];
    const unserve = await host.serve(d, { clock: systemClock, report: async () => {}, inbound: async (m) => void inbound.push(m) });
    try {
      await kannel.restartFakeSmsc('4915100000009 Shop text STOP please');
      const end = Date.now() + 10_000;
      while (inbound.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(inbound).toEqual([{ channel: 'sms', phoneNumber: '4915100000009', alphaName: 'Shop', text: 'STOP please' }]);

      // A UCS-2 MO (UTF-16BE on the air; bytes 0x20 and 0x0D inside its characters, which Kannel's %a
      // would take for spaces) and a 7-bit one with runs of spaces arrive as they were written.
      await kannel.restartFakeSmsc('4915100000010 Shop ucs2 %04%1F%04%40%048%042%045%04B%00%20%00%20%27%13%20%20%04%0D');
      await kannel.restartFakeSmsc('4915100000011 Shop text Gr\u00fc\u00dfe,  two  spaces');
      const end2 = Date.now() + 10_000;
      while (inbound.length < 3 && Date.now() < end2) await new Promise((r) => setTimeout(r, 20));
      expect(inbound.slice(1)).toEqual([
        { channel: 'sms', phoneNumber: '4915100000010', alphaName: 'Shop', text: 'Привет  ✓†Ѝ' },
        { channel: 'sms', phoneNumber: '4915100000011', alphaName: 'Shop', text: 'Grüße,  two  spaces' },
      ]);
    } finally {
      await unserve();
    }
  });

  it('check() tells working credentials from refused ones', async () => {
    expect(await driver().check!()).toEqual({
      ok: true,
      detail: 'sendsms accepted the credentials (its answer to an empty probe: Empty receiver number not allowed, rejected)',
    });
    expect(await driver({ password: 'wrong' }).check!()).toMatchObject({ ok: false, detail: expect.stringContaining('refused') });
  });
});

describe('kannel DLR route', () => {
  const d = createKannelDriver({
    sendsmsUrl: 'http://127.0.0.1:9/',
    username: 'u',
    password: 'p',
    callbackBaseUrl: 'http://x',
    callbackSecret: 's',
  });
  const route = d.routes!.find((r) => r.path === '/dlr')!;
  const call = async (query: string) => {
    const reports: Receipt[] = [];
    const res = await route.handle(new Request(`http://x/channels/kannel/dlr?${query}`), {
      clock: systemClock,
      report: async (r) => void reports.push(r),
    });
    return { status: res.status, reports, body: await res.text() };
  };
  const sig = callbackToken('s', 5, 1);

  it.each([
    [1, '', { outcome: 'delivered' }],
    [2, 'UNDELIV', { outcome: 'failed', failure: 'undeliverable' }],
    [16, 'NACK/88/Throttling error', { outcome: 'failed', failure: 'throttled' }],
    [16, 'NACK/11/Invalid destination', { outcome: 'failed', failure: 'undeliverable' }],
    [16, 'rejected', { outcome: 'failed', failure: 'permanent' }],
  ])('DLR type %i (%s) is reported as %o', async (type, reply, expected) => {
    const { status, reports } = await call(`m=5&s=1&sig=${sig}&type=${type}&reply=${encodeURIComponent(reply)}`);
    expect(status).toBe(200);
    expect(reports).toEqual([expect.objectContaining({ messageId: 5, step: 1, ...expected })]);
  });

  it('ignores intermediate DLRs (queued, accepted by the SMSC)', async () => {
    expect(await call(`m=5&s=1&sig=${sig}&type=8&reply=ACK%2F`)).toMatchObject({ status: 200, reports: [] });
    expect(await call(`m=5&s=1&sig=${sig}&type=4`)).toMatchObject({ status: 200, reports: [] });
  });

  it('refuses forged and malformed reports with a JSON error', async () => {
    expect(await call(`m=6&s=1&sig=${sig}&type=1`)).toMatchObject({ status: 403, reports: [] });
    const bad = await call(`m=x&s=1&sig=${sig}&type=1`);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: 'bad_request', status: 400 });
  });

  it('maps sendsms answers', () => {
    expect(sendsmsOutcome(202, '0: Accepted for delivery')).toEqual({ outcome: 'accepted' });
    expect(sendsmsOutcome(202, '3: Queued for later delivery')).toEqual({ outcome: 'accepted' });
    expect(sendsmsOutcome(403, 'Authorization failed for sendsms')).toMatchObject({ failure: 'permanent' });
    expect(sendsmsOutcome(503, 'Temporal failure, try again later.')).toMatchObject({ failure: 'temporary' });
    expect(dlrOutcome(8, 'ACK/')).toBeNull();
  });
});

describe('kannel MO route', () => {
  const d = createKannelDriver({
    name: 'kannel-de',
    sendsmsUrl: 'http://127.0.0.1:9/',
    username: 'u',
    password: 'p',
    callbackBaseUrl: 'http://x',
    callbackSecret: 's',
  });
  const route = d.routes!.find((r) => r.path === '/mo')!;
  const sig = callbackToken('s', 'mo');
  /** What the route hands to ctx.inbound for a query as smsbox fills it in. */
  const call = async (query: string) => {
    const inbound: InboundReport[] = [];
    const res = await route.handle(new Request(`http://x/channels/kannel-de/mo?sig=${sig}&${query}`), {
      clock: systemClock,
      report: async () => {},
      inbound: async (m) => void inbound.push(m),
    });
    return { status: res.status, text: inbound[0]?.text };
  };

  it('carries the binary text with its coding and charset, on the path of the named driver', () => {
    const url = kannelMoUrl({ name: 'kannel-de', callbackBaseUrl: 'https://spillway.example.com/', callbackSecret: 's', password: 'p' });
    expect(url).toBe(`https://spillway.example.com/channels/kannel-de/mo?sig=${sig}&from=%p&to=%P&text=%b&coding=%c&charset=%C`);
    // Without a name, the driver's default name.
    expect(kannelMoUrl({ callbackBaseUrl: 'https://spillway.example.com', password: 'p' })).toMatch(/\/channels\/kannel\/mo\?/);
  });

  // Regression: an MO the engine refused as invalid was answered 400, which smsbox retries as its
  // http-request-retry says although no retry can change it.
  it('answers 200 with an empty body (no reply SMS) for an MO the engine can never take, and fails one it may take later', async () => {
    const handle = (error: Error) =>
      route.handle(new Request(`http://x/channels/kannel-de/mo?sig=${sig}&from=12&to=Acme&text=hi`), {
        clock: systemClock,
        report: async () => {},
        inbound: async () => {
          throw error;
        },
      });
    const dropped = await handle(
      new SpillwayError('validation_failed', 'Invalid incoming message', [{ path: 'phoneNumber', message: 'not a valid phone number' }]),
    );
    expect(dropped.status).toBe(200);
    expect(await dropped.text()).toBe('');
    await expect(handle(new SpillwayError('not_found', 'no account owns the address "Acme"'))).rejects.toMatchObject({ code: 'not_found' });
  });

  // The queries are what Kannel 1.4.5's smsbox sent for these MOs (%b is url-encoded with + for 0x20).
  it.each([
    ['UCS-2 as UTF-16BE', 'text=%04%1F%04%40%048%042%045%04B%00+%27%13&coding=2&charset=UTF-16BE', 'Привет ✓'],
    ['UCS-2 with bytes that look like spaces', 'text=++%00+%00+%04%0D%00A&coding=2&charset=UTF-16BE', '†  ЍA'],
    ['UCS-2 recoded to UTF-8 by mo-recode', 'text=%D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82+%E2%9C%93&coding=0&charset=UTF-8', 'Привет ✓'],
    ['7-bit (UTF-8 inside Kannel), spaces kept', 'text=Hello++two+++spaces+%2B&coding=0&charset=UTF-8', 'Hello  two   spaces +'],
    ['a charset TextDecoder knows', 'text=%CF%F0%E8%E2%E5%F2&coding=1&charset=windows-1251', 'Привет'],
    ['ISO-8859-1', 'text=Gr%FC%DFe&coding=0&charset=ISO-8859-1', 'Grüße'],
    ['UCS-2 named the way WHATWG reads as little-endian', 'text=%04%1F%00%21&coding=2&charset=UCS-2', 'П!'],
    ['a charset TextDecoder does not know, with coding 2', 'text=%04%1F%00%21&coding=2&charset=UCS2-BIG', 'П!'],
    ['8-bit data (not a charset): UTF-8 as before', 'text=%C3%A4%FF&coding=1&charset=8-BIT', 'ä\uFFFD'],
    ['an older MO URL (%a, no coding or charset): UTF-8 as before', 'from=1&to=Acme&text=Gr%C3%BC%C3%9Fe+%E2%82%AC', 'Grüße €'],
  ])('decodes %s', async (_, query, text) => {
    const q = query.startsWith('from=') ? query : `from=4915100000012&to=Acme&${query}`;
    expect(await call(q)).toEqual({ status: 200, text });
  });
});
