import type pg from 'pg';
import { effectFromRow, historyEntryFromRow, effectRowValues, historyRowValues, storedMessageFromRow } from '@spillway/core';
import type { Commit, CommitResult, EffectRow, HistoryRow, MessageRow, MessageStorage } from '@spillway/core';
import { bulkInsert, EFFECT_COLUMNS, HISTORY_COLUMNS } from './bulk-insert.ts';
import { createIngest } from './ingest.ts';
import { row, rows, run, transaction, type Queryable } from './pg-util.ts';

async function commitIn(client: Queryable, x: string, commit: Commit): Promise<CommitResult> {
  const { updates } = commit;
  const lost = new Set<number>();
  if (updates.length > 0) {
    // One UPDATE ... FROM unnest for the whole step, unless a message appears twice: UPDATE FROM
    // applies only one source row per target row, so repeats are applied one by one, in order,
    // each over the version the one before made. An update applies only over the version it read.
    const unique = new Set(updates.map((u) => u.id)).size === updates.length;
    const seen = new Map<number, number>();
    const batches = unique ? [updates] : updates.map((u) => [u]);
    for (const batch of batches) {
      const versions = batch.map((u) => {
        const repeat = seen.get(u.id) ?? 0;
        seen.set(u.id, repeat + 1);
        return u.version + repeat;
      });
      const applied = await rows<{ id: number }>(
        client,
        `UPDATE ${x}messages m SET status = u.status, snapshot = u.snapshot, cost = m.cost + u.add_cost, updated_at = $6,
           version = m.version + 1
         FROM unnest($1::bigint[], $2::text[], $3::jsonb[], $4::bigint[], $5::integer[]) AS u(id, status, snapshot, add_cost, version)
         WHERE m.id = u.id AND m.version = u.version
         RETURNING m.id`,
        [
          batch.map((u) => u.id),
          batch.map((u) => u.status),
          batch.map((u) => JSON.stringify(u.snapshot)),
          batch.map((u) => u.addCost ?? 0),
          versions,
          commit.at,
        ],
      );
      const done = new Set(applied.map((r) => r.id));
      for (const u of batch) if (!done.has(u.id)) lost.add(u.id);
    }
  }
  const kept = <T extends { messageId: number }>(items: T[]) => (lost.size === 0 ? items : items.filter((i) => !lost.has(i.messageId)));
  const history = kept(commit.history);
  if (history.length > 0) await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, historyRowValues(history));
  if (commit.doneEffects.length > 0) {
    if (lost.size > 0) {
      // Effects consumed by a conflicted message go back to the outbox, claimable at once.
      await run(client, `UPDATE ${x}effects SET lease_until = 0 WHERE id = ANY($1::bigint[]) AND message_id = ANY($2::bigint[])`, [
        commit.doneEffects,
        [...lost],
      ]);
    }
    await run(client, `DELETE FROM ${x}effects WHERE id = ANY($1::bigint[]) AND NOT (message_id = ANY($2::bigint[]))`, [
      commit.doneEffects,
      [...lost],
    ]);
  }
  // Cancel before inserting: a step that cancels and re-arms a timer keeps the new one.
  const cancels = kept(commit.cancelTimers);
  if (cancels.length > 0) {
    await run(
      client,
      `DELETE FROM ${x}effects e USING unnest($1::bigint[], $2::integer[]) AS c(message_id, step)
       WHERE e.message_id = c.message_id AND e.kind = 'event' AND e.event_type = 'TIMER' AND (c.step IS NULL OR e.step = c.step)`,
      [cancels.map((c) => c.messageId), cancels.map((c) => c.step ?? null)],
    );
  }
  const effects = kept(commit.newEffects);
  if (effects.length > 0) await bulkInsert(client, `${x}effects`, EFFECT_COLUMNS, effectRowValues(effects));
  return { conflicts: [...lost] };
}

const EFFECT_FIELDS = 'id, message_id, kind, step, event, due_at';

