import type pg from 'pg';
import { alphaNameFromRow, senderApplicationFromRow } from '@spillway/core/storage';
import type { ClientStorage } from '@spillway/core';
import type { AlphaNameRow, SenderApplicationRow } from '@spillway/core/storage';
import { alphaNameList } from './alpha-name-list.ts';
import { rows, transaction } from './pg-util.ts';

/** `ClientStorage.revokeAlphaNames` over a pg pool, in the tables of `x`: both tables in one transaction. */
export function createAlphaNameRevocation(pool: pg.Pool, x: string): ClientStorage['revokeAlphaNames'] {
  const list = alphaNameList(pool, x);
  return async (accountIds, name, reason, at) => {
    const ids = [...new Set(accountIds)];
    const { removed, applications } = await transaction(pool, async (client) => ({
      removed: await rows<AlphaNameRow>(
        client,
        `DELETE FROM ${x}alpha_names WHERE account_id = ANY($1::bigint[]) AND name = $2 RETURNING *`,
        [ids, name],
      ),
      applications: await rows<SenderApplicationRow>(
        client,
        `UPDATE ${x}sender_applications SET status = 'revoked', reason = $3, decided_at = $4
         WHERE account_id = ANY($1::bigint[]) AND kind = 'alpha_name' AND name = $2 AND status = 'approved' RETURNING *`,
        [ids, name, reason, at],
      ),
    }));
    // Sends read the list through the memo: a revoked name must be refused from the next read on.
    list.clear();
    return {
      alphaNames: removed.map(alphaNameFromRow).sort((a, b) => a.accountId - b.accountId),
      applications: applications.map(senderApplicationFromRow),
    };
  };
}
