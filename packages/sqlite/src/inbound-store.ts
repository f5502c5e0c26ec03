import type Database from 'better-sqlite3';
import type { InboundStorage } from '@spillway/core';

/** Schema of the inbound tables; run by the storage's migrate(). */
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
`;

/** The inbound part of the SQLite storage, over the storage's database handle. */
export function createInboundStore(db: Database.Database): InboundStorage {
  const last = db.prepare<[number, string, string], { at: number | null }>(
    'SELECT MAX(received_at) AS at FROM inbound_messages WHERE account_id = ? AND alpha_name = ? AND phone_number = ?',
  );
  return {
    async lastInboundAt(accountId, alphaName, phoneNumber) {
      return last.get(accountId, alphaName, phoneNumber)?.at ?? null;
    },
  };
}
