import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '@spillway/core';
import type { NewMessage } from '@spillway/core/storage';
import {
  runCascadeStorageContract,
  runClientStorageContract,
  runReachabilityStorageContract,
  runAlphaNameDirectoryContract,
  runChatHubStorageContract,
  runInboundStorageContract,
  runStorageContract,
} from '@spillway/core/testing';
import { createPostgresStorage, type PostgresStorage } from './postgres-storage.ts';
import { MESSAGE_JSON_COLUMNS, SCHEMA_VERSION } from './schema.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

// These suites need a PostgreSQL server: run them with DATABASE_URL=postgres://... set.
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('postgres storage', () => {
  let db: TestDatabase;
  beforeAll(() => {
    db = createTestDatabase(url!);
  });
  afterAll(async () => {
    await db.end();
  });
  const opened = new Map<object, PostgresStorage>();
  const create = async () => {
    const storage = await db.storage();
    opened.set(storage, storage);
    return storage;
  };
  const dispose = async (store: object) => {
    await opened.get(store)?.close();
    opened.delete(store);
  };

  runStorageContract({ name: 'postgres', create });
  runChatHubStorageContract({ create, dispose });
  runCascadeStorageContract({ create, dispose });
  runInboundStorageContract({ create, dispose });
  runClientStorageContract({
    create,
    dispose,
    // Another pool on the same schema: the connections of another process.
    share: async (storage) => {
      const pool = new pg.Pool({ connectionString: url!, max: 4 });
      const other = createPostgresStorage({ pool, schema: (storage as PostgresStorage).schema });
      return {
        ...other,
        async close() {
          await other.close();
          await pool.end();
        },
      };
    },
  });
  runReachabilityStorageContract({ create, dispose });
  runAlphaNameDirectoryContract({ create, dispose });

  const message = (dueAt: number): NewMessage => ({
    kind: 'message',
    guid: null,
    trackinId: null,
    customerMessageId: null,
    content: '{}',
    steps: [],
    status: 'scheduled',
    snapshot: { value: 'scheduled', context: { step: 0, attempt: 0 } },
    routeRef: null,
    dueAt,
    expiresAt: null,
    charge: 0,
    meta: null,
    work: [{ kind: 'event', event: { type: 'DUE' }, dueAt }],
    history: [],
  });

  describe('on a shared database', () => {
    it('tells a busy database (a lock not granted in time, a deadlock) from other errors', async () => {
      const storage = await create();
      const holder = await storage.pool.connect();
      const waiter = await storage.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`LOCK TABLE "${storage.schema}".accounts IN ACCESS EXCLUSIVE MODE`);
        await waiter.query('BEGIN');
        await waiter.query(`SET LOCAL lock_timeout = '20ms'`);
        const timedOut = await waiter.query(`LOCK TABLE "${storage.schema}".accounts IN ACCESS EXCLUSIVE MODE`).catch((e: unknown) => e);
        expect((timedOut as { code?: string }).code).toBe('55P03');
        expect(storage.isBusy(timedOut)).toBe(true);
        await waiter.query('ROLLBACK');
        const broken = await waiter.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
        expect(storage.isBusy(broken)).toBe(false);
        expect(storage.isBusy(new Error('plain'))).toBe(false);
        expect(storage.isBusy({ code: '40P01' })).toBe(true);
        expect(storage.isBusy({ code: '40001' })).toBe(true);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
        waiter.release();
        await dispose(storage);
      }
    });

    it('migrates one schema from two processes at once, and again later', async () => {
      const schema = db.schemaName();
      const one = createPostgresStorage({ connectionString: url, schema });
      const two = createPostgresStorage({ connectionString: url, schema });
      try {
        await Promise.all([one.migrate(), two.migrate(), one.migrate()]);
        await two.migrate();
        const versions = await one.pool.query(`SELECT version FROM "${schema}".spillway_migrations ORDER BY version`);
        expect(versions.rows.map((r: { version: number }) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
        const account = await one.createAccount({ login: 'a', name: 'A', passwordHash: 'h', currency: 'EUR' }, 1);
        expect(await two.getAccount(account.id)).toEqual(account);
      } finally {
        await one.close();
        await two.close();
        await db.drop(schema);
      }
    });

    it('lets two storages claim disjoint messages concurrently (SKIP LOCKED)', async () => {
      const schema = db.schemaName();
      const one = createPostgresStorage({ connectionString: url, schema });
      const two = createPostgresStorage({ connectionString: url, schema });
      try {
        await one.migrate();
        const account = await one.createAccount({ login: 'a', name: 'A', passwordHash: 'h', currency: 'EUR' }, 1);
        const total = 600;
        await one.ingest({
          accountId: account.id,
          at: 1,
          chargeDescription: 'SMS',
          messages: Array.from({ length: total }, (_, i) => message(i)),
        });

        // Both processes claim in parallel, several connections each, until the outbox is drained.
        const claimed: StoredMessage[][] = [];
        const worker = async (storage: PostgresStorage) => {
          for (;;) {
            const batch = await storage.claimDue(10_000, 20, 60_000, storage === one ? 'one' : 'two');
            if (batch.length === 0) return;
            claimed.push(batch);
          }
        };
        await Promise.all([one, two, one, two, one, two, one, two].map(worker));

        const ids = claimed.flat().map((e) => e.id);
        expect(ids).toHaveLength(total);
        expect(new Set(ids).size).toBe(total);
        // Every batch is in claim order.
        for (const batch of claimed) expect(batch.map((m) => m.dueAt)).toEqual(batch.map((m) => m.dueAt).sort((a, b) => a - b));
        expect(await two.nextDueAt(10_000)).toBeNull();
        expect(await one.claimDue(70_000, 1000, 1, 'one')).toHaveLength(total);
      } finally {
        await one.close();
        await two.close();
        await db.drop(schema);
      }
    });

    it("upgrades the message row's jsonb columns to json keeping every value", async () => {
      const storage = await db.storage();
      try {
        const s = `"${storage.schema}"`;
        // The schema as the version before: jsonb columns, with a stored message.
        await storage.pool.query(`ALTER TABLE ${s}.messages ALTER COLUMN steps TYPE jsonb, ALTER COLUMN snapshot TYPE jsonb,
          ALTER COLUMN meta TYPE jsonb, ALTER COLUMN work DROP DEFAULT, ALTER COLUMN work TYPE jsonb, ALTER COLUMN work SET DEFAULT '[]'`);
        await storage.pool.query(`DELETE FROM ${s}.spillway_migrations WHERE version = $1`, [MESSAGE_JSON_COLUMNS]);
        const account = await storage.createAccount({ login: 'u', name: 'U', passwordHash: 'h', currency: 'EUR' }, 1);
        const steps = [
          { channel: 'sms', type: 'sms', from: 'S', to: '1', text: 'é "q" \\', ttl: null, partsCount: 1, cost: 0, rate: 0 },
        ] as const;
        const result = await storage.ingest({
          accountId: account.id,
          at: 2,
          chargeDescription: 'SMS',
          messages: [{ ...message(7), steps: [...steps], meta: { a: [1, null] } }, message(8)],
        });
        if (result.status !== 'accepted') throw new Error(result.status);
        const before = await storage.getMessages(result.ids);

        await storage.migrate();
        const types = await storage.pool.query(
          `SELECT column_name, data_type FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'messages' AND column_name IN ('steps', 'snapshot', 'meta', 'work') ORDER BY column_name`,
          [storage.schema],
        );
        expect(types.rows.map((r: { data_type: string }) => r.data_type)).toEqual(['json', 'json', 'json', 'json']);
        expect(await storage.getMessages(result.ids)).toEqual(before);
        expect(before[0]).toMatchObject({ steps, meta: { a: [1, null] } });
        expect(before[1]!.meta).toBeNull();
      } finally {
        await storage.close();
      }
    });

    it('leaves an injected pool open on close', async () => {
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      const schema = db.schemaName();
      try {
        const storage = createPostgresStorage({ pool, schema });
        await storage.migrate();
        await storage.close();
        expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await db.drop(schema);
        await pool.end();
      }
    });

    it('answers ids and amounts as numbers', async () => {
      const storage = await db.storage();
      try {
        const account = await storage.createAccount({ login: 'n', name: 'N', passwordHash: 'h', currency: 'EUR' }, 1_700_000_000_000);
        const tx = await storage.addWalletTransaction(
          { accountId: account.id, kind: 'topup', amount: 9_000_000_000_000, messageId: null, description: '' },
          2,
        );
        expect(typeof account.id).toBe('number');
        expect(account.createdAt).toBe(1_700_000_000_000);
        expect(tx.balanceAfter).toBe(9_000_000_000_000);
        expect(await storage.getBalance(account.id)).toBe(9_000_000_000_000);
      } finally {
        await storage.close();
      }
    });

    it('keeps every character of texts and JSON through the bulk insert; a JSON null meta is SQL NULL', async () => {
      const storage = await db.storage();
      try {
        const account = await storage.createAccount({ login: 'j', name: 'J', passwordHash: 'h', currency: 'EUR' }, 1);
        const text = 'quote " backslash \\ tab \t newline \n emoji 😀 cjk 漢字 [1,2] {"a":null}';
        const steps = [{ channel: 'sms', type: 'sms', from: 'S', to: '1', text, ttl: null, partsCount: 1, cost: 0, rate: 0 }] as const;
        const result = await storage.ingest({
          accountId: account.id,
          at: 2,
          chargeDescription: 'SMS',
          messages: [
            { ...message(5), content: text, customerMessageId: `c ${text}`, steps: [...steps], meta: { note: text, n: null } },
            // A lone surrogate cannot travel as UTF-8: it arrives as U+FFFD, as with any other query.
            { ...message(6), content: 'lone \ud800 surrogate' },
          ],
        });
        if (result.status !== 'accepted') throw new Error(result.status);
        const [first, second] = await storage.getMessages(result.ids);
        expect(first).toMatchObject({ content: text, customerMessageId: `c ${text}`, steps, meta: { note: text, n: null } });
        expect(second).toMatchObject({ content: 'lone \ufffd surrogate', meta: null });
        const nulls = await storage.pool.query(`SELECT COUNT(*)::int AS n FROM "${storage.schema}".messages WHERE meta IS NULL`);
        expect(nulls.rows[0]).toEqual({ n: 1 });
      } finally {
        await storage.close();
      }
    });

    it("keeps COPY's special texts as they are: \\N, \\., CR, 'null', a trailing backslash, and an empty text", async () => {
      const storage = await db.storage();
      try {
        const account = await storage.createAccount({ login: 'c', name: 'C', passwordHash: 'h', currency: 'EUR' }, 1);
        const texts = ['\\N', '\\.', 'carriage\r\nreturn', 'null', 'ends in \\', '', '\t', 'a\\tb'];
        const result = await storage.ingest({
          accountId: account.id,
          at: 2,
          chargeDescription: 'SMS',
          messages: texts.map((text, i) => ({ ...message(i), content: text, guid: text, meta: { text } })),
        });
        if (result.status !== 'accepted') throw new Error(result.status);
        const stored = await storage.getMessages(result.ids);
        expect(stored.map((m) => [m.content, m.guid, m.meta])).toEqual(texts.map((text) => [text, text, { text }]));
        const nulls = await storage.pool.query(`SELECT COUNT(*)::int AS n FROM "${storage.schema}".messages WHERE guid IS NULL`);
        expect(nulls.rows[0]).toEqual({ n: 0 });
      } finally {
        await storage.close();
      }
    });

    it('appends history through a connection of the pool, which stays in the pool after a failed append', async () => {
      const storage = await db.storage();
      try {
        const account = await storage.createAccount({ login: 'h', name: 'H', passwordHash: 'h', currency: 'EUR' }, 1);
        const result = await storage.ingest({ accountId: account.id, at: 2, chargeDescription: 'SMS', messages: [message(1)] });
        if (result.status !== 'accepted') throw new Error(result.status);
        const id = result.ids[0]!;
        const entry = { messageId: id, step: 0, channel: 'sms' as const, status: 'Sent' as const, at: 3, error: 'tab\there\\N' };
        await storage.appendHistory([entry, { ...entry, status: 'Delivered', error: null, driver: 'sim', providerMessageId: 'p\n1' }]);
        let connects = 0;
        storage.pool.on('connect', () => connects++);
        // A step beyond INTEGER fails the whole COPY: nothing of it is written.
        await expect(
          storage.appendHistory([
            { ...entry, at: 4 },
            { ...entry, step: 2 ** 40 },
          ]),
        ).rejects.toThrow();
        // PostgreSQL answered the error and waits for the next query: the same connection serves it.
        await storage.appendHistory([{ ...entry, at: 5, error: null }]);
        expect(connects).toBe(0);
        expect(await storage.history(id)).toMatchObject([
          { step: 0, status: 'Sent', at: 3, error: 'tab\there\\N' },
          { status: 'Delivered', error: null, driver: 'sim', providerMessageId: 'p\n1' },
          { status: 'Sent', at: 5 },
        ]);
        // Every connection of the pool still answers.
        await Promise.all(Array.from({ length: 12 }, () => storage.history(id)));
      } finally {
        await storage.close();
      }
    });

    it('ingests 5000 messages in one transaction (timed)', async () => {
      const storage = await db.storage();
      try {
        const account = await storage.createAccount({ login: 't', name: 'T', passwordHash: 'h', currency: 'EUR' }, 1);
        await storage.addWalletTransaction(
          { accountId: account.id, kind: 'topup', amount: 5000 * 50_000, messageId: null, description: '' },
          1,
        );
        const messages = Array.from({ length: 5000 }, (_, i) => ({ ...message(5_000), charge: 50_000, content: `{"to":"${i}"}` }));
        const started = performance.now();
        const result = await storage.ingest({ accountId: account.id, at: 2, chargeDescription: 'SMS', messages });
        const ms = performance.now() - started;
        console.info(`postgres: ingest of 5000 messages took ${ms.toFixed(0)} ms`);
        expect(result.status).toBe('accepted');
        expect(await storage.getBalance(account.id)).toBe(0);
      } finally {
        await storage.close();
      }
    });
  });
});
