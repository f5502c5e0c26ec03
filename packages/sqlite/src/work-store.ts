import type Database from 'better-sqlite3';
import type { Commit, CommitResult, MachineEvent, WorkStorage } from '@spillway/core';
import type { OrphanReceipt, QueuedReceipt, StepCharge, StepChargeResult } from '@spillway/core/storage';
import {
  HISTORY_ROW_COLUMNS,
  historyEntryFromRow,
  pushHistoryRow,
  queuedReceiptFromRow,
  receiptOfOrphan,
  snapshotText,
  wakeAtOf,
  workText,
  type HistoryRow,
} from '@spillway/core/storage';
import { createBatchInserter } from './batch-insert.ts';
import { HISTORY_SELECT } from './message-store.ts';
import { MESSAGE_COLUMNS, messageFromTuple, type MessageTuple } from './rows.ts';
import { lazy } from './sqlite-util.ts';

/** The wake-up time of a message from its work column: the earliest `dueAt`, NULL when none. */
const WAKE_OF_WORK = `(SELECT MIN(value ->> '$.dueAt') FROM json_each(messages.work))`;

type SqliteReceiptRow = { id: number; message_id: number; event: string; detail: string | null; driver: string | null; at: number };

function prepare(db: Database.Database) {
  return {
    // A claimed message wakes again when its lease runs out: the wake-up index then passes over
    // the messages in flight instead of scanning them at every claim. A commit or a release sets
    // the wake-up back from the message's work. The ids are picked, leased and read in three
    // statements: an UPDATE ... RETURNING of whole rows costs SQLite about twice as much.
    pickDue: db
      .prepare<[number, number, number], number>(`SELECT id FROM messages WHERE wake_at <= ? AND lease_until <= ? ORDER BY wake_at LIMIT ?`)
      .pluck(),
    // Looks before a claim takes the write lock: most rounds under a trickle of sends find no
    // receipt in the inbox, and an idle one nothing due (a read takes no lock from writers).
    anyDue: db.prepare<[number, number], number>(`SELECT 1 FROM messages WHERE wake_at <= ? AND lease_until <= ? LIMIT 1`).pluck(),
    anyReceipt: db.prepare<[number], number>(`SELECT 1 FROM receipts WHERE lease_until <= ? LIMIT 1`).pluck(),
    lease: db.prepare<[number, string, number, string]>(
      `UPDATE messages SET lease_until = ?, lease_owner = ?, wake_at = ? WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    // What a worker reads of a claimed message: every column it maps, without the lease's own.
    claimed: db
      .prepare<[string], MessageTuple>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`)
      .raw(),
    handedOver: db
      .prepare<[string, string, number], MessageTuple>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ? AND lease_until > ?`,
      )
      .raw(),
    nextDue: db.prepare<[number], { due: number | null }>(
      `SELECT wake_at AS due FROM messages WHERE wake_at IS NOT NULL AND lease_until <= ? ORDER BY wake_at LIMIT 1`,
    ),
    // Applies over the version read, unless another worker holds a live lease on the message; the
    // lease is freed, or kept for the committer (`MessageUpdate.lease`).
    update: db.prepare<
      [string, string, string, number | null, number, number, string | null, string, string, number, number, string, number]
    >(
      `UPDATE messages SET status = ?, snapshot = ?, work = ?, wake_at = ?, updated_at = ?, version = version + 1,
         lease_until = ?, lease_owner = ?,
         attempt_owner = CASE ? WHEN 'keep' THEN attempt_owner WHEN 'mine' THEN ? ELSE NULL END
       WHERE id = ? AND version = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)`,
    ),
    release: db.prepare<[number, string]>(
      `UPDATE messages SET lease_until = 0, lease_owner = NULL, wake_at = ${WAKE_OF_WORK} WHERE id = ? AND lease_owner = ?`,
    ),
    insertHistory: createBatchInserter(db, 'history', HISTORY_ROW_COLUMNS),
    insertProviderId: db.prepare<[string, string, number, number]>(
      `INSERT INTO provider_ids (driver, provider_message_id, message_id, step) VALUES (?, ?, ?, ?)
       ON CONFLICT (driver, provider_message_id) DO UPDATE SET message_id = excluded.message_id, step = excluded.step`,
    ),
    // ids as one JSON array: one statement per round, whatever the number of receipts.
    deleteReceipts: db.prepare<[string]>(`DELETE FROM receipts WHERE id IN (SELECT value FROM json_each(?))`),
    releaseReceipts: db.prepare<[string]>(
      `UPDATE receipts SET lease_until = 0, lease_owner = NULL WHERE id IN (SELECT value FROM json_each(?))`,
    ),

    charged: db.prepare<[number], { charged: number }>(`SELECT charged FROM messages WHERE id = ?`),
    moveBalanceIfCovered: db.prepare<[number, number, number], { balance: number }>(
      `UPDATE accounts SET balance = balance - ? WHERE id = ? AND balance >= ? RETURNING balance`,
    ),
    insertCharge: db.prepare<[number, number, number, number, string, number]>(
      `INSERT INTO wallet_transactions (account_id, kind, amount, balance_after, message_id, description, created_at)
       VALUES (?, 'charge', ?, ?, ?, ?, ?)`,
    ),
    markCharged: db.prepare<[number, number, number]>(`UPDATE messages SET cost = cost + ?, charged = charged | ? WHERE id = ?`),
    repriceStep: db.prepare<[string, number, number]>(`UPDATE messages SET steps = json_set(steps, ?, ?) WHERE id = ?`),

    enqueue: db.prepare<[number, string, string | null, string | null, number]>(
      `INSERT INTO receipts (message_id, event, detail, driver, at) VALUES (?, ?, ?, ?, ?)`,
    ),
    claimReceipts: db.prepare<[number, string, number, number], SqliteReceiptRow>(
      `UPDATE receipts SET lease_until = ?, lease_owner = ?
       WHERE id IN (SELECT id FROM receipts WHERE lease_until <= ? ORDER BY id LIMIT ?)
       RETURNING id, message_id, event, detail, driver, at`,
    ),
    findAttempts: db.prepare<[string, string], { provider_message_id: string; message_id: number; step: number }>(
      `SELECT provider_message_id, message_id, step FROM provider_ids
       WHERE driver = ? AND provider_message_id IN (SELECT value FROM json_each(?))`,
    ),
    insertOrphan: db.prepare<[string, string, string, string | null, string | null, number]>(
      `INSERT INTO orphan_receipts (driver, provider_message_id, outcome, failure, detail, at) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    matchedOrphans: db.prepare<[], OrphanReceipt & { id: number; message_id: number; step: number }>(
      `SELECT o.id, o.driver, o.provider_message_id AS providerMessageId, o.outcome, o.failure, o.detail, o.at, p.message_id, p.step
       FROM orphan_receipts o JOIN provider_ids p ON p.driver = o.driver AND p.provider_message_id = o.provider_message_id
       ORDER BY o.id LIMIT 1000`,
    ),
    deleteOrphan: db.prepare<[number]>(`DELETE FROM orphan_receipts WHERE id = ?`),
    dropOldOrphans: db.prepare<[number]>(`DELETE FROM orphan_receipts WHERE at < ?`),

    heartbeat: db.prepare<[string, number]>(
      `INSERT INTO workers (id, heartbeat_at, state) VALUES (?, ?, 'live')
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, state = 'live'`,
    ),
    deadWorkers: db.prepare<[string, number], { id: string }>(
      `SELECT id FROM workers WHERE id <> ? AND (heartbeat_at < ? OR state = 'retired')`,
    ),
    liveWorkers: db.prepare<[number], { n: number }>(`SELECT count(*) AS n FROM workers WHERE heartbeat_at >= ? AND state = 'live'`),
    releaseLeases: db.prepare<[string]>(
      `UPDATE messages SET lease_until = 0, lease_owner = NULL, wake_at = ${WAKE_OF_WORK} WHERE lease_owner IN (SELECT value FROM json_each(?))`,
    ),
    releaseReceiptLeases: db.prepare<[string]>(
      `UPDATE receipts SET lease_until = 0, lease_owner = NULL WHERE lease_owner IN (SELECT value FROM json_each(?))`,
    ),
    adopt: db
      .prepare<[string, string, number], MessageTuple>(
        `UPDATE messages SET attempt_owner = ?
         WHERE id IN (SELECT id FROM messages WHERE attempt_owner IN (SELECT value FROM json_each(?)) LIMIT ?)
         RETURNING ${MESSAGE_COLUMNS}`,
      )
      .raw(),
    history: db.prepare<[number], HistoryRow>(`${HISTORY_SELECT} WHERE message_id = ? ORDER BY seq`),
    // ids as one JSON array, as the reads of messages by ids take them.
    histories: db.prepare<[string], HistoryRow>(
      `${HISTORY_SELECT} WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, seq`,
    ),
    forget: db.prepare<[string]>(
      `DELETE FROM workers WHERE id IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (SELECT 1 FROM messages WHERE attempt_owner = workers.id)`,
    ),
    retire: db.prepare<[string]>(`UPDATE workers SET state = 'retired' WHERE id = ?`),
  };
}

