import pg from 'pg';
import { SpillwayError } from '@spillway/core';

/** A pool or a checked-out client: both run queries. */
export type Queryable = pg.Pool | pg.PoolClient;

/**
 * BIGINT (oid 20) columns come back as JS numbers: ids, ms timestamps and micro-unit amounts all
 * stay far below 2^53. Passed with every query, so that an injected pool keeps its own parsers.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Runs one statement and answers its rows. */
export async function rows<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  return (await db.query<R>({ text, values, types: TYPES })).rows;
}

/** Runs one statement and answers its first row, or null. */
export async function row<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R | null> {
  return (await rows<R>(db, text, values))[0] ?? null;
}

/** Runs one statement and answers how many rows it touched. */
export async function run(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  return (await db.query({ text, values, types: TYPES })).rowCount ?? 0;
}

/** Runs `fn` in one transaction on one client of the pool; rolls back when it throws. */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // A connection that cannot even roll back is dropped instead of going back to the pool.
      broken = rollbackError as Error;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * What to hand `client.release()` after `error`: nothing for PostgreSQL's own errors (it answered
 * them and waits for the next query, so the connection goes back to the pool), the error itself
 * otherwise (the socket or the stream failed, and the connection may be mid-protocol: it is dropped).
 */
export function brokenBy(error: unknown): Error | undefined {
  return error instanceof pg.DatabaseError ? undefined : (error as Error);
}

/** The SQLSTATE of an error PostgreSQL reported (`code`), if it is one. */
function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** PostgreSQL's serialization_failure, deadlock_detected and lock_not_available: the transaction wrote nothing. */
const BUSY_CODES = new Set(['40001', '40P01', '55P03']);

/** True for PostgreSQL's errors of a database too busy to take the transaction: the storage's `isBusy`. */
export function isBusy(error: unknown): boolean {
  return BUSY_CODES.has(sqlState(error) ?? '');
}

/**
 * True for node-postgres's error of a call that waited for a connection of the pool (every one
 * lent out) past the pool's `connectionTimeoutMillis`: it never had a connection, so it wrote
 * nothing. A connection that could not be opened in time fails otherwise ("Connection terminated
 * due to connection timeout").
 */
export function isPoolWaitTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'timeout exceeded when trying to connect';
}

/**
 * SQLSTATEs of a server that is going away or cannot take the connection: admin_shutdown (a
 * restart or `pg_terminate_backend`), crash_shutdown, cannot_connect_now (starting up, shutting
 * down, in recovery) and too_many_connections. Class 08 (connection exception) is matched apart.
 */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Node's socket errors of a connection that could not be made or was cut. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * node-postgres's own errors for a connection that ended or never came: "Connection terminated
 * unexpectedly", "Connection terminated" (also "… due to connection timeout"), "timeout exceeded
 * when trying to connect" (the pool's `connectionTimeoutMillis`), and "Cannot use a pool after
 * calling end on the pool" (the process is shutting down under a request still in flight).
 */
const UNAVAILABLE_MESSAGE =
  /^Connection terminated|^timeout exceeded when trying to connect|^Cannot use a pool after calling end on the pool/;

/**
 * True for an error of a database that cannot be reached now (a restart, failover, a connection
 * refused, cut or timed out, no connection slot left): the storage's `isUnavailable`. What the
 * connection was doing failed; the pool opens another, so a retry after a moment is the answer.
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = sqlState(error);
  if (code !== undefined && (code.startsWith('08') || UNAVAILABLE_CODES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  // An AggregateError (every address of a host refused) carries its causes' codes.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true;
  return UNAVAILABLE_MESSAGE.test(error.message);
}

/** True for PostgreSQL's deadlock_detected: this transaction was the one aborted, and wrote nothing. */
export function isDeadlock(error: unknown): boolean {
  return sqlState(error) === '40P01';
}

/** True for PostgreSQL's unique_violation (a UNIQUE or PRIMARY KEY constraint). */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505';
}

/** Runs `fn`, turning a unique_violation into a `conflict` saying `message`. */
export async function conflictOnUnique<T>(fn: () => Promise<T>, message: string): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isUniqueViolation(error)) throw new SpillwayError('conflict', message);
    throw error;
  }
}

/**
 * The quoted schema prefix of every table name (`"public".`). Tables are always qualified, so
 * that an injected pool's search_path does not matter and several schemas can share one pool.
 */
export function schemaPrefix(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new SpillwayError('bad_request', `invalid PostgreSQL schema name '${schema}'`);
  }
  return `"${schema}".`;
}
