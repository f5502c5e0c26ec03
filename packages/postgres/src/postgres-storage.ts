import pg from 'pg';
import { SpillwayError } from '@spillway/core';
import type { ClientStorage, RouteStatsStorage, Storage } from '@spillway/core';
import type { AlphaNameDirectory, ReachabilityStorage } from '@spillway/core/storage';
import { createAccountStore } from './account-store.ts';
import { createCascadeStore } from './cascade-store.ts';
import { createChatHubStore } from './chat-hub-store.ts';
import { createClientStore } from './client-store.ts';
import { createInboundStore } from './inbound-store.ts';
import { createReachabilityStore } from './reachability-store.ts';
import { createAlphaNameDirectory } from './alpha-name-directory.ts';
import { createMessageStore } from './message-store.ts';
import { createWorkStore } from './work-store.ts';
import { isBusy, isPoolWaitTimeout, isUnavailable, schemaPrefix } from './pg-util.ts';
import { migrate } from './schema.ts';
import { createPostgresRouteStats } from './route-stats.ts';

/** Options of {@link createPostgresStorage}. */
export interface PostgresStorageOptions {
  /** `postgres://user@host:5432/db`; ignored when `pool` is given. */
  connectionString?: string;
  /** A pool to use instead of opening one; `close()` leaves it open: the pool stays the caller's. */
  pool?: pg.Pool;
  /**
   * Schema holding the tables; `migrate()` creates it when missing.
   * @default 'public'
   */
  schema?: string;
  /**
   * How long one database call waits for the database, ms: for a connection of the pool (every
   * one lent out, or a new one being opened: node-postgres's `connectionTimeoutMillis`) and for a
   * lock (PostgreSQL's `lock_timeout` on the pool's connections). Past it the call fails: busy
   * (`isBusy`: its transaction wrote nothing, answered 503 with `Retry-After` by the HTTP API; the
   * workers try their round again) or, for a connection that could not be opened in time,
   * unavailable (`isUnavailable`). Migrations still wait for each other without a bound. Only for
   * the pool the storage opens: a `pool` given keeps its own settings. 0: no bound.
   * @default 0 (node-postgres's and PostgreSQL's: requests wait as long as it takes)
   */
  busyTimeoutMs?: number;
  /**
   * Told about a connection the database or the network dropped (a PostgreSQL restart or
   * failover, `pg_terminate_backend`, `idle_session_timeout`, a pooler's restart). The pool
   * forgets that connection and opens another on demand; what it was doing failed as any error
   * does. Without a listener, node-postgres emits such an error where nobody listens, and the
   * process exits.
   * @default a warning on the console
   */
  onConnectionError?: (error: Error) => void;
}

/** The PostgreSQL storage, with its pool and schema for tools and tests, and its route stats reader. */
export type PostgresStorage = Storage &
  ClientStorage &
  ReachabilityStorage &
  RouteStatsStorage &
  AlphaNameDirectory & {
    readonly pool: pg.Pool;
    readonly schema: string;
    isBusy(error: unknown): boolean;
    isUnavailable(error: unknown): boolean;
  };

/** The storages' handlers of dropped connections, by the pool they listen to. */
const droppedHandlers = new WeakMap<pg.Pool, Set<(error: Error) => void>>();

/**
 * Tells `handler` of every connection of `pool` that fails: an idle connection's error reaches
 * the pool, a connection lent out (a transaction, a COPY) emits it on itself, so each gets a
 * listener when the pool opens it. The pool and its connections get one listener however many
 * storages share the pool (a caller's pool may serve a storage per schema); the returned function
 * stops telling `handler`.
 */
function listenForDroppedConnections(pool: pg.Pool, handler: (error: Error) => void): () => void {
  let handlers = droppedHandlers.get(pool);
  if (!handlers) {
    const all = new Set<(error: Error) => void>();
    const tell = (error: Error) => all.forEach((h) => h(error));
    pool.on('error', tell);
    pool.on('connect', (client) => client.on('error', tell));
    droppedHandlers.set(pool, all);
    handlers = all;
  }
  handlers.add(handler);
  return () => handlers.delete(handler);
}

/**
 * Storage on PostgreSQL: several engine processes share one database; the outbox is claimed
 * with `FOR UPDATE SKIP LOCKED`, so that they never hand out one effect twice. Call
 * `migrate()` once before use (safe from several processes at once).
 *
 * @example
 * const storage = createPostgresStorage({ connectionString: process.env.DATABASE_URL });
 * await storage.migrate();
 */
export function createPostgresStorage(options: PostgresStorageOptions = {}): PostgresStorage {
  const schema = options.schema ?? 'public';
  const x = schemaPrefix(schema);
  const owned = !options.pool;
  const busyTimeoutMs = options.busyTimeoutMs ?? 0;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new SpillwayError('bad_request', `busyTimeoutMs must be a whole number of milliseconds, 0 or more; got ${busyTimeoutMs}`);
  }
  const pool =
    options.pool ??
    new pg.Pool({
      connectionString: options.connectionString,
      // 0 (none) is node-postgres's and PostgreSQL's own default for both.
      ...(busyTimeoutMs > 0 ? { connectionTimeoutMillis: busyTimeoutMs, lock_timeout: busyTimeoutMs } : {}),
    });
  let closed = false;
  const dropped =
    options.onConnectionError ??
    ((error: Error) => console.warn(`spillway: a PostgreSQL connection was dropped (the pool opens another): ${error.message}`));
  const unlisten = listenForDroppedConnections(pool, dropped);

  const own = {
    name: 'postgres',
    pool,
    // A wait for a connection that ran out while the pool was lent out whole is overload, as a
    // lock wait is: the call had no connection, so it wrote nothing.
    isBusy: (error: unknown) => isBusy(error) || (isPoolWaitTimeout(error) && pool.totalCount >= pool.options.max),
    isUnavailable,
    schema,
    async migrate() {
      await migrate(pool, schema);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (owned) await pool.end();
      unlisten();
    },
  };
  // The parts are plain objects of closures over the pool: spreading them keeps every method working.
  return {
    ...createChatHubStore(pool, x),
    ...createCascadeStore(pool, x),
    ...createInboundStore(pool, x),
    ...createClientStore(pool, x),
    ...createReachabilityStore(pool, x),
    ...createAlphaNameDirectory(pool, x),
    ...createAccountStore(pool, x),
    ...createMessageStore(pool, x),
    ...createWorkStore(pool, x),
    ...createPostgresRouteStats(pool, schema),
    ...own,
  };
}
