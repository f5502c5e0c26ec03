import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from '@spillway/core';
import type { ChannelDriver, Storage } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

// A round applies the results of at most a batch of messages, however many gathered meanwhile,
// so that its commit never holds the write lock for long (an ingest of the HTTP thread waits for
// it); and the early reports of a send still with its driver hold up none of the results behind.

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const hasher = createNodeHasher({ N: 2 ** 12 });

describe("a round's batch of results", () => {
  it('holds the results of one batch of messages (one here), when the results of more gathered meanwhile', async () => {
    const inner = await testStorage();
    cleanups.push(() => inner.close());
    const updates: number[] = [];
    const storage: Storage = {
      ...inner,
      async commit(commit) {
        if (commit.updates.length > 0) updates.push(commit.updates.length);
        return inner.commit(commit);
      },
    };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let sent = 0;
    // Answers every send at once when the gate opens: three results gather before any round.
    const driver: ChannelDriver = {
      name: 'gated',
      channels: ['sms'],
      async send() {
        sent++;
        await gate;
        return { outcome: 'accepted' };
      },
    };
    const engine = createEngine({ storage, channels: [driver], hasher, batchSize: 1 });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    await engine.messages.send(account.id, {
      messages: ['79990000001', '79990000002', '79990000003'].map((to) => ({ from: 'Shop', to, text: 'Hello', type: 'sms' as const })),
    });
    engine.start();
    cleanups.push(() => engine.stop());
    await vi.waitFor(() => expect(sent).toBe(3), { timeout: 5_000 });
    open();
    // Each message's result committed once, a round each (they then wait for delivery reports).
    await vi.waitFor(() => expect(updates.reduce((a, b) => a + b, 0)).toBe(3), { timeout: 5_000 });
    expect(updates).toEqual([1, 1, 1]);
  });

  it('does not count the events of a send still with its driver: the results behind them are applied meanwhile', async () => {
    const storage = await testStorage();
    cleanups.push(() => storage.close());
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Reports the delivery of a number ending in 01 before its send has answered, and answers it
    // only once the gate opens; every other number is accepted and delivered at once.
    const driver: ChannelDriver = {
      name: 'early-reports',
      channels: ['sms'],
      async send(attempt, ctx) {
        const slow = attempt.to.endsWith('01');
        if (slow) void ctx.report({ messageId: attempt.messageId, step: attempt.step, outcome: 'delivered' });
        else setImmediate(() => void ctx.report({ messageId: attempt.messageId, step: attempt.step, outcome: 'delivered' }));
        if (slow) await gate;
        return { outcome: 'accepted' };
      },
    };
    // One message a round: the slow message's early report alone would fill a round's batch.
    const engine = createEngine({ storage, channels: [driver], hasher, batchSize: 1 });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const res = await engine.messages.send(account.id, {
      messages: ['79990000001', '79990000002'].map((to) => ({ from: 'Shop', to, text: 'Hello', type: 'sms' as const })),
    });
    const [slow, quick] = res.messages.map((m) => m.messageId) as [number, number];
    const statusOf = async (id: number) => (await engine.messages.status(account.id, id)).deliverystatus;
    engine.start();
    cleanups.push(() => engine.stop());
    await vi.waitFor(async () => expect(await statusOf(quick)).toBe('delivered'), { timeout: 5_000 });
    expect(await statusOf(slow)).not.toBe('delivered');
    open();
    await vi.waitFor(async () => expect(await statusOf(slow)).toBe('delivered'), { timeout: 5_000 });
  });
});
