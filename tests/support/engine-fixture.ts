import { createEngine, createFakeClock } from '@spillway/core';
import type { FakeClock } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

/** An engine on a real in-memory SQLite database, simulator channels and a fake clock. */
export async function engineFixture(options: { latencyMs?: number; balance?: number } = {}) {
  const clock: FakeClock = createFakeClock(Date.UTC(2026, 10, 22, 12));
  const storage = createSqliteStorage();
  await storage.migrate();
  const simulator = createSimulator({ latencyMs: options.latencyMs ?? 200 });
  const engine = createEngine({ storage, channels: [simulator], hasher: createNodeHasher(), clock });
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
