import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import { createRateLimiter, sharedRateLimiterBuffer } from './token-bucket.ts';

const defaults = { messaging: { perSecond: 100, burst: 150 }, data: { perSecond: 50, burst: 75 } };

describe('createRateLimiter', () => {
  it('lets a full burst through, then refuses with a retry delay', () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults });
    const limit = { perSecond: 2, burst: 3 };
    const decisions = [1, 2, 3].map(() => limiter.take('a', limit));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0]);
    const refused = limiter.take('a', limit);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 3, retryAfterSeconds: 1 });
    expect(refused.resetSeconds).toBe(2); // 3 tokens at 2/s
  });

  it('refills at perSecond from the clock', async () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults });
    const limit = { perSecond: 10, burst: 10 };
    for (let i = 0; i < 10; i++) expect(limiter.take('k', limit).allowed).toBe(true);
    expect(limiter.take('k', limit).allowed).toBe(false);
    await clock.advance(99);
    expect(limiter.take('k', limit).allowed).toBe(false);
    await clock.advance(101); // 200 ms after exhaustion: 2 tokens
    expect(limiter.take('k', limit).allowed).toBe(true);
    expect(limiter.take('k', limit).allowed).toBe(true);
    expect(limiter.take('k', limit).allowed).toBe(false);
  });

  it('sustains exactly perSecond over time', async () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults });
    const limit = { perSecond: 100, burst: 150 };
    let allowed = 0;
    for (let ms = 0; ms < 10_000; ms += 5) {
      // 200 attempts a second against a 100/s limit
      if (limiter.take('k', limit).allowed) allowed++;
      await clock.advance(5);
    }
    // burst of 150 plus 100/s for 10 s, give or take one token of rounding
    expect(allowed).toBeGreaterThanOrEqual(1149);
    expect(allowed).toBeLessThanOrEqual(1151);
  });

  it('reports retryAfter of at least one second and longer for slow buckets', () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults });
    const slow = { perSecond: 0.2, burst: 1 };
    expect(limiter.take('s', slow).allowed).toBe(true);
    expect(limiter.take('s', slow)).toMatchObject({ allowed: false, retryAfterSeconds: 5 });
  });

  it('keeps keys apart', () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults });
    const limit = { perSecond: 1, burst: 1 };
    expect(limiter.take('a', limit).allowed).toBe(true);
    expect(limiter.take('a', limit).allowed).toBe(false);
    expect(limiter.take('b', limit).allowed).toBe(true);
  });

  it('drops idle buckets once they are full again', async () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults });
    const limit = { perSecond: 10, burst: 10 };
    for (let i = 0; i < 100; i++) limiter.take(`key-${i}`, limit);
    expect(limiter.size()).toBe(100);
    await clock.advance(1000);
    limiter.take('fresh', limit);
    expect(limiter.size()).toBe(1);
  });

  it('never holds more than maxBuckets', () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults, maxBuckets: 50 });
    for (let i = 0; i < 1000; i++) limiter.take(`key-${i}`, { perSecond: 1, burst: 5 });
    expect(limiter.size()).toBe(50);
  });

  it('drops the least recently used bucket past maxBuckets, whether a key is used again at once or later', () => {
    const limiter = createRateLimiter({ clock: createFakeClock(), defaults, maxBuckets: 2 });
    const limit = { perSecond: 1, burst: 5 };
    limiter.take('a', limit);
    limiter.take('a', limit); // the last key again: already the most recent
    limiter.take('b', limit);
    limiter.take('b', limit);
    expect(limiter.take('a', limit).remaining).toBe(2); // a used again, after b
    limiter.take('c', limit); // b is now the least recently used
    expect(limiter.size()).toBe(2);
    expect(limiter.take('a', limit).remaining).toBe(1); // a kept its bucket
    expect(limiter.take('b', limit).remaining).toBe(4); // b starts afresh
  });

  it('uses the account override when set, else the default', () => {
    const limiter = createRateLimiter({ clock: createFakeClock(), defaults });
    expect(limiter.limitFor('data')).toEqual(defaults.data);
    expect(limiter.limitFor('messaging', { data: { perSecond: 1, burst: 1 } })).toEqual(defaults.messaging);
    expect(limiter.limitFor('data', { data: { perSecond: 1, burst: 2 } })).toEqual({ perSecond: 1, burst: 2 });
  });
});

describe('createRateLimiter over a shared buffer', () => {
  it('decides exactly as the in-memory limiter, take after take', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            key: fc.constantFrom('messaging:1', 'messaging:2', 'data:1', 'login:acme'),
            advance: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })),
            limit: fc.constantFrom({ perSecond: 2, burst: 3 }, { perSecond: 0.5, burst: 1 }, { perSecond: 100, burst: 150 }),
          }),
          { maxLength: 120 },
        ),
        async (ops) => {
          const clock = createFakeClock();
          const memory = createRateLimiter({ clock, defaults });
          const shared = createRateLimiter({ clock, defaults, shared: sharedRateLimiterBuffer(100) });
          for (const op of ops) {
            await clock.advance(op.advance);
            expect(shared.take(op.key, op.limit)).toEqual(memory.take(op.key, op.limit));
          }
        },
      ),
    );
  });

  it('shares the buckets of limiters over one buffer, as threads serving one API do', () => {
    const clock = createFakeClock();
    const buffer = sharedRateLimiterBuffer(100);
    const [a, b] = [createRateLimiter({ clock, defaults, shared: buffer }), createRateLimiter({ clock, defaults, shared: buffer })];
    const limit = { perSecond: 1, burst: 4 };
    const allowed = [a, b, a, b, a, b].map((limiter) => limiter.take('messaging:7', limit).allowed);
    expect(allowed).toEqual([true, true, true, true, false, false]);
    expect(createRateLimiter({ clock, defaults }).take('messaging:7', limit).allowed).toBe(true); // its own memory
  });

  it('drops full buckets, so that its size counts the live ones', async () => {
    const clock = createFakeClock();
    const limiter = createRateLimiter({ clock, defaults, shared: sharedRateLimiterBuffer(1000) });
    const limit = { perSecond: 10, burst: 10 };
    for (let i = 0; i < 100; i++) limiter.take(`key-${i}`, limit);
    expect(limiter.size()).toBe(100);
    await clock.advance(1000);
    expect(limiter.size()).toBe(0);
  });
});