/** Messages, history and the effect outbox over a pg pool, in the tables of `x` (the schema prefix). */
export function createMessageStore(pool: pg.Pool, x: string): MessageStorage {
  const ingest = createIngest(pool, x);
  const message = async (where: string, values: unknown[]) => {
    const found = await row<MessageRow>(pool, `SELECT * FROM ${x}messages WHERE ${where}`, values);
    return found ? storedMessageFromRow(found) : null;
  };

  return {
    ingest,
    getMessage: (id) => message('id = $1', [id]),
    getMessageByGuid: (guid) => message('guid = $1 ORDER BY id DESC LIMIT 1', [guid]),
    getMessageByTrackinId: (accountId, trackinId) =>
      message('account_id = $1 AND trackin_id = $2 ORDER BY id DESC LIMIT 1', [accountId, trackinId]),
    async getMessages(ids) {
      if (ids.length === 0) return [];
      const found = await rows<MessageRow>(pool, `SELECT * FROM ${x}messages WHERE id = ANY($1::bigint[])`, [ids]);
      const byId = new Map(found.map((r) => [r.id, r]));
      // Answer in the order asked; unknown ids are left out.
      return ids.flatMap((id) => {
        const r = byId.get(id);
        return r ? [storedMessageFromRow(r)] : [];
      });
    },
    async history(messageId) {
      return (
        await rows<HistoryRow>(
          pool,
          `SELECT message_id, step, channel, status, at, error FROM ${x}history WHERE message_id = $1 ORDER BY seq`,
          [messageId],
        )
      ).map(historyEntryFromRow);
    },
    async appendHistory(entries) {
      if (entries.length > 0) await bulkInsert(pool, `${x}history`, HISTORY_COLUMNS, historyRowValues(entries));
    },
    async commit(commit) {
      return transaction(pool, (client) => commitIn(client, x, commit));
    },
    async claimDueEffects(now, limit, leaseMs) {
      if (limit <= 0) return [];
      // SKIP LOCKED: processes claiming at once each take other rows instead of waiting for one
      // another; a row is re-checked against the lease once its lock is released.
      const claimed = await rows<EffectRow>(
        pool,
        `UPDATE ${x}effects SET lease_until = $1
         WHERE id IN (
           SELECT id FROM ${x}effects WHERE due_at <= $2 AND lease_until <= $2
           ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
         )
         RETURNING ${EFFECT_FIELDS}`,
        [now + leaseMs, now, limit],
      );
      // RETURNING does not promise an order: restore the claim order.
      return claimed.map(effectFromRow).sort((a, b) => a.dueAt - b.dueAt || a.id - b.id);
    },
    async nextDueAt(now) {
      return (
        (await row<{ due: number | null }>(pool, `SELECT MIN(due_at) AS due FROM ${x}effects WHERE lease_until <= $1`, [now]))?.due ?? null
      );
    },
    async updateScheduled(id, c, at) {
      return transaction(pool, async (client) => {
        const changed = await run(
          client,
          `UPDATE ${x}messages SET steps = $1::jsonb, content = $2, due_at = $3, expires_at = $4, status = $5, snapshot = $6::jsonb,
             cost = cost + $7, updated_at = $8, version = version + 1
           WHERE id = $9 AND status = 'scheduled'`,
          [JSON.stringify(c.steps), c.content, c.dueAt, c.expiresAt, c.status, JSON.stringify(c.snapshot), c.addCost, at, id],
        );
        if (changed === 0) return false;
        const due = `message_id = $1 AND kind = 'event' AND event_type = 'DUE'`;
        if (c.status === 'scheduled') await run(client, `UPDATE ${x}effects SET due_at = $2 WHERE ${due}`, [id, c.dueAt]);
        else await run(client, `DELETE FROM ${x}effects WHERE ${due}`, [id]);
        if (c.history.length > 0) await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, historyRowValues(c.history));
        return true;
      });
    },
  };
}
