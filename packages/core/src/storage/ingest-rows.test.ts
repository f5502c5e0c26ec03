import { describe, expect, it } from 'vitest';
import type { IngestBatch, NewMessage } from '../ports/message-storage.ts';
import {
  HISTORY_ROW_COLUMNS,
  MESSAGE_ROW_COLUMNS,
  WALLET_ROW_COLUMNS,
  draftIngestRows,
  historyRowValues,
  ingestRows,
} from './ingest-rows.ts';

/** Row-major values back to one record per row. */
function records(columns: readonly string[], values: readonly unknown[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let r = 0; r * columns.length < values.length; r++)
    out.push(Object.fromEntries(columns.map((c, i) => [c, values[r * columns.length + i]])));
  return out;
}
import { planIngest } from './plan-ingest.ts';

const snapshot = { value: 'waiting', context: { step: 0 } };
const message = (over: Partial<NewMessage> = {}): NewMessage => ({
  kind: 'message',
  guid: null,
  trackinId: null,
  customerMessageId: null,
  content: 'c',
  steps: [],
  status: 'processing',
  snapshot,
  routeRef: null,
  dueAt: 1_000,
  expiresAt: null,
  charge: 0,
  meta: null,
  work: [],
  history: [],
  ...over,
});

function planned(batch: IngestBatch, known = new Map()) {
  const plan = planIngest({ messages: batch.messages, known, balance: 1_000 });
  if (plan.action !== 'insert') throw new Error('expected an insert plan');
  return plan;
}

describe('ingestRows', () => {
  it('writes one row per fresh message with the allocated id, skipping replays', () => {
    const batch: IngestBatch = {
      accountId: 4,
      at: 77,
      chargeDescription: 'SMS',
      messages: [
        message({ customerMessageId: 'r', content: 'same' }),
        message({ meta: { a: 1 }, steps: [{ to: '1' } as never], charge: 30 }),
        message({
          charge: 20,
          work: [{ kind: 'event', event: { type: 'DUE' }, dueAt: 5 }],
          history: [{ step: 0, channel: 'sms', status: 'Sent', at: 77, error: null }],
        }),
      ],
    };
    const plan = planned(batch, new Map([['r', { id: 9, listId: 1, content: 'same' }]]));
    const rows = ingestRows(batch, plan, 12, [100, 101], 1_000);

    expect(plan.ids).toEqual([9, 100, 101]);
    const messages = records(MESSAGE_ROW_COLUMNS, rows.messages);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({
      id: 100,
      list_id: 12,
      account_id: 4,
      created_at: 77,
      updated_at: 77,
      cost: 30,
      meta: '{"a":1}',
      steps: '[{"to":"1"}]',
    });
    expect(JSON.parse(messages[0]!.snapshot as string)).toEqual(snapshot);
    expect(messages[1]).toMatchObject({ id: 101, cost: 20, meta: null, wake_at: 5, charged: 1 });
    expect(JSON.parse(messages[1]!.work as string)).toEqual([{ kind: 'event', event: { type: 'DUE' }, dueAt: 5 }]);
    expect(messages[0]).toMatchObject({ work: '[]', wake_at: null });

    // balance_after runs down in batch order.
    expect(records(WALLET_ROW_COLUMNS, rows.wallet)).toEqual([
      { account_id: 4, kind: 'charge', amount: -30, balance_after: 970, message_id: 100, description: 'SMS', created_at: 77 },
      { account_id: 4, kind: 'charge', amount: -20, balance_after: 950, message_id: 101, description: 'SMS', created_at: 77 },
    ]);
    expect(rows.balance).toBe(950);
    expect(records(HISTORY_ROW_COLUMNS, rows.history)).toEqual([
      { message_id: 101, step: 0, channel: 'sms', status: 'Sent', at: 77, error: null, driver: null, provider_message_id: null },
    ]);
  });

  it('appends the rows of a second request to the lists of the first, as if each were built alone', () => {
    const history = [{ step: 0, channel: 'sms' as const, status: 'Sent' as const, at: 5, error: null }];
    const first: IngestBatch = {
      accountId: 1,
      at: 5,
      chargeDescription: 'SMS',
      messages: [message({ charge: 10, history }), message()],
    };
    const second: IngestBatch = { accountId: 1, at: 6, chargeDescription: 'SMS', messages: [message({ charge: 5, history })] };
    const together = ingestRows(first, planned(first), 1, [1, 2], 100);
    ingestRows(second, planned(second), 2, [3], together.balance, together);
    const alone = [ingestRows(first, planned(first), 1, [1, 2], 100), ingestRows(second, planned(second), 2, [3], 90)];
    for (const list of ['messages', 'wallet', 'history'] as const) {
      expect(together[list]).toEqual([...alone[0]![list], ...alone[1]![list]]);
      // Made at their length and filled: no hole left.
      expect(Object.keys(together[list])).toHaveLength(together[list].length);
    }
    expect(records(WALLET_ROW_COLUMNS, together.wallet).map((w) => w['balance_after'])).toEqual([90, 85]);
  });

  it('fills empty lists given in `into` in place, made at their length, as the adapters pass them', () => {
    const batch: IngestBatch = {
      accountId: 1,
      at: 5,
      chargeDescription: 'SMS',
      messages: [message({ charge: 10, history: [{ step: 0, channel: 'sms', status: 'Sent', at: 5, error: null }] }), message()],
    };
    const lists = { messages: [] as unknown[], wallet: [] as unknown[], history: [] as unknown[] };
    const rows = ingestRows(batch, planned(batch), 1, [1, 2], 100, lists);
    const alone = ingestRows(batch, planned(batch), 1, [1, 2], 100);
    for (const list of ['messages', 'wallet', 'history'] as const) {
      expect(lists[list]).toBe(rows[list]);
      expect(lists[list]).toEqual(alone[list]);
      expect(Object.keys(lists[list])).toHaveLength(lists[list].length);
    }
  });

  it('writes no wallet row for an uncharged message', () => {
    const batch: IngestBatch = { accountId: 1, at: 1, chargeDescription: 'SMS', messages: [message()] };
    const rows = ingestRows(batch, planned(batch), 1, [5], 0);
    expect(rows.wallet).toEqual([]);
    expect(rows.balance).toBe(0);
  });
});

