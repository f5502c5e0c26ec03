import type pg from 'pg';
import {
  historyEntryFromRow,
  historyRowValues,
  queuedReceiptFromRow,
  receiptOfOrphan,
  snapshotText,
  storedMessageFromRow,
  wakeAtOf,
  workText,
} from '@spillway/core/storage';
import type { Commit, CommitResult, WorkStorage } from '@spillway/core';
import type {
  HistoryRow,
  MessageRow,
  MessageUpdate,
  OrphanReceipt,
  QueuedReceipt,
  ReceiptRow,
  StepChargeResult,
} from '@spillway/core/storage';
import { bulkInsert, HISTORY_COLUMNS } from './bulk-insert.ts';
import { HISTORY_FIELDS, historyOf } from './message-store.ts';
import { row, rows, run, transaction, type Queryable } from './pg-util.ts';

/** The wake-up time of a message from its work column: the earliest `dueAt`, NULL when none. */
const WAKE_OF_WORK = `(SELECT MIN((w ->> 'dueAt')::bigint) FROM json_array_elements(work) AS w)`;

/** Applies `updates` (each message once) over the versions they read; answers the ids applied. */
async function applyUpdates(client: Queryable, x: string, updates: MessageUpdate[], at: number, owner: string): Promise<Set<number>> {
  const applied = await rows<{ id: number }>(
    client,
    `UPDATE ${x}messages m SET status = u.status, snapshot = u.snapshot, work = u.work, wake_at = u.wake_at, updated_at = $8,
       version = m.version + 1, lease_until = u.lease_until, lease_owner = CASE WHEN u.lease_until > 0 THEN $9 END,
       attempt_owner = CASE u.attempt WHEN 'keep' THEN m.attempt_owner WHEN 'mine' THEN $9 ELSE NULL END
     FROM unnest($1::bigint[], $2::text[], $3::json[], $4::json[], $5::bigint[], $6::integer[], $7::text[], $10::bigint[])
       AS u(id, status, snapshot, work, wake_at, version, attempt, lease_until)
     WHERE m.id = u.id AND m.version = u.version AND (m.lease_owner IS NULL OR m.lease_owner = $9 OR m.lease_until <= $8)
     RETURNING m.id`,
    [
      updates.map((u) => u.id),
      updates.map((u) => u.status),
      updates.map((u) => snapshotText(u.snapshot)),
      updates.map((u) => workText(u.work)),
      // A lease kept moves the wake-up to its end, as a claim's does.
      updates.map((u) => u.lease ?? wakeAtOf(u.work)),
      updates.map((u) => u.version),
      updates.map((u) => u.attempt),
      at,
      owner,
      updates.map((u) => u.lease ?? 0),
    ],
  );
  return new Set(applied.map((r) => r.id));
}

async function commitIn(client: pg.PoolClient, x: string, commit: Commit): Promise<CommitResult> {
  const { at, owner, updates } = commit;
  // UPDATE ... FROM applies one source row per target: a message given twice goes in its own statement.
  const unique = new Set(updates.map((u) => u.id)).size === updates.length;
  const done = new Set<number>();
  for (const batch of unique ? [updates] : updates.map((u) => [u])) {
    if (batch.length === 0) continue;
    for (const id of await applyUpdates(client, x, batch, at, owner)) done.add(id);
  }
  const lost = [...new Set(updates.filter((u) => !done.has(u.id)).map((u) => u.id))];
  if (lost.length > 0) {
    await run(
      client,
      `UPDATE ${x}messages SET lease_until = 0, lease_owner = NULL, wake_at = ${WAKE_OF_WORK} WHERE id = ANY($1::bigint[]) AND lease_owner = $2`,
      [lost, owner],
    );
  }
  const history = updates.filter((u) => done.has(u.id)).flatMap((u) => u.history.map((h) => ({ ...h, messageId: u.id })));
  if (history.length > 0) await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, historyRowValues(history));
  const providerIds = commit.providerIds.filter((p) => done.has(p.messageId));
  if (providerIds.length > 0) {
    await run(
      client,
      `INSERT INTO ${x}provider_ids (driver, provider_message_id, message_id, step)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[])
       ON CONFLICT (driver, provider_message_id) DO UPDATE SET message_id = excluded.message_id, step = excluded.step`,
      [
        providerIds.map((p) => p.driver),
        providerIds.map((p) => p.providerMessageId),
        providerIds.map((p) => p.messageId),
        providerIds.map((p) => p.step),
      ],
    );
  }
  const lostSet = new Set(lost);
  const released = commit.receipts.filter((r) => lostSet.has(r.messageId)).map((r) => r.id);
  const applied = commit.receipts.filter((r) => !lostSet.has(r.messageId)).map((r) => r.id);
  if (applied.length > 0) await run(client, `DELETE FROM ${x}receipts WHERE id = ANY($1::bigint[])`, [applied]);
  if (released.length > 0) {
    await run(client, `UPDATE ${x}receipts SET lease_until = 0, lease_owner = NULL WHERE id = ANY($1::bigint[])`, [released]);
  }
  return { conflicts: lost };
}

