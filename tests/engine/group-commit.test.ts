import { afterEach, describe, expect, it } from 'vitest';
import { SpillwayError } from '@spillway/core';
import type { Storage } from '@spillway/core';
import type { IngestBatch } from '@spillway/core/storage';
import { engineFixture } from '../support/engine-fixture.ts';
import { watchPreparedIngests } from '../support/prepared-ingests.ts';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const sms = (to: string, extra: Record<string, unknown> = {}) => ({ from: 'Shop', to, text: 'Hello', type: 'sms' as const, ...extra });

/** Counts the storage's acceptance transactions, passing every call through to the real storage. */
function countIngests(storage: Storage, options: { failGroups?: boolean | Error } = {}) {
  const calls = { ingest: 0, ingestMany: [] as number[] };
  const ingest = storage.ingest.bind(storage);
  const ingestMany = storage.ingestMany.bind(storage);
  storage.ingest = (batch: IngestBatch) => {
    calls.ingest++;
    return ingest(batch);
  };
  storage.ingestMany = (batches: IngestBatch[]) => {
    calls.ingestMany.push(batches.length);
    if (options.failGroups)
      return Promise.reject(options.failGroups instanceof Error ? options.failGroups : new Error('the group transaction failed'));
    return ingestMany(batches);
  };
  return calls;
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, code: error instanceof SpillwayError ? error.code : String(error) }),
  );

describe('group commit of single sends', () => {
  it('writes single sends that arrive together in one transaction, each answered with its own message, stored before the answer', async () => {
    f = await engineFixture();
    const calls = countIngests(f.storage);
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        f.engine.messages.send(f.account.id, { messages: [sms(`4915100000${String(i).padStart(2, '0')}`)] }),
      ),
    );
    // SQLite validates synchronously: all 32 reach the storage in one turn. PostgreSQL reads the
    // alpha-names over the network, so requests arrive over a few turns: fewer groups, not one.
    if (f.storage.name === 'sqlite') expect(calls.ingestMany).toEqual([32]);
    expect(calls.ingestMany.reduce((a, b) => a + b, 0) + calls.ingest).toBe(32);
    expect(calls.ingestMany.length + calls.ingest).toBeLessThan(32);
    const ids = answers.map((a) => a.messages[0]!.messageId);
    expect(new Set(ids).size).toBe(32);
    // Each request is its own list, and each answer names its own recipient.
    expect(new Set(answers.map((a) => a.messagelistId)).size).toBe(32);
    answers.forEach((a, i) => expect(a.messages[0]!.to).toBe(`4915100000${String(i).padStart(2, '0')}`));
    for (const id of ids) expect((await f.storage.getMessage(id))?.status).toBe('processing');
  });

  it("keeps each caller's errors its own: a bad sender, a reused customerMessageId and a balance too short fail alone", async () => {
    f = await engineFixture({ balance: 1 });
    const first = await f.engine.messages.send(f.account.id, { messages: [sms('491510000099', { customerMessageId: 'order-1' })] });
    const calls = countIngests(f.storage);
    const results = await Promise.all([
      outcome(f.engine.messages.send(f.account.id, { messages: [sms('491510000001')] })),
      outcome(f.engine.messages.send(f.account.id, { messages: [{ ...sms('491510000002'), from: 'Nobody' }] })),
      outcome(f.engine.messages.send(f.account.id, { messages: [sms('491510000003', { customerMessageId: 'order-1', text: 'Other' })] })),
      outcome(f.engine.messages.send(f.account.id, { messages: Array.from({ length: 100 }, (_, i) => sms(`4915200000${i}`)) })),
      outcome(f.engine.messages.send(f.account.id, { messages: [sms('491510000099', { customerMessageId: 'order-1' })] })),
      outcome(f.engine.messages.send(f.account.id, { messages: [sms('491510000005')] })),
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : r.code))).toEqual(['ok', 'validation_failed', 'conflict', 'payment_required', 'ok', 'ok']);
    // The invalid request never reached the storage; the five others went in one transaction.
    if (f.storage.name === 'sqlite') expect(calls.ingestMany).toEqual([5]);
    expect(calls.ingestMany.reduce((a, b) => a + b, 0) + calls.ingest).toBe(5);
    // The replay answers the original message; the 100-message request stored nothing.
    const replay = results[4]!.ok ? (results[4]!.value as { messages: Array<{ messageId: number }> }) : null;
    expect(replay?.messages[0]!.messageId).toBe(first.messages[0]!.messageId);
    const charges = await f.storage.listWalletTransactions(f.account.id, { kinds: ['charge'], page: 1, pageSize: 200 });
    expect(charges.total).toBe(3); // the original, then the two fresh single sends
  });

  it('writes each request alone when the group transaction fails, so none is lost for another', async () => {
    f = await engineFixture();
    const calls = countIngests(f.storage, { failGroups: true });
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => f.engine.messages.send(f.account.id, { messages: [sms(`49151000001${i}`)] })),
    );
    if (f.storage.name === 'sqlite') expect(calls.ingestMany).toEqual([4]);
    // Every request was finally written alone, whether its group failed or it came alone.
    expect(calls.ingest).toBe(4);
    for (const a of answers) expect(await f.storage.getMessage(a.messages[0]!.messageId)).not.toBeNull();
  });

  it('answers a whole group at once when the database was busy or out of reach: no request waits again alone', async () => {
    f = await engineFixture();
    const busy = new Error('the database is busy');
    const storage = f.storage as Storage & { isBusy?: (error: unknown) => boolean };
    const isBusy = storage.isBusy?.bind(storage);
    storage.isBusy = (error) => error === busy || (isBusy?.(error) ?? false);
    const calls = countIngests(f.storage, { failGroups: busy });
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => outcome(f.engine.messages.send(f.account.id, { messages: [sms(`49151000005${i}`)] }))),
    );
    // Every request that came in a group got the group's error; none was tried again alone.
    const grouped = calls.ingestMany.reduce((a, b) => a + b, 0);
    expect(grouped).toBeGreaterThan(1);
    expect(calls.ingest).toBe(4 - grouped);
    expect(results.filter((r) => !r.ok && r.code === String(busy))).toHaveLength(grouped);
  });

  it("builds each request's rows as it joins the group (prepareIngest), before the write transaction", async () => {
    f = await engineFixture();
    const { prepared, unprepared } = watchPreparedIngests(f.storage);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        f.engine.messages.send(f.account.id, { messages: [sms(`49151000003${i}`), sms(`49151000004${i}`)] }),
      ),
    );
    expect(prepared.size).toBe(6);
    expect(unprepared).toEqual([]);
    for (const a of answers) {
      for (const m of a.messages) expect((await f.storage.getMessage(m.messageId))?.steps[0]?.to).toBe(m.to);
    }
  });

  it('sends every message of a group', async () => {
    f = await engineFixture();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => f.engine.messages.send(f.account.id, { messages: [sms(`49151000002${i}`)] })),
    );
    await f.advance(200);
    for (const a of answers) {
      expect((await f.engine.messages.status(f.account.id, a.messages[0]!.messageId)).deliverystatus).toBe('delivered');
    }
  });
});
