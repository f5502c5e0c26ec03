import { afterEach, describe, expect, it } from 'vitest';
import { SpillwayError } from '@spillway/core';
import type { ChannelDriver, Storage } from '@spillway/core';
import { engineFixture } from '../support/engine-fixture.ts';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const sms = (to: string, extra: Record<string, unknown> = {}) => ({ from: 'Shop', to, text: 'Hello', type: 'sms' as const, ...extra });

describe('messaging engine with a fake clock', () => {
  it('accepts a message, sends it, and is delivered only when the receipt arrives', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000')] });
    const id = res.messages[0]!.messageId;
    expect(res.messages[0]).toMatchObject({ from: 'Shop', to: '99900000000', partsCount: 1, type: 'sms', customerMessageId: null });
    await f.engine.drain();
    expect((await f.engine.messages.status(f.account.id, id)).deliverystatus).toBe('processing');
    await f.advance(200);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.extendedStatuses.map((s) => s.status)).toEqual(['Sent', 'Delivered']);
    expect(status.cost).toBeGreaterThan(0);
  });

  it('falls back to SMS when the chat-app attempt is undeliverable (test number 01)', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, {
      messages: [{ from: 'Shop', to: '99900000001', text: 'Hi', type: 'chatapp_service', fallbacks: [sms('99900000001')] }],
    });
    const id = res.messages[0]!.messageId;
    await f.advance(200);
    await f.advance(200);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.fallbacks?.[0]?.deliverystatus).toBe('delivered');
    expect(status.extendedStatuses.map((s) => [s.status, s.channel])).toEqual([
      ['Sent', 'chatapp'],
      ['Failed', 'chatapp'],
      ['Sent', 'sms'],
      ['Delivered', 'sms'],
    ]);
  });

  it('expires an attempt at its ttl and falls back (test number 04), ending undeliverable', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, {
      messages: [{ ...sms('99900000004'), ttl: '60', fallbacks: [{ ...sms('99900000004'), ttl: 30 }] }],
    });
    const id = res.messages[0]!.messageId;
    await f.advance(59_000);
    expect((await f.engine.messages.status(f.account.id, id)).fallbacks?.[0]?.deliverystatus).toBeNull();
    await f.advance(1_000);
    expect((await f.engine.messages.status(f.account.id, id)).fallbacks?.[0]?.deliverystatus).toBe('processing');
    await f.advance(30_000);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('undeliverable');
    expect(status.extendedStatuses.map((s) => s.status)).toEqual(['Sent', 'Expired', 'Sent', 'Expired']);
  });

  it('ends in permanenterror on test number 03', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, { messages: [sms('99900000003')] });
    await f.advance(200);
    expect((await f.engine.messages.status(f.account.id, res.messages[0]!.messageId)).deliverystatus).toBe('permanenterror');
  });

  it('keeps a scheduled message scheduled until its time, and it can be cancelled with a refund', async () => {
    f = await engineFixture();
    const at = new Date(f.clock.now() + 3_600_000).toISOString();
    const res = await f.engine.messages.send(f.account.id, {
      messages: [sms('99900000000', { scheduledAt: at }), sms('99900000000', { scheduledAt: at })],
    });
    const [a, b] = res.messages.map((m) => m.messageId) as [number, number];
    const before = (await f.engine.accounts.balance(f.account.id)).balance;
    await f.advance(3_599_000);
    expect((await f.engine.messages.status(f.account.id, a)).deliverystatus).toBe('scheduled');
    const cancelled = await f.engine.messages.update(f.account.id, b, { cancel: true });
    expect(cancelled.deliverystatus).toBe('cancelled');
    expect((await f.engine.accounts.balance(f.account.id)).balance).toBeGreaterThan(before);
    await f.advance(1_000);
    await f.advance(200);
    expect((await f.engine.messages.status(f.account.id, a)).deliverystatus).toBe('delivered');
    expect((await f.engine.messages.status(f.account.id, b)).deliverystatus).toBe('cancelled');
    await expect(f.engine.messages.update(f.account.id, a, { cancel: true })).rejects.toMatchObject({ status: 409 });
  });

  it('changes the text of a scheduled message and charges the difference', async () => {
    f = await engineFixture();
    const at = new Date(f.clock.now() + 60_000).toISOString();
    const res = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000', { scheduledAt: at })] });
    const id = res.messages[0]!.messageId;
    const updated = await f.engine.messages.update(f.account.id, id, { text: 'x'.repeat(200) });
    expect(updated.partsCount).toBe(2);
    expect(updated.cost).toBeCloseTo(2 * (await f.engine.messages.status(f.account.id, id)).rate);
  });

  it('replays an identical customerMessageId and rejects reuse with other content', async () => {
    f = await engineFixture();
    const first = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000', { customerMessageId: 'order-1' })] });
    const again = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000', { customerMessageId: 'order-1' })] });
    expect(again).toEqual(first);
    const err = await f.engine.messages
      .send(f.account.id, { messages: [sms('99900000000', { customerMessageId: 'order-1', text: 'Other' })] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpillwayError);
    expect((err as SpillwayError).status).toBe(409);
    expect((err as SpillwayError).details?.[0]?.path).toBe('messages[0].customerMessageId');
  });

  it('rejects a sender that is not an approved alpha-name, storing nothing', async () => {
    f = await engineFixture();
    const err = await f.engine.messages
      .send(f.account.id, { messages: [sms('99900000000'), { ...sms('99900000000'), from: 'Stranger' }] })
      .catch((e: unknown) => e);
    expect((err as SpillwayError).status).toBe(400);
    expect((err as SpillwayError).details).toEqual([expect.objectContaining({ path: 'messages[1].from' })]);
    expect((await f.engine.accounts.walletHistory(f.account.id, {})).items.filter((t) => t.kind === 'charge')).toEqual([]);
  });

  it('refuses a request the balance cannot cover with 402, storing nothing', async () => {
    f = await engineFixture({ balance: 0.01 });
    const err = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000')] }).catch((e: unknown) => e);
    expect((err as SpillwayError).status).toBe(402);
  });

  it("hides other accounts' messages as not found", async () => {
    f = await engineFixture();
    const other = await f.engine.accounts.create({ login: 'other', password: 'another password' });
    const res = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000')] });
    await expect(f.engine.messages.status(other.id, res.messages[0]!.messageId)).rejects.toMatchObject({ status: 404 });
  });

  it('resumes after a restart: a new engine over the same storage finishes the work', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, { messages: [sms('99900000004', { ttl: 10 }), sms('99900000000')] });
    // The first engine dies before sending anything; the outbox holds the sends.
    const { createEngine } = await import('@spillway/core');
    const { createNodeHasher } = await import('@spillway/http');
    const second = createEngine({ storage: f.storage, channels: [f.simulator], hasher: createNodeHasher(), clock: f.clock });
    await second.drain();
    await f.clock.advance(10_000);
    await second.drain();
    const [a, b] = res.messages.map((m) => m.messageId) as [number, number];
    expect((await second.messages.status(f.account.id, a)).deliverystatus).toBe('undeliverable');
    expect((await second.messages.status(f.account.id, b)).deliverystatus).toBe('delivered');
  });
});

