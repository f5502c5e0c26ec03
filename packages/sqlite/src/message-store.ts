import type Database from 'better-sqlite3';
import type { Commit, CommitResult, HistoryEntry, MessageStorage, ScheduledChange } from '@spillway/core';
import { createBatchInserter } from './batch-insert.ts';
import { createIngest } from './ingest.ts';
import {
  EFFECT_ROW_COLUMNS,
  HISTORY_ROW_COLUMNS,
  historyEntryFromRow,
  effectRowValues,
  historyRowValues,
  type HistoryRow,
} from '@spillway/core';
import { toEffect, toStoredMessage, type SqliteEffectRow, type SqliteMessageRow } from './rows.ts';
import { lazy } from './sqlite-util.ts';

function prepare(db: Database.Database) {
  return {
    byId: db.prepare<[number], SqliteMessageRow>(`SELECT * FROM messages WHERE id = ?`),
    byGuid: db.prepare<[string], SqliteMessageRow>(`SELECT * FROM messages WHERE guid = ? ORDER BY id DESC LIMIT 1`),
    byTrackinId: db.prepare<[number, string], SqliteMessageRow>(
      `SELECT * FROM messages WHERE account_id = ? AND trackin_id = ? ORDER BY id DESC LIMIT 1`,
    ),
    // ids as one JSON array: one prepared statement for any number of ids.
    byIds: db.prepare<[string], SqliteMessageRow>(`SELECT * FROM messages WHERE id IN (SELECT value FROM json_each(?))`),
    history: db.prepare<[number], HistoryRow>(
      `SELECT message_id, step, channel, status, at, error FROM history WHERE message_id = ? ORDER BY seq`,
    ),
    insertHistory: createBatchInserter(db, 'history', HISTORY_ROW_COLUMNS),
    insertEffects: createBatchInserter(db, 'effects', EFFECT_ROW_COLUMNS),
    updateMessage: db.prepare<[string, string, number, number, number, number]>(
      `UPDATE messages SET status = ?, snapshot = ?, cost = cost + ?, updated_at = ?, version = version + 1 WHERE id = ? AND version = ?`,
    ),
    // An effect consumed by a conflicted message goes back to the outbox, claimable at once.
    releaseEffect: db.prepare<[number, string]>(
      `UPDATE effects SET lease_until = 0 WHERE id = ? AND message_id IN (SELECT value FROM json_each(?))`,
    ),
    deleteEffect: db.prepare<[number]>(`DELETE FROM effects WHERE id = ?`),
    // A null step cancels the timers of every step of the message.
    cancelTimers: db.prepare<[number, number | null, number | null]>(
      `DELETE FROM effects WHERE message_id = ? AND kind = 'event' AND event_type = 'TIMER' AND (? IS NULL OR step = ?)`,
    ),
    claim: db.prepare<[number, number, number, number], SqliteEffectRow>(
      `UPDATE effects SET lease_until = ?
       WHERE id IN (SELECT id FROM effects WHERE due_at <= ? AND lease_until <= ? ORDER BY due_at, id LIMIT ?)
       RETURNING id, message_id, kind, step, event, due_at`,
    ),
    nextDue: db.prepare<[number], { due: number | null }>(`SELECT MIN(due_at) AS due FROM effects WHERE lease_until <= ?`),
    updateScheduled: db.prepare<[string, string, number, number | null, string, string, number, number, number]>(
      `UPDATE messages SET steps = ?, content = ?, due_at = ?, expires_at = ?, status = ?, snapshot = ?, cost = cost + ?, updated_at = ?,
         version = version + 1
       WHERE id = ? AND status = 'scheduled'`,
    ),
    rescheduleDue: db.prepare<[number, number]>(
      `UPDATE effects SET due_at = ? WHERE message_id = ? AND kind = 'event' AND event_type = 'DUE'`,
    ),
    dropDue: db.prepare<[number]>(`DELETE FROM effects WHERE message_id = ? AND kind = 'event' AND event_type = 'DUE'`),
  };
}

type Statements = ReturnType<typeof prepare>;