type Statements = ReturnType<typeof prepare>;

function commitIn(s: Statements, commit: Commit): CommitResult {
  const { at, owner } = commit;
  const lost = new Set<number>();
  // The round's history goes in as one multi-row insert; one statement each for the receipts.
  const history: unknown[] = [];
  for (const u of commit.updates) {
    const changed = s.update.run(
      u.status,
      snapshotText(u.snapshot),
      workText(u.work),
      // A lease kept moves the wake-up to its end, as a claim's does.
      u.lease ?? wakeAtOf(u.work),
      at,
      u.lease ?? 0,
      u.lease === undefined ? null : owner,
      u.attempt,
      owner,
      u.id,
      u.version,
      owner,
      at,
    ).changes;
    if (changed === 0) {
      lost.add(u.id);
      s.release.run(u.id, owner);
      continue;
    }
    for (const h of u.history) pushHistoryRow(history, u.id, h);
  }
  if (history.length > 0) s.insertHistory.insert(history);
  for (const p of commit.providerIds) {
    if (!lost.has(p.messageId)) s.insertProviderId.run(p.driver, p.providerMessageId, p.messageId, p.step);
  }
  const applied: number[] = [];
  const released: number[] = [];
  for (const r of commit.receipts) (lost.has(r.messageId) ? released : applied).push(r.id);
  if (applied.length > 0) s.deleteReceipts.run(JSON.stringify(applied));
  if (released.length > 0) s.releaseReceipts.run(JSON.stringify(released));
  return { conflicts: [...lost] };
}

