import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { ChannelDriver, Storage } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

describe('a send bounded by sendTimeoutMs', () => {
  it('fails the step temporarily when the driver has not answered in time, not a moment before', async () => {
    storage = await testStorage();
    const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
    let handOver!: () => void;
    const handedOver = new Promise<void>((resolve) => (handOver = resolve));
    const driver: ChannelDriver = {
      name: 'silent',
      channels: ['sms'],
      // Never answers.
      send: () => {
        handOver();
        return new Promise(() => undefined);
      },
    };
    const engine = createEngine({ storage, channels: [driver], hasher: createNodeHasher({ N: 2 ** 12 }), clock, sendTimeoutMs: 5_000 });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const sent = await engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '79991234567', type: 'sms', text: 'hi' }] });
    const id = sent.messages[0]!.messageId;

    // drain() waits for the send in flight: it returns once the timeout has failed it.
    let drained = false;
    const draining = engine.drain().then(() => (drained = true));
    await handedOver;
    await clock.advance(4_999);
    // Turns of the event loop, not time: a round that had a result to apply would have applied it.
    for (let turn = 0; turn < 50; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    expect((await storage.history(id)).filter((h) => h.status === 'Failed')).toEqual([]);

    await clock.advance(1);
    await draining;
    const failed = (await storage.history(id)).find((h) => h.error?.includes('no answer from silent within 5000 ms'));
    expect(failed).toMatchObject({ step: 0, channel: 'sms' });
  });

  it('fails the step temporarily, with the error, when the driver throws rather than answering a promise', async () => {
    storage = await testStorage();
    const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
    const driver: ChannelDriver = {
      name: 'broken',
      channels: ['sms'],
      send: () => {
        throw new Error('socket closed');
      },
    };
    const engine = createEngine({ storage, channels: [driver], hasher: createNodeHasher({ N: 2 ** 12 }), clock, sendTimeoutMs: 5_000 });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const sent = await engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '79991234567', type: 'sms', text: 'hi' }] });
    const id = sent.messages[0]!.messageId;
    await engine.drain();
    expect((await storage.history(id)).find((h) => h.status === 'Failed')).toMatchObject({
      step: 0,
      error: expect.stringContaining('socket closed'),
    });
    // Nothing waits on the clock for the failed send.
    expect((await storage.history(id)).some((h) => h.error?.includes('no answer'))).toBe(false);
  });

  it('starts a driver before its first send, once, and fails the step temporarily, with the error, when the start fails', async () => {
    storage = await testStorage();
    const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
    const calls: string[] = [];
    const errors: unknown[] = [];
    const driver: ChannelDriver = {
      name: 'unbound',
      channels: ['sms'],
      start: () => {
        calls.push('start');
        return Promise.reject(new Error('bind refused'));
      },
      send: () => {
        calls.push('send');
        return Promise.resolve({ outcome: 'accepted' });
      },
    };
    const engine = createEngine({
      storage,
      channels: [driver],
      hasher: createNodeHasher({ N: 2 ** 12 }),
      clock,
      onError: (error) => errors.push(error),
    });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const sent = await engine.messages.send(account.id, {
      messages: [
        { from: 'Shop', to: '79991234567', type: 'sms', text: 'one' },
        { from: 'Shop', to: '79991234568', type: 'sms', text: 'two' },
      ],
    });
    // Not started: the first send of the rounds drain() runs starts the driver.
    await engine.drain();
    expect(calls.filter((c) => c === 'start')).toEqual(['start']);
    expect(String(errors[0])).toContain('bind refused');
    // The send behind the failed start fails its step; the other, dispatched once the driver counts as started, is sent.
    const failed = await Promise.all(
      sent.messages.map(async (m) => (await storage!.history(m.messageId)).find((h) => h.status === 'Failed')),
    );
    expect(failed.filter(Boolean)).toEqual([expect.objectContaining({ step: 0, error: expect.stringContaining('bind refused') })]);
    expect(calls.filter((c) => c === 'send')).toHaveLength(1);
  });
});