describe('draftIngestRows', () => {
  const history = [
    { step: 0, channel: 'sms' as const, status: 'Sent' as const, at: 5, error: null },
    { step: 0, channel: 'sms' as const, status: 'Delivered' as const, at: 5, error: null, driver: 'smpp', providerMessageId: 'p' },
  ];
  /** A request of charged and free messages, with history, one of them due at acceptance under a lease. */
  const request = (at: number): IngestBatch => ({
    accountId: 3,
    at,
    chargeDescription: 'SMS',
    lease: { owner: 'w1', until: at + 60_000 },
    messages: [
      message({ charge: 10, history, steps: [{ to: '1' } as never], work: [{ kind: 'send', step: 0, dueAt: at }] }),
      message({ meta: { a: 1 } }),
      message({ charge: 7, history: history.slice(0, 1), work: [{ kind: 'event', event: { type: 'DUE' }, dueAt: at + 9 }] }),
    ],
  });

  it('gives, once ids, list and balance are written in, the rows the batch gives undrafted', () => {
    const drafted = request(5);
    draftIngestRows(drafted);
    const plan = planned(drafted);
    const rows = ingestRows(drafted, plan, 12, [100, 101, 102], 1_000);
    const alone = ingestRows(request(5), planned(request(5)), 12, [100, 101, 102], 1_000);
    expect(plan.ids).toEqual([100, 101, 102]);
    expect(rows).toEqual(alone);
    expect(records(WALLET_ROW_COLUMNS, rows.wallet).map((w) => [w['message_id'], w['balance_after']])).toEqual([
      [100, 990],
      [102, 983],
    ]);
    expect(records(HISTORY_ROW_COLUMNS, rows.history).map((h) => h['message_id'])).toEqual([100, 100, 102]);
  });

  it('appends a drafted request after another in the lists given, and takes an empty list as its own', () => {
    const first = request(5);
    const second = request(6);
    draftIngestRows(first);
    draftIngestRows(second);
    const lists = { messages: [] as unknown[], wallet: [] as unknown[], history: [] as unknown[] };
    const one = ingestRows(first, planned(first), 1, [1, 2, 3], 100, lists);
    ingestRows(second, planned(second), 2, [4, 5, 6], one.balance, lists);
    const alone = [
      ingestRows(request(5), planned(request(5)), 1, [1, 2, 3], 100),
      ingestRows(request(6), planned(request(6)), 2, [4, 5, 6], 83),
    ];
    for (const list of ['messages', 'wallet', 'history'] as const) {
      expect(lists[list]).toEqual([...alone[0]![list], ...alone[1]![list]]);
      expect(Object.keys(lists[list])).toHaveLength(lists[list].length);
    }
  });

  it('is left unused by a plan that inserts fewer messages (a replay), and taken only once', () => {
    const drafted = request(5);
    draftIngestRows(drafted);
    const known = new Map([['r', { id: 9, listId: 1, content: 'same' }]]);
    const withReplay: IngestBatch = { ...drafted, messages: [message({ customerMessageId: 'r', content: 'same' }), ...drafted.messages] };
    draftIngestRows(withReplay);
    const replayed = ingestRows(withReplay, planned(withReplay, known), 12, [100, 101, 102], 1_000);
    expect(records(MESSAGE_ROW_COLUMNS, replayed.messages).map((m) => m['id'])).toEqual([100, 101, 102]);
    expect(replayed).toEqual(ingestRows(request(5), planned(request(5)), 12, [100, 101, 102], 1_000));

    // A transaction made again (the first failed after taking the draft) builds its rows anew.
    const taken = ingestRows(drafted, planned(drafted), 12, [100, 101, 102], 1_000);
    const again = ingestRows(drafted, planned(drafted), 13, [200, 201, 202], 500);
    expect(again.messages).not.toBe(taken.messages);
    expect(again).toEqual(ingestRows(request(5), planned(request(5)), 13, [200, 201, 202], 500));
  });
});

describe('historyRowValues', () => {
  it('lays out history like ingest does, with the driver and provider id', () => {
    expect(
      historyRowValues([
        { messageId: 3, step: 1, channel: 'sms', status: 'Sent', at: 9, error: 'x', driver: 'smpp', providerMessageId: 'p1' },
      ]),
    ).toEqual([3, 1, 'sms', 'Sent', 9, 'x', 'smpp', 'p1']);
  });
});
