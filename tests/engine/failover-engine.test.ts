import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from '@spillway/core';
import type { ChannelContext, ChannelDriver } from '@spillway/core';
import { createFailoverDriver, createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { engineFixture } from '../support/engine-fixture.ts';

let f: Awaited<ReturnType<typeof engineFixture>> | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await f?.close();
  f = undefined;
});

type Mode = 'ok' | 'throttle' | 'down';

/** An SMS provider at the edge: throttles, is down, or delivers (through a simulator on the engine's clock). */
function provider(name: string) {
  const state = { mode: 'ok' as Mode, sends: 0, accepted: [] as number[] };
  const delivering = createSimulator({ latencyMs: 100, channels: ['sms'] });
  const driver: ChannelDriver = {
    name,
    channels: ['sms'],
    async send(attempt, ctx) {
      state.sends++;
      if (state.mode === 'throttle') return { outcome: 'failed', failure: 'throttled', error: `${name}: slow down`, retryAfter: 5 };
      if (state.mode === 'down') throw new Error(`${name}: connection refused`);
      state.accepted.push(attempt.messageId);
      return delivering.send(attempt, ctx);
    },
  };
  return { driver, state };
}

describe('failover between SMS providers in the engine', () => {
  it('goes through the backup while the primary throttles and is down, back to the primary once it recovers; nothing lost or charged twice', async () => {
    f = await engineFixture({ balance: 100 });
    // cockatiel times its half-open delay with Date.now(): keep Date on the engine's fake clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(f.clock.now());
    const primary = provider('primary');
    const backup = provider('backup');
    const failover = createFailoverDriver({
      name: 'sms-failover',
      drivers: [primary.driver, backup.driver],
      consecutiveFailures: 3,
      halfOpenAfterMs: 30_000,
    });
    const engine = createEngine({ storage: f.storage, channels: [failover], hasher: createNodeHasher(), clock: f.clock });
    const step = async (ms: number) => {
      await engine.drain();
      await f!.clock.advance(ms);
      vi.setSystemTime(f!.clock.now());
      await engine.drain();
    };
    const ids: number[] = [];
    const send = async (n: number) => {
      const res = await engine.messages.send(f!.account.id, {
        messages: Array.from({ length: n }, (_, i) => ({
          from: 'Shop',
          to: `4915100000${300 + ids.length + i}`,
          type: 'sms' as const,
          text: 'Your code: 1234',
        })),
      });
      ids.push(...res.messages.map((m) => m.messageId));
      await step(0);
    };

    await send(1);
    expect(primary.state.accepted).toEqual([ids[0]]);

    primary.state.mode = 'throttle';
    await send(3);
    expect(backup.state.accepted).toEqual(ids.slice(1, 4));
    expect(failover.providerStates()).toEqual({ primary: 'open', backup: 'closed' });

    // Open: the primary, now down, is not asked at all.
    primary.state.mode = 'down';
    const asked = primary.state.sends;
    await send(2);
    expect(primary.state.sends).toBe(asked);
    expect(backup.state.accepted).toEqual(ids.slice(1, 6));

    // Recovered, and the breaker's half-open delay is over: the next message is the primary's again.
    primary.state.mode = 'ok';
    await step(30_001);
    await send(1);
    expect(primary.state.accepted).toEqual([ids[0], ids[6]]);
    expect(failover.providerStates()).toEqual({ primary: 'closed', backup: 'closed' });

    await step(200);
    for (const id of ids) expect((await engine.messages.status(f.account.id, id)).deliverystatus).toBe('delivered');
    // The status record names the provider that carried each attempt, not the failover.
    const carriers = await Promise.all(
      ids.map(async (id) => (await engine.messages.status(f!.account.id, id)).extendedStatuses.find((s) => s.status === 'Sent')?.driver),
    );
    expect(carriers).toEqual(ids.map((id) => (primary.state.accepted.includes(id) ? 'primary' : 'backup')));
    expect(carriers.filter((c) => c === 'backup')).toHaveLength(5);
    // Each message was carried by exactly one provider and charged once.
    expect([...primary.state.accepted, ...backup.state.accepted].sort()).toEqual([...ids].sort());
    const charges = (await engine.accounts.walletHistory(f.account.id, { kinds: ['charge'] })).items;
    expect(ids.map((id) => charges.filter((c) => c.messageId === id).length)).toEqual(ids.map(() => 1));
  });
});

