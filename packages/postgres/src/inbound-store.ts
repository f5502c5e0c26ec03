import type pg from 'pg';
import { SpillwayError } from '@spillway/core';
import { WEBHOOK_DELIVERY_COLUMNS, claimedDeliveryFromRow, inboundMessageFromRow, webhookDeliveryFromRow } from '@spillway/core/storage';
import type { InboundStorage } from '@spillway/core';
import type { ClaimedDelivery, ClaimedDeliveryRow, InboundMessageRow, WebhookDeliveryRow } from '@spillway/core/storage';
import { isUniqueViolation, row, rows, run, transaction } from './pg-util.ts';

/** The inbound part of the PostgreSQL storage, in the tables of `x` (the schema prefix). */
export function createInboundStore(pool: pg.Pool, x: string): InboundStorage {
  const complete = (id: number, status: string, error: string | null, dueAt: number | null, deliveredAt: number | null) =>
    run(
      pool,
      `UPDATE ${x}webhook_deliveries
       SET status = $2, attempts = attempts + 1, last_error = $3, lease_until = 0,
           due_at = COALESCE($4::bigint, due_at), delivered_at = $5
       WHERE id = $1 AND status = 'pending'`,
      [id, status, error, dueAt, deliveredAt],
    );

  return {
    async lastInboundAt(accountId, alphaName, phoneNumber) {
      const found = await row<{ at: number | null }>(
        pool,
        `SELECT MAX(received_at) AS at FROM ${x}inbound_messages WHERE account_id = $1 AND alpha_name = $2 AND phone_number = $3`,
        [accountId, alphaName, phoneNumber],
      );
      return found?.at ?? null;
    },

    async recordInbound(m, delivery) {
      try {
        return await transaction(pool, async (client) => {
          await run(
            client,
            `INSERT INTO ${x}inbound_messages (id, account_id, alpha_name, phone_number, text, received_at) VALUES ($1, $2, $3, $4, $5, $6)`,
            [m.idUuid, m.accountId, m.alphaName, m.phoneNumber, m.text, m.receivedAt],
          );
          if (!delivery) return null;
          const stored = await row<WebhookDeliveryRow>(
            client,
            `INSERT INTO ${x}webhook_deliveries (inbound_id, account_id, url, status, due_at, created_at)
             VALUES ($1, $2, $3, 'pending', $4, $5) RETURNING ${WEBHOOK_DELIVERY_COLUMNS}`,
            [m.idUuid, m.accountId, delivery.url, delivery.dueAt, m.receivedAt],
          );
          return webhookDeliveryFromRow(stored!);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new SpillwayError('conflict', `Incoming message '${m.idUuid}' already exists`);
        throw error;
      }
    },

    async getInbound(accountId, idUuid) {
      const found = await row<InboundMessageRow>(pool, `SELECT * FROM ${x}inbound_messages WHERE id = $1 AND account_id = $2`, [
        idUuid,
        accountId,
      ]);
      if (!found) return null;
      const delivery = await row<WebhookDeliveryRow>(
        pool,
        `SELECT ${WEBHOOK_DELIVERY_COLUMNS} FROM ${x}webhook_deliveries WHERE inbound_id = $1`,
        [idUuid],
      );
      return { inbound: inboundMessageFromRow(found), delivery: delivery ? webhookDeliveryFromRow(delivery) : null };
    },

    async claimDueDeliveries(now, limit, leaseMs): Promise<ClaimedDelivery[]> {
      if (limit <= 0) return [];
      // SKIP LOCKED, as for effects: concurrent workers lease disjoint deliveries.
      const claimed = await rows<ClaimedDeliveryRow>(
        pool,
        `WITH claimed AS (
           UPDATE ${x}webhook_deliveries SET lease_until = $1
           WHERE id IN (
             SELECT id FROM ${x}webhook_deliveries WHERE status = 'pending' AND due_at <= $2 AND lease_until <= $2
             ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
           )
           RETURNING ${WEBHOOK_DELIVERY_COLUMNS}
         )
         SELECT d.*, m.id AS m_id, m.account_id AS m_account_id, m.alpha_name, m.phone_number, m.text, m.received_at
         FROM claimed d JOIN ${x}inbound_messages m ON m.id = d.inbound_id
         ORDER BY d.due_at, d.id`,
        [now + leaseMs, now, limit],
      );
      return claimed.map(claimedDeliveryFromRow);
    },

    async completeDelivery(id, outcome, at) {
      switch (outcome.status) {
        case 'delivered':
          await complete(id, 'delivered', null, null, at);
          return;
        case 'retry':
          await complete(id, 'pending', outcome.error, outcome.dueAt, null);
          return;
        case 'failed':
          await complete(id, 'failed', outcome.error, null, null);
          return;
      }
    },
  };
}
