import type Database from 'better-sqlite3';
import type { ClientStorage } from '@spillway/core';
import { alphaNameList } from './alpha-name-list.ts';
import { toAlphaName, toSenderApplication } from './rows.ts';
import type { SqliteAlphaNameRow, SqliteSenderApplicationRow } from './rows.ts';
import { lazy } from './sqlite-util.ts';

/** `ClientStorage.revokeAlphaNames` over one better-sqlite3 handle: both tables in one transaction. */
export function createAlphaNameRevocation(db: Database.Database): ClientStorage['revokeAlphaNames'] {
  const st = lazy(() => ({
    remove: db.prepare<[number, string], SqliteAlphaNameRow>('DELETE FROM alpha_names WHERE account_id = ? AND name = ? RETURNING *'),
    revoke: db.prepare<[string, number, number, string], SqliteSenderApplicationRow>(
      `UPDATE sender_applications SET status = 'revoked', reason = ?, decided_at = ?
       WHERE account_id = ? AND kind = 'alpha_name' AND name = ? AND status = 'approved' RETURNING *`,
    ),
  }));
  const revokeTx = db.transaction((accountIds: readonly number[], name: string, reason: string, at: number) => {
    const removed: SqliteAlphaNameRow[] = [];
    const applications: SqliteSenderApplicationRow[] = [];
    for (const accountId of new Set(accountIds)) {
      const row = st().remove.get(accountId, name);
      if (row) removed.push(row);
      applications.push(...st().revoke.all(reason, at, accountId, name));
    }
    return { removed, applications };
  });
  const list = alphaNameList(db);

  return async (accountIds, name, reason, at) => {
    const { removed, applications } = revokeTx.immediate(accountIds, name, reason, at);
    // Sends read the list through the memo: a revoked name must be refused from the next read on.
    list.clear();
    return {
      alphaNames: removed.map(toAlphaName).sort((x, y) => x.accountId - y.accountId),
      applications: applications.map(toSenderApplication),
    };
  };
}
