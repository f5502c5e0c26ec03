import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStorage } from '@spillway/postgres';
import type { PostgresStorage } from '@spillway/postgres';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { capturedLog, WARN } from '../support/server-log.ts';
import { holdEveryConnection } from '../../packages/postgres/src/test-database.ts';
import { testDatabase } from '../support/test-database.ts';
import type { TestDatabase } from '../support/test-database.ts';

// An operator's run on PostgreSQL (several API processes, one busy account): row locks on the
// account queued every ingest, and the pool let requests wait without bound, so that sends and
// even status reads timed out at the client instead of being answered 503 with Retry-After.
// SPILLWAY_DB_BUSY_TIMEOUT_MS bounds the wait for a lock (lock_timeout) and for a connection of
// the pool; /metrics shows the pools.

/**
 * The server's busy timeout here, ms: short, so that a wait past it is quickly seen, and long
 * enough for a new connection on a loaded machine (it bounds opening one too).
 */
const BUSY_MS = '1000';
/** How long a request may take before the test calls it hanging: well past the busy timeout. */
const HANGING_MS = 8_000;
/** Each test starts a server, whose threads each migrate a new schema: seconds on a slow disk. */
const TEST_MS = 60_000;

const SEND = { messages: [{ from: 'Acme', to: '+999123450001', type: 'sms', text: 'hi' }] };

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The reference server on a database of its own (`env` added), closed and dropped after the test. */
async function serverOn(name: string, env: Record<string, string>): Promise<{ f: RunningFixture; database: TestDatabase }> {
  const database = testDatabase(name);
  cleanups.push(() => database.drop());
  const f = await startServer({ ...database.env, ...env });
  cleanups.push(() => f.close());
  return { f, database };
}

/** A connection of the test's own (another process, as far as the server can tell). */
async function otherConnection(url: string) {
  const { pool } = createPostgresStorage({ connectionString: url });
  const client = await pool.connect();
  cleanups.push(async () => {
    client.release();
    await pool.end();
  });
  return client;
}

/** A connection that runs queries. */
type Db = Awaited<ReturnType<typeof otherConnection>>;

/** Everything one request's acceptance writes, counted: the messages (the outbox too), their list, history and charge, and the balance. */
async function written(db: Db, schema: string) {
  const count = async (table: string) =>
    ((await db.query(`SELECT count(*)::int AS n FROM "${schema}".${table}`)).rows[0] as { n: number }).n;
  return {
    messages: await count('messages'),
    lists: await count('message_lists'),
    history: await count('history'),
    wallet: await count('wallet_transactions'),
    balance: ((await db.query(`SELECT balance FROM "${schema}".accounts WHERE login = 'acme'`)).rows[0] as { balance: string }).balance,
  };
}

/** The 503 of a busy database: Retry-After and the JSON error body. */
async function expectBusy(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  expect(await res.json()).toEqual({
    error: 'unavailable',
    status: 503,
    message: 'The database is busy; nothing was written, retry shortly',
  });
}

/** The samples of one metric in the text of /metrics: labels (as written) to value. */
function samples(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (match) found.set(match[1]!, Number(match[2]));
  }
  return found;
}

