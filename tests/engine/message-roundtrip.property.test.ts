import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '@spillway/core';
import { PHONE_VARIABLE } from '@spillway/core/adapter';
import { engineFixture } from '../support/engine-fixture.ts';

// Whatever a message's strings hold (quotes, backslashes, control characters, any plane of
// Unicode; NUL is refused at validation), every read of whole messages answers exactly what was
// accepted: a storage may carry a row's columns in any encoding it likes (SQLite reads its scalar
// columns as one JSON array).

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
beforeAll(async () => {
  f = await engineFixture({ balance: 1_000_000 });
});
afterAll(() => f?.close());

// A `%member%` no per-phone data fills is refused (a 400), so no text here holds one.
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((t) => !PHONE_VARIABLE.test(t));

describe('a message read back from storage', () => {
  it('holds the strings and numbers it was accepted with, by id, by ids, in a status read and once claimed', async () => {
    let n = 0;
    const texts = new Map<number, string>();
    await fc.assert(
      fc.asyncProperty(text, fc.option(text, { nil: undefined }), async (body, customerMessageId) => {
        const to = `4915${String(10_000_000 + n++).padStart(8, '0')}`;
        const item = {
          from: 'Shop',
          to,
          text: body,
          type: 'sms' as const,
          ...(customerMessageId ? { customerMessageId: `${n}:${customerMessageId}` } : {}),
        };
        if (`${body}${customerMessageId ?? ''}`.includes('\u0000')) {
          // No storage keeps it (PostgreSQL cannot): refused before any is asked to.
          await expect(f.engine.messages.send(f.account.id, { messages: [item] })).rejects.toMatchObject({ code: 'validation_failed' });
          return;
        }
        const sent = await f.engine.messages.send(f.account.id, { messages: [item] });
        const id = sent.messages[0]!.messageId;
        texts.set(id, body);
        const one = (await f.storage.getMessage(id))!;
        expect(one).toMatchObject({
          id,
          accountId: f.account.id,
          kind: 'message',
          customerMessageId: item.customerMessageId ?? null,
          steps: [expect.objectContaining({ from: 'Shop', to, text: body })],
          createdAt: f.clock.now(),
          expiresAt: null,
        } satisfies Partial<Record<keyof StoredMessage, unknown>>);
        expect(Number.isInteger(one.cost) && one.cost > 0).toBe(true);
        expect(await f.storage.getMessages([id, id])).toEqual([one, one]);
        // The status read takes the status columns only, with the history.
        const { listId, accountId, kind, steps, status, expiresAt, cost } = one;
        const withHistory = await f.storage.getMessageWithHistory(id);
        expect(withHistory).toEqual({
          message: { id, listId, accountId, kind, customerMessageId: one.customerMessageId, steps, status, expiresAt, cost },
          history: await f.storage.history(id),
        });
      }),
      { numRuns: 60 },
    );
    // The worker's reads (hand-over and claim) take the same rows: each message goes out with its text.
    await f.engine.drain();
    expect(new Map(f.simulator.sent.map((a) => [a.messageId, a.text]))).toEqual(texts);
  });
});
