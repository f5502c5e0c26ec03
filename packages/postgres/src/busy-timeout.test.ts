import net from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStorage, type PostgresStorage } from './postgres-storage.ts';
import { MIGRATION_LOCK, SCHEMA_VERSION } from './schema.ts';
import { createTestDatabase, holdEveryConnection } from './test-database.ts';

// Needs a PostgreSQL server: DATABASE_URL=postgres://...
const url = process.env.DATABASE_URL;

/**
 * The busy timeout of these storages, ms: short, so that a wait past it is quickly seen, and long
 * enough for a new connection on a loaded machine (it bounds opening one too).
 */
const BUSY_MS = 1000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A storage with `busyTimeoutMs` on a pool of its own, its connections named `name` in pg_stat_activity. */
function boundedStorage(schema: string, name: string, busyTimeoutMs = BUSY_MS): PostgresStorage {
  const address = new URL(url!);
  address.searchParams.set('application_name', name);
  const storage = createPostgresStorage({ connectionString: address.href, schema, busyTimeoutMs });
  cleanups.push(() => storage.close());
  return storage;
}

/** The lock_timeout of a connection of `pool`, ms (0: none). */
async function lockTimeoutOf(pool: pg.Pool): Promise<number> {
  return Number((await pool.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'lock_timeout'")).rows[0]!.setting);
}

/** What `promise` failed with (it must fail). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

const uniqueName = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

describe('busyTimeoutMs of a storage whose pool cannot be reached', () => {
  // Regression (with the pool's room): a connect that never completes is out of reach, not busy.
  it('fails a connect that takes longer as unavailable, not busy', async () => {
    // Accepts the connection and never answers the startup message.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<net.Socket>();
    silent.on('connection', (socket) => sockets.add(socket));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const { port } = silent.address() as net.AddressInfo;
    const storage = createPostgresStorage({
      connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
      busyTimeoutMs: BUSY_MS,
      onConnectionError: () => undefined,
    });
    cleanups.push(() => storage.close());
    const error = await failure(storage.findAccountByLogin('nobody'));
    expect((error as Error).message).toMatch(/connection timeout/);
    expect(storage.isUnavailable(error)).toBe(true);
    expect(storage.isBusy(error)).toBe(false);
  });
});

describe.skipIf(!url)('busyTimeoutMs on PostgreSQL', () => {
  const db = createTestDatabase(url!);
  afterAll(() => db.end());

  it('fails a call waiting for a connection of a pool lent out whole, as busy', async () => {
    const storage = boundedStorage(db.schemaName(), uniqueName('spillway-busy-pool'));
    await storage.migrate();
    const held = await holdEveryConnection(storage.pool, cleanups);
    const error = await failure(storage.findAccountByLogin('nobody'));
    expect((error as Error).message).toMatch(/timeout exceeded when trying to connect/);
    expect(storage.isBusy(error)).toBe(true);
    // Once a connection is back, the storage serves again.
    held.pop()!.release();
    await expect(storage.findAccountByLogin('nobody')).resolves.toBeNull();
  });

  it('fails a call waiting for a row lock past it with lock_timeout, as busy, writing nothing', async () => {
    const storage = boundedStorage(db.schemaName(), uniqueName('spillway-busy-lock'));
    await storage.migrate();
    const account = await storage.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'x', currency: 'EUR' }, 1);
    // Another process holds the account's row.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    cleanups.push(() => other.end());
    await other.query('BEGIN');
    await other.query(`SELECT id FROM "${storage.schema}".accounts WHERE id = $1 FOR UPDATE`, [account.id]);
    const topUp = { accountId: account.id, kind: 'topup' as const, messageId: null, description: 'test' };
    const error = await failure(storage.topUpTo(topUp, 5_000_000, 2));
    expect((error as { code?: string }).code).toBe('55P03');
    expect(storage.isBusy(error)).toBe(true);
    await other.query('ROLLBACK');
    expect(await storage.getBalance(account.id)).toBe(0);
    expect((await storage.listWalletTransactions(account.id, { page: 1, pageSize: 10 })).total).toBe(0);
    // The same call, the row free, goes through on the same pool.
    expect((await storage.topUpTo(topUp, 5_000_000, 3))?.amount).toBe(5_000_000);
  });

  it('sets lock_timeout on the connections of its own pool only, not on a caller pool', async () => {
    const storage = boundedStorage(db.schemaName(), uniqueName('spillway-busy-show'));
    expect(await lockTimeoutOf(storage.pool)).toBe(BUSY_MS);
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    cleanups.push(() => pool.end());
    const given = createPostgresStorage({ pool, schema: db.schemaName(), busyTimeoutMs: BUSY_MS });
    cleanups.push(() => given.close());
    expect(await lockTimeoutOf(given.pool)).toBe(0);
    expect(given.pool.options.connectionTimeoutMillis ?? 0).toBe(0);
  });

  it('refuses a busy timeout that is not a count of milliseconds', () => {
    for (const busyTimeoutMs of [-1, Number.NaN, Infinity, 1.5])
      expect(() => createPostgresStorage({ connectionString: url, busyTimeoutMs }), String(busyTimeoutMs)).toThrow(/busyTimeoutMs/);
  });

  // Regression: lock_timeout aborted the advisory lock a migration waits on while another process
  // migrates: a second engine process starting beside a slow migration failed to start.
  it('lets migrations wait for each other past it', async () => {
    const schema = db.schemaName();
    const name = uniqueName('spillway-busy-migrate');
    const first = boundedStorage(schema, name);
    const second = boundedStorage(schema, name);
    // A slow migration of another process: the migration lock held longer than the busy timeout.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    cleanups.push(() => other.end());
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    const settled: string[] = [];
    const migrations = [first, second].map((s) =>
      s.migrate().then(
        () => void settled.push('migrated'),
        (error: Error) => void settled.push(error.message),
      ),
    );
    // Both wait on the lock, for longer than the busy timeout (as PostgreSQL measures it), seen
    // from outside the holder's transaction (which sees pg_stat_activity as of its first look).
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    cleanups.push(() => watcher.end());
    const waitingLong = async () =>
      (
        await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE application_name = $1 AND wait_event = 'advisory' AND clock_timestamp() - query_start > $2 * interval '1 ms'`,
          [name, 3 * BUSY_MS],
        )
      ).rows[0]!.n as number;
    // (A migration that gave up says why instead.)
    await expect
      .poll(async () => (settled.length > 0 ? settled.join('; ') : await waitingLong()), { timeout: 10_000, interval: 50 })
      .toBe(2);
    expect(settled).toEqual([]);
    await other.query('COMMIT');
    await Promise.all(migrations);
    expect(settled).toEqual(['migrated', 'migrated']);
    const versions = await first.pool.query(`SELECT max(version)::int AS v FROM "${schema}".spillway_migrations`);
    expect(versions.rows[0]).toEqual({ v: SCHEMA_VERSION });
    // The exemption is the migration's own: the pool's connections keep the bound.
    expect(await lockTimeoutOf(first.pool)).toBe(BUSY_MS);
  });
});