function commitIn(s: Statements, commit: Commit): CommitResult {
  const lost = new Set<number>();
  const seen = new Map<number, number>();
  for (const u of commit.updates) {
    // A second update of one message in a commit applies over the version the first made.
    const repeat = seen.get(u.id) ?? 0;
    seen.set(u.id, repeat + 1);
    const changed = s.updateMessage.run(u.status, JSON.stringify(u.snapshot), u.addCost ?? 0, commit.at, u.id, u.version + repeat).changes;
    if (changed === 0) lost.add(u.id);
  }
  const kept = <T extends { messageId: number }>(items: T[]) => (lost.size === 0 ? items : items.filter((i) => !lost.has(i.messageId)));
  s.insertHistory.insert(historyRowValues(kept(commit.history)));
  const lostJson = JSON.stringify([...lost]);
  for (const id of commit.doneEffects) {
    if (lost.size === 0 || s.releaseEffect.run(id, lostJson).changes === 0) s.deleteEffect.run(id);
  }
  // Cancel before inserting: a step that cancels and re-arms a timer keeps the new one.
  for (const c of kept(commit.cancelTimers)) s.cancelTimers.run(c.messageId, c.step ?? null, c.step ?? null);
  s.insertEffects.insert(effectRowValues(kept(commit.newEffects)));
  return { conflicts: [...lost] };
}

/** Messages, history and the effect outbox over one better-sqlite3 handle. */
export function createMessageStore(db: Database.Database): MessageStorage {
  // Prepared on first use: the tables exist only once migrate() has run.
  const st = lazy(() => prepare(db));
  const ingest = createIngest(db);
  const commitTx = db.transaction((commit: Commit) => commitIn(st(), commit));
  const updateScheduledTx = db.transaction((id: number, c: ScheduledChange, at: number): boolean => {
    const s = st();
    const changed = s.updateScheduled.run(
      JSON.stringify(c.steps),
      c.content,
      c.dueAt,
      c.expiresAt,
      c.status,
      JSON.stringify(c.snapshot),
      c.addCost,
      at,
      id,
    ).changes;
    if (changed === 0) return false;
    if (c.status === 'scheduled') s.rescheduleDue.run(c.dueAt, id);
    else s.dropDue.run(id);
    s.insertHistory.insert(historyRowValues(c.history));
    return true;
  });
  const appendHistoryTx = db.transaction((entries: HistoryEntry[]) => st().insertHistory.insert(historyRowValues(entries)));
  const claimTx = db.transaction((now: number, limit: number, leaseMs: number) =>
    st()
      .claim.all(now + leaseMs, now, now, limit)
      .map(toEffect),
  );

  return {
    async ingest(batch) {
      return ingest(batch);
    },
    async getMessage(id) {
      const row = st().byId.get(id);
      return row ? toStoredMessage(row) : null;
    },
    async getMessageByGuid(guid) {
      const row = st().byGuid.get(guid);
      return row ? toStoredMessage(row) : null;
    },
    async getMessageByTrackinId(accountId, trackinId) {
      const row = st().byTrackinId.get(accountId, trackinId);
      return row ? toStoredMessage(row) : null;
    },
    async getMessages(ids) {
      if (ids.length === 0) return [];
      const byId = new Map(
        st()
          .byIds.all(JSON.stringify(ids))
          .map((row) => [row.id, row]),
      );
      // Answer in the order asked; unknown ids are left out.
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [toStoredMessage(row)] : [];
      });
    },
    async history(messageId) {
      return st().history.all(messageId).map(historyEntryFromRow);
    },
    async appendHistory(entries) {
      if (entries.length > 0) appendHistoryTx.immediate(entries);
    },
    async commit(commit) {
      return commitTx.immediate(commit);
    },
    async claimDueEffects(now, limit, leaseMs) {
      if (limit <= 0) return [];
      // RETURNING does not promise an order: restore the claim order.
      return claimTx.immediate(now, limit, leaseMs).sort((a, b) => a.dueAt - b.dueAt || a.id - b.id);
    },
    async nextDueAt(now) {
      return st().nextDue.get(now)?.due ?? null;
    },
    async updateScheduled(id, change, at) {
      return updateScheduledTx.immediate(id, change, at);
    },
  };
}