async function enqueueIn(db: Queryable, x: string, receipts: QueuedReceipt[]): Promise<void> {
  if (receipts.length === 0) return;
  await run(
    db,
    `INSERT INTO ${x}receipts (message_id, event, detail, driver, at)
     SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::text[], $4::text[], $5::bigint[])`,
    [
      receipts.map((r) => r.messageId),
      receipts.map((r) => JSON.stringify(r.event)),
      receipts.map((r) => r.detail),
      receipts.map((r) => r.driver),
      receipts.map((r) => r.at),
    ],
  );
}

async function addOrphansIn(db: Queryable, x: string, orphans: OrphanReceipt[]): Promise<void> {
  if (orphans.length === 0) return;
  await run(
    db,
    `INSERT INTO ${x}orphan_receipts (driver, provider_message_id, outcome, failure, detail, at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])`,
    [
      orphans.map((o) => o.driver),
      orphans.map((o) => o.providerMessageId),
      orphans.map((o) => o.outcome),
      orphans.map((o) => o.failure),
      orphans.map((o) => o.detail),
      orphans.map((o) => o.at),
    ],
  );
}

/**
 * What the engine's workers do with PostgreSQL: claims (`SKIP LOCKED`, so that processes claim
 * disjoint messages without waiting for one another), rounds, charges, the receipt inbox and
 * the recovery of dead workers' work.
 */