describe.skipIf(!testDatabase('probe').url)('the reference server on a busy PostgreSQL', () => {
  it(
    'answers a send waiting on the account row past the busy timeout 503 busy, writing nothing, and takes it once the row is free',
    async () => {
      const { f, database } = await serverOn('overload_lock', { SPILLWAY_DB_BUSY_TIMEOUT_MS: BUSY_MS, SPILLWAY_HTTP_THREADS: '1' });
      const first = await f.call('/bat/messagelist', { json: SEND });
      expect(first.status).toBe(200);
      // Delivered, so that the workers write no more history while the counts are compared.
      const id = ((await first.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      const status = async () => ((await (await f.call(`/bat/message/${id}`)).json()) as { deliverystatus: string }).deliverystatus;
      expect(await until(status, (s) => s === 'delivered')).toBe('delivered');
      const other = await otherConnection(database.url!);
      const before = await written(other, database.schema);
      // Another process holds the account's row (its balance charge) for as long as it likes.
      await other.query('BEGIN');
      await other.query(`SELECT id FROM "${database.schema}".accounts WHERE login = 'acme' FOR UPDATE`);
      let held = true;
      cleanups.push(() => held && other.query('ROLLBACK'));

      await expectBusy(await f.call('/bat/messagelist', { json: SEND, signal: AbortSignal.timeout(HANGING_MS) }));
      // The server is still up, and nothing of the refused request was written.
      expect((await f.call('/health', { auth: 'none', signal: AbortSignal.timeout(HANGING_MS) })).status).toBe(200);
      expect(await written(other, database.schema)).toEqual(before);

      await other.query('ROLLBACK');
      held = false;
      const res = await f.call('/bat/messagelist', { json: SEND, signal: AbortSignal.timeout(HANGING_MS) });
      expect(res.status).toBe(200);
      const after = await written(other, database.schema);
      expect(after.messages).toBe(before.messages + 1);
      expect(Number(after.balance)).toBeLessThan(Number(before.balance));
    },
    TEST_MS,
  );

  it(
    'answers a status read 503 busy when every connection of the pool is taken, rather than waiting',
    async () => {
      const { f } = await serverOn('overload_pool', { SPILLWAY_DB_BUSY_TIMEOUT_MS: BUSY_MS, SPILLWAY_HTTP_THREADS: '1' });
      const sent = await f.call('/bat/messagelist', { json: SEND });
      const id = ((await sent.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      expect((await f.call(`/bat/message/${id}`)).status).toBe(200);
      const { pool } = f.server.storage as PostgresStorage;
      const held = await holdEveryConnection(pool, cleanups);

      await expectBusy(await f.call(`/bat/message/${id}`, { signal: AbortSignal.timeout(HANGING_MS) }));
      expect((await f.call('/health', { auth: 'none', signal: AbortSignal.timeout(HANGING_MS) })).status).toBe(200);
      // The pool's gauges say why.
      const metrics = await (await f.call('/metrics', { auth: 'none' })).text();
      expect(samples(metrics, 'spillway_db_pool_connections').get('thread="0",state="busy"')).toBe(pool.options.max);
      expect(samples(metrics, 'spillway_db_pool_connections').get('thread="0",state="idle"')).toBe(0);

      held.pop()!.release();
      expect((await f.call(`/bat/message/${id}`, { signal: AbortSignal.timeout(HANGING_MS) })).status).toBe(200);
    },
    TEST_MS,
  );
});

describe.skipIf(!testDatabase('probe').url)('workers on a busy PostgreSQL', () => {
  it(
    'log a round that waited on a row lock past the busy timeout as a warning, and try it again',
    async () => {
      const { logger, lines } = capturedLog();
      const database = testDatabase('overload_round');
      cleanups.push(() => database.drop());
      const f = await startServer(
        {
          ...database.env,
          SPILLWAY_DB_BUSY_TIMEOUT_MS: BUSY_MS,
          // The workers on the main thread, with the logger given here; the simulator answers after
          // 300 ms, while the message's row is held, so that the round's writes wait for it.
          SPILLWAY_WORKER_THREAD: 'false',
          SPILLWAY_HTTP_THREADS: '1',
          SPILLWAY_SIMULATOR_LATENCY_MS: '300',
        },
        { logger },
      );
      cleanups.push(() => f.close());
      const res = await f.call('/bat/messagelist', { json: SEND });
      expect(res.status).toBe(200);
      const id = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      // Another process holds the message's row while the workers send it.
      const other = await otherConnection(database.url!);
      await other.query('BEGIN');
      await other.query(`SELECT id FROM "${database.schema}".messages WHERE id = $1 FOR UPDATE`, [id]);
      let held = true;
      cleanups.push(() => held && other.query('ROLLBACK'));
      const busy = await until(
        async () => lines.filter((l) => l.msg === 'database busy: the workers try again'),
        (found) => found.length > 0,
        600,
      );
      expect(busy[0]?.level).toBe(WARN);
      expect(busy[0]?.error).toMatch(/lock timeout/);
      await other.query('ROLLBACK');
      held = false;
      const status = async () => ((await (await f.call(`/bat/message/${id}`)).json()) as { deliverystatus: string }).deliverystatus;
      expect(await until(status, (s) => s === 'delivered', 600)).toBe('delivered');
      expect(lines.filter((l) => l.level > WARN)).toEqual([]);
    },
    TEST_MS,
  );
});

describe('the database pool gauges on /metrics', () => {
  it(
    'show each thread pool on PostgreSQL, and are absent on SQLite',
    async () => {
      const { f, database } = await serverOn('overload_metrics', { SPILLWAY_HTTP_THREADS: '2' });
      expect((await f.call('/bat/messagelist', { json: SEND })).status).toBe(200);
      const text = await (await f.call('/metrics', { auth: 'none' })).text();
      const connections = samples(text, 'spillway_db_pool_connections');
      const waiting = samples(text, 'spillway_db_pool_waiting');
      if (!database.url) {
        expect(text).not.toMatch(/spillway_db_pool/);
        return;
      }
      expect(text).toMatch(/# HELP spillway_db_pool_connections /);
      expect(text).toMatch(/# HELP spillway_db_pool_waiting /);
      // The main HTTP thread, the second HTTP thread and the workers' thread, each with a pool of its own.
      expect([...waiting.keys()].sort()).toEqual(['thread="0"', 'thread="1"', 'thread="workers"']);
      for (const thread of ['0', '1', 'workers']) {
        const busy = connections.get(`thread="${thread}",state="busy"`)!;
        const idle = connections.get(`thread="${thread}",state="idle"`)!;
        expect(busy, thread).toBeGreaterThanOrEqual(0);
        expect(idle, thread).toBeGreaterThanOrEqual(0);
        expect(busy + idle, thread).toBeLessThanOrEqual(10);
        expect(waiting.get(`thread="${thread}"`), thread).toBe(0);
      }
      // The main thread took the send: its pool has opened a connection and kept it.
      expect(connections.get('thread="0",state="idle"')! + connections.get('thread="0",state="busy"')!).toBeGreaterThan(0);
      // The workers' thread heartbeats on its own pool, which it reports.
      await expect
        .poll(async () => {
          const now = samples(await (await f.call('/metrics', { auth: 'none' })).text(), 'spillway_db_pool_connections');
          return now.get('thread="workers",state="idle"')! + now.get('thread="workers",state="busy"')!;
        })
        .toBeGreaterThan(0);
    },
    TEST_MS,
  );
});
