import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_VARIABLE } from '@spillway/core/adapter';
import { engineFixture } from '../support/engine-fixture.ts';

// Whatever valid messages a request carries, the status read back says what was sent: the same
// sender, recipient, type, text, customerMessageId and expiry, at the accepted price.

let f: Awaited<ReturnType<typeof engineFixture>>;
beforeAll(async () => {
  f = await engineFixture({ balance: 1_000_000 });
});
afterAll(() => f.close());

const text = fc.oneof(
  // A `%member%` no per-phone data fills is refused (a 400), so no valid text holds one here.
  fc.string({ minLength: 1, maxLength: 300 }).filter((t) => t.trim().length > 0 && !PHONE_VARIABLE.test(t)),
  fc.constantFrom('Ваш код 1234', 'Your code is 1234 😀', 'a'.repeat(161), 'ä€[]{}~^|\\'),
);
const message = fc.record(
  {
    to: fc.integer({ min: 10_000_000, max: 99_999_999 }).map((n) => `4915${n}`),
    text,
    ttl: fc.integer({ min: 60, max: 86_400 }),
    customerMessageId: fc.uuid(),
  },
  { requiredKeys: ['to', 'text'] },
);

describe('ingest then status', () => {
  it('round-trips every valid SMS message', async () => {
    // One engine takes every run: a customerMessageId is made unique per run and item, or a uuid
    // fast-check repeats (it favours a few) is a 409 replay conflict with an earlier run's content.
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 5 }), async (items) => {
        run++;
        const messages = items.map((m, i) => ({
          from: 'Shop',
          type: 'sms' as const,
          ...m,
          ...(m.customerMessageId !== undefined ? { customerMessageId: `${run}.${i}.${m.customerMessageId}` } : {}),
        }));
        const sent = await f.engine.messages.send(f.account.id, { messages });
        expect(sent.messages).toHaveLength(messages.length);
        for (const [i, accepted] of sent.messages.entries()) {
          const status = await f.engine.messages.status(f.account.id, accepted.messageId);
          const m = messages[i]!;
          expect(status).toMatchObject({
            messageId: accepted.messageId,
            messagelistId: sent.messagelistId,
            from: 'Shop',
            to: m.to,
            type: 'sms',
            customerMessageId: m.customerMessageId ?? null,
            partsCount: accepted.partsCount,
            dtExpire: accepted.dtExpire,
          });
          expect(accepted.text).toBe(m.text);
          expect(status.cost).toBeGreaterThan(0);
          expect(status.cost).toBeCloseTo(status.rate * accepted.partsCount, 6);
          if (m.ttl !== undefined) expect(Date.parse(status.dtExpire!) - f.clock.now()).toBe(m.ttl * 1000);
        }
      }),
      { numRuns: 60 },
    );
  });
});
