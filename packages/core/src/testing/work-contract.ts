import { describe, expect, it } from 'vitest';
import type { ScheduledChange } from '../ports/message-storage.ts';
import type { Commit, MessageUpdate } from '../ports/work-storage.ts';
import type { StoredMessage } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';
import { handedOverIds, handedOverMessages } from '../storage/ingest-rows.ts';
import { FAR, createFundedAccount, ingestAccepted, newMessage, step, type StorageRef } from './storage-contract-fixtures.ts';

const send = (stepIndex: number, dueAt: number): WorkItem => ({ kind: 'send', step: stepIndex, dueAt });
const timer = (stepIndex: number, dueAt: number): WorkItem => ({
  kind: 'event',
  event: { type: 'TIMER', step: stepIndex, timer: 'expiry' },
  dueAt,
});

/** A commit by `owner` that writes only what `parts` gives. */
const commitOf = (owner: string, parts: Partial<Commit>): Commit => ({
  at: 3_000,
  owner,
  updates: [],
  providerIds: [],
  receipts: [],
  ...parts,
});

/** The update of `message` to `status` with `work`, and nothing else. */
const updateOf = (message: StoredMessage, over: Partial<MessageUpdate> = {}): MessageUpdate => ({
  id: message.id,
  version: message.version,
  status: 'processing',
  snapshot: { value: { processing: 'sending' }, context: { step: 0 } },
  work: [],
  history: [],
  attempt: 'none',
  ...over,
});

