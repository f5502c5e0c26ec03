import type pg from 'pg';
import { perTurn } from '@spillway/core/storage';
import type { AlphaNameRow, PerTurnMemo } from '@spillway/core/storage';
import { rows } from './pg-util.ts';

/** One memo per pool and schema: the account store reads through it, every store that writes alpha-names clears it. */
const memos = new WeakMap<pg.Pool, Map<string, PerTurnMemo<number, Promise<AlphaNameRow[]>>>>();

/**
 * An account's alpha-names, queried once per turn of the event loop (every send reads its
 * account's: the sends handled in one turn share one query). Shared by the stores of one pool and
 * schema, so that a write of any of them (an approval, a callback, a revocation) is read back at
 * once; a change another process commits is seen by every query of the next turn.
 */
export function alphaNameList(pool: pg.Pool, x: string): PerTurnMemo<number, Promise<AlphaNameRow[]>> {
  let bySchema = memos.get(pool);
  if (!bySchema) memos.set(pool, (bySchema = new Map()));
  let memo = bySchema.get(x);
  if (!memo) {
    memo = perTurn((accountId: number) =>
      // COLLATE "C": byte order, as SQLite sorts, whatever the database's locale.
      rows<AlphaNameRow>(pool, `SELECT * FROM ${x}alpha_names WHERE account_id = $1 ORDER BY name COLLATE "C"`, [accountId]),
    );
    bySchema.set(x, memo);
  }
  return memo;
}
