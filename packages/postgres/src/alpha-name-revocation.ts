import type pg from 'pg';
import { alphaNameFromRow, senderApplicationFromRow, withdrawChannels } from '@spillway/core/storage';
import type { AlphaNameWithdrawal, ClientStorage } from '@spillway/core';
import type { AlphaNameRow, SenderApplicationRow } from '@spillway/core/storage';
import { alphaNameList } from './alpha-name-list.ts';
import { rows, run, transaction } from './pg-util.ts';

/** `ClientStorage.revokeAlphaNames` over a pg pool, in the tables of `x`: both tables in one transaction. */
export function createAlphaNameRevocation(pool: pg.Pool, x: string): ClientStorage['revokeAlphaNames'] {
  const list = alphaNameList(pool, x);
  return async (accountIds, name, reason, at, channels) => {
    const ids = [...new Set(accountIds)];
    const { touched, applications } = await transaction(pool, async (client) => {
      // Locked: an approval or another revocation of the name waits for this one, and is read after it.
      const found = await rows<AlphaNameRow>(
        client,
        `SELECT * FROM ${x}alpha_names WHERE account_id = ANY($1::bigint[]) AND name = $2 ORDER BY account_id FOR UPDATE`,
        [ids, name],
      );
      const touched: AlphaNameWithdrawal[] = [];
      for (const r of found) {
        const split = withdrawChannels(r.channels, channels);
        if (split.withdrawn.length > 0) touched.push({ ...alphaNameFromRow(r), ...split });
      }
      const gone = touched.filter((t) => t.left.length === 0).map((t) => t.accountId);
      if (gone.length > 0)
        await run(client, `DELETE FROM ${x}alpha_names WHERE account_id = ANY($1::bigint[]) AND name = $2`, [gone, name]);
      for (const t of touched.filter((n) => n.left.length > 0)) {
        await run(client, `UPDATE ${x}alpha_names SET channels = $1::jsonb WHERE account_id = $2 AND name = $3`, [
          JSON.stringify(t.left),
          t.accountId,
          name,
        ]);
      }
      // Every account's approved applications when the name is revoked entirely; of a withdrawal of
      // some channels, those of the accounts it touched none of whose channels is left.
      const sweeps = channels === undefined ? ids.map((accountId) => ({ accountId, left: [] as string[] })) : touched;
      const applications: SenderApplicationRow[] = [];
      for (const { accountId, left } of sweeps) {
        applications.push(
          ...(await rows<SenderApplicationRow>(
            client,
            `UPDATE ${x}sender_applications SET status = 'revoked', reason = $3, decided_at = $4
             WHERE account_id = $1 AND kind = 'alpha_name' AND name = $2 AND status = 'approved'
               AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(channels) AS c(channel) WHERE c.channel = ANY($5::text[]))
             RETURNING *`,
            [accountId, name, reason, at, left],
          )),
        );
      }
      return { touched, applications };
    });
    // Sends read the list through the memo: a revoked name (or channel) must be refused from the next read on.
    list.clear();
    return {
      alphaNames: touched,
      applications: applications.map(senderApplicationFromRow),
    };
  };
}
