import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import type { ChannelContext, ChannelDriver, OutboundAttempt } from '../ports/channel.ts';
import { SendDeadlines } from './send-deadlines.ts';
import { sendWithTimeout } from './send-dispatch.ts';

const MS = 1_000;

describe('SendDeadlines', () => {
  it('expires each unanswered send exactly its time after it was made, on one timer, and never an answered one', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Each op: make a send after `wait` ms, or answer the send `pick` of those made so far.
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('send' as const), wait: fc.integer({ min: 0, max: 700 }) }),
            fc.record({ op: fc.constant('answer' as const), pick: fc.nat() }),
          ),
          { maxLength: 60 },
        ),
        async (ops) => {
          const clock = createFakeClock();
          const deadlines = new SendDeadlines(clock, MS);
          const sends: Array<{ madeAt: number; answeredAt?: number; expiredAt: number[]; answer: () => void }> = [];
          for (const o of ops) {
            if (o.op === 'send') {
              await clock.advance(o.wait);
              const send = { madeAt: clock.now(), expiredAt: [] as number[], answer: () => {} };
              send.answer = deadlines.watch(() => send.expiredAt.push(clock.now()));
              sends.push(send);
            } else if (sends.length > 0) {
              const send = sends[o.pick % sends.length]!;
              send.answer();
              if (send.expiredAt.length === 0) send.answeredAt ??= clock.now();
            }
            expect(clock.pending()).toBeLessThanOrEqual(1);
          }
          await clock.advance(2 * MS);
          for (const send of sends) {
            expect(send.expiredAt).toEqual(send.answeredAt === undefined ? [send.madeAt + MS] : []);
          }
          expect(deadlines.size).toBe(0);
          expect(clock.pending()).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('stays the size of the sends in flight behind one that never answers', async () => {
    const clock = createFakeClock();
    const deadlines = new SendDeadlines(clock, MS);
    let expired = 0;
    deadlines.watch(() => expired++);
    for (let i = 0; i < 10_000; i++) deadlines.watch(() => expired++)();
    expect(deadlines.size).toBe(1);
    // The answered deadlines queued behind the silent one are let go.
    expect((deadlines as unknown as { queue: unknown[] }).queue.length).toBeLessThan(2_000);
    await clock.advance(MS);
    expect(expired).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it('lets the deadline of a send go whatever its driver does, and fails the step when it throws, rejects or answers no result', async () => {
    const clock = createFakeClock();
    const deadlines = new SendDeadlines(clock, MS);
    const attempt = { step: 2 } as OutboundAttempt;
    const ctx = {} as ChannelContext;
    const driver = (send: ChannelDriver['send']): ChannelDriver => ({ name: 'd', channels: ['sms'], send });
    const outcomes = await Promise.all([
      sendWithTimeout(
        driver(async () => ({ outcome: 'accepted', providerMessageId: 'p1' })),
        attempt,
        ctx,
        deadlines,
      ),
      sendWithTimeout(
        driver(() => {
          throw new Error('socket closed');
        }),
        attempt,
        ctx,
        deadlines,
      ),
      sendWithTimeout(
        driver(() => Promise.reject(new Error('refused'))),
        attempt,
        ctx,
        deadlines,
      ),
      // Drivers outside the types: an answer that is no result, and a result not in a promise.
      sendWithTimeout(
        driver(async () => undefined as never),
        attempt,
        ctx,
        deadlines,
      ),
      sendWithTimeout(driver((() => ({ outcome: 'accepted' })) as never), attempt, ctx, deadlines),
    ]);
    expect(outcomes).toEqual([
      { event: { type: 'ACCEPTED', step: 2 }, providerMessageId: 'p1' },
      { event: { type: 'FAILED', step: 2, failure: 'temporary' }, detail: 'Error: socket closed' },
      { event: { type: 'FAILED', step: 2, failure: 'temporary' }, detail: 'Error: refused' },
      { event: { type: 'FAILED', step: 2, failure: 'temporary' }, detail: expect.stringContaining('TypeError') },
      { event: { type: 'ACCEPTED', step: 2 } },
    ]);
    expect(deadlines.size).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});
