import type Database from 'better-sqlite3';
import { perTurn } from '@spillway/core/storage';
import type { PerTurnMemo } from '@spillway/core/storage';
import { lazy } from './sqlite-util.ts';

/** The settings row counting credential revocations (see `AccountStorage.credentialRevision`). */
export const CREDENTIAL_REVISION_KEY = 'credentials.revision';

/** The revision read once per turn of the event loop, per handle: the account and chat hub stores share it. */
const memos = new WeakMap<Database.Database, PerTurnMemo<string, number>>();

/**
 * Reads and bumps the credential revision; statements prepared on first use (after migrate).
 * Reads are memoized for the turn of the event loop (every authenticated request reads it, and
 * the requests that arrived together share one read); a bump on this handle forgets the memo, so
 * a revocation in this process is seen by the next read, and one in another process by every
 * request of the next turn.
 */
export function createCredentialRevision(db: Database.Database): { read(): number; bump(): void } {
  // The chat hub store also runs alone, on a database without the settings table: nothing caches there.
  const hasSettings = () => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'`).get() !== undefined;
  const st = lazy(() => ({
    read: db.prepare<[string], { value: string }>(`SELECT value FROM settings WHERE key = ?`),
    bump: db.prepare<[string]>(
      `INSERT INTO settings (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
    ),
  }));
  let memo = memos.get(db);
  if (!memo) memos.set(db, (memo = perTurn((key: string) => Number(st().read.get(key)?.value ?? 0), { bypass: () => db.inTransaction })));
  const shared = memo;
  return {
    read: () => shared.get(CREDENTIAL_REVISION_KEY),
    bump: () => {
      shared.clear();
      if (hasSettings()) st().bump.run(CREDENTIAL_REVISION_KEY);
    },
  };
}
