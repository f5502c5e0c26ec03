import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bootstrap, readConfig } from '@spillway/server';
import {
  bootstrapDatabase,
  bootstrapEngine,
  bootstrapOnce,
  connect,
  connectRaw,
  move,
  opsId,
  wallet,
  withStorage,
} from '../support/bootstrap-database.ts';
import { testDatabase } from '../support/test-database.ts';
import type { TestDatabase } from '../support/test-database.ts';

// The bootstrap at a restart, of one process among several on one database. The opening balance
// (SPILLWAY_BOOTSTRAP_BALANCE) is credited once per database, also when the first start died
// between creating the account and crediting it; and a restart under load took the account's row
// lock (the balance's `SELECT ... FOR UPDATE`) behind the ingest's transactions, which hold it, so
// an API process hung at its start for minutes. SQLite file, or PostgreSQL with
// SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const dir = mkdtempSync(join(tmpdir(), 'spillway-bootstrap-restart-'));
const databases: TestDatabase[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

function environment(name: string): { env: Record<string, string> } {
  const { env, database } = bootstrapDatabase(dir, name);
  databases.push(database);
  return { env };
}

/** What a first start that died after creating the account left: the account `ops`, nothing else. */
async function accountOnly(env: Record<string, string>): Promise<void> {
  await withStorage(env, async (storage) => {
    await storage.migrate();
    await bootstrapEngine(storage).accounts.ensure({ login: 'ops', password: 'ops-password' });
  });
}

/** `work`, or 'still waiting' once `ms` passed: a bound on a wait that must not happen. */
function bounded<T>(work: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([work, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);
}

describe(`the bootstrap at a restart (${testDatabase('boot_restart').label})`, () => {
  it('credits the opening balance once: not again at a restart after the account spent it', async () => {
    const { env } = environment('spent');
    expect((await bootstrapOnce(env))?.openingBalance).toEqual({
      outcome: 'credited',
      target: 20,
      credited: 20,
      balance: 20,
      currency: 'EUR',
    });
    await move(env, -7_250_000);
    expect((await bootstrapOnce(env))?.openingBalance).toMatchObject({ outcome: 'earlier', credited: 0, balance: 12.75 });
    // A larger amount configured later credits nothing either: spillway accounts topup adds money.
    expect((await bootstrapOnce({ ...env, SPILLWAY_BOOTSTRAP_BALANCE: '50' }))?.openingBalance).toMatchObject({
      outcome: 'earlier',
      target: 50,
      credited: 0,
      balance: 12.75,
    });
    expect(await wallet(env)).toEqual({ balance: 12_750_000, credits: [20_000_000] });
  });

  it('credits the opening balance at the next start when the first died after creating the account', async () => {
    const { env } = environment('died');
    await accountOnly(env);
    expect((await bootstrapOnce(env))?.openingBalance).toMatchObject({ outcome: 'credited', credited: 20, balance: 20 });
    expect((await bootstrapOnce(env))?.openingBalance).toMatchObject({ outcome: 'earlier', credited: 0, balance: 20 });
    expect(await wallet(env)).toEqual({ balance: 20_000_000, credits: [20_000_000] });
  });

  it('credits nothing where the wallet holds the opening balance already (credited before it was marked, or by a start that died then)', async () => {
    const { env } = environment('unmarked');
    await accountOnly(env);
    await move(env, 20_000_000, 'bootstrap balance');
    await move(env, -5_000_000);
    expect((await bootstrapOnce(env))?.openingBalance).toMatchObject({ outcome: 'earlier', credited: 0, balance: 15 });
    expect(await wallet(env)).toEqual({ balance: 15_000_000, credits: [20_000_000] });
  });

  it('completes while another connection holds the account row (an ingest under load), writing nothing', async () => {
    const { env } = environment('locked');
    await bootstrapOnce(env);
    const before = await withStorage(env, async (storage) => {
      const found = (await storage.findAccountByLogin('ops'))!;
      return { hash: found.passwordHash, revision: await storage.credentialRevision() };
    });

    const holder = connectRaw(env);
    const restart = connect(env);
    let release: () => Promise<void> = async () => {};
    let started: Promise<unknown> = Promise.resolve();
    try {
      const accountId = await opsId(holder);
      if ('pool' in holder) {
        const client = await holder.pool.connect();
        await client.query('BEGIN');
        await client.query(`SELECT id FROM "${env['SPILLWAY_PG_SCHEMA']}".accounts WHERE id = $1 FOR UPDATE`, [accountId]);
        release = async () => {
          await client.query('ROLLBACK');
          client.release();
        };
      } else {
        // SQLite has no row locks: the database's write lock, which an ingest's transaction takes.
        holder.db.exec('BEGIN IMMEDIATE');
        holder.db.prepare('UPDATE accounts SET name = name WHERE id = ?').run(accountId);
        release = async () => void holder.db.exec('ROLLBACK');
      }
      started = bootstrap(bootstrapEngine(restart), readConfig(env));
      expect(await bounded(started, 5_000)).toEqual({
        login: 'ops',
        openingBalance: { outcome: 'earlier', target: 20, credited: 0, balance: 20, currency: 'EUR' },
      });
    } finally {
      await release();
      // A start that waited gets the lock now: it ends before its connection closes.
      await started.catch(() => undefined);
      await restart.close();
      await holder.close();
    }
    // The password verified: neither rewritten nor the credentials' revision bumped.
    expect(
      await withStorage(env, async (storage) => ({
        hash: (await storage.findAccountByLogin('ops'))!.passwordHash,
        revision: await storage.credentialRevision(),
      })),
    ).toEqual(before);
  }, 30_000);
});
