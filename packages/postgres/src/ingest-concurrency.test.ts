import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestResult, NewMessage } from '@spillway/core/storage';
import { createPostgresStorage, type PostgresStorage } from './postgres-storage.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

// Two storages on one schema, each with a pool of its own: two engine processes on one database.
const url = process.env.DATABASE_URL;

describe.skipIf(!url)('postgres ingest, concurrent and aborted', () => {
  let db: TestDatabase;
  beforeAll(() => {
    db = createTestDatabase(url!);
  });
  afterAll(async () => {
    await db.end();
  });

  const message = (charge: number, customerMessageId: string | null = null): NewMessage => ({
    kind: 'message',
    guid: null,
    trackinId: null,
    customerMessageId,
    content: '{"text":"hi"}',
    steps: [],
    status: 'scheduled',
    snapshot: { value: 'scheduled', context: { step: 0, attempt: 0 } },
    routeRef: null,
    dueAt: 1,
    expiresAt: null,
    charge,
    meta: null,
    work: [],
    history: [],
  });

  /** Two storages over a new schema, an account with `balance`, and what the test reads back. */
  async function twoProcesses(balance: number) {
    const schema = db.schemaName();
    const a = createPostgresStorage({ connectionString: url!, schema });
    const b = createPostgresStorage({ connectionString: url!, schema });
    await a.migrate();
    const account = await a.createAccount({ login: 'big', name: 'Big', passwordHash: 'h', currency: 'EUR' }, 1);
    await a.pool.query(`UPDATE "${schema}".accounts SET balance = $1 WHERE id = $2`, [balance, account.id]);
    const send = (storage: PostgresStorage, messages: NewMessage[]): Promise<IngestResult> =>
      storage.ingest({ accountId: account.id, at: 2, chargeDescription: 'SMS', messages });
    const wallet = async () =>
      (
        await a.pool.query<{ amount: string; balance_after: string }>(
          `SELECT amount, balance_after FROM "${schema}".wallet_transactions WHERE account_id = $1 ORDER BY id`,
          [account.id],
        )
      ).rows.map((r) => ({ amount: Number(r.amount), after: Number(r.balance_after) }));
    const balanceNow = async () =>
      Number((await a.pool.query(`SELECT balance FROM "${schema}".accounts WHERE id = $1`, [account.id])).rows[0].balance);
    /** Messages stored, all or those of one customerMessageId. */
    const stored = async (customerMessageId?: string) =>
      (
        await a.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema}".messages${customerMessageId === undefined ? '' : ' WHERE customer_message_id = $1'}`,
          customerMessageId === undefined ? [] : [customerMessageId],
        )
      ).rows[0]!.n;
    const close = async () => {
      await a.close();
      await b.close();
      await db.drop(schema);
    };
    return { schema, a, b, account, send, wallet, balanceNow, stored, close };
  }

  /** Each wallet row's balance is the one before it less its amount, from `start`. */
  function expectChain(rows: Array<{ amount: number; after: number }>, start: number): void {
    let balance = start;
    for (const row of rows) {
      balance += row.amount;
      expect(row.after).toBe(balance);
    }
  }

  it('decides every request, keeps the balance exact and the wallet one chain in the order the balance moved', async () => {
    const p = await twoProcesses(10_000);
    try {
      const batch = () => Array.from({ length: 20 }, () => message(5));
      const results = await Promise.all(Array.from({ length: 10 }, () => [p.send(p.a, batch()), p.send(p.b, batch())]).flat());
      expect(results.map((r) => r.status)).toEqual(Array(20).fill('accepted'));
      const rows = await p.wallet();
      expect(rows).toHaveLength(400);
      expectChain(rows, 10_000);
      expect(await p.balanceNow()).toBe(10_000 - 400 * 5);
      expect(rows.at(-1)!.after).toBe(10_000 - 400 * 5);
    } finally {
      await p.close();
    }
  });

  it('accepts exactly the requests the balance covers when both spend it at once', async () => {
    // Five requests' worth, twelve requests: the others are refused, nothing of them written.
    const p = await twoProcesses(5 * 10 * 7);
    try {
      const batch = () => Array.from({ length: 10 }, () => message(7));
      const results = await Promise.all(Array.from({ length: 6 }, () => [p.send(p.a, batch()), p.send(p.b, batch())]).flat());
      expect(results.filter((r) => r.status === 'accepted')).toHaveLength(5);
      expect(results.filter((r) => r.status === 'insufficient_funds')).toHaveLength(7);
      expect(await p.balanceNow()).toBe(0);
      const rows = await p.wallet();
      expect(rows).toHaveLength(50);
      expectChain(rows, 350);
      expect(await p.stored()).toBe(50);
    } finally {
      await p.close();
    }
  });

  it('stores one message for a customerMessageId sent through both at once, and answers both with its id', async () => {
    const p = await twoProcesses(1_000);
    try {
      for (let round = 0; round < 5; round++) {
        const cmid = `order-${round}`;
        const [one, two] = await Promise.all([p.send(p.a, [message(1, cmid)]), p.send(p.b, [message(1, cmid)])]);
        if (one.status !== 'accepted' || two.status !== 'accepted') throw new Error(`${one.status} ${two.status}`);
        expect(one.ids).toEqual(two.ids);
        expect(await p.stored(cmid)).toBe(1);
      }
      // Charged once per message, never for a replay.
      expect(await p.balanceNow()).toBe(1_000 - 5);
      expectChain(await p.wallet(), 1_000);
    } finally {
      await p.close();
    }
  });

  it("copies a request's rows before it takes the account row: it waits for the lock at its balance update only", async () => {
    const p = await twoProcesses(1_000);
    const holder = await p.a.pool.connect();
    try {
      await holder.query('BEGIN');
      // The lock another request's balance update holds until its commit (a list's foreign key
      // check, FOR KEY SHARE, passes it).
      await holder.query(`SELECT balance FROM "${p.schema}".accounts WHERE id = $1 FOR NO KEY UPDATE`, [p.account.id]);
      const pending = p.send(
        p.b,
        Array.from({ length: 30 }, () => message(2)),
      );
      let waiting: string | undefined;
      for (let i = 0; i < 5000 && waiting === undefined; i++) {
        // Not on the holder's connection: pg_stat_activity is read once per transaction there.
        const found = await p.a.pool.query<{ query: string }>(
          `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE $1`,
          [`%"${p.schema}".accounts%`],
        );
        waiting = found.rows[0]?.query;
        if (waiting === undefined) await new Promise((resolve) => setImmediate(resolve));
      }
      // The messages and history are copied: what waits is the charge, not the whole request.
      expect(waiting).toMatch(/^UPDATE /);
      await holder.query('COMMIT');
      const result = await pending;
      expect(result.status).toBe('accepted');
      expect(await p.balanceNow()).toBe(1_000 - 60);
    } finally {
      holder.release();
      await p.close();
    }
  });

  /**
   * Makes PostgreSQL abort the next `times` inserts of messages as deadlock victims (SQLSTATE
   * 40P01), counted by a sequence: it is not rolled back with them.
   */
  async function victimsNext(p: Awaited<ReturnType<typeof twoProcesses>>, times: number): Promise<void> {
    const x = `"${p.schema}".`;
    await p.a.pool.query(`CREATE SEQUENCE ${x}victims`);
    await p.a.pool.query(`CREATE FUNCTION ${x}victim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('${x}victims') <= ${times} THEN
          RAISE EXCEPTION 'deadlock detected' USING ERRCODE = 'deadlock_detected';
        END IF;
        RETURN NULL;
      END $$`);
    await p.a.pool.query(`CREATE TRIGGER victim BEFORE INSERT ON ${x}messages FOR EACH STATEMENT EXECUTE FUNCTION ${x}victim()`);
  }

  it("makes a request again when PostgreSQL aborts it as a deadlock's victim, the locked way, and stores it once", async () => {
    const p = await twoProcesses(1_000);
    try {
      // The optimistic attempt and the first locked one are aborted; the second locked one commits.
      await victimsNext(p, 2);
      const result = await p.send(p.a, [message(5), message(5), message(5)]);
      expect(result.status).toBe('accepted');
      expect(await p.stored()).toBe(3);
      expect(await p.balanceNow()).toBe(985);
      expectChain(await p.wallet(), 1_000);
    } finally {
      await p.close();
    }
  });

  it('locks the accounts of a group in id order when it decides the locked way: no row held while it waits for another', async () => {
    const p = await twoProcesses(1_000);
    const second = await p.a.createAccount({ login: 'second', name: 'Second', passwordHash: 'h', currency: 'EUR' }, 1);
    await p.a.pool.query(`UPDATE "${p.schema}".accounts SET balance = 1000 WHERE id = $1`, [second.id]);
    const holder = await p.a.pool.connect();
    try {
      // The optimistic attempt is aborted: the group is decided the locked way.
      await victimsNext(p, 1);
      await holder.query('BEGIN');
      await holder.query(`SELECT balance FROM "${p.schema}".accounts WHERE id = $1 FOR UPDATE`, [p.account.id]);
      // The group names the later account first.
      const pending = p.a.ingestMany(
        [second.id, p.account.id].map((accountId) => ({ accountId, at: 2, chargeDescription: 'SMS', messages: [message(5)] })),
      );
      let waiting = false;
      for (let i = 0; i < 5000 && !waiting; i++) {
        const found = await p.a.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE $1`,
          [`%"${p.schema}".accounts%`],
        );
        waiting = found.rows.length > 0;
        if (!waiting) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(waiting).toBe(true);
      // Waiting for the first account, the group holds nothing of the second (in request order it would).
      await expect(
        p.b.pool.query(`SELECT id FROM "${p.schema}".accounts WHERE id = $1 FOR UPDATE NOWAIT`, [second.id]),
      ).resolves.toMatchObject({ rowCount: 1 });
      await holder.query('COMMIT');
      expect((await pending).map((r) => r.status)).toEqual(['accepted', 'accepted']);
      expect(await p.stored()).toBe(2);
    } finally {
      holder.release();
      await p.close();
    }
  });

  it('answers busy (a 503 with Retry-After) when the deadlocks go on, having stored nothing', async () => {
    const p = await twoProcesses(1_000);
    try {
      await victimsNext(p, 100);
      const failure = await p.send(p.a, [message(5)]).then(
        () => null,
        (error: unknown) => error,
      );
      expect(p.a.isBusy(failure)).toBe(true);
      // The optimistic attempt, then the locked one and its two retries.
      const attempts = await p.a.pool.query(`SELECT last_value::int AS n FROM "${p.schema}".victims`);
      expect(attempts.rows[0].n).toBe(4);
      expect(await p.stored()).toBe(0);
      expect(await p.balanceNow()).toBe(1_000);
    } finally {
      await p.close();
    }
  });
});
