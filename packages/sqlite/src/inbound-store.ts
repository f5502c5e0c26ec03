import type Database from 'better-sqlite3';
import { SpillwayError } from '@spillway/core';
import { WEBHOOK_DELIVERY_COLUMNS, claimedDeliveryFromRow, inboundMessageFromRow, webhookDeliveryFromRow } from '@spillway/core/storage';
import type { InboundMessage, InboundStorage } from '@spillway/core';
import type { ClaimedDelivery, ClaimedDeliveryRow, InboundMessageRow, WebhookDeliveryRow } from '@spillway/core/storage';
import { isUniqueViolation } from './sqlite-util.ts';

/**
 * Schema of the inbound tables; run by the storage's migrate(). `webhook_deliveries` is the
 * outbox of incoming-message callbacks: lease_until > now means a worker holds the delivery.
 */
export const INBOUND_SCHEMA = `
CREATE TABLE IF NOT EXISTS inbound_messages (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL,
  alpha_name TEXT NOT NULL,
  phone_number TEXT NOT NULL,
  text TEXT NOT NULL,
  received_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS inbound_by_sender ON inbound_messages(account_id, alpha_name, phone_number, received_at);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id           INTEGER PRIMARY KEY,
  inbound_id   TEXT NOT NULL UNIQUE REFERENCES inbound_messages(id),
  account_id   INTEGER NOT NULL,
  url          TEXT NOT NULL,
  status       TEXT NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  last_error   TEXT,
  due_at       INTEGER NOT NULL,
  lease_until  INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  delivered_at INTEGER
);
-- Only pending deliveries are ever claimed: the partial index stays as small as the backlog.
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries(due_at, id) WHERE status = 'pending';
`;

/** The inbound part of the SQLite storage, over the storage's database handle. */
export function createInboundStore(db: Database.Database): InboundStorage {
  const last = db.prepare<[number, string, string], { at: number | null }>(
    'SELECT MAX(received_at) AS at FROM inbound_messages WHERE account_id = ? AND alpha_name = ? AND phone_number = ?',
  );
  const insertInbound = db.prepare(
    'INSERT INTO inbound_messages (id, account_id, alpha_name, phone_number, text, received_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insertDelivery = db.prepare<[string, number, string, number, number], WebhookDeliveryRow>(
    `INSERT INTO webhook_deliveries (inbound_id, account_id, url, status, due_at, created_at)
     VALUES (?, ?, ?, 'pending', ?, ?) RETURNING ${WEBHOOK_DELIVERY_COLUMNS}`,
  );
  const selectInbound = db.prepare<[string, number], InboundMessageRow>('SELECT * FROM inbound_messages WHERE id = ? AND account_id = ?');
  const selectDeliveryOf = db.prepare<[string], WebhookDeliveryRow>(
    `SELECT ${WEBHOOK_DELIVERY_COLUMNS} FROM webhook_deliveries WHERE inbound_id = ?`,
  );
  const selectDue = db.prepare<[number, number, number], ClaimedDeliveryRow>(
    `SELECT d.id, d.inbound_id, d.account_id, d.url, d.status, d.attempts, d.last_error, d.due_at, d.created_at, d.delivered_at,
            m.id AS m_id, m.account_id AS m_account_id, m.alpha_name, m.phone_number, m.text, m.received_at
     FROM webhook_deliveries d JOIN inbound_messages m ON m.id = d.inbound_id
     WHERE d.status = 'pending' AND d.due_at <= ? AND d.lease_until <= ?
     ORDER BY d.due_at, d.id LIMIT ?`,
  );
  const lease = db.prepare<[number, number]>('UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?');
  const complete = db.prepare<{ id: number; status: string; error: string | null; dueAt: number | null; deliveredAt: number | null }>(
    `UPDATE webhook_deliveries
     SET status = @status, attempts = attempts + 1, last_error = @error, lease_until = 0,
         due_at = COALESCE(@dueAt, due_at), delivered_at = @deliveredAt
     WHERE id = @id AND status = 'pending'`,
  );

  const record = db.transaction((m: InboundMessage, delivery: { url: string; dueAt: number } | null): WebhookDeliveryRow | undefined => {
    insertInbound.run(m.idUuid, m.accountId, m.alphaName, m.phoneNumber, m.text, m.receivedAt);
    return delivery ? insertDelivery.get(m.idUuid, m.accountId, delivery.url, delivery.dueAt, m.receivedAt) : undefined;
  });

  const claim = db.transaction((now: number, limit: number, leaseMs: number): ClaimedDelivery[] => {
    const rows = selectDue.all(now, now, limit);
    for (const row of rows) lease.run(now + leaseMs, row.id);
    return rows.map(claimedDeliveryFromRow);
  });

  return {
    async lastInboundAt(accountId, alphaName, phoneNumber) {
      return last.get(accountId, alphaName, phoneNumber)?.at ?? null;
    },

    async recordInbound(inbound, delivery) {
      try {
        const row = record(inbound, delivery);
        return row ? webhookDeliveryFromRow(row) : null;
      } catch (error) {
        if (isUniqueViolation(error)) throw new SpillwayError('conflict', `Incoming message '${inbound.idUuid}' already exists`);
        throw error;
      }
    },

    async getInbound(accountId, idUuid) {
      const row = selectInbound.get(idUuid, accountId);
      if (!row) return null;
      const delivery = selectDeliveryOf.get(idUuid);
      return { inbound: inboundMessageFromRow(row), delivery: delivery ? webhookDeliveryFromRow(delivery) : null };
    },

    async claimDueDeliveries(now, limit, leaseMs) {
      // A read first: the poll finds nothing most of the time, and then takes no write lock.
      if (limit <= 0 || selectDue.all(now, now, 1).length === 0) return [];
      // IMMEDIATE: two processes on one file must not lease the same rows.
      return claim.immediate(now, limit, leaseMs);
    },

    async completeDelivery(id, outcome, at) {
      switch (outcome.status) {
        case 'delivered':
          complete.run({ id, status: 'delivered', error: null, dueAt: null, deliveredAt: at });
          return;
        case 'retry':
          complete.run({ id, status: 'pending', error: outcome.error, dueAt: outcome.dueAt, deliveredAt: null });
          return;
        case 'failed':
          complete.run({ id, status: 'failed', error: outcome.error, dueAt: null, deliveredAt: null });
          return;
      }
    },
  };
}
