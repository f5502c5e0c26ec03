import type pg from 'pg';
import { perTurn } from '@spillway/core/storage';
import type { PerTurnMemo } from '@spillway/core/storage';
import { row } from './pg-util.ts';

/** The settings row counting credential revocations (see `AccountStorage.credentialRevision`). */
export const CREDENTIAL_REVISION_KEY = 'credentials.revision';

/**
 * A data-modifying CTE (`bump_revision`) that adds one to the credential revision when the CTE
 * `changed` returned a row: put it in the same statement as the revocation, so both commit together.
 */
export const bumpRevisionCte = (x: string, changed: string): string =>
  `bump_revision AS (
     INSERT INTO ${x}settings AS s (key, value) SELECT '${CREDENTIAL_REVISION_KEY}', '1' FROM (SELECT 1 FROM ${changed} LIMIT 1) AS c
     ON CONFLICT (key) DO UPDATE SET value = (s.value::bigint + 1)::text
   )`;

/** One memo of the revision per pool and schema: the account and chat hub stores share it. */
const memos = new WeakMap<pg.Pool, Map<string, PerTurnMemo<string, Promise<number>>>>();

/**
 * The credential revision read once per turn of the event loop (every authenticated request
 * reads it; the requests of one turn share the query). A revocation through this pool forgets the
 * memo (`clear`); one in another process is seen by every query of the next turn.
 */
export function credentialRevisionReader(pool: pg.Pool, x: string): PerTurnMemo<string, Promise<number>> {
  let bySchema = memos.get(pool);
  if (!bySchema) memos.set(pool, (bySchema = new Map()));
  let memo = bySchema.get(x);
  if (!memo) {
    memo = perTurn(async (key: string) =>
      Number((await row<{ value: string }>(pool, `SELECT value FROM ${x}settings WHERE key = $1`, [key]))?.value ?? 0),
    );
    bySchema.set(x, memo);
  }
  return memo;
}
