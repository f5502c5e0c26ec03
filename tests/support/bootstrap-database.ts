import { join } from 'node:path';
import { createEngine } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import type { PostgresStorage } from '@spillway/postgres';
import { bootstrap, readConfig } from '@spillway/server';
import { createSqliteStorage } from '@spillway/sqlite';
import type { SqliteStorage } from '@spillway/sqlite';
import { testDatabase } from './test-database.ts';
import type { TestDatabase } from './test-database.ts';

/**
 * A database for the bootstrap's tests, of its own: a SQLite file in `dir` (two connections open
 * it, as two processes do), or PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
 * The environment bootstraps the account `ops` with key, alpha-name `Ops` and an opening balance
 * of 20. Add `database` to the file's databases to drop.
 */
export function bootstrapDatabase(dir: string, name: string): { env: Record<string, string>; database: TestDatabase } {
  const database = testDatabase(`boot_${name}`);
  return {
    database,
    env: {
      ...(database.url ? database.env : { DATABASE_URL: '', SPILLWAY_DB: join(dir, `${name}.db`) }),
      PORT: '0',
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_BOOTSTRAP_LOGIN: 'ops',
      SPILLWAY_BOOTSTRAP_PASSWORD: 'ops-password',
      SPILLWAY_BOOTSTRAP_API_KEY: 'sk_ops_key_0123456789',
      SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Ops',
      SPILLWAY_BOOTSTRAP_BALANCE: '20',
    },
  };
}

/** A connection of its own to the test's database, as another process has. */
export function connect(env: Record<string, string>): Storage {
  return env['DATABASE_URL']
    ? createPostgresStorage({ connectionString: env['DATABASE_URL'], schema: env['SPILLWAY_PG_SCHEMA']! })
    : createSqliteStorage({ filename: env['SPILLWAY_DB']! });
}

/** A connection of its own, with what a test needs to hold locks: the pool, or the SQLite handle. */
export function connectRaw(env: Record<string, string>): PostgresStorage | SqliteStorage {
  return connect(env) as PostgresStorage | SqliteStorage;
}

/** The engine a process bootstraps with, over `storage` (a cheap hasher: tests hash a lot). */
export function bootstrapEngine(storage: Storage) {
  return createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 2 ** 12 }), worker: false });
}

/** One process's start: bootstraps the database over a connection of its own, then closes it. */
export async function bootstrapOnce(env: Record<string, string>) {
  const storage = connect(env);
  try {
    await storage.migrate();
    return await bootstrap(bootstrapEngine(storage), readConfig(env));
  } finally {
    await storage.close();
  }
}

/** Runs `use` over a connection of its own to the test's database, then closes it. */
export async function withStorage<T>(env: Record<string, string>, use: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = connect(env);
  try {
    return await use(storage);
  } finally {
    await storage.close();
  }
}

/** The id of `ops`. */
export async function opsId(storage: Storage): Promise<number> {
  return (await storage.findAccountByLogin('ops'))!.account.id;
}

/** The balance of `ops` and its bootstrap credits, newest first, read over a connection of its own. */
export async function wallet(env: Record<string, string>): Promise<{ balance: number; credits: number[] }> {
  return withStorage(env, async (storage) => {
    const accountId = await opsId(storage);
    const { items } = await storage.listWalletTransactions(accountId, { page: 1, pageSize: 50 });
    return {
      balance: await storage.getBalance(accountId),
      credits: items.filter((t) => t.description === 'bootstrap balance').map((t) => t.amount),
    };
  });
}

/** Moves `amount` micro-units on the wallet of `ops` (negative: it spent them). */
export async function move(env: Record<string, string>, amount: number, description = 'sent'): Promise<void> {
  await withStorage(env, async (storage) => {
    const accountId = await opsId(storage);
    await storage.addWalletTransaction({ accountId, kind: amount < 0 ? 'charge' : 'topup', amount, messageId: null, description }, 1);
  });
}
