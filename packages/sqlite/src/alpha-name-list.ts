import type Database from 'better-sqlite3';
import { perTurn } from '@spillway/core/storage';
import type { PerTurnMemo } from '@spillway/core/storage';
import type { SqliteAlphaNameRow } from './rows.ts';

/** One memo per handle: the account store reads through it, every store that writes alpha-names clears it. */
const memos = new WeakMap<Database.Database, PerTurnMemo<number, SqliteAlphaNameRow[]>>();

/**
 * An account's alpha-names, read once per turn of the event loop (every send reads its account's:
 * the sends that arrived together share one read). Shared by the stores of one handle, so that a
 * write of any of them (an approval, a callback, a revocation) is read back at once; a change on
 * another handle is seen from the next turn. Inside a transaction it reads without the memo.
 */
export function alphaNameList(db: Database.Database): PerTurnMemo<number, SqliteAlphaNameRow[]> {
  let memo = memos.get(db);
  if (!memo) {
    let list: Database.Statement<[number], SqliteAlphaNameRow> | undefined;
    memo = perTurn(
      (accountId: number) =>
        (list ??= db.prepare<[number], SqliteAlphaNameRow>(`SELECT * FROM alpha_names WHERE account_id = ? ORDER BY name`)).all(accountId),
      { bypass: () => db.inTransaction },
    );
    memos.set(db, memo);
  }
  return memo;
}
