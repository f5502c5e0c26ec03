import { describe, expect, it } from 'vitest';
import type { IngestBatch, IngestResult } from '../ports/message-storage.ts';
import { newMessage } from '../testing/storage-contract-fixtures.ts';
import type { WorkItem } from '../types/work.ts';
import { decodeCopies, encodeCopies, handedOverCopies } from './hand-over-copies.ts';

describe('copies of handed-over messages for another thread', () => {
  const at = 2_000;
  const snapshot = { value: 'processing', context: { step: 0 } };
  const work: WorkItem[] = [{ kind: 'send', step: 0, dueAt: at }];
  const batch: IngestBatch = {
    accountId: 3,
    at,
    chargeDescription: 'SMS',
    lease: { owner: 'w1', until: 62_000 },
    messages: [
      // Two plain messages that share their state and work: one run.
      newMessage({ content: '', status: 'processing', snapshot, work, dueAt: at }),
      newMessage({ content: '', status: 'processing', snapshot, work, dueAt: at }),
      // Due later: not handed over.
      newMessage({ work: [{ kind: 'send', step: 0, dueAt: 9_000 }], dueAt: 9_000 }),
      // A replay: not handed over.
      newMessage({ content: '', status: 'processing', snapshot, work, dueAt: at }),
      // Every field a plain message lacks, no charge.
      newMessage({
        kind: 'cascade',
        guid: 'g-3',
        trackinId: 't-3',
        customerMessageId: 'c-3',
        content: '{"to":"49151"}',
        status: 'processing',
        snapshot: { value: 'processing', context: { step: 0, cascade: true } },
        routeRef: 'route@2',
        expiresAt: 90_000,
        meta: { referral: 'spring', customerData: { tier: 2 } },
        charge: 0,
        work: [{ kind: 'send', step: 0, dueAt: 1_500 }],
        dueAt: 1_500,
      }),
    ],
  };
  const result: IngestResult = { status: 'accepted', listId: 7, ids: [11, 12, 13, 5, 14], replays: [3] };

  it('carry each handed-over message as stored, and its lease, through a structured clone', () => {
    const values = encodeCopies(batch, result);
    // One run of two plain messages, one run of one message with its rare fields.
    expect(values).toHaveLength(2 * 14 + 3 * 4 + 6);
    const copies = decodeCopies(structuredClone(values));
    expect(copies.map((c) => c.message.id)).toEqual([11, 12, 14]);
    expect(copies).toStrictEqual(handedOverCopies(batch, result));
    expect(copies.every((c) => c.until === 62_000)).toBe(true);
    // A state shared when encoded is shared again (parsed once).
    expect(copies[0]!.message.snapshot).toBe(copies[1]!.message.snapshot);
    expect(copies[0]!.message.work).toBe(copies[1]!.message.work);
  });

  it('are none for a request that was not accepted or handed over nothing', () => {
    expect(encodeCopies(batch, { status: 'conflict', indexes: [0] })).toEqual([]);
    expect(encodeCopies({ ...batch, lease: undefined }, result)).toEqual([]);
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
