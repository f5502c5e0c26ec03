import { createEngine, createFakeClock } from '@spillway/core';
import type { FakeClock } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createPostgresStorage } from '@spillway/postgres';
import { createSqliteStorage } from '@spillway/sqlite';
import type { ChannelDriver, Storage } from '@spillway/core';
import { hasClientStorage } from '@spillway/core/storage';
import type { ClientStorage } from '@spillway/core/storage';

/**
 * The storage of engine tests: in-memory SQLite, or, with SPILLWAY_TEST_STORAGE=postgres, a fresh
 * schema of the PostgreSQL database at DATABASE_URL (dropped on close), so that the same engine
 * tests run on both adapters.
 */
export async function testStorage(): Promise<Storage> {
  const url = process.env['DATABASE_URL'];
  if (process.env['SPILLWAY_TEST_STORAGE'] !== 'postgres' || !url) {
    const sqlite = createSqliteStorage();
    await sqlite.migrate();
    return sqlite;
  }
  const schema = `spillway_engine_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const pg = createPostgresStorage({ connectionString: url, schema });
  await pg.migrate();
  return {
    ...pg,
    async close() {
      await pg.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pg.close();
    },
  };
}

/** A {@link testStorage} with its client records (both storages keep them): the client-management tests' storage. */
export async function testClientStorage(): Promise<Storage & ClientStorage> {
  const storage = await testStorage();
  if (!hasClientStorage(storage)) throw new Error('both storages keep client records');
  return storage;
}

/** An engine on a real database ({@link testStorage}), simulator channels (or `channels`) and a fake clock. */
export async function engineFixture(options: { latencyMs?: number; balance?: number; channels?: ChannelDriver[] } = {}) {
  const clock: FakeClock = createFakeClock(Date.UTC(2026, 10, 22, 12));
  const storage = await testStorage();
  const simulator = createSimulator({ latencyMs: options.latencyMs ?? 200 });
  // A low scrypt cost keeps account set-up fast; production uses the default (N=2^17).
  const engine = createEngine({ storage, channels: options.channels ?? [simulator], hasher: createNodeHasher({ N: 2 ** 12 }), clock });
  const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: options.balance ?? 100 });
  await engine.accounts.approveAlphaName(account.id, 'Shop');
  /** Moves the clock and lets the engine process everything that fell due. */
  const advance = async (ms: number) => {
    await engine.drain();
    await clock.advance(ms);
    await engine.drain();
  };
  return { clock, storage, simulator, engine, account, advance, close: () => storage.close() };
}
