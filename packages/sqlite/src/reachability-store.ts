import type Database from 'better-sqlite3';
import { latestPerKey, unreachableFromRow } from '@spillway/core/storage';
import type { ReachabilityStorage, UnreachableRow } from '@spillway/core/storage';

/**
 * The reachability memory's table, and the index that finds the owners of an alpha-name (incoming
 * messages from drivers name only the address they were sent to); appended to the migrations.
 */
export const REACHABILITY_MIGRATION = `
  CREATE TABLE unreachable_numbers (
    account_id   INTEGER NOT NULL REFERENCES accounts(id),
    phone_number TEXT NOT NULL,
    channel      TEXT NOT NULL,
    reason       TEXT NOT NULL,
    driver       TEXT,
    message_id   INTEGER,
    at           INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    PRIMARY KEY (account_id, phone_number, channel)
  ) WITHOUT ROWID;
  CREATE INDEX unreachable_numbers_expiry ON unreachable_numbers(expires_at);
  CREATE INDEX alpha_names_name ON alpha_names(name);
`;

/** Keys looked up per statement (3 parameters each, well under SQLite's limit). */
const CHUNK = 300;

/** The reachability memory on SQLite. */
export function createReachabilityStore(db: Database.Database): ReachabilityStorage {
  const upsert = db.prepare(
    `INSERT INTO unreachable_numbers (account_id, phone_number, channel, reason, driver, message_id, at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, phone_number, channel) DO UPDATE SET
       reason = excluded.reason, driver = excluded.driver, message_id = excluded.message_id,
       at = excluded.at, expires_at = excluded.expires_at
     WHERE excluded.at >= unreachable_numbers.at`,
  );
  const rememberAll = db.transaction((entries: ReturnType<typeof latestPerKey>) => {
    for (const e of entries) upsert.run(e.accountId, e.phoneNumber, e.channel, e.reason, e.driver, e.messageId, e.at, e.expiresAt);
  });
  const list = db.prepare(
    'SELECT * FROM unreachable_numbers WHERE account_id = ? AND phone_number = ? AND expires_at > ? ORDER BY channel',
  );
  const clearAll = db.prepare('DELETE FROM unreachable_numbers WHERE account_id = ? AND phone_number = ?');
  const clearOne = db.prepare('DELETE FROM unreachable_numbers WHERE account_id = ? AND phone_number = ? AND channel = ?');
  const prune = db.prepare('DELETE FROM unreachable_numbers WHERE expires_at <= ?');

  return {
    async rememberUnreachable(entries) {
      if (entries.length > 0) rememberAll(latestPerKey(entries));
    },
    async findUnreachable(keys, now) {
      const found: UnreachableRow[] = [];
      for (let i = 0; i < keys.length; i += CHUNK) {
        const chunk = keys.slice(i, i + CHUNK);
        const tuples = chunk.map(() => '(?, ?, ?)').join(', ');
        const params = chunk.flatMap((k) => [k.accountId, k.phoneNumber, k.channel]);
        found.push(
          ...(db
            .prepare(`SELECT * FROM unreachable_numbers WHERE expires_at > ? AND (account_id, phone_number, channel) IN (VALUES ${tuples})`)
            .all(now, ...params) as UnreachableRow[]),
        );
      }
      return found.map(unreachableFromRow);
    },
    async listUnreachable(accountId, phoneNumber, now) {
      return (list.all(accountId, phoneNumber, now) as UnreachableRow[]).map(unreachableFromRow);
    },
    async clearUnreachable(accountId, phoneNumber, channel) {
      return (channel ? clearOne.run(accountId, phoneNumber, channel) : clearAll.run(accountId, phoneNumber)).changes;
    },
    async pruneUnreachable(now) {
      return prune.run(now).changes;
    },
  };
}
