import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toMicros } from '@spillway/core';
import { startServer, LOGIN } from '../support/server-fixture.ts';
import { capturedLog, INFO } from '../support/server-log.ts';
import { testDatabase } from '../support/test-database.ts';

// With SPILLWAY_BOOTSTRAP_BALANCE, every start topped the bootstrap account up to the configured
// amount: a restart refilled an account that had spent its money. It is the opening balance now,
// credited once per database, and each start logs one line saying what it did with it. SQLite
// file, or PostgreSQL with SPILLWAY_TEST_STORAGE=postgres.

const dir = mkdtempSync(join(tmpdir(), 'spillway-bootstrap-log-'));
const database = testDatabase('boot_log');
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});
// No threads: the bootstrap runs on the main thread, and four starts with threads take long from source.
const env = {
  ...(database.url ? database.env : { SPILLWAY_DB: join(dir, 'bootstrap.db') }),
  SPILLWAY_WORKER_THREAD: 'false',
  SPILLWAY_HTTP_THREADS: '1',
};

/** Starts the server on the test's database with `balance` configured, spends `spend` from the bootstrap account, stops it, and answers its bootstrap line. */
async function start(balance: string, spend = 0) {
  const { logger, lines } = capturedLog();
  const f = await startServer({ ...env, SPILLWAY_BOOTSTRAP_BALANCE: balance }, { logger, designerDir: false });
  try {
    if (spend > 0) {
      const account = (await f.server.engine.accounts.getByLogin(LOGIN))!;
      await f.server.storage.addWalletTransaction(
        { accountId: account.id, kind: 'charge', amount: -toMicros(spend), messageId: null, description: 'spent' },
        Date.now(),
      );
    }
  } finally {
    await f.close();
  }
  const said = lines.filter((l) => l.msg.startsWith(`bootstrap account ${LOGIN}`));
  expect(said).toHaveLength(1);
  return said[0]!;
}

describe(`the bootstrap balance at each start (${database.label})`, () => {
  it('says what each start did: the opening balance credited, then credited at an earlier start', async () => {
    expect(await start('20', 7.25)).toMatchObject({
      level: INFO,
      msg: `bootstrap account ${LOGIN}: opening balance credited (20), its balance is 20; SPILLWAY_BOOTSTRAP_BALANCE is credited once per database; spillway accounts topup adds more`,
      openingBalance: 'credited',
      target: 20,
      credited: 20,
      balance: 20,
      currency: 'EUR',
    });
    // The restart after money was spent credits nothing.
    const earlier = {
      level: INFO,
      msg: `bootstrap account ${LOGIN}: opening balance already credited at an earlier start, nothing done (balance 12.75); SPILLWAY_BOOTSTRAP_BALANCE is credited once per database; spillway accounts topup adds more`,
      openingBalance: 'earlier',
      credited: 0,
      balance: 12.75,
    };
    expect(await start('20')).toMatchObject({ ...earlier, target: 20 });
    // Nor does another amount configured later.
    expect(await start('50')).toMatchObject({ ...earlier, target: 50 });
  });
});
