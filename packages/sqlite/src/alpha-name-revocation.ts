import type Database from 'better-sqlite3';
import { withdrawChannels } from '@spillway/core/storage';
import type { AlphaNameWithdrawal, ChannelId, ClientStorage } from '@spillway/core';
import { alphaNameList } from './alpha-name-list.ts';
import { toAlphaName, toSenderApplication } from './rows.ts';
import type { SqliteAlphaNameRow, SqliteSenderApplicationRow } from './rows.ts';
import { lazy } from './sqlite-util.ts';

/** `ClientStorage.revokeAlphaNames` over one better-sqlite3 handle: both tables in one transaction. */
export function createAlphaNameRevocation(db: Database.Database): ClientStorage['revokeAlphaNames'] {
  const st = lazy(() => ({
    find: db.prepare<[number, string], SqliteAlphaNameRow>('SELECT * FROM alpha_names WHERE account_id = ? AND name = ?'),
    remove: db.prepare<[number, string]>('DELETE FROM alpha_names WHERE account_id = ? AND name = ?'),
    narrow: db.prepare<[string, number, string]>('UPDATE alpha_names SET channels = ? WHERE account_id = ? AND name = ?'),
    // The approved applications none of whose channels is in the JSON array of the channels left.
    revoke: db.prepare<[string, number, number, string, string], SqliteSenderApplicationRow>(
      `UPDATE sender_applications SET status = 'revoked', reason = ?, decided_at = ?
       WHERE account_id = ? AND kind = 'alpha_name' AND name = ? AND status = 'approved'
         AND NOT EXISTS (SELECT 1 FROM json_each(sender_applications.channels) c WHERE c.value IN (SELECT value FROM json_each(?)))
       RETURNING *`,
    ),
  }));
  const revokeTx = db.transaction(
    (accountIds: readonly number[], name: string, reason: string, at: number, channels: readonly ChannelId[] | undefined) => {
      const touched: AlphaNameWithdrawal[] = [];
      const applications: SqliteSenderApplicationRow[] = [];
      for (const accountId of new Set(accountIds)) {
        const row = st().find.get(accountId, name);
        const found = row ? toAlphaName(row) : null;
        const split = withdrawChannels(found?.channels ?? [], channels);
        if (found && split.withdrawn.length > 0) {
          if (split.left.length === 0) st().remove.run(accountId, name);
          else st().narrow.run(JSON.stringify(split.left), accountId, name);
          touched.push({ ...found, ...split });
        } else if (channels !== undefined) {
          // A withdrawal of some channels leaves an account whose name has none of them alone.
          continue;
        }
        applications.push(...st().revoke.all(reason, at, accountId, name, JSON.stringify(split.left)));
      }
      return { touched, applications };
    },
  );
  const list = alphaNameList(db);

  return async (accountIds, name, reason, at, channels) => {
    const { touched, applications } = revokeTx.immediate(accountIds, name, reason, at, channels);
    // Sends read the list through the memo: a revoked name (or channel) must be refused from the next read on.
    list.clear();
    return {
      alphaNames: touched.sort((x, y) => x.accountId - y.accountId),
      applications: applications.map(toSenderApplication),
    };
  };
}
