import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toMicros } from '@spillway/core';
import { startServer, LOGIN } from '../support/server-fixture.ts';
import { capturedLog, INFO, WARN } from '../support/server-log.ts';
import { testDatabase } from '../support/test-database.ts';

// With SPILLWAY_BOOTSTRAP_BALANCE, every start tops the bootstrap account up to the configured
// amount: a restart refilled an account that had spent its money, and nothing said so. Each start
// now logs what it did to the balance. SQLite file, or PostgreSQL with SPILLWAY_TEST_STORAGE=postgres.

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
  it('says what each start credited: the opening balance, a top-up (a warning), or nothing', async () => {
    expect(await start('20', 7.25)).toMatchObject({
      level: INFO,
      msg: `bootstrap account ${LOGIN} created with SPILLWAY_BOOTSTRAP_BALANCE 20 as its opening balance`,
      created: true,
      before: 0,
      credited: 20,
      balance: 20,
      currency: 'EUR',
    });
    // The restart after money was spent refills the account, and says so.
    expect(await start('20')).toMatchObject({
      level: WARN,
      msg: expect.stringMatching(
        new RegExp(
          `^bootstrap account ${LOGIN}: its balance 12\\.75 was topped up to SPILLWAY_BOOTSTRAP_BALANCE 20 \\(7\\.25 credited\\); every start`,
        ),
      ),
      created: false,
      before: 12.75,
      credited: 7.25,
      balance: 20,
    });
    expect(await start('20')).toMatchObject({
      level: INFO,
      msg: `bootstrap account ${LOGIN}: its balance 20 reaches SPILLWAY_BOOTSTRAP_BALANCE 20, nothing credited`,
      credited: 0,
      balance: 20,
    });
    // A lower amount takes nothing back.
    expect(await start('5')).toMatchObject({ level: INFO, target: 5, credited: 0, balance: 20 });
  });
});