/** Message reads, worker rounds, charges, the receipt inbox and recovery: the rest of {@link runStorageContract}. */
export function describeWork(storage: StorageRef): void {
  /** Ingests one message per work list and answers their ids. */
  const messagesWith = async (...works: WorkItem[][]) => {
    const account = await createFundedAccount(storage(), 1_000_000);
    const result = await ingestAccepted(
      storage(),
      account.id,
      works.map((work) => newMessage({ work })),
    );
    return { accountId: account.id, ids: result.ids };
  };
  const get = async (id: number) => (await storage().getMessage(id))!;

  describe('message reads', () => {
    it('finds messages by guid, by newest trackinId of the account, and by ids in the order asked', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const other = await createFundedAccount(storage(), 1_000_000);
      const { ids } = await ingestAccepted(storage(), account.id, [
        newMessage({ kind: 'cascade', guid: 'g-1', trackinId: 't-1' }),
        newMessage({ kind: 'cascade', guid: 'g-2', trackinId: 't-1' }),
      ]);
      await ingestAccepted(storage(), other.id, [newMessage({ kind: 'cascade', guid: 'g-3', trackinId: 't-1' })]);
      expect((await storage().getMessageByGuid('g-2'))?.id).toBe(ids[1]);
      expect(await storage().getMessageByGuid('nope')).toBeNull();
      expect((await storage().getMessageByTrackinId(account.id, 't-1'))?.guid).toBe('g-2');
      expect((await storage().getMessageByTrackinId(other.id, 't-1'))?.guid).toBe('g-3');
      expect(await storage().getMessageByTrackinId(account.id, 't-2')).toBeNull();
      expect((await storage().getMessages([ids[1]!, 999_999, ids[0]!])).map((m) => m.id)).toEqual([ids[1], ids[0]]);
      expect(await storage().getMessages([])).toEqual([]);
      expect(await storage().getMessageWithHistory(999_999)).toBeNull();
    });

    it("reads a message's status view with its history: the status columns of the whole row", async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const history = [{ step: 0, channel: 'sms' as const, status: 'Sent' as const, at: 2_000, error: null }];
      const { ids } = await ingestAccepted(storage(), account.id, [newMessage({ customerMessageId: 'c-1', expiresAt: 9_000, history })]);
      const whole = (await storage().getMessage(ids[0]!))!;
      const found = (await storage().getMessageWithHistory(ids[0]!))!;
      const { id, listId, accountId, kind, customerMessageId, steps, status, expiresAt, cost } = whole;
      expect(found.message).toEqual({ id, listId, accountId, kind, customerMessageId, steps, status, expiresAt, cost });
      expect(found.message).toMatchObject({ customerMessageId: 'c-1', expiresAt: 9_000, kind: 'message' });
      expect(found.history).toEqual([{ messageId: ids[0], ...history[0] }]);
    });

    it('reads the histories of several messages at once, each oldest first', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const sent = { step: 0, channel: 'sms' as const, status: 'Sent' as const, at: 2_000, error: null };
      const { ids } = await ingestAccepted(storage(), account.id, [
        newMessage({ history: [sent] }),
        newMessage({ history: [sent] }),
        newMessage({ history: [sent] }),
      ]);
      const [a, b, c] = ids as [number, number, number];
      await storage().appendHistory([
        { messageId: b, step: 0, channel: 'sms', status: 'Delivered', at: 2_500, error: null },
        { messageId: a, step: 0, channel: 'sms', status: 'Failed', at: 2_600, error: 'undeliverable: absent' },
        { messageId: b, step: 0, channel: 'sms', status: 'Read', at: 2_400, error: null },
      ]);
      const read = await storage().histories([b, 999_999, a]);
      const of = (id: number) => read.filter((h) => h.messageId === id).map((h) => `${h.status}@${h.at}`);
      expect(read).toHaveLength(5);
      // Each message's entries in the order written, whatever their times.
      expect(of(a)).toEqual(['Sent@2000', 'Failed@2600']);
      expect(of(b)).toEqual(['Sent@2000', 'Delivered@2500', 'Read@2400']);
      expect(of(c)).toEqual([]);
      expect(read.find((h) => h.status === 'Failed')).toEqual({
        messageId: a,
        step: 0,
        channel: 'sms',
        status: 'Failed',
        at: 2_600,
        error: 'undeliverable: absent',
      });
      expect(await storage().histories([])).toEqual([]);
    });
  });

  describe('claimDue', () => {
    it('leases due messages, earliest wake-up first, up to the limit, once until the lease runs out', async () => {
      const { ids } = await messagesWith([send(0, 300)], [timer(0, 100), send(0, 900)], [send(0, 200)], [timer(0, 5_000)], []);
      const [a, b, c, d] = ids as [number, number, number, number];
      expect(await storage().nextDueAt(0)).toBe(100);
      expect((await storage().claimDue(300, 2, 1_000, 'w1')).map((m) => m.id)).toEqual([b, c]);
      // Leased: not claimed again, and not the next wake-up of anyone.
      expect((await storage().claimDue(300, 10, 1_000, 'w2')).map((m) => m.id)).toEqual([a]);
      expect(await storage().claimDue(300, 10, 1_000, 'w2')).toEqual([]);
      expect(await storage().nextDueAt(300)).toBe(5_000);
      // After the lease, the messages come back (the one without work never does).
      expect((await storage().claimDue(5_000, 10, 1_000, 'w3')).map((m) => m.id).sort()).toEqual([a, b, c, d].sort());
      expect(await storage().claimDue(0, 0, 1_000, 'w3')).toEqual([]);
    });

    it('answers a claimed message as getMessage reads it: every field, quotes, control characters and emoji included', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const awkward = 'say "hi"\\n\n\t\u0001 \u2028 émoji 😀';
      const first = newMessage({
        kind: 'cascade',
        guid: 'g-"1"',
        trackinId: 't\n1',
        customerMessageId: 'c-1',
        content: JSON.stringify({ text: awkward }),
        steps: [step('999000000001', { text: awkward })],
        routeRef: 'route "a"',
        expiresAt: 90_000,
        meta: { note: awkward, nested: { n: 1.5, list: [null, true, 1e21] } },
        work: [send(0, 1_000), timer(0, 2_000)],
      });
      const { ids } = await ingestAccepted(storage(), account.id, [first, newMessage({ work: [send(0, 1_500)] })]);
      const claimed = await storage().claimDue(2_000, 10, 1_000, 'w1');
      expect(claimed.map((m) => m.id)).toEqual(ids);
      for (const m of claimed) expect(m).toEqual(await get(m.id));
      // Read back as written (an adapter may read claims and getMessage the same way).
      const { kind, guid, trackinId, customerMessageId, content, steps, routeRef, expiresAt, meta, work } = first;
      expect(claimed[0]).toMatchObject({ kind, guid, trackinId, customerMessageId, content, steps, routeRef, expiresAt, meta, work });
    });

    it('answers null from nextDueAt when no message waits', async () => {
      await messagesWith([]);
      expect(await storage().nextDueAt(0)).toBeNull();
    });
  });

  describe('hand-over (an ingest leased to a worker)', () => {
    /** Ingests messages at 2_000 with a hand-over to `w1` until 60_000; the replay of `c-1` names an earlier message. */
    const handedOver = async (...works: WorkItem[][]) => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const replayed = newMessage({ customerMessageId: 'c-1', work: [send(0, 2_000)] });
      const earlier = await ingestAccepted(storage(), account.id, [replayed]);
      const batch = {
        accountId: account.id,
        at: 2_000,
        messages: [...works.map((work) => newMessage({ work })), replayed],
        chargeDescription: 'SMS',
        lease: { owner: 'w1', until: 60_000 },
      };
      const result = await storage().ingest(batch);
      if (result.status !== 'accepted') throw new Error(`ingest answered ${JSON.stringify(result)}`);
      return { ids: result.ids, earlier: earlier.ids[0]!, handed: handedOverIds(batch, result), copies: handedOverMessages(batch, result) };
    };

    it('makes copies of the handed-over messages that are the messages as stored (a worker takes them without a read)', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const batch = {
        accountId: account.id,
        at: 2_000,
        messages: [
          newMessage({ work: [send(0, 2_000)] }),
          newMessage({ work: [send(0, 5_000)] }),
          newMessage({
            kind: 'cascade',
            guid: 'g-copy',
            trackinId: 't-copy',
            customerMessageId: 'c-copy',
            routeRef: 'route-1@2',
            expiresAt: 90_000,
            meta: { referral: 'spring', customerData: { tier: 2 } },
            charge: 0,
            work: [send(0, 1_500), timer(0, 9_000)],
          }),
        ],
        chargeDescription: 'SMS',
        lease: { owner: 'w1', until: 60_000 },
      };
      const result = await storage().ingest(batch);
      const copies = handedOverMessages(batch, result);
      const handed = handedOverIds(batch, result);
      expect(handed).toHaveLength(2);
      expect(copies.map((m) => m.id)).toEqual(handed);
      const taken = await storage().takeHandedOver(handed, 'w1', 3_000);
      for (const copy of copies) {
        expect(copy).toStrictEqual(await get(copy.id));
        expect(copy).toStrictEqual(taken.find((m) => m.id === copy.id));
      }
    });

    it('stores the messages due at acceptance leased to the worker, which reads them by id as getMessage does', async () => {
      const { ids, earlier, handed } = await handedOver([send(0, 2_000)], [send(0, 1_500), timer(0, 9_000)], [send(0, 5_000)], []);
      const [now, overdue, later] = ids as [number, number, number];
      // Due at acceptance: handed over. Due later, no work at all, or a replay: not.
      expect(handed).toEqual([now, overdue]);
      expect(ids[4]).toBe(earlier);
      const taken = await storage().takeHandedOver([now, overdue, later, earlier, 999_999], 'w1', 3_000);
      expect(taken.map((m) => m.id).sort((a, b) => a - b)).toEqual([now, overdue]);
      for (const m of taken) expect(m).toEqual(await get(m.id));
      // Leased: nobody else claims them, nor sees them as the next wake-up, until the lease runs out.
      expect((await storage().claimDue(5_000, 10, 1_000, 'w2')).map((m) => m.id).sort((a, b) => a - b)).toEqual(
        [earlier, later].sort((a, b) => a - b),
      );
      expect(await storage().nextDueAt(5_000)).toBeNull();
      expect(await storage().takeHandedOver([now], 'w2', 3_000)).toEqual([]);
    });

    it('takes nothing once the lease ran out, and the messages are claimed as any due message', async () => {
      const { handed } = await handedOver([send(0, 2_000)]);
      expect(await storage().takeHandedOver(handed, 'w1', 60_000)).toEqual([]);
      expect((await storage().claimDue(60_000, 10, 1_000, 'w2')).map((m) => m.id)).toContain(handed[0]);
      expect(await storage().takeHandedOver(handed, 'w1', 60_000)).toEqual([]);
    });

    it("takes nothing the worker's commit already freed, and a commit over a handed-over message applies", async () => {
      const { handed } = await handedOver([send(0, 2_000)]);
      const [message] = await storage().takeHandedOver(handed, 'w1', 3_000);
      const result = await storage().commit(commitOf('w1', { updates: [updateOf(message!, { status: 'delivered' })] }));
      expect(result.conflicts).toEqual([]);
      expect((await get(message!.id)).status).toBe('delivered');
      expect(await storage().takeHandedOver(handed, 'w1', 3_000)).toEqual([]);
      expect(await storage().takeHandedOver([], 'w1', 3_000)).toEqual([]);
    });

    it("frees a dead worker's handed-over messages with its other leases", async () => {
      const { handed } = await handedOver([send(0, 2_000)]);
      await storage().releaseLeases(['w1']);
      expect(await storage().takeHandedOver(handed, 'w1', 3_000)).toEqual([]);
      expect((await storage().claimDue(3_000, 10, 1_000, 'w2')).map((m) => m.id)).toContain(handed[0]);
    });
  });

  describe('commit', () => {
    it('writes status, snapshot, work and history, bumps the version and frees the lease', async () => {
      const { ids } = await messagesWith([send(0, 2_000)], [timer(0, 2_000)]);
      const [a, b] = ids as [number, number];
      await storage().appendHistory([{ messageId: a, step: 0, channel: 'sms', status: 'Clicked', at: 2_100, error: null }]);
      const [claimed] = await storage().claimDue(2_000, 1, 60_000, 'w1');
      expect(claimed?.id).toBe(a);
      const result = await storage().commit(
        commitOf('w1', {
          updates: [
            updateOf(claimed!, {
              work: [timer(0, 9_000)],
              history: [
                { step: 0, channel: 'sms', status: 'Sent', at: 3_000, error: null, driver: 'smpp-1', providerMessageId: 'p-1' },
                { step: 0, channel: 'sms', status: 'Delivered', at: 3_001, error: null },
              ],
            }),
          ],
        }),
      );
      expect(result.conflicts).toEqual([]);
      expect(await get(a)).toMatchObject({
        status: 'processing',
        snapshot: { value: { processing: 'sending' }, context: { step: 0 } },
        work: [timer(0, 9_000)],
        version: 1,
        updatedAt: 3_000,
        createdAt: 2_000,
      });
      expect((await get(b)).updatedAt).toBe(2_000);
      const { history } = (await storage().getMessageWithHistory(a))!;
      expect(history).toEqual([
        { messageId: a, step: 0, channel: 'sms', status: 'Clicked', at: 2_100, error: null },
        { messageId: a, step: 0, channel: 'sms', status: 'Sent', at: 3_000, error: null, driver: 'smpp-1', providerMessageId: 'p-1' },
        { messageId: a, step: 0, channel: 'sms', status: 'Delivered', at: 3_001, error: null },
      ]);
      // The lease is gone with the commit: the message is claimable at its new wake-up.
      expect(await storage().nextDueAt(3_000)).toBe(2_000);
      expect((await storage().claimDue(9_000, 10, 60_000, 'w2')).map((m) => m.id).sort()).toEqual([a, b].sort());
    });

    it("keeps the committer's lease when an update asks: nobody else claims the message until it runs out, and the committer takes it by id", async () => {
      const { ids } = await messagesWith([timer(0, 2_000)], [timer(0, 2_000)]);
      const [a, b] = ids as [number, number];
      const claimed = await storage().claimDue(2_000, 2, 60_000, 'w1');
      expect(claimed.map((m) => m.id).sort((x, y) => x - y)).toEqual([a, b]);
      const byId = new Map(claimed.map((m) => [m.id, m]));
      // a's step left a send due now: kept until 5_000. b's step is committed as any.
      const result = await storage().commit(
        commitOf('w1', {
          updates: [updateOf(byId.get(a)!, { work: [send(0, 3_000)], lease: 5_000 }), updateOf(byId.get(b)!, { work: [send(0, 3_000)] })],
        }),
      );
      expect(result.conflicts).toEqual([]);
      expect(await get(a)).toMatchObject({ status: 'processing', work: [send(0, 3_000)], version: 1, updatedAt: 3_000 });
      // Leased to w1 until 5_000: not the next wake-up nor claimed by w2 before then; b is.
      expect(await storage().nextDueAt(3_000)).toBe(3_000);
      expect((await storage().claimDue(4_999, 10, 60_000, 'w2')).map((m) => m.id)).toEqual([b]);
      expect(await storage().nextDueAt(4_999)).toBeNull();
      // w1 takes it as stored, without a claim; w2 is answered nothing.
      const [taken] = await storage().takeHandedOver([a], 'w1', 4_999);
      expect(taken).toStrictEqual(await get(a));
      expect(await storage().takeHandedOver([a], 'w2', 4_999)).toEqual([]);
      // Its commit over the kept lease applies and frees it.
      expect(
        (await storage().commit(commitOf('w1', { at: 4_000, updates: [updateOf(taken!, { status: 'delivered' })] }))).conflicts,
      ).toEqual([]);
      expect(await get(a)).toMatchObject({ status: 'delivered', version: 2 });
      expect(await storage().takeHandedOver([a], 'w1', 4_000)).toEqual([]);
    });

    it('a kept lease that runs out protects nothing: the message is due again at its end and claimed as any', async () => {
      const { ids } = await messagesWith([timer(0, 2_000)]);
      const [claimed] = await storage().claimDue(2_000, 1, 60_000, 'w1');
      await storage().commit(commitOf('w1', { updates: [updateOf(claimed!, { work: [send(0, 3_000)], lease: 5_000 })] }));
      expect(await storage().takeHandedOver(ids, 'w1', 5_000)).toEqual([]);
      expect(await storage().nextDueAt(5_000)).toBe(5_000);
      expect((await storage().claimDue(5_000, 10, 60_000, 'w2')).map((m) => m.id)).toEqual(ids);
      // A lease kept over a stale version writes nothing and frees the committer's lease.
      const [mine] = await storage().claimDue(FAR, 10, 60_000, 'w3');
      const stale = await storage().commit(commitOf('w3', { at: FAR + 10, updates: [updateOf(claimed!, { lease: FAR + 100 })] }));
      expect(stale.conflicts).toEqual(ids);
      expect(await get(ids[0]!)).toMatchObject({ version: mine!.version });
      expect((await storage().claimDue(FAR + 10, 10, 60_000, 'w4')).map((m) => m.id)).toEqual(ids);
    });

    it('conflicts over a stale version or another live lease: nothing written, the committer lease freed', async () => {
      const { ids } = await messagesWith([send(0, 900)], [send(0, 1_000)]);
      const [a, b] = ids as [number, number];
      const [ma, mb] = [await get(a), await get(b)];
      await storage().claimDue(1_000, 1, 60_000, 'w1'); // a, leased to w1
      // w2 read b, then someone changed it; w2 also tries a, which w1 holds.
      await storage().commit(commitOf('w3', { updates: [updateOf(mb, { status: 'delivered', work: [send(0, 1_000)] })] }));
      const result = await storage().commit(
        commitOf('w2', { updates: [updateOf(ma, { status: 'undeliverable' }), updateOf(mb, { status: 'undeliverable' })] }),
      );
      expect(result.conflicts.sort()).toEqual([a, b].sort());
      expect(await get(a)).toMatchObject({ status: ma.status, version: 0 });
      expect(await get(b)).toMatchObject({ status: 'delivered', version: 1 });
      // w1's lease still holds a; w1's own commit goes through.
      expect((await storage().claimDue(1_000, 10, 60_000, 'w2')).map((m) => m.id)).toEqual([b]);
      expect((await storage().commit(commitOf('w1', { updates: [updateOf(ma)] }))).conflicts).toEqual([]);
      // A lease that ran out does not protect anyone.
      const [mb2] = await storage().claimDue(FAR, 10, 1, 'w4');
      expect(mb2?.id).toBe(b);
      const late = await storage().commit(commitOf('w5', { at: FAR + 10, updates: [updateOf(mb2!, { status: 'undeliverable' })] }));
      expect(late.conflicts).toEqual([]);
    });

    it('applies a round whose updates win and lose together: only the winner writes, the committer frees its lost lease', async () => {
      const { ids } = await messagesWith([send(0, 1_000)], [send(0, 1_000)], [send(0, 1_000)]);
      const [a, b, c] = ids as [number, number, number];
      const mine = await storage().claimDue(1_000, 2, 60_000, 'w1'); // a and b
      expect(mine.map((m) => m.id)).toEqual([a, b]);
      const [mc] = await storage().claimDue(1_000, 1, 60_000, 'w2');
      const sent = { step: 0, channel: 'sms' as const, status: 'Sent' as const, at: 3_000, error: null };
      const result = await storage().commit(
        commitOf('w1', {
          updates: [
            updateOf(mine[0]!, { attempt: 'mine', history: [sent] }),
            updateOf({ ...mine[1]!, version: 7 }, { attempt: 'mine', history: [sent] }), // stale
            updateOf(mc!, { attempt: 'mine', history: [sent] }), // w2 holds it
          ],
          providerIds: [a, b, c].map((id) => ({ driver: 'smpp', providerMessageId: `P${id}`, messageId: id, step: 0 })),
        }),
      );
      expect(result.conflicts.sort()).toEqual([b, c].sort());
      expect(await get(a)).toMatchObject({ version: 1, status: 'processing' });
      expect(await get(b)).toMatchObject({ version: 0, work: [send(0, 1_000)] });
      expect((await storage().history(a)).map((h) => h.status)).toEqual(['Sent']);
      expect(await storage().history(b)).toEqual([]);
      expect(await storage().history(c)).toEqual([]);
      expect([...(await storage().findAttempts('smpp', [`P${a}`, `P${b}`, `P${c}`])).keys()]).toEqual([`P${a}`]);
      // b wakes again at its work's due time; c stays w2's.
      expect((await storage().claimDue(1_000, 10, 60_000, 'w3')).map((m) => m.id)).toEqual([b]);
      expect((await storage().commit(commitOf('w2', { updates: [updateOf(mc!)] }))).conflicts).toEqual([]);
      expect((await storage().adoptAttempts(['w1'], 'w4', 10)).map((x) => x.message.id)).toEqual([a]);
    });

    it('records provider ids, so that a receipt naming one finds its attempt', async () => {
      const { ids } = await messagesWith([send(0, 1_000)]);
      const [a] = ids as [number];
      const m = await get(a);
      await storage().commit(
        commitOf('w1', { updates: [updateOf(m)], providerIds: [{ driver: 'smpp', providerMessageId: 'X1', messageId: a, step: 0 }] }),
      );
      const found = await storage().findAttempts('smpp', ['X1', 'X2']);
      expect([...found]).toEqual([['X1', { messageId: a, step: 0 }]]);
      expect((await storage().findAttempts('kannel', ['X1'])).size).toBe(0);
      expect((await storage().findAttempts('smpp', [])).size).toBe(0);
    });
  });

  describe('charges', () => {
    it('charges each step once, with the wallet, the balance and the message cost in one transaction', async () => {
      const account = await createFundedAccount(storage(), 100_000);
      const { ids } = await ingestAccepted(storage(), account.id, [newMessage({ charge: 0 })]);
      const [a] = ids as [number];
      const charge = (s: number, amount: number) => ({ messageId: a, accountId: account.id, step: s, amount, description: `step ${s}` });
      expect(await storage().chargeSteps([charge(1, 30_000), charge(2, 50_000), charge(1, 30_000)], 3_000)).toEqual([
        'charged',
        'charged',
        'already',
      ]);
      expect(await storage().chargeSteps([charge(2, 50_000), charge(3, 30_000)], 3_001)).toEqual(['already', 'insufficient_funds']);
      expect(await storage().getBalance(account.id)).toBe(20_000);
      expect((await get(a)).cost).toBe(80_000);
      expect((await get(a)).charged).toBe(0b110);
      const charges = await storage().listWalletTransactions(account.id, { kinds: ['charge'], page: 1, pageSize: 10 });
      expect(charges.items.map((t) => [t.amount, t.messageId, t.balanceAfter]).reverse()).toEqual([
        [-30_000, a, 70_000],
        [-50_000, a, 20_000],
      ]);
      expect(await storage().chargeSteps([], 1)).toEqual([]);
    });

    it("writes a step's price when the charge prices it again, and leaves the other steps as stored", async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const to = '999000000777';
      const { ids } = await ingestAccepted(storage(), account.id, [
        newMessage({ charge: 0, steps: [step(to), step(to, { channel: 'rcs' })] }),
      ]);
      const [a] = ids as [number];
      const charge = (s: number, amount: number, reprices?: true) => ({
        messageId: a,
        accountId: account.id,
        step: s,
        amount,
        description: `step ${s}`,
        ...(reprices ? { reprices } : {}),
      });
      // Step 0's text came out three parts long at send: 150,000 where 50,000 was stored.
      expect(await storage().chargeSteps([charge(0, 150_000, true), charge(1, 50_000)], 3_000)).toEqual(['charged', 'charged']);
      const stored = await get(a);
      expect(stored.steps.map((s) => s.cost)).toEqual([150_000, 50_000]);
      expect(stored.steps[0]).toEqual({ ...step(to), cost: 150_000 });
      expect(stored.cost).toBe(200_000);
    });
  });

  describe('the receipt inbox', () => {
    it('keeps receipts until a commit applies them; a conflicted message gets its receipts back', async () => {
      const { ids } = await messagesWith([], []);
      const [a, b] = ids as [number, number];
      await storage().enqueueReceipts([
        { messageId: a, event: { type: 'DELIVERED', step: 0 }, detail: null, driver: 'sim', at: 2_500 },
        { messageId: b, event: { type: 'FAILED', step: 0, failure: 'undeliverable' }, detail: 'gone', driver: null, at: 2_600 },
      ]);
      const claimed = await storage().claimReceipts(3_000, 10, 60_000, 'w1');
      expect(claimed.map(({ id: _id, ...r }) => r)).toEqual([
        { messageId: a, event: { type: 'DELIVERED', step: 0 }, detail: null, driver: 'sim', at: 2_500 },
        { messageId: b, event: { type: 'FAILED', step: 0, failure: 'undeliverable' }, detail: 'gone', driver: null, at: 2_600 },
      ]);
      expect(await storage().claimReceipts(3_000, 10, 60_000, 'w2')).toEqual([]);
      const stale = { ...(await get(b)), version: 7 };
      const result = await storage().commit(
        commitOf('w1', {
          updates: [updateOf(await get(a), { status: 'delivered' }), updateOf(stale)],
          receipts: claimed.map((r) => ({ id: r.id, messageId: r.messageId })),
        }),
      );
      expect(result.conflicts).toEqual([b]);
      // a's receipt is gone; b's is back in the inbox at once.
      expect((await storage().claimReceipts(3_001, 10, 60_000, 'w2')).map((r) => r.messageId)).toEqual([b]);
    });

    it('hands a receipt whose lease ran out to another worker', async () => {
      const { ids } = await messagesWith([]);
      await storage().enqueueReceipts([{ messageId: ids[0]!, event: { type: 'READ', step: 0 }, detail: null, driver: null, at: 1 }]);
      expect(await storage().claimReceipts(1_000, 10, 100, 'w1')).toHaveLength(1);
      expect(await storage().claimReceipts(1_050, 10, 100, 'w2')).toHaveLength(0);
      expect(await storage().claimReceipts(1_100, 10, 100, 'w2')).toHaveLength(1);
    });

    it('keeps receipts of unknown provider ids until their acceptance commits, and drops old ones', async () => {
      const { ids } = await messagesWith([send(0, 1_000)]);
      const [a] = ids as [number];
      await storage().addOrphanReceipts([
        { driver: 'smpp', providerMessageId: 'P1', outcome: 'failed', failure: 'undeliverable', detail: 'DLR UNDELIV', at: 2_000 },
        { driver: 'smpp', providerMessageId: 'P2', outcome: 'delivered', failure: null, detail: null, at: 100 },
      ]);
      expect(await storage().adoptOrphanReceipts(0)).toBe(0);
      await storage().commit(
        commitOf('w1', {
          updates: [updateOf(await get(a))],
          providerIds: [{ driver: 'smpp', providerMessageId: 'P1', messageId: a, step: 0 }],
        }),
      );
      expect(await storage().adoptOrphanReceipts(1_000)).toBe(1);
      expect((await storage().claimReceipts(3_000, 10, 1, 'w1')).map(({ id: _id, ...r }) => r)).toEqual([
        { messageId: a, event: { type: 'FAILED', step: 0, failure: 'undeliverable' }, detail: 'DLR UNDELIV', driver: 'smpp', at: 2_000 },
      ]);
      // P2 was older than the cut-off: dropped, never adopted even once its id is known.
      await storage().commit(
        commitOf('w1', {
          updates: [updateOf(await get(a))],
          providerIds: [{ driver: 'smpp', providerMessageId: 'P2', messageId: a, step: 0 }],
        }),
      );
      expect(await storage().adoptOrphanReceipts(1_000)).toBe(0);
    });

    it('writes receipts and orphans in one transaction: all of them, or none when one cannot be written', async () => {
      const { ids } = await messagesWith([send(0, 1_000)]);
      const [a] = ids as [number];
      const receipt = { messageId: a, event: { type: 'DELIVERED', step: 0 }, detail: null, driver: 'smpp', at: 2_000 } as const;
      const orphan = { driver: 'smpp', providerMessageId: 'P9', outcome: 'read', failure: null, detail: null, at: 2_000 } as const;
      // An orphan without its driver breaks the table's NOT NULL, after the receipt was written.
      await expect(storage().enqueueReceipts([receipt], [{ ...orphan, driver: null as unknown as string }])).rejects.toThrow();
      expect(await storage().claimReceipts(3_000, 10, 1, 'w1')).toEqual([]);

      await storage().enqueueReceipts([receipt], [orphan]);
      expect((await storage().claimReceipts(3_000, 10, 1, 'w1')).map(({ id: _id, ...r }) => r)).toEqual([receipt]);
      await storage().commit(
        commitOf('w1', {
          updates: [updateOf(await get(a))],
          providerIds: [{ driver: 'smpp', providerMessageId: 'P9', messageId: a, step: 0 }],
        }),
      );
      expect(await storage().adoptOrphanReceipts(1_000)).toBe(1);
    });
  });

  describe('workers and recovery', () => {
    it('finds dead and retired workers, frees their leases and hands their attempts over', async () => {
      const { ids } = await messagesWith([send(0, 900)], [send(0, 950)], [send(0, 1_000)]);
      const [a, b, c] = ids as [number, number, number];
      await storage().heartbeat('dead', 1_000);
      await storage().heartbeat('live', 1_000);
      await storage().heartbeat('done', 1_000);
      const claimed = await storage().claimDue(1_000, 2, 60_000, 'dead'); // a and b
      expect(claimed.map((m) => m.id).sort()).toEqual([a, b].sort());
      // dead accepted a's attempt and awaits its outcome; c's attempt is held by live.
      await storage().commit(
        commitOf('dead', {
          updates: [
            updateOf(
              claimed.find((m) => m.id === a)!,
              { attempt: 'mine', history: [{ step: 0, channel: 'sms', status: 'Sent', at: 3_000, error: null }] },
            ),
          ],
        }),
      );
      const [mc] = await storage().claimDue(1_000, 1, 60_000, 'live');
      await storage().commit(commitOf('live', { updates: [updateOf(mc!, { attempt: 'mine' })] }));
      await storage().retireWorker('done');

      await storage().heartbeat('live', 7_000);
      expect((await storage().deadWorkers(7_000, 5_000, 'live')).sort()).toEqual(['dead', 'done']);
      expect(await storage().deadWorkers(7_000, 5_000, 'dead')).toEqual(['done']);
      // b is claimable again at once, long before its lease would run out.
      expect(await storage().claimDue(7_000, 10, 60_000, 'live')).toEqual([]);
      expect(await storage().releaseLeases(['dead', 'done'])).toBe(1);
      expect((await storage().claimDue(7_000, 10, 60_000, 'live')).map((m) => m.id)).toEqual([b]);

      const adopted = await storage().adoptAttempts(['dead', 'done'], 'live', 10);
      expect(adopted.map((x) => [x.message.id, x.history.map((h) => h.status)])).toEqual([[a, ['Sent']]]);
      expect(await storage().adoptAttempts(['dead', 'done'], 'live', 10)).toEqual([]);
      await storage().forgetWorkers(['dead', 'done']);
      expect(await storage().deadWorkers(7_000, 5_000, 'live')).toEqual([]);
      // An update with attempt 'keep' keeps the holder; 'none' clears it (nothing left to adopt).
      await storage().heartbeat('live', 100_000);
      const ma = await get(a);
      await storage().commit(commitOf('live', { updates: [updateOf(ma, { attempt: 'keep' })] }));
      expect((await storage().adoptAttempts(['live'], 'x', 10)).map((x) => x.message.id).sort()).toEqual([a, c].sort());
      await storage().commit(
        commitOf('x', { updates: [updateOf(await get(a), { attempt: 'none' }), updateOf(await get(c), { attempt: 'none' })] }),
      );
      expect(await storage().adoptAttempts(['x'], 'y', 10)).toEqual([]);
    });

    it('counts the live workers: heard from within the stale time and not retired', async () => {
      const before = await storage().liveWorkers(50_000, 5_000);
      await storage().heartbeat('count-a', 50_000);
      await storage().heartbeat('count-b', 47_000);
      await storage().heartbeat('count-c', 44_999);
      expect(await storage().liveWorkers(50_000, 5_000)).toBe(before + 2);
      await storage().retireWorker('count-a');
      expect(await storage().liveWorkers(50_000, 5_000)).toBe(before + 1);
      // A heartbeat after a clean stop (a worker started again under its id) makes it live again.
      await storage().heartbeat('count-a', 51_000);
      expect(await storage().liveWorkers(51_000, 5_000)).toBe(before + 2);
    });
  });

  describe('scheduled messages', () => {
    const change = (overrides: Partial<ScheduledChange> = {}): ScheduledChange => ({
      steps: [step('999111111111', { text: 'changed' })],
      content: '{"changed":true}',
      dueAt: 8_000,
      expiresAt: 68_000,
      status: 'scheduled',
      snapshot: { value: 'scheduled', context: { step: 0, last: 1, retries: 0 } },
      work: [{ kind: 'event', event: { type: 'DUE' }, dueAt: 8_000 }],
      wallet: { kind: 'charge', amount: -10, description: 'change' },
      history: [],
      ...overrides,
    });

    it('updateScheduled changes a scheduled message, its work and its wallet together, and bumps its version', async () => {
      const { ids, accountId } = await messagesWith([{ kind: 'event', event: { type: 'DUE' }, dueAt: 5_000 }, timer(0, 6_000)]);
      const [a] = ids as [number];
      const before = await get(a);
      const balance = await storage().getBalance(accountId);
      expect(await storage().updateScheduled(a, change(), 3_000)).toBe('changed');
      expect(await get(a)).toMatchObject({
        steps: change().steps,
        content: '{"changed":true}',
        dueAt: 8_000,
        expiresAt: 68_000,
        status: 'scheduled',
        snapshot: change().snapshot,
        work: change().work,
        cost: before.cost + 10,
        updatedAt: 3_000,
        version: before.version + 1,
      });
      expect(await storage().getBalance(accountId)).toBe(balance - 10);
      expect(await storage().nextDueAt(0)).toBe(8_000);
    });

    it('updateScheduled refuses a charge the balance does not cover, writing nothing', async () => {
      const { ids, accountId } = await messagesWith([]);
      const [a] = ids as [number];
      const before = await get(a);
      const balance = await storage().getBalance(accountId);
      const result = await storage().updateScheduled(
        a,
        change({ wallet: { kind: 'charge', amount: -(balance + 1), description: 'x' } }),
        3_000,
      );
      expect(result).toBe('insufficient_funds');
      expect(await get(a)).toEqual(before);
      expect(await storage().getBalance(accountId)).toBe(balance);
    });

    it('updateScheduled cancels with its refund: final status, its history, no work left', async () => {
      const { ids, accountId } = await messagesWith([{ kind: 'event', event: { type: 'DUE' }, dueAt: 5_000 }]);
      const [a] = ids as [number];
      const balance = await storage().getBalance(accountId);
      const entry = { step: 0, channel: 'sms' as const, status: 'Cancelled' as const, at: 3_000, error: null };
      const cancelled = change({
        status: 'cancelled',
        snapshot: { value: 'cancelled', context: {} },
        history: [entry],
        work: [],
        wallet: { kind: 'refund', amount: 50_000, description: 'cancellation' },
      });
      expect(await storage().updateScheduled(a, cancelled, 3_000)).toBe('changed');
      expect(await get(a)).toMatchObject({ status: 'cancelled', cost: 0, work: [] });
      expect(await storage().history(a)).toEqual([{ ...entry, messageId: a }]);
      expect(await storage().getBalance(accountId)).toBe(balance + 50_000);
      expect(await storage().nextDueAt(0)).toBeNull();
    });

    it('updateScheduled changes nothing once the message is no longer scheduled', async () => {
      const { ids, accountId } = await messagesWith([]);
      const [a] = ids as [number];
      await storage().commit(commitOf('w1', { updates: [updateOf(await get(a))] }));
      const before = await get(a);
      const balance = await storage().getBalance(accountId);
      expect(await storage().updateScheduled(a, change(), 3_000)).toBe('not_scheduled');
      expect(await get(a)).toEqual(before);
      expect(await storage().history(a)).toEqual([]);
      expect(await storage().getBalance(accountId)).toBe(balance);
    });
  });
}