export function createWorkStore(pool: pg.Pool, x: string): WorkStorage {
  return {
    async claimDue(now, limit, leaseMs, owner) {
      if (limit <= 0) return [];
      const claimed = await rows<MessageRow>(
        pool,
        // A claimed message wakes again when its lease runs out: the wake-up index then passes
        // over the messages in flight instead of scanning them at every claim. A commit or a
        // release sets the wake-up back from the message's work.
        `UPDATE ${x}messages SET lease_until = $1, lease_owner = $2, wake_at = $1
         WHERE id IN (
           SELECT id FROM ${x}messages WHERE wake_at <= $3 AND lease_until <= $3
           ORDER BY wake_at LIMIT $4 FOR UPDATE SKIP LOCKED
         )
         RETURNING *`,
        [now + leaseMs, owner, now, limit],
      );
      // RETURNING does not promise an order: restore the claim order.
      return claimed.map(storedMessageFromRow).sort((a, b) => (wakeAtOf(a.work) ?? 0) - (wakeAtOf(b.work) ?? 0) || a.id - b.id);
    },
    async takeHandedOver(ids, owner, now) {
      if (ids.length === 0) return [];
      const taken = await rows<MessageRow>(
        pool,
        `SELECT * FROM ${x}messages WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND lease_until > $3`,
        [ids, owner, now],
      );
      return taken.map(storedMessageFromRow);
    },
    async nextDueAt(now) {
      const found = await row<{ due: number }>(
        pool,
        `SELECT wake_at AS due FROM ${x}messages WHERE wake_at IS NOT NULL AND lease_until <= $1 ORDER BY wake_at LIMIT 1`,
        [now],
      );
      return found?.due ?? null;
    },
    commit: (commit) => transaction(pool, (client) => commitIn(client, x, commit)),
    async chargeSteps(charges, at) {
      if (charges.length === 0) return [];
      return transaction(pool, async (client) => {
        const results: StepChargeResult[] = [];
        for (const c of charges) {
          const bit = 2 ** c.step;
          const found = await row<{ charged: number }>(client, `SELECT charged FROM ${x}messages WHERE id = $1 FOR UPDATE`, [c.messageId]);
          if (!found) {
            results.push('insufficient_funds');
            continue;
          }
          if ((Number(found.charged) & bit) !== 0) {
            results.push('already');
            continue;
          }
          const moved = await row<{ balance: number }>(
            client,
            `UPDATE ${x}accounts SET balance = balance - $1 WHERE id = $2 AND balance >= $1 RETURNING balance`,
            [c.amount, c.accountId],
          );
          if (!moved) {
            results.push('insufficient_funds');
            continue;
          }
          await run(
            client,
            `INSERT INTO ${x}wallet_transactions (account_id, kind, amount, balance_after, message_id, description, created_at)
             VALUES ($1, 'charge', $2, $3, $4, $5, $6)`,
            [c.accountId, -c.amount, moved.balance, c.messageId, c.description, at],
          );
          await run(client, `UPDATE ${x}messages SET cost = cost + $1, charged = charged | $2 WHERE id = $3`, [c.amount, bit, c.messageId]);
          if (c.reprices) {
            await run(
              client,
              `UPDATE ${x}messages SET steps = jsonb_set(steps::jsonb, ARRAY[$1, 'cost'], to_jsonb($2::bigint))::json WHERE id = $3`,
              [String(c.step), c.amount, c.messageId],
            );
          }
          results.push('charged');
        }
        return results;
      });
    },
    async enqueueReceipts(receipts, orphans = []) {
      if (orphans.length === 0) return enqueueIn(pool, x, receipts);
      if (receipts.length === 0) return addOrphansIn(pool, x, orphans);
      await transaction(pool, async (client) => {
        await enqueueIn(client, x, receipts);
        await addOrphansIn(client, x, orphans);
      });
    },
    async claimReceipts(now, limit, leaseMs, owner) {
      const claimed = await rows<ReceiptRow>(
        pool,
        `UPDATE ${x}receipts SET lease_until = $1, lease_owner = $2
         WHERE id IN (SELECT id FROM ${x}receipts WHERE lease_until <= $3 ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING id, message_id, event, detail, driver, at`,
        [now + leaseMs, owner, now, limit],
      );
      return claimed.map(queuedReceiptFromRow).sort((a, b) => a.id - b.id);
    },
    async histories(messageIds) {
      if (messageIds.length === 0) return [];
      return (
        await rows<HistoryRow>(
          pool,
          `SELECT ${HISTORY_FIELDS} FROM ${x}history WHERE message_id = ANY($1::bigint[]) ORDER BY message_id, seq`,
          [messageIds],
        )
      ).map(historyEntryFromRow);
    },
    async findAttempts(driver, providerMessageIds) {
      const found = new Map<string, { messageId: number; step: number }>();
      if (providerMessageIds.length === 0) return found;
      const matched = await rows<{ provider_message_id: string; message_id: number; step: number }>(
        pool,
        `SELECT provider_message_id, message_id, step FROM ${x}provider_ids WHERE driver = $1 AND provider_message_id = ANY($2::text[])`,
        [driver, providerMessageIds],
      );
      for (const m of matched) found.set(m.provider_message_id, { messageId: m.message_id, step: m.step });
      return found;
    },
    addOrphanReceipts: (orphans) => addOrphansIn(pool, x, orphans),
    async adoptOrphanReceipts(olderThan) {
      return transaction(pool, async (client) => {
        const matched = await rows<OrphanReceipt & { message_id: number; step: number }>(
          client,
          `DELETE FROM ${x}orphan_receipts o USING ${x}provider_ids p
           WHERE p.driver = o.driver AND p.provider_message_id = o.provider_message_id
           RETURNING o.driver, o.provider_message_id AS "providerMessageId", o.outcome, o.failure, o.detail, o.at, p.message_id, p.step`,
        );
        await enqueueIn(
          client,
          x,
          matched.sort((a, b) => a.at - b.at).map((o) => receiptOfOrphan(o, o.message_id, o.step)),
        );
        await run(client, `DELETE FROM ${x}orphan_receipts WHERE at < $1`, [olderThan]);
        return matched.length;
      });
    },
    async heartbeat(owner, now) {
      await run(
        pool,
        `INSERT INTO ${x}workers (id, heartbeat_at, state) VALUES ($1, $2, 'live')
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, state = 'live'`,
        [owner, now],
      );
    },
    async deadWorkers(now, staleMs, self) {
      const dead = await rows<{ id: string }>(
        pool,
        `SELECT id FROM ${x}workers WHERE id <> $1 AND (heartbeat_at < $2 OR state = 'retired')`,
        [self, now - staleMs],
      );
      return dead.map((d) => d.id);
    },
    async liveWorkers(now, staleMs) {
      const live = await row<{ n: number }>(
        pool,
        `SELECT count(*)::int AS n FROM ${x}workers WHERE heartbeat_at >= $1 AND state = 'live'`,
        [now - staleMs],
      );
      return live?.n ?? 0;
    },
    async releaseLeases(owners) {
      if (owners.length === 0) return 0;
      return transaction(pool, async (client) => {
        await run(client, `UPDATE ${x}receipts SET lease_until = 0, lease_owner = NULL WHERE lease_owner = ANY($1::text[])`, [owners]);
        return run(
          client,
          `UPDATE ${x}messages SET lease_until = 0, lease_owner = NULL, wake_at = ${WAKE_OF_WORK} WHERE lease_owner = ANY($1::text[])`,
          [owners],
        );
      });
    },
    async adoptAttempts(from, to, limit) {
      if (from.length === 0) return [];
      return transaction(pool, async (client) => {
        const adopted = await rows<MessageRow>(
          client,
          `UPDATE ${x}messages SET attempt_owner = $1
           WHERE id IN (SELECT id FROM ${x}messages WHERE attempt_owner = ANY($2::text[]) LIMIT $3 FOR UPDATE SKIP LOCKED)
           RETURNING *`,
          [to, from, limit],
        );
        const out = [];
        for (const r of adopted) out.push({ message: storedMessageFromRow(r), history: await historyOf(client, x, r.id) });
        return out;
      });
    },
    async forgetWorkers(owners) {
      if (owners.length === 0) return;
      await run(
        pool,
        `DELETE FROM ${x}workers w WHERE w.id = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM ${x}messages m WHERE m.attempt_owner = w.id)`,
        [owners],
      );
    },
    async retireWorker(owner) {
      await run(pool, `UPDATE ${x}workers SET state = 'retired' WHERE id = $1`, [owner]);
    },
  };
}
