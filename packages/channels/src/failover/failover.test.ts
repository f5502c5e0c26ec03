import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { ChannelContext, ChannelDriver, DriverHealthEvent, InboundReport, OutboundAttempt, Receipt } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { createSimulator } from '../simulator/simulator.ts';
import { createWebhookDriver } from '../webhook/webhook.ts';
import { createFailoverDriver } from './failover.ts';

const secret = 'whsec_' + Buffer.from('spillway-failover-test-key-0123').toString('base64');

// Two providers on one local server: /primary and /backup, each told how to answer.
type Mode = 'ok' | 'throttle' | 'down';
const modes: Record<string, Mode> = { primary: 'ok', backup: 'ok' };
const hits: { provider: string; key: string; status: number }[] = [];
let base = '';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const provider = (req.url ?? '/').slice(1);
    const mode = modes[provider] ?? 'down';
    hits.push({ provider, key: String(req.headers['idempotency-key']), status: mode === 'ok' ? 202 : mode === 'throttle' ? 429 : 503 });
    if (mode === 'throttle')
      return void res.writeHead(429, { 'retry-after': '5', 'content-type': 'application/json' }).end('{"error":"slow down"}');
    if (mode === 'down') return void res.writeHead(503).end();
    res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `${provider}-${hits.length}` }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  vi.useRealTimers();
});

runChannelDriverContract({
  name: 'failover (a provider that is down, then the simulator)',
  create: () =>
    createFailoverDriver({
      drivers: [
        createWebhookDriver({ name: 'down', url: 'http://127.0.0.1:9/send', secret }),
        createSimulator({ latencyMs: 200, channels: ['sms'] }),
      ],
    }),
  deliverableRecipient: '99900000000',
  failures: [
    { name: 'the recipient is undeliverable (not retried on the next provider)', failure: 'undeliverable', recipient: '99900000002' },
    {
      name: 'every provider is down',
      failure: 'temporary',
      create: () => createFailoverDriver({ drivers: [createWebhookDriver({ name: 'down', url: 'http://127.0.0.1:9/send', secret })] }),
    },
  ],
});

