import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../types/message.ts';
import { decodeCopies, encodeCopies } from './hand-over-copies.ts';

const message = (id: number, overrides: Partial<StoredMessage> = {}): StoredMessage => ({
  id,
  listId: 7,
  accountId: 3,
  kind: 'message',
  guid: null,
  trackinId: null,
  customerMessageId: null,
  content: '',
  steps: [
    { channel: 'sms', type: 'sms', from: 'Shop', to: `4915100000${id}`, text: `code ${id}`, ttl: null } as StoredMessage['steps'][number],
  ],
  status: 'processing',
  snapshot: { value: 'queued', context: { step: 0, last: 0, retries: 0 } },
  routeRef: null,
  createdAt: 1_000,
  updatedAt: 1_000,
  dueAt: 1_000,
  expiresAt: null,
  cost: 50_000,
  meta: null,
  version: 0,
  work: [{ kind: 'send', step: 0, dueAt: 1_000 }],
  charged: 1,
  ...overrides,
});

describe('copies of handed-over messages for another thread', () => {
  it('carry every field of each message, and its lease, through a structured clone', () => {
    const snapshot = { value: 'processing', context: { step: 0 } };
    const work: StoredMessage['work'] = [{ kind: 'send', step: 0, dueAt: 1_000 }];
    const messages = [
      message(1, { snapshot, work }),
      message(2, { snapshot, work }),
      message(3, {
        kind: 'cascade',
        guid: 'g-3',
        trackinId: 't-3',
        customerMessageId: 'c-3',
        content: '{"to":"49151"}',
        routeRef: 'route@2',
        expiresAt: 9_000,
        meta: { referral: 'spring', customerData: { tier: 2 } },
        version: 4,
        charged: 0,
      }),
    ];
    const texts = messages.map((m) => JSON.stringify(m.steps));
    const values = [
      ...encodeCopies(messages.slice(0, 2), texts.slice(0, 2), 61_000),
      ...encodeCopies(messages.slice(2), texts.slice(2), 62_000),
    ];
    // The first two share their head: one run; the third has the fields a plain message lacks.
    expect(values).toHaveLength(2 * 14 + 3 * 4 + 6);
    const copies = decodeCopies(structuredClone(values));
    expect(copies).toStrictEqual([
      { message: messages[0], until: 61_000 },
      { message: messages[1], until: 61_000 },
      { message: messages[2], until: 62_000 },
    ]);
    // A state shared when encoded is shared again (parsed once).
    expect(copies[0]!.message.snapshot).toBe(copies[1]!.message.snapshot);
    expect(copies[0]!.message.work).toBe(copies[1]!.message.work);
  });

  it('answers no copies for a list of another shape', () => {
    expect(decodeCopies(['a', 'b', 'c'])).toEqual([]);
    expect(decodeCopies({ length: 23 } as unknown as unknown[])).toEqual([]);
    // A run longer than the list.
    expect(decodeCopies([2, 1_000, 7, 3, 'message', 'queued', '{}', null, 1, 1, 1, 0, '[]', 1, 5])).toEqual([]);
    // A message that says it has rare fields, without them.
    expect(decodeCopies([1, 1_000, 7, 3, 'message', 'queued', '{}', null, 1, 1, 1, 0, '[]', 1, 5, '[]', 0, 1])).toEqual([]);
  });
});
