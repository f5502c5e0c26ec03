import type Database from 'better-sqlite3';
import type { HistoryEntry, MessageStorage } from '@spillway/core';
import type { ScheduledChange, ScheduledChangeResult } from '@spillway/core/storage';
import {
  draftIngestRows,
  HISTORY_ROW_COLUMNS,
  historyEntryFromRow,
  historyFromTuples,
  historyRowValues,
  HISTORY_TUPLE_SQL,
  scheduledChangeValues,
  statusViewFromRow,
  type HistoryRow,
  type HistoryTuple,
  type ScheduledChangeValues,
  type StatusViewRow,
} from '@spillway/core/storage';
import { createBatchInserter } from './batch-insert.ts';
import { createIngest } from './ingest.ts';
import { MESSAGE_COLUMNS, messageFromTuple, type MessageTuple } from './rows.ts';
import { lazy } from './sqlite-util.ts';
import type { TurnReader } from './turn-reader.ts';

/** Columns of a history read, in the order core's mapper takes them. */
export const HISTORY_SELECT = `SELECT message_id, step, channel, status, at, error, driver, provider_message_id FROM history`;

/** The scalar columns of a status read, in the order of {@link StatusScalars}. */
const STATUS_SCALARS = 'id, list_id, account_id, kind, customer_message_id, status, expires_at, cost';
type StatusScalars = [
  id: number,
  listId: number,
  accountId: number,
  kind: string,
  customerMessageId: string | null,
  status: string,
  expiresAt: number | null,
  cost: number,
];

type WithHistoryRow = [scalars: string, steps: string, history: string];

function prepareWithHistory(db: Database.Database): Database.Statement<[number], WithHistoryRow> {
  return db
    .prepare<[number], WithHistoryRow>(
      `SELECT json_array(${STATUS_SCALARS}), steps, (SELECT json_group_array(json_array(${HISTORY_TUPLE_SQL}))
         FROM (SELECT * FROM history h WHERE h.message_id = m.id ORDER BY seq))
       FROM messages m WHERE m.id = ?`,
    )
    .raw();
}