describe('failover driver', () => {
  let n = 0;
  const attempt = (): OutboundAttempt => {
    const messageId = ++n;
    return {
      messageId,
      accountId: 1,
      step: 0,
      try: 0,
      idempotencyKey: `${messageId}:0:0`,
      partsCount: 1,
      channel: 'sms',
      type: 'sms',
      from: 'Shop',
      to: '4915112345678',
      text: 'hi',
      ttl: 60,
    };
  };

  it('moves to the backup when the primary throttles, skips it once its breaker opens, and closes the breaker when it recovers', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const ctx = { clock: createFakeClock(), report: async () => {} };
    const failover = createFailoverDriver({
      drivers: [
        createWebhookDriver({ name: 'primary', url: `${base}/primary`, secret }),
        createWebhookDriver({ name: 'backup', url: `${base}/backup`, secret }),
      ],
      consecutiveFailures: 3,
      halfOpenAfterMs: 30_000,
    });
    const events: DriverHealthEvent[] = [];
    failover.watch!((e) => events.push(e));
    const sent: OutboundAttempt[] = [];
    const send = async () => {
      const a = attempt();
      sent.push(a);
      return failover.send(a, ctx);
    };

    expect(await send()).toMatchObject({ outcome: 'accepted', driver: 'primary', providerMessageId: expect.stringMatching(/^primary-/) });

    modes.primary = 'throttle';
    for (let i = 0; i < 3; i++) expect(await send()).toMatchObject({ outcome: 'accepted', driver: 'backup' });
    expect(failover.providerStates()).toEqual({ primary: 'open', backup: 'closed' });

    // Open: the primary, now down, is not even asked.
    modes.primary = 'down';
    const primaryHits = hits.filter((h) => h.provider === 'primary').length;
    expect(await send()).toMatchObject({ outcome: 'accepted', driver: 'backup' });
    expect(hits.filter((h) => h.provider === 'primary')).toHaveLength(primaryHits);

    // After halfOpenAfter, one trial send goes to the recovered primary and closes its breaker.
    modes.primary = 'ok';
    vi.setSystemTime(Date.UTC(2026, 0, 1) + 30_001);
    expect(await send()).toMatchObject({ outcome: 'accepted', driver: 'primary' });
    expect(failover.providerStates()).toEqual({ primary: 'closed', backup: 'closed' });
    // Its watchers were told each change of the primary's breaker, and why.
    const about = { type: 'breaker', driver: 'failover', provider: 'primary', channels: ['sms'] };
    expect(events).toEqual([
      { ...about, state: 'open', reason: expect.stringMatching(/^3 failed sends in a row, the last: .*429.*; skipped for 30000 ms$/) },
      { ...about, state: 'half-open', reason: 'open for 30000 ms: one trial send' },
      { ...about, state: 'closed', reason: 'the trial send went through' },
    ]);

    // Nothing lost and nothing carried twice: each attempt was accepted by exactly one provider.
    expect(sent.map((a) => hits.filter((h) => h.key === a.idempotencyKey && h.status === 202).length)).toEqual([1, 1, 1, 1, 1, 1]);
    await failover.close!();
  });

  it('answers throttled with the shortest Retry-After when every provider throttles', async () => {
    modes.primary = 'throttle';
    modes.backup = 'throttle';
    const failover = createFailoverDriver({
      drivers: [
        createWebhookDriver({ name: 'primary', url: `${base}/primary`, secret }),
        createWebhookDriver({ name: 'backup', url: `${base}/backup`, secret }),
      ],
    });
    expect(await failover.send(attempt(), { clock: createFakeClock(), report: async () => {} })).toMatchObject({
      outcome: 'failed',
      failure: 'throttled',
      retryAfter: 5,
      error: expect.stringMatching(/primary: .*; backup: /),
    });
    modes.primary = 'ok';
    modes.backup = 'ok';
  });

  it('exposes its members (whose routes are mounted under their own names) and checks each of them', async () => {
    const failover = createFailoverDriver({
      drivers: [createWebhookDriver({ name: 'primary', url: `${base}/primary`, secret }), createSimulator()],
    });
    expect(failover.members.map((m) => m.name)).toEqual(['primary', 'simulator']);
    const check = await failover.check!();
    expect(check.ok).toBe(true);
    expect(check.detail).toContain('primary [closed]: ok');
  });

  it('has each member report its receipts and incoming messages under its own name, kept through a nested failover', async () => {
    const seen: { receipts: Receipt[]; inbound: InboundReport[] } = { receipts: [], inbound: [] };
    const ctx: ChannelContext = {
      clock: createFakeClock(),
      report: async (r) => void seen.receipts.push(r),
      inbound: async (m) => void seen.inbound.push(m),
    };
    const contexts = new Map<string, ChannelContext>();
    const member = (name: string): ChannelDriver => ({
      name,
      channels: ['sms'],
      send: async () => ({ outcome: 'accepted' }),
      start: async (c) => void contexts.set(name, c),
    });
    const inner = createFailoverDriver({ name: 'inner', drivers: [member('smsc'), member('kannel')] });
    const outer = createFailoverDriver({ name: 'outer', drivers: [inner, member('backup')] });
    await outer.start!(ctx);
    await contexts.get('smsc')!.report({ providerMessageId: 'p-1', outcome: 'delivered' });
    await contexts.get('backup')!.report({ messageId: 1, step: 0, outcome: 'delivered' });
    await contexts.get('kannel')!.inbound!({ channel: 'sms', phoneNumber: '4915100000001', alphaName: 'Shop', text: 'STOP' });
    expect(seen.receipts).toEqual([
      { providerMessageId: 'p-1', outcome: 'delivered', driver: 'smsc' },
      { messageId: 1, step: 0, outcome: 'delivered', driver: 'backup' },
    ]);
    expect(seen.inbound).toEqual([expect.objectContaining({ alphaName: 'Shop', driver: 'kannel' })]);
    // The acceptance names the provider that took it, however deep.
    expect(await outer.send(attempt(), ctx)).toMatchObject({ outcome: 'accepted', driver: 'smsc' });
  });
});
