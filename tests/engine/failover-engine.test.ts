import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from '@spillway/core';
import type { ChannelDriver } from '@spillway/core';
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