describe('retries on the same channel', () => {
  it('retries a throttled fallback after its Retry-After and charges it once', async () => {
    f = await engineFixture();
    const { createEngine } = await import('@spillway/core');
    const { createNodeHasher } = await import('@spillway/http');
    const { createSimulator } = await import('@spillway/channels');
    let smsSends = 0;
    // An SMS gateway that throttles the first send, then delivers.
    const flakySms: ChannelDriver = {
      name: 'flaky-sms',
      channels: ['sms'],
      async send(attempt, ctx) {
        smsSends += 1;
        if (smsSends === 1) return { outcome: 'failed', failure: 'throttled', error: 'slow down', retryAfter: 30 };
        ctx.clock.setTimeout(() => void ctx.report({ messageId: attempt.messageId, step: attempt.step, outcome: 'delivered' }), 100);
        return { outcome: 'accepted' };
      },
    };
    const engine = createEngine({
      storage: f.storage,
      channels: [createSimulator({ latencyMs: 100, channels: ['chatapp'] }), flakySms],
      hasher: createNodeHasher(),
      clock: f.clock,
    });
    const res = await engine.messages.send(f.account.id, {
      messages: [{ from: 'Shop', to: '99900000002', type: 'chatapp_service', text: 'Hi', fallbacks: [sms('99900000000')] }],
    });
    const id = res.messages[0]!.messageId;
    const step = async (ms: number) => {
      await engine.drain();
      await f.clock.advance(ms);
      await engine.drain();
    };
    await step(100); // chat-app undeliverable → SMS fallback throttled
    expect(smsSends).toBe(1);
    await step(29_000);
    expect(smsSends).toBe(1);
    await step(1_000); // Retry-After elapsed: sent again
    expect(smsSends).toBe(2);
    await step(100);
    const status = await engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    const charges = (await engine.accounts.walletHistory(f.account.id, { kinds: ['charge'] })).items.filter((t) => t.messageId === id);
    expect(charges).toHaveLength(2); // the primary at acceptance, the fallback once
  });
});

