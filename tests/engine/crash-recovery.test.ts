import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { Engine, FakeClock, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import { createSqliteStorage } from '@spillway/sqlite';
import type { SendMessagesInput } from '@spillway/core';

// An engine "crashes" by being abandoned mid-work: its worker never runs again, its in-memory
// send results and simulator reports are lost, its leases and heartbeat stay in the database.
// A second engine (a restarted process) on the same database must finish every message exactly
// as a run without the crash would have, and charge exactly the same.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const T0 = Date.UTC(2026, 0, 1);
const LATENCY = 200;

/** A fresh database (SQLite file, or a PostgreSQL schema in the PostgreSQL suite) opened twice. */
async function database(): Promise<() => Promise<Storage>> {
  const url = process.env['DATABASE_URL'];
  const opened: Storage[] = [];
  if (process.env['SPILLWAY_TEST_STORAGE'] === 'postgres' && url) {
    const schema = `spillway_crash_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    cleanups.push(async () => {
      const admin = createPostgresStorage({ connectionString: url, schema });
      await admin.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.close();
      for (const s of opened) await s.close();
    });
    return async () => {
      const s = createPostgresStorage({ connectionString: url, schema });
      opened.push(s);
      await s.migrate();
      return s;
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'spillway-crash-'));
  cleanups.push(async () => {
    for (const s of opened) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return async () => {
    const s = createSqliteStorage({ filename: join(dir, 'spillway.db') });
    opened.push(s);
    return s;
  };
}

function engineOn(storage: Storage, clock: FakeClock): Engine {
  return createEngine({
    storage,
    channels: [createSimulator({ latencyMs: LATENCY })],
    hasher: createNodeHasher(),
    clock,
    onError: () => {},
  });
}

/** A storage whose process dies at its next commits: `die(n)` lets `n` more commits through, then every one fails. */
function mortal(storage: Storage): { storage: Storage; die: (after?: number) => void } {
  let left = Infinity;
  return {
    storage: {
      ...storage,
      async commit(commit) {
        if (left <= 0) throw new Error('the process died before this commit');
        left -= 1;
        return storage.commit(commit);
      },
    },
    die: (after = 0) => {
      left = after;
    },
  };
}

type CrashPoint = (a: Engine, clock: FakeClock, ids: number[], die: (after?: number) => void) => Promise<void>;

/** Delivered, undeliverable with a delivered fallback, silent, undeliverable: one of each. */
const REQUEST: SendMessagesInput = {
  messages: [
    { from: 'Shop', to: '99900000000', type: 'sms', text: 'a' },
    { from: 'Shop', to: '99900000002', type: 'sms', text: 'b', fallbacks: [{ from: 'Shop', to: '99900000100', type: 'sms', text: 'b2' }] },
    { from: 'Shop', to: '99900000104', type: 'sms', text: 'c' },
    { from: 'Shop', to: '99900000202', type: 'sms', text: 'd' },
  ],
};

/** Runs `engine` until nothing more happens within `ms` of fake time. */
async function settle(engine: Engine, clock: FakeClock, ms = 10_000): Promise<void> {
  for (let t = 0; t <= ms; t += 500) {
    await engine.drain();
    await clock.advance(500);
  }
  await engine.drain();
}

type Outcome = { statuses: string[]; costs: number[]; histories: string[][]; balance: number };

/** Final statuses, costs, histories and balance of the request's messages. */
async function outcome(engine: Engine, accountId: number, ids: number[]): Promise<Outcome> {
  const records = await Promise.all(ids.map((id) => engine.messages.status(accountId, id)));
  return {
    statuses: records.map((r) => r.deliverystatus),
    costs: records.map((r) => r.cost),
    histories: records.map((r) => r.extendedStatuses.map((s) => `${s.attempt}:${s.status}`)),
    balance: (await engine.accounts.balance(accountId)).balance,
  };
}

/**
 * Sends the request on a first engine, lets `crashPoint` run it partway, abandons it, and
 * finishes on a second engine started 10 s later (the first's heartbeat is then stale).
 */
async function run(crashPoint: CrashPoint | null): Promise<Outcome> {
  const open = await database();
  const clockA = createFakeClock(T0);
  const storageA = mortal(await open());
  const a = engineOn(storageA.storage, clockA);
  const account = await a.accounts.create({ login: 'shop', password: 'shop-password', balance: 10 });
  await a.accounts.approveAlphaName(account.id, 'Shop');
  const ids = (await a.messages.send(account.id, REQUEST)).messages.map((m) => m.messageId);
  if (!crashPoint) {
    await settle(a, clockA);
    return outcome(a, account.id, ids);
  }
  await crashPoint(a, clockA, ids, storageA.die);
  const clockB = createFakeClock(clockA.now() + 10_000);
  const b = engineOn(await open(), clockB);
  await settle(b, clockB);
  return outcome(b, account.id, ids);
}

describe('crash recovery', () => {
  it('finishes attempts a crashed worker had handed over, with the outcomes and charges of a run without the crash', async () => {
    const expected = await run(null);
    expect(expected.statuses).toEqual(['delivered', 'delivered', 'processing', 'undeliverable']);

    // Crashed right after the acceptances committed: the simulator's reports died with it.
    const afterAcceptance = await run(async (a) => {
      await a.drain();
    });
    expect(afterAcceptance).toEqual(expected);
  });

  it('sends again what a crashed worker had claimed but not committed, and charges no step twice', async () => {
    const expected = await run(null);
    // Crashed with the sends in flight (claimed, charged, handed to the driver, nothing committed).
    const inFlight = await run(async (a, _clock, _ids, die) => {
      die();
      await a.drain();
    });
    expect(inFlight).toEqual(expected);

    // Crashed after the failure of the first step was applied and the fallback charged and handed over.
    const duringFallback = await run(async (a, clock, _ids, die) => {
      await a.drain();
      await clock.advance(LATENCY);
      // The round applying the failure commits; the one that hands the fallback over does not.
      die(1);
      await a.drain();
    });
    expect(duringFallback).toEqual(expected);
  });

  it('applies receipts that were made durable before a crash', async () => {
    const expected = await run(null);
    const durable = await run(async (a, _clock, ids) => {
      await a.drain();
      // The silent number's receipt arrives through the inbox (a provider callback), then the crash.
      await a.receive({ messageId: ids[2]!, step: 0, outcome: 'delivered' });
    });
    expect(durable.statuses).toEqual([...expected.statuses.slice(0, 2), 'delivered', expected.statuses[3]]);
    expect(durable.balance).toBe(expected.balance);
  });
});
