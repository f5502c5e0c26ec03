import { isMainThread } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { loginClashWarning, loginKeysOf } from '@spillway/core/storage';

/**
 * The migration that makes logins one regardless of case: `accounts.login_key` (the login's
 * `loginKey`) is what lookups match and what is unique. A database may already hold logins
 * that differ only by case: the oldest of them gets the key, the others none, and are found by
 * their exact spelling only ({@link warnOfLoginClashes} names them at start). Keys are computed
 * here, not by SQLite's `lower()`, which folds ASCII only.
 */
export function addLoginKeys(db: Database.Database): void {
  db.exec('ALTER TABLE accounts ADD COLUMN login_key TEXT');
  const set = db.prepare<[string, number]>('UPDATE accounts SET login_key = ? WHERE id = ?');
  const accounts = db.prepare<[], { id: number; login: string }>('SELECT id, login FROM accounts').all();
  for (const { id, key } of loginKeysOf(accounts)) set.run(key, id);
  // NULLs are distinct: the clashing logins left without a key do not break it.
  db.exec('CREATE UNIQUE INDEX accounts_login_key_unique ON accounts(login_key)');
}

// Handles already warned: the storage migrates when opened and again when asked.
const warned = new WeakSet<Database.Database>();

/**
 * Warns, once per database handle and in the main thread only (the server's worker and HTTP
 * threads open the same file), of logins that differ only by case from an older one, kept from
 * before logins were one regardless of case.
 */
export function warnOfLoginClashes(db: Database.Database): void {
  if (!isMainThread || warned.has(db)) return;
  const clashes = db.prepare<[], { id: number; login: string }>('SELECT id, login FROM accounts WHERE login_key IS NULL ORDER BY id').all();
  if (clashes.length === 0) return;
  warned.add(db);
  console.warn(loginClashWarning(clashes));
}
