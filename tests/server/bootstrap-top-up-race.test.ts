import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Storage } from '@spillway/core';
import { bootstrap, createServer, readConfig } from '@spillway/server';
import { bootstrapDatabase, bootstrapEngine, connect, move, wallet } from '../support/bootstrap-database.ts';
import { testDatabase } from '../support/test-database.ts';
import type { TestDatabase } from '../support/test-database.ts';

// Processes started together on one database (an API process and its workers, or two replicas)
// each bootstrap it. The balance top-up read the balance and then added what was missing, so two
// of them could both add it. Now the opening balance is credited once per database, and only at
// the first start: the later starts of all the processes credit nothing, whatever was spent.
// SQLite (a file two connections open, as two processes do), and PostgreSQL with
// SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const dir = mkdtempSync(join(tmpdir(), 'spillway-bootstrap-race-'));
const databases: TestDatabase[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

/** The environment of the earlier test of processes bootstrapping together (`tests/server/cli.test.ts`), on a database of its own. */
function environment(name: string): Record<string, string> {
  const { env, database } = bootstrapDatabase(dir, name);
  databases.push(database);
  return env;
}

/**
 * Two storages whose asynchronous calls go in step: the n-th call of one answers only once the
 * n-th call of the other has answered too (or the other is done), so that neither side's next call
 * starts before the other's call of the same rank is over. Two bootstraps making the same calls
 * then interleave as closely as two processes can: each reads the balance before the other's next
 * call writes it. Synchronous members are left as they are.
 */
function inStep(storages: [Storage, Storage]): { sides: [Storage, Storage]; done(side: 0 | 1): void } {
  const calls = [0, 0];
  const answered = [0, 0];
  const finished = [false, false];
  let waiting: Array<() => void> = [];
  const changed = () => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  const side = (me: 0 | 1): Storage => {
    const other = 1 - me;
    return new Proxy(storages[me], {
      get(target, property, receiver) {
        const member = Reflect.get(target, property, receiver) as unknown;
        if (typeof member !== 'function' || property === 'close' || property === 'migrate') return member;
        return (...args: unknown[]) => {
          const result = (member as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) return result;
          const rank = ++calls[me]!;
          return result.finally(async () => {
            answered[me] = rank;
            changed();
            while (!finished[other] && answered[other]! < rank) await new Promise<void>((resolve) => waiting.push(resolve));
          });
        };
      },
    });
  };
  return {
    sides: [side(0), side(1)],
    done(s) {
      finished[s] = true;
      changed();
    },
  };
}

/** Bootstraps the database twice at once, over two connections in step; the reasons of the starts that failed. */
async function bootstrapTogether(env: Record<string, string>): Promise<string[]> {
  const config = readConfig(env);
  const connections: [Storage, Storage] = [connect(env), connect(env)];
  for (const storage of connections) await storage.migrate();
  const step = inStep(connections);
  try {
    const started = await Promise.allSettled(
      ([0, 1] as const).map(async (side) => {
        const engine = bootstrapEngine(step.sides[side]);
        try {
          return await bootstrap(engine, config);
        } finally {
          step.done(side);
        }
      }),
    );
    return started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason));
  } finally {
    for (const storage of connections) await storage.close();
  }
}

describe(`bootstraps of one database at once (${testDatabase('boot').url ? 'PostgreSQL' : 'SQLite file'})`, () => {
  it('credits the opening balance once, at the first start, and never at a later one whatever was spent', async () => {
    const env = environment('topup');
    expect(await bootstrapTogether(env)).toEqual([]);
    expect(await wallet(env)).toEqual({ balance: 20_000_000, credits: [20_000_000] });

    // The account spends 5; the next start of both processes credits nothing: it was topped up by 5.
    await move(env, -5_000_000);
    expect(await bootstrapTogether(env)).toEqual([]);
    expect(await wallet(env)).toEqual({ balance: 15_000_000, credits: [20_000_000] });

    // Nor after it spent everything.
    await move(env, -15_000_000);
    expect(await bootstrapTogether(env)).toEqual([]);
    expect(await wallet(env)).toEqual({ balance: 0, credits: [20_000_000] });
  }, 60_000);

  it('starts servers that bootstrap one fresh database at the same time, crediting the opening balance once', async () => {
    const env = environment('servers');
    const started = await Promise.allSettled([1, 2, 3].map(() => createServer(readConfig(env), { designerDir: false, metrics: false })));
    try {
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const { engine } = (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createServer>>>).value;
      const account = await engine.accounts.authenticateKey('sk_ops_key_0123456789');
      expect(account?.login).toBe('ops');
      expect(await engine.accounts.listKeys(account!.id)).toHaveLength(1);
      expect(await engine.accounts.balance(account!.id)).toEqual({ balance: 20, currency: 'EUR' });
      expect(await wallet(env)).toEqual({ balance: 20_000_000, credits: [20_000_000] });
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
    }
  }, 60_000);
});