function prepare(db: Database.Database) {
  return {
    // Whole messages are read as arrays of MESSAGE_COLUMNS, everywhere.
    byId: db.prepare<[number], MessageTuple>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ?`).raw(),
    byGuid: db.prepare<[string], MessageTuple>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE guid = ? ORDER BY id DESC LIMIT 1`).raw(),
    byTrackinId: db
      .prepare<[number, string], MessageTuple>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = ? AND trackin_id = ? ORDER BY id DESC LIMIT 1`,
      )
      .raw(),
    // ids as one JSON array: one prepared statement for any number of ids (workers read the
    // messages of receipts they hold no copy of here).
    byIds: db.prepare<[string], MessageTuple>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`).raw(),
    history: db.prepare<[number], HistoryRow>(`${HISTORY_SELECT} WHERE message_id = ? ORDER BY seq`),
    // A message's status columns and its history in one statement (one read transaction): the
    // scalar status columns as one JSON array (as MESSAGE_COLUMNS reads them), its steps, and its
    // history as one JSON array of HISTORY_SELECT's columns after message_id, in order. Only the
    // status columns: a whole row's snapshot, work and content cost as much again to read.
    withHistory: prepareWithHistory(db),
    insertHistory: createBatchInserter(db, 'history', HISTORY_ROW_COLUMNS),
    updateScheduled: db.prepare<ScheduledChangeValues>(
      `UPDATE messages SET steps = ?, content = ?, due_at = ?, expires_at = ?, status = ?, snapshot = ?, work = ?, wake_at = ?,
         cost = cost + ?, updated_at = ?, version = version + 1
       WHERE id = ? AND status = 'scheduled'`,
    ),
    isScheduled: db.prepare<[number], { account_id: number }>(`SELECT account_id FROM messages WHERE id = ? AND status = 'scheduled'`),
    // The balance covers a charge exactly when it does not go below zero.
    moveBalanceIfCovered: db.prepare<[number, number, number], { balance: number }>(
      `UPDATE accounts SET balance = balance + ? WHERE id = ? AND balance + ? >= 0 RETURNING balance`,
    ),
    insertTransaction: db.prepare<[number, string, number, number, number, string, number]>(
      `INSERT INTO wallet_transactions (account_id, kind, amount, balance_after, message_id, description, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
}

/**
 * Messages and their history over one better-sqlite3 handle: acceptance, reads, scheduled changes.
 * Status reads go through `reader`'s connection when given (a file database: see {@link TurnReader}).
 */
export function createMessageStore(db: Database.Database, reader?: TurnReader): MessageStorage {
  // Prepared on first use: the tables exist only once migrate() has run.
  const st = lazy(() => prepare(db));
  const readerWithHistory = reader ? lazy(() => prepareWithHistory(reader.db)) : null;
  const { ingest, ingestMany } = createIngest(db);
  const updateScheduledTx = db.transaction((id: number, c: ScheduledChange, at: number): ScheduledChangeResult => {
    const s = st();
    const scheduled = s.isScheduled.get(id);
    if (!scheduled) return 'not_scheduled';
    if (c.wallet) {
      // A charge (negative) must be covered; a refund always goes through.
      const cover = c.wallet.amount < 0 ? c.wallet.amount : Number.MAX_SAFE_INTEGER;
      const moved = s.moveBalanceIfCovered.get(c.wallet.amount, scheduled.account_id, cover);
      if (!moved) return 'insufficient_funds';
      s.insertTransaction.run(scheduled.account_id, c.wallet.kind, c.wallet.amount, moved.balance, id, c.wallet.description, at);
    }
    s.updateScheduled.run(...scheduledChangeValues(id, c, at));
    s.insertHistory.insert(historyRowValues(c.history.map((h) => ({ ...h, messageId: id }))));
    return 'changed';
  });
  const appendHistoryTx = db.transaction((entries: HistoryEntry[]) => st().insertHistory.insert(historyRowValues(entries)));
  const withHistory = (id: number) => {
    // A message another connection stored since the turn's snapshot (another HTTP thread's
    // acceptance, its client asking at once) is found: TurnReader.find reads a miss afresh.
    const row = readerWithHistory ? reader!.find(() => readerWithHistory().get(id)) : st().withHistory.get(id);
    if (!row) return null;
    const [, listId, accountId, kind, customerMessageId, status, expiresAt, cost] = JSON.parse(row[0]) as StatusScalars;
    const message = statusViewFromRow({
      id,
      list_id: listId,
      account_id: accountId,
      kind,
      customer_message_id: customerMessageId,
      steps: JSON.parse(row[1]) as StatusViewRow['steps'],
      status,
      expires_at: expiresAt,
      cost,
    });
    return { message, history: historyFromTuples(id, JSON.parse(row[2]) as HistoryTuple[]) };
  };

  return {
    async ingest(batch) {
      return ingest(batch);
    },
    async ingestMany(batches) {
      return batches.length === 0 ? [] : ingestMany(batches);
    },
    prepareIngest: draftIngestRows,
    async getMessage(id) {
      const row = st().byId.get(id);
      return row === undefined ? null : messageFromTuple(row);
    },
    async getMessageByGuid(guid) {
      const row = st().byGuid.get(guid);
      return row === undefined ? null : messageFromTuple(row);
    },
    async getMessageByTrackinId(accountId, trackinId) {
      const row = st().byTrackinId.get(accountId, trackinId);
      return row === undefined ? null : messageFromTuple(row);
    },
    async getMessages(ids) {
      if (ids.length === 0) return [];
      const byId = new Map(
        st()
          .byIds.all(JSON.stringify(ids))
          .map((row) => {
            const message = messageFromTuple(row);
            return [message.id, message];
          }),
      );
      // Answer in the order asked; unknown ids are left out.
      return ids.flatMap((id) => {
        const message = byId.get(id);
        return message === undefined ? [] : [message];
      });
    },
    async history(messageId) {
      return st().history.all(messageId).map(historyEntryFromRow);
    },
    async getMessageWithHistory(id) {
      return withHistory(id);
    },
    async appendHistory(entries) {
      if (entries.length > 0) appendHistoryTx.immediate(entries);
    },
    async updateScheduled(id, change, at) {
      return updateScheduledTx.immediate(id, change, at);
    },
  };
}
