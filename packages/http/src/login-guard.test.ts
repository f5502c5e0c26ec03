import { createFakeClock } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLoginGuard, sharedLoginGuardBuffer } from './login-guard.ts';
import type { LoginAdmission, LoginAttempt } from './login-guard.ts';

const retryOf = (a: LoginAdmission) => (a.ok ? null : a.retryAfterSeconds);

describe('createLoginGuard', () => {
  it('lets the free failures of a login through, then doubles the wait after each failure', async () => {
    const clock = createFakeClock(0);
    const guard = createLoginGuard(clock, { freeFailuresPerLogin: 3, freeFailuresPerAddress: 100, baseDelayMs: 1000 });
    for (let i = 0; i < 4; i++) expect(guard.admit('acme', '10.0.0.1').ok).toBe(true);
    // The 4th failure (one over the free three) locks for 1 s.
    expect(retryOf(guard.admit('acme', '10.0.0.2'))).toBe(1);
    await clock.advance(1000);
    expect(guard.admit('acme', '10.0.0.3').ok).toBe(true);
    expect(retryOf(guard.admit('acme', '10.0.0.4'))).toBe(2);
    await clock.advance(2000);
    expect(guard.admit('acme', '10.0.0.5').ok).toBe(true);
    expect(retryOf(guard.admit('acme', '10.0.0.6'))).toBe(4);
    // Other logins are not concerned.
    expect(guard.admit('other', '10.0.0.7').ok).toBe(true);
  });

  it('limits one address spraying many logins', () => {
    const clock = createFakeClock(0);
    const guard = createLoginGuard(clock, { freeFailuresPerLogin: 100, freeFailuresPerAddress: 5 });
    for (let i = 0; i < 6; i++) expect(guard.admit(`made-up-${i}`, '192.0.2.9').ok).toBe(true);
    expect(retryOf(guard.admit('made-up-x', '192.0.2.9'))).toBe(1);
    expect(guard.admit('made-up-x', '192.0.2.10').ok).toBe(true);
  });

  it('counts an attempt when it is admitted, so that concurrent guesses are limited too', () => {
    const guard = createLoginGuard(createFakeClock(0), { freeFailuresPerLogin: 2 });
    const admitted = [1, 2, 3, 4, 5].map(() => guard.admit('acme', undefined)).filter((a) => a.ok);
    expect(admitted).toHaveLength(3);
  });

  it('starts a login afresh after a success and gives the address its attempt back', () => {
    const guard = createLoginGuard(createFakeClock(0), { freeFailuresPerLogin: 2, freeFailuresPerAddress: 2 });
    guard.admit('acme', 'a');
    guard.admit('acme', 'a');
    const right = guard.admit('acme', 'a');
    if (!right.ok) throw new Error('expected admission');
    right.attempt.succeeded();
    const next = guard.admit('acme', 'a');
    expect(next.ok).toBe(true);
  });

  it('forgets a quiet login after forgetAfterMs', async () => {
    const clock = createFakeClock(0);
    const guard = createLoginGuard(clock, { freeFailuresPerLogin: 1, forgetAfterMs: 60_000, maxDelayMs: 10_000 });
    guard.admit('acme', undefined);
    guard.admit('acme', undefined);
    expect(guard.admit('acme', undefined).ok).toBe(false);
    await clock.advance(60_001);
    guard.admit('acme', undefined);
    expect(guard.admit('acme', undefined).ok).toBe(true);
  });

  it('caps the wait at maxDelayMs', async () => {
    const clock = createFakeClock(0);
    const guard = createLoginGuard(clock, { freeFailuresPerLogin: 0, baseDelayMs: 1000, maxDelayMs: 5000 });
    for (let i = 0; i < 10; i++) {
      const a = guard.admit('acme', undefined);
      if (!a.ok) await clock.advance(a.retryAfterSeconds * 1000);
    }
    const a = guard.admit('acme', undefined);
    expect(a.ok ? 0 : a.retryAfterSeconds).toBeLessThanOrEqual(5);
  });
});

describe('createLoginGuard timing', () => {
  it('starts the wait when a failure is known, not when its slow check was admitted', async () => {
    const clock = createFakeClock(0);
    const guard = createLoginGuard(clock, { freeFailuresPerLogin: 0, baseDelayMs: 1000 });
    const a = guard.admit('acme', undefined);
    if (!a.ok) throw new Error('expected admission');
    await clock.advance(1500); // the scrypt
    a.attempt.failed();
    expect(retryOf(guard.admit('acme', undefined))).toBe(1);
  });
});

describe('createLoginGuard over a shared buffer', () => {
  const limits = { freeFailuresPerLogin: 2, freeFailuresPerAddress: 3, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 20_000 };

  it('decides exactly as the in-memory guard, whatever the attempts and their outcomes', async () => {
    type Op =
      | { op: 'admit'; login: string; address: string | undefined }
      | { op: 'settle'; pick: number; outcome: 'succeeded' | 'failed' | 'cancelled' }
      | { op: 'wait'; ms: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        op: fc.constant('admit' as const),
        login: fc.constantFrom('acme', 'shop'),
        address: fc.constantFrom('10.0.0.1', '10.0.0.2', undefined),
      }),
      fc.record({
        op: fc.constant('settle' as const),
        pick: fc.nat(),
        outcome: fc.constantFrom('succeeded' as const, 'failed' as const, 'cancelled' as const),
      }),
      fc.record({ op: fc.constant('wait' as const), ms: fc.constantFrom(10, 900, 2500, 25_000) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
        const clock = createFakeClock(0);
        const memory = createLoginGuard(clock, limits);
        const shared = createLoginGuard(clock, limits, sharedLoginGuardBuffer(100));
        const open: Array<[LoginAttempt, LoginAttempt]> = [];
        for (const o of ops) {
          if (o.op === 'wait') await clock.advance(o.ms);
          else if (o.op === 'admit') {
            const [a, b] = [memory.admit(o.login, o.address), shared.admit(o.login, o.address)];
            expect(retryOf(b)).toBe(retryOf(a));
            if (a.ok && b.ok) open.push([a.attempt, b.attempt]);
          } else if (open.length > 0) {
            const [a, b] = open.splice(o.pick % open.length, 1)[0]!;
            a[o.outcome]();
            b[o.outcome]();
          }
        }
      }),
    );
  });

  it('counts the failures of guards over one buffer together, as threads serving one API do', () => {
    const clock = createFakeClock(0);
    const buffer = sharedLoginGuardBuffer(100);
    const [a, b] = [createLoginGuard(clock, limits, buffer), createLoginGuard(clock, limits, buffer)];
    // Two free failures, the third admitted and locking: whichever guard admits them.
    expect([a, b, a].map((g) => g.admit('acme', undefined).ok)).toEqual([true, true, true]);
    expect(retryOf(b.admit('acme', undefined))).toBe(1);
    expect(createLoginGuard(clock, limits).admit('acme', undefined).ok).toBe(true); // its own memory
  });
});
