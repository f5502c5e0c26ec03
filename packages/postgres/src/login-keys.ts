import { isMainThread } from 'node:worker_threads';
import type pg from 'pg';
import { loginClashWarning, loginKeysOf } from '@spillway/core/storage';
import { rows, run } from './pg-util.ts';

/**
 * The migration that makes logins one regardless of case: `accounts.login_key` (the login's
 * `loginKey`) is what lookups match and what is unique. A database may already hold logins that
 * differ only by case: the oldest of them gets the key, the others none, and are found by their
 * exact spelling only ({@link warnOfLoginClashes} names them at start). Keys are computed here,
 * not by PostgreSQL's `lower()`, which folds by the database's locale (ASCII only under `C`).
 * Runs in the migration's transaction, with the storage's schema on the `search_path`.
 */
export async function addLoginKeys(client: pg.PoolClient): Promise<void> {
  await run(client, 'ALTER TABLE accounts ADD COLUMN login_key TEXT');
  const keys = loginKeysOf(await rows<{ id: number; login: string }>(client, 'SELECT id, login FROM accounts'));
  if (keys.length > 0) {
    await run(client, 'UPDATE accounts a SET login_key = k.key FROM unnest($1::bigint[], $2::text[]) AS k(id, key) WHERE a.id = k.id', [
      keys.map((k) => k.id),
      keys.map((k) => k.key),
    ]);
  }
  // NULLs are distinct: the clashing logins left without a key do not break it.
  await run(client, 'CREATE UNIQUE INDEX accounts_login_key_unique ON accounts(login_key)');
}

// Schemas already warned, by pool: a process may migrate one more than once.
const warned = new WeakMap<pg.Pool, Set<string>>();

/**
 * Warns, once per pool and schema and in the main thread only (the server's worker and HTTP
 * threads migrate the same schema), of logins that differ only by case from an older one, kept
 * from before logins were one regardless of case.
 */
export async function warnOfLoginClashes(pool: pg.Pool, prefix: string): Promise<void> {
  if (!isMainThread || warned.get(pool)?.has(prefix)) return;
  const clashes = await rows<{ id: number; login: string }>(
    pool,
    `SELECT id, login FROM ${prefix}accounts WHERE login_key IS NULL ORDER BY id`,
  );
  if (clashes.length === 0) return;
  warned.set(pool, (warned.get(pool) ?? new Set<string>()).add(prefix));
  console.warn(loginClashWarning(clashes));
}
