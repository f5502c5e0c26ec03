import type pg from 'pg';
import { latestPerKey, unreachableFromRow } from '@spillway/core/storage';
import type { ReachabilityStorage, UnreachableRow } from '@spillway/core/storage';
import { rows, run } from './pg-util.ts';

/**
 * The reachability memory's table, and the index that finds the owners of an alpha-name (incoming
 * messages from drivers name only the address they were sent to); appended to the migrations.
 */
export const REACHABILITY_MIGRATION = `
  CREATE TABLE unreachable_numbers (
    account_id   BIGINT NOT NULL REFERENCES accounts(id),
    phone_number TEXT NOT NULL,
    channel      TEXT NOT NULL,
    reason       TEXT NOT NULL,
    driver       TEXT,
    message_id   BIGINT,
    at           BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, phone_number, channel)
  );
  CREATE INDEX unreachable_numbers_expiry ON unreachable_numbers(expires_at);
  CREATE INDEX alpha_names_name ON alpha_names(name);
`;

/** The reachability memory on PostgreSQL, in the tables of `x` (the schema prefix). */
export function createReachabilityStore(pool: pg.Pool, x: string): ReachabilityStorage {
  return {
    async rememberUnreachable(entries) {
      if (entries.length === 0) return;
      const latest = latestPerKey(entries);
      // One statement for the batch; a later answer replaces an earlier one, never the reverse.
      await run(
        pool,
        `INSERT INTO ${x}unreachable_numbers AS u (account_id, phone_number, channel, reason, driver, message_id, at, expires_at)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[])
         ON CONFLICT (account_id, phone_number, channel) DO UPDATE SET
           reason = EXCLUDED.reason, driver = EXCLUDED.driver, message_id = EXCLUDED.message_id,
           at = EXCLUDED.at, expires_at = EXCLUDED.expires_at
         WHERE EXCLUDED.at >= u.at`,
        [
          latest.map((e) => e.accountId),
          latest.map((e) => e.phoneNumber),
          latest.map((e) => e.channel),
          latest.map((e) => e.reason),
          latest.map((e) => e.driver),
          latest.map((e) => e.messageId),
          latest.map((e) => e.at),
          latest.map((e) => e.expiresAt),
        ],
      );
    },
    async findUnreachable(keys, now) {
      if (keys.length === 0) return [];
      const found = await rows<UnreachableRow>(
        pool,
        `SELECT u.* FROM ${x}unreachable_numbers u
         JOIN unnest($1::bigint[], $2::text[], $3::text[]) AS k(account_id, phone_number, channel)
           USING (account_id, phone_number, channel)
         WHERE u.expires_at > $4`,
        [keys.map((k) => k.accountId), keys.map((k) => k.phoneNumber), keys.map((k) => k.channel), now],
      );
      // The join repeats a row for each repeated key.
      const seen = new Set<string>();
      return found
        .filter((r) => {
          const key = `${r.account_id}|${r.phone_number}|${r.channel}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .map(unreachableFromRow);
    },
    async listUnreachable(accountId, phoneNumber, now) {
      return (
        await rows<UnreachableRow>(
          pool,
          `SELECT * FROM ${x}unreachable_numbers WHERE account_id = $1 AND phone_number = $2 AND expires_at > $3 ORDER BY channel`,
          [accountId, phoneNumber, now],
        )
      ).map(unreachableFromRow);
    },
    async clearUnreachable(accountId, phoneNumber, channel) {
      return channel
        ? run(pool, `DELETE FROM ${x}unreachable_numbers WHERE account_id = $1 AND phone_number = $2 AND channel = $3`, [
            accountId,
            phoneNumber,
            channel,
          ])
        : run(pool, `DELETE FROM ${x}unreachable_numbers WHERE account_id = $1 AND phone_number = $2`, [accountId, phoneNumber]);
    },
    async pruneUnreachable(now) {
      return run(pool, `DELETE FROM ${x}unreachable_numbers WHERE expires_at <= $1`, [now]);
    },
  };
}
