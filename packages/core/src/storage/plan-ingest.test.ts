import { describe, expect, it } from 'vitest';
import { customerMessageIdsOf, planIngest, type KnownCustomerMessage, type PlannedMessage } from './plan-ingest.ts';

const msg = (over: Partial<PlannedMessage> = {}): PlannedMessage => ({ customerMessageId: null, content: 'c', charge: 10, ...over });
const known = (entries: [string, KnownCustomerMessage][] = []) => new Map(entries);

describe('customerMessageIdsOf', () => {
  it('lists each customerMessageId once, in batch order, without nulls', () => {
    expect(
      customerMessageIdsOf([msg({ customerMessageId: 'b' }), msg(), msg({ customerMessageId: 'a' }), msg({ customerMessageId: 'b' })]),
    ).toEqual(['b', 'a']);
  });
});

describe('planIngest', () => {
  it('inserts every message of a plain batch and requires the sum of the charges', () => {
    const plan = planIngest({ messages: [msg({ charge: 5 }), msg({ charge: 0 }), msg({ charge: 7 })], known: known(), balance: 12 });
    expect(plan).toEqual({ action: 'insert', ids: [undefined, undefined, undefined], replays: [], fresh: [0, 1, 2], required: 12 });
  });

  it('replays a known customerMessageId with the same content: original id, no charge', () => {
    const plan = planIngest({
      messages: [msg({ charge: 5 }), msg({ customerMessageId: 'x', content: 'same', charge: 50 })],
      known: known([['x', { id: 41, listId: 3, content: 'same' }]]),
      balance: 5,
    });
    expect(plan).toMatchObject({ action: 'insert', replays: [1], fresh: [0], required: 5 });
    expect(plan.action === 'insert' && plan.ids[1]).toBe(41);
  });

  it('answers the original list for a batch made only of replays', () => {
    const plan = planIngest({
      messages: [msg({ customerMessageId: 'x', content: 'a' }), msg({ customerMessageId: 'y', content: 'b' })],
      known: known([
        ['x', { id: 1, listId: 9, content: 'a' }],
        ['y', { id: 2, listId: 9, content: 'b' }],
      ]),
      balance: 0,
    });
    expect(plan).toEqual({ action: 'answer', result: { status: 'accepted', listId: 9, ids: [1, 2], replays: [0, 1] } });
  });

  it('refuses a known customerMessageId with other content', () => {
    const plan = planIngest({
      messages: [msg(), msg({ customerMessageId: 'x', content: 'two' })],
      known: known([['x', { id: 1, listId: 1, content: 'one' }]]),
      balance: 100,
    });
    expect(plan).toEqual({ action: 'answer', result: { status: 'conflict', indexes: [1] } });
  });

  it('refuses a customerMessageId repeated in the batch at every place, even with the same content', () => {
    const messages = [msg({ customerMessageId: 'd' }), msg(), msg({ customerMessageId: 'd' }), msg({ customerMessageId: 'd' })];
    expect(planIngest({ messages, known: known(), balance: 100 })).toEqual({
      action: 'answer',
      result: { status: 'conflict', indexes: [0, 2, 3] },
    });
  });

  it('reports conflicts before insufficient funds', () => {
    const messages = [msg({ customerMessageId: 'd', charge: 1_000 }), msg({ customerMessageId: 'd' })];
    expect(planIngest({ messages, known: known(), balance: 0 })).toEqual({
      action: 'answer',
      result: { status: 'conflict', indexes: [0, 1] },
    });
  });

  it('refuses a batch the balance does not cover, with balance and required', () => {
    const plan = planIngest({ messages: [msg({ charge: 100 }), msg({ charge: 50 })], known: known(), balance: 120 });
    expect(plan).toEqual({ action: 'answer', result: { status: 'insufficient_funds', balance: 120, required: 150 } });
  });

  it('accepts a batch the balance covers exactly', () => {
    expect(planIngest({ messages: [msg({ charge: 60 }), msg({ charge: 60 })], known: known(), balance: 120 })).toMatchObject({
      action: 'insert',
      required: 120,
    });
  });

  it('needs no funds for replays', () => {
    const plan = planIngest({
      messages: [msg({ charge: 0 }), msg({ customerMessageId: 'x', content: 'a', charge: 50 })],
      known: known([['x', { id: 7, listId: 2, content: 'a' }]]),
      balance: 0,
    });
    expect(plan).toMatchObject({ action: 'insert', replays: [1], fresh: [0], required: 0 });
  });

  it('plans an empty batch as an insert of nothing', () => {
    expect(planIngest({ messages: [], known: known(), balance: 0 })).toEqual({
      action: 'insert',
      ids: [],
      replays: [],
      fresh: [],
      required: 0,
    });
  });
});