describe('PATCH of a scheduled message', () => {
  const later = () => new Date(f.clock.now() + 3_600_000).toISOString();

  it('adds a fallback that is then used (the machine starts from the new number of attempts)', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, {
      messages: [{ from: 'Shop', to: '99900000002', type: 'chatapp_service', text: 'Hi', scheduledAt: later() }],
    });
    const id = res.messages[0]!.messageId;
    await f.engine.messages.update(f.account.id, id, { fallbacks: [sms('99900000001')] });
    await f.advance(3_600_000);
    await f.advance(200);
    await f.advance(200);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.fallbacks?.[0]?.deliverystatus).toBe('delivered');
  });

  it('removes fallbacks: the message ends with the primary outcome', async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, {
      messages: [
        {
          from: 'Shop',
          to: '99900000002',
          type: 'chatapp_service',
          text: 'Hi',
          scheduledAt: later(),
          fallbacks: [sms('99900000002'), sms('99900000002')],
        },
      ],
    });
    const id = res.messages[0]!.messageId;
    await f.engine.messages.update(f.account.id, id, { fallbacks: [] });
    await f.advance(3_600_000);
    await f.advance(200);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('undeliverable');
    expect(status.fallbacks).toBeUndefined();
    expect(status.extendedStatuses.map((e) => e.status)).toEqual(['Sent', 'Failed']);
  });

  it('moves dtExpire with scheduledAt and ttl', async () => {
    f = await engineFixture();
    const at = f.clock.now() + 3_600_000;
    const res = await f.engine.messages.send(f.account.id, {
      messages: [sms('99900000000', { scheduledAt: new Date(at).toISOString(), ttl: 600 })],
    });
    const id = res.messages[0]!.messageId;
    expect(res.messages[0]!.dtExpire).toBe(new Date(at + 600_000).toISOString());
    const moved = await f.engine.messages.update(f.account.id, id, { scheduledAt: new Date(at + 3_600_000).toISOString() });
    expect(moved.dtExpire).toBe(new Date(at + 3_600_000 + 600_000).toISOString());
    const shorter = await f.engine.messages.update(f.account.id, id, { ttl: 60 });
    expect(shorter.dtExpire).toBe(new Date(at + 3_600_000 + 60_000).toISOString());
    expect((await f.engine.messages.update(f.account.id, id, { ttl: null })).dtExpire).toBeNull();
  });

  it("reports the patch's own paths and refuses cancel mixed with changes", async () => {
    f = await engineFixture();
    const res = await f.engine.messages.send(f.account.id, { messages: [sms('99900000000', { scheduledAt: later() })] });
    const id = res.messages[0]!.messageId;
    const bad = (await f.engine.messages.update(f.account.id, id, { text: '' }).catch((e: unknown) => e)) as SpillwayError;
    expect(bad.status).toBe(400);
    expect(bad.details?.map((d) => d.path)).toEqual(['text']);
    const mixed = (await f.engine.messages.update(f.account.id, id, { cancel: true, text: 'x' }).catch((e: unknown) => e)) as SpillwayError;
    expect(mixed.status).toBe(400);
    expect((await f.engine.messages.status(f.account.id, id)).deliverystatus).toBe('scheduled');
  });
});

