import type pg from 'pg';
import {
  draftIngestRows,
  historyEntryFromRow,
  historyFromTuples,
  historyRowValues,
  HISTORY_TUPLE_SQL,
  scheduledChangeValues,
  statusViewFromRow,
  storedMessageFromRow,
  STATUS_VIEW_COLUMNS,
} from '@spillway/core/storage';
import type { MessageStorage } from '@spillway/core';
import type { HistoryRow, HistoryTuple, MessageRow, ScheduledChangeResult, StatusViewRow } from '@spillway/core/storage';
import { bulkInsert, HISTORY_COLUMNS } from './bulk-insert.ts';
import { createIngest } from './ingest.ts';
import { brokenBy, row, rows, run, transaction, type Queryable } from './pg-util.ts';

/** Columns of a history read, in the order core's mapper takes them. */
export const HISTORY_FIELDS = 'message_id, step, channel, status, at, error, driver, provider_message_id';

/** A message's history, oldest first. */
export async function historyOf(db: Queryable, x: string, messageId: number) {
  return (await rows<HistoryRow>(db, `SELECT ${HISTORY_FIELDS} FROM ${x}history WHERE message_id = $1 ORDER BY seq`, [messageId])).map(
    historyEntryFromRow,
  );
}

/** Messages and their history over a pg pool, in the tables of `x` (the schema prefix). */
export function createMessageStore(pool: pg.Pool, x: string): MessageStorage {
  const { ingest, ingestMany } = createIngest(pool, x);
  const message = async (where: string, values: unknown[]) => {
    const found = await row<MessageRow>(pool, `SELECT * FROM ${x}messages WHERE ${where}`, values);
    return found ? storedMessageFromRow(found) : null;
  };

  return {
    ingest,
    ingestMany: async (batches) => (batches.length === 0 ? [] : ingestMany(batches)),
    prepareIngest: draftIngestRows,
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
    history: (messageId) => historyOf(pool, x, messageId),
    async getMessageWithHistory(id) {
      // One statement (one snapshot, one round trip): the history as a JSON array in the row.
      const found = await row<StatusViewRow & { history_json: HistoryTuple[] }>(
        pool,
        `SELECT ${STATUS_VIEW_COLUMNS},
           (SELECT COALESCE(json_agg(json_build_array(${HISTORY_TUPLE_SQL}) ORDER BY seq), '[]'::json)
            FROM ${x}history h WHERE h.message_id = m.id) AS history_json
         FROM ${x}messages m WHERE m.id = $1`,
        [id],
      );
      return found ? { message: statusViewFromRow(found), history: historyFromTuples(id, found.history_json) } : null;
    },
    async appendHistory(entries) {
      if (entries.length === 0) return;
      // COPY runs on one connection of the pool; it is one statement, so it needs no transaction.
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, historyRowValues(entries));
      } catch (error) {
        broken = brokenBy(error);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async updateScheduled(id, c, at) {
      return transaction(pool, async (client): Promise<ScheduledChangeResult> => {
        const scheduled = await row<{ account_id: number }>(
          client,
          `SELECT account_id FROM ${x}messages WHERE id = $1 AND status = 'scheduled' FOR UPDATE`,
          [id],
        );
        if (!scheduled) return 'not_scheduled';
        if (c.wallet) {
          // A charge (negative) must be covered; a refund always goes through.
          const moved = await row<{ balance: number }>(
            client,
            `UPDATE ${x}accounts SET balance = balance + $1 WHERE id = $2 AND ($1 >= 0 OR balance + $1 >= 0) RETURNING balance`,
            [c.wallet.amount, scheduled.account_id],
          );
          if (!moved) return 'insufficient_funds';
          await run(
            client,
            `INSERT INTO ${x}wallet_transactions (account_id, kind, amount, balance_after, message_id, description, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [scheduled.account_id, c.wallet.kind, c.wallet.amount, moved.balance, id, c.wallet.description, at],
          );
        }
        await run(
          client,
          `UPDATE ${x}messages SET steps = $1::json, content = $2, due_at = $3, expires_at = $4, status = $5, snapshot = $6::json,
             work = $7::json, wake_at = $8, cost = cost + $9, updated_at = $10, version = version + 1
           WHERE id = $11`,
          scheduledChangeValues(id, c, at),
        );
        const history = c.history.map((h) => ({ ...h, messageId: id }));
        if (history.length > 0) await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, historyRowValues(history));
        return 'changed';
      });
    },
  };
}