function chargeIn(s: Statements, charges: StepCharge[], at: number): StepChargeResult[] {
  return charges.map((c) => {
    const bit = 2 ** c.step;
    const row = s.charged.get(c.messageId);
    if (!row) return 'insufficient_funds';
    if ((row.charged & bit) !== 0) return 'already';
    const moved = s.moveBalanceIfCovered.get(c.amount, c.accountId, c.amount);
    if (!moved) return 'insufficient_funds';
    s.insertCharge.run(c.accountId, -c.amount, moved.balance, c.messageId, c.description, at);
    s.markCharged.run(c.amount, bit, c.messageId);
    if (c.reprices) s.repriceStep.run(`$[${c.step}].cost`, c.amount, c.messageId);
    return 'charged';
  });
}

/** What the engine's workers do with the SQLite file: claims, rounds, charges, the receipt inbox, recovery. */
export function createWorkStore(db: Database.Database): WorkStorage {
  // Prepared on first use: the tables exist only once migrate() has run.
  const st = lazy(() => prepare(db));
  const commitTx = db.transaction((commit: Commit) => commitIn(st(), commit));
  const chargeTx = db.transaction((charges: StepCharge[], at: number) => chargeIn(st(), charges, at));
  const claimTx = db.transaction((now: number, limit: number, leaseMs: number, owner: string) => {
    const s = st();
    const ids = s.pickDue.all(now, now, limit);
    if (ids.length === 0) return [];
    const list = JSON.stringify(ids);
    s.lease.run(now + leaseMs, owner, now + leaseMs, list);
    return s.claimed.all(list);
  });
  const claimReceiptsTx = db.transaction((now: number, limit: number, leaseMs: number, owner: string) =>
    st().claimReceipts.all(now + leaseMs, owner, now, limit),
  );
  const enqueueTx = db.transaction((receipts: QueuedReceipt[], orphans: readonly OrphanReceipt[]) => {
    for (const r of receipts) st().enqueue.run(r.messageId, JSON.stringify(r.event), r.detail, r.driver, r.at);
    for (const o of orphans) st().insertOrphan.run(o.driver, o.providerMessageId, o.outcome, o.failure, o.detail, o.at);
  });
  const adoptOrphansTx = db.transaction((olderThan: number): number => {
    const s = st();
    const matched = s.matchedOrphans.all();
    for (const o of matched) {
      const r = receiptOfOrphan(o, o.message_id, o.step);
      s.enqueue.run(r.messageId, JSON.stringify(r.event), r.detail, r.driver, r.at);
      s.deleteOrphan.run(o.id);
    }
    s.dropOldOrphans.run(olderThan);
    return matched.length;
  });
  const releaseTx = db.transaction((owners: string) => {
    st().releaseReceiptLeases.run(owners);
    return st().releaseLeases.run(owners).changes;
  });
  const adoptTx = db.transaction((from: string, to: string, limit: number) =>
    st()
      .adopt.all(to, from, limit)
      .map(messageFromTuple)
      .map((message) => ({ message, history: st().history.all(message.id).map(historyEntryFromRow) })),
  );

  return {
    async claimDue(now, limit, leaseMs, owner) {
      if (limit <= 0 || st().anyDue.get(now, now) === undefined) return [];
      // The read by ids answers in no promised order: restore the claim order.
      return claimTx
        .immediate(now, limit, leaseMs, owner)
        .map(messageFromTuple)
        .sort((a, b) => (wakeAtOf(a.work) ?? 0) - (wakeAtOf(b.work) ?? 0) || a.id - b.id);
    },
    async takeHandedOver(ids, owner, now) {
      if (ids.length === 0) return [];
      // A read: the lease was written with the message, so no write lock is taken.
      return st().handedOver.all(JSON.stringify(ids), owner, now).map(messageFromTuple);
    },
    async nextDueAt(now) {
      return st().nextDue.get(now)?.due ?? null;
    },
    async commit(commit) {
      return commitTx.immediate(commit);
    },
    async chargeSteps(charges, at) {
      return charges.length === 0 ? [] : chargeTx.immediate(charges, at);
    },
    async enqueueReceipts(receipts, orphans = []) {
      if (receipts.length + orphans.length > 0) enqueueTx.immediate(receipts, orphans);
    },
    async claimReceipts(now, limit, leaseMs, owner) {
      if (st().anyReceipt.get(now) === undefined) return [];
      return claimReceiptsTx
        .immediate(now, limit, leaseMs, owner)
        .map((row) => queuedReceiptFromRow({ ...row, event: JSON.parse(row.event) as MachineEvent }))
        .sort((a, b) => a.id - b.id);
    },
    async histories(messageIds) {
      if (messageIds.length === 0) return [];
      return st().histories.all(JSON.stringify(messageIds)).map(historyEntryFromRow);
    },
    async findAttempts(driver, providerMessageIds) {
      const found = new Map<string, { messageId: number; step: number }>();
      if (providerMessageIds.length === 0) return found;
      for (const row of st().findAttempts.all(driver, JSON.stringify(providerMessageIds))) {
        found.set(row.provider_message_id, { messageId: row.message_id, step: row.step });
      }
      return found;
    },
    async addOrphanReceipts(orphans) {
      if (orphans.length > 0) enqueueTx.immediate([], orphans);
    },
    async adoptOrphanReceipts(olderThan) {
      return adoptOrphansTx.immediate(olderThan);
    },
    async heartbeat(owner, now) {
      st().heartbeat.run(owner, now);
    },
    async deadWorkers(now, staleMs, self) {
      return st()
        .deadWorkers.all(self, now - staleMs)
        .map((r) => r.id);
    },
    async liveWorkers(now, staleMs) {
      return st().liveWorkers.get(now - staleMs)!.n;
    },
    async releaseLeases(owners) {
      return owners.length === 0 ? 0 : releaseTx.immediate(JSON.stringify(owners));
    },
    async adoptAttempts(from, to, limit) {
      return from.length === 0 ? [] : adoptTx.immediate(JSON.stringify(from), to, limit);
    },
    async forgetWorkers(owners) {
      if (owners.length > 0) st().forget.run(JSON.stringify(owners));
    },
    async retireWorker(owner) {
      st().retire.run(owner);
    },
  };
}