/** A provider on the engine's clock that reports its receipts itself: by its own id, by message and step, or by its id before it answers the send. */
function reportingProvider(name: string, reports: 'by-id' | 'by-attempt' | 'before-answer') {
  let next = 1;
  const state = { down: false, ctx: null as ChannelContext | null };
  const driver: ChannelDriver = {
    name,
    channels: ['sms'],
    async start(ctx) {
      state.ctx = ctx;
    },
    async send(attempt, ctx) {
      if (state.down) throw new Error(`${name}: connection refused`);
      const providerMessageId = `${name}-${next++}`;
      if (reports === 'before-answer') {
        // A fast provider: its receipt comes before the acceptance that records the id commits.
        void ctx.report({ providerMessageId, outcome: 'delivered' });
      } else {
        const receipt =
          reports === 'by-id'
            ? { providerMessageId, outcome: 'delivered' as const }
            : { messageId: attempt.messageId, step: attempt.step, outcome: 'delivered' as const };
        ctx.clock.setTimeout(() => void ctx.report(receipt), 100);
      }
      return { outcome: 'accepted', providerMessageId };
    },
  };
  return { driver, state };
}

describe('receipts through a failover', () => {
  const history = async (engine: ReturnType<typeof createEngine>, accountId: number, id: number) =>
    (await engine.messages.status(accountId, id)).extendedStatuses.map((s) => [s.status, s.driver]);

  it('name the provider that carried the attempt, by its id, by message and step, and before the acceptance committed', async () => {
    f = await engineFixture({ balance: 100 });
    const byId = reportingProvider('by-id', 'by-id');
    const byAttempt = reportingProvider('by-attempt', 'by-attempt');
    const early = reportingProvider('early', 'before-answer');
    const failover = createFailoverDriver({ name: 'sms-failover', drivers: [byId.driver, byAttempt.driver, early.driver] });
    const engine = createEngine({ storage: f.storage, channels: [failover], hasher: createNodeHasher(), clock: f.clock });
    const send = async (to: string) => {
      const res = await engine.messages.send(f!.account.id, { messages: [{ from: 'Shop', to, type: 'sms', text: 'Your code: 1234' }] });
      await engine.drain();
      return res.messages[0]!.messageId;
    };
    const first = await send('4915100000401');
    byId.state.down = true;
    const second = await send('4915100000402');
    byAttempt.state.down = true;
    const third = await send('4915100000403');
    // The early receipt waits as an orphan until the acceptance is known (moved every few seconds).
    for (let i = 0; i < 3; i++) {
      await engine.drain();
      await f.clock.advance(1_000);
    }
    await engine.drain();
    expect(await history(engine, f.account.id, first)).toEqual([
      ['Sent', 'by-id'],
      ['Delivered', 'by-id'],
    ]);
    expect(await history(engine, f.account.id, second)).toEqual([
      ['Sent', 'by-attempt'],
      ['Delivered', 'by-attempt'],
    ]);
    expect(await history(engine, f.account.id, third)).toEqual([
      ['Sent', 'early'],
      ['Delivered', 'early'],
    ]);
  });

  it("still finds an attempt whose provider id was filed under the failover's name (accepted before the upgrade)", async () => {
    f = await engineFixture({ balance: 100 });
    // Before: attempts through a failover were filed under its name. A driver of that name stands in for it.
    let next = 77;
    const before: ChannelDriver = {
      name: 'sms-failover',
      channels: ['sms'],
      send: async () => ({ outcome: 'accepted', providerMessageId: `smsc-${next++}` }),
    };
    const old = createEngine({ storage: f.storage, channels: [before], hasher: createNodeHasher(), clock: f.clock });
    const res = await old.messages.send(f.account.id, {
      messages: ['4915100000404', '4915100000405'].map((to) => ({ from: 'Shop', to, type: 'sms' as const, text: 'hi' })),
    });
    const [inProcess, byCallback] = res.messages.map((m) => m.messageId);
    await old.drain();
    await old.stop();

    // After: the same failover, whose member reports one receipt on its new bind and the other
    // through its callback route (which names the member to the engine, as the HTTP adapter does).
    const smsc = reportingProvider('smsc', 'by-id');
    const failover = createFailoverDriver({ name: 'sms-failover', drivers: [smsc.driver] });
    const engine = createEngine({ storage: f.storage, channels: [failover], hasher: createNodeHasher(), clock: f.clock });
    engine.start();
    await engine.drain();
    const reported = smsc.state.ctx!.report({ providerMessageId: 'smsc-77', outcome: 'delivered' });
    await engine.receive({ providerMessageId: 'smsc-78', outcome: 'delivered', driver: 'smsc' }, { driver: 'sms-failover' });
    await engine.drain();
    await reported;
    await engine.stop();
    for (const id of [inProcess!, byCallback!]) {
      expect(await history(engine, f.account.id, id)).toEqual([
        ['Sent', 'sms-failover'],
        ['Delivered', 'smsc'],
      ]);
    }
  });
});