describe('validation lists every bad item', () => {
  it('reports an unapproved sender together with schema errors of other items', async () => {
    f = await engineFixture();
    const err = (await f.engine.messages
      .send(f.account.id, {
        messages: [
          { ...sms('99900000000'), from: 'Nope' },
          // @ts-expect-error no text, on purpose: the engine lists it with the other errors
          { from: 'Shop', to: '99900000000', type: 'sms' },
          { ...sms('99900000000'), fallbacks: [{ ...sms('1'), from: 'Nope' }] },
        ],
      })
      .catch((e: unknown) => e)) as SpillwayError;
    expect(err.status).toBe(400);
    expect(err.details?.map((d) => d.path)).toEqual([
      'messages[0].from',
      'messages[1].text',
      'messages[2].fallbacks[0].to',
      'messages[2].fallbacks[0].from',
    ]);
  });
});

describe('a cancellation racing the worker', () => {
  it('never both sends and refunds a message', async () => {
    f = await engineFixture({ balance: 1000 });
    const at = f.clock.now() + 60_000;
    const res = await f.engine.messages.send(f.account.id, {
      messages: Array.from({ length: 40 }, () => sms('99900000000', { scheduledAt: new Date(at).toISOString() })),
    });
    await f.clock.set(at);
    // The worker takes the due messages while cancellations arrive for every one of them.
    const outcomes = await Promise.all([
      f.engine.drain(),
      ...res.messages.map((m) =>
        f.engine.messages.update(f.account.id, m.messageId, { cancel: true }).then(
          () => 'cancelled',
          () => 'refused',
        ),
      ),
    ]);
    await f.engine.drain();
    const sent = new Set(f.simulator.sent.map((a) => a.messageId));
    const refunds = (await f.engine.accounts.walletHistory(f.account.id, { kinds: ['refund'], pageSize: 500 })).items;
    for (const [i, m] of res.messages.entries()) {
      const status = (await f.engine.messages.status(f.account.id, m.messageId)).deliverystatus;
      const refunded = refunds.some((t) => t.messageId === m.messageId);
      expect(sent.has(m.messageId) && refunded, `message ${m.messageId} was sent and refunded`).toBe(false);
      expect(status === 'cancelled').toBe(refunded);
      expect(outcomes[i + 1] === 'cancelled').toBe(refunded);
    }
  });
});

describe('two workers on one message', () => {
  it('redoes a step whose message another worker moved meanwhile, losing nothing and writing nothing twice', async () => {
    f = await engineFixture();
    const { createEngine } = await import('@spillway/core');
    const { createNodeHasher } = await import('@spillway/http');
    let interfere = false;
    // Another worker commits a step of the same message right before this worker's commit.
    const storage: Storage = {
      ...f.storage,
      async commit(commit) {
        if (interfere && commit.updates.length > 0) {
          interfere = false;
          const current = (await f.storage.getMessage(commit.updates[0]!.id))!;
          await f.storage.commit({
            at: commit.at,
            owner: 'another worker',
            updates: [
              {
                id: current.id,
                version: current.version,
                status: current.status,
                snapshot: current.snapshot,
                work: current.work,
                history: [],
                attempt: 'keep',
              },
            ],
            providerIds: [],
            receipts: [],
          });
        }
        return f.storage.commit(commit);
      },
    };
    const engine = createEngine({ storage, channels: [f.simulator], hasher: createNodeHasher(), clock: f.clock });
    const res = await engine.messages.send(f.account.id, { messages: [sms('99900000000')] });
    const id = res.messages[0]!.messageId;
    await engine.drain();
    interfere = true;
    await f.clock.advance(200);
    await engine.drain();
    expect(interfere).toBe(false);
    const status = await engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.extendedStatuses.map((s) => s.status)).toEqual(['Sent', 'Delivered']);
  });
});
