import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { API_KEY, LOGIN, startServer } from '../support/server-fixture.ts';
import { capturedLog, WARN } from '../support/server-log.ts';
import { testDatabase } from '../support/test-database.ts';

// An operator revokes the bootstrap API key (it leaked, say) and leaves SPILLWAY_BOOTSTRAP_API_KEY
// set. The next start failed ("this API key is already registered"), so the server stayed down
// until the variable was removed; and a key revoked is never to come back on a restart. The start
// now goes on with the key still revoked, and says so. SQLite file, or PostgreSQL with
// SPILLWAY_TEST_STORAGE=postgres.

const dir = mkdtempSync(join(tmpdir(), 'spillway-revoked-key-'));
const database = testDatabase('revoked_key');
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});
const env = {
  ...(database.url ? database.env : { SPILLWAY_DB: join(dir, 'revoked.db') }),
  SPILLWAY_WORKER_THREAD: 'false',
  SPILLWAY_HTTP_THREADS: '1',
};

describe(`a revoked bootstrap key (${database.label})`, () => {
  it('stays revoked at the next start, which goes on and warns', async () => {
    const first = await startServer(env, { designerDir: false });
    try {
      expect((await first.call('/bat/balance')).status).toBe(200);
      const account = (await first.server.engine.accounts.getByLogin(LOGIN))!;
      const [key] = await first.server.engine.accounts.listKeys(account.id);
      expect(await first.server.engine.accounts.revokeKey(account.id, key!.id)).toBe(true);
    } finally {
      await first.close();
    }

    const { logger, lines } = capturedLog();
    const second = await startServer(env, { logger, designerDir: false });
    try {
      const refused = await second.call('/bat/balance');
      expect(refused.status).toBe(401);
      // The password still signs in: the account itself is ensured as before.
      expect((await second.call('/bat/balance', { auth: 'basic' })).status).toBe(200);
      expect(lines.filter((l) => l.msg.includes('SPILLWAY_BOOTSTRAP_API_KEY names a key that was revoked'))).toMatchObject([
        { level: WARN, login: LOGIN },
      ]);
      const account = (await second.server.engine.accounts.getByLogin(LOGIN))!;
      expect(await second.server.engine.accounts.listKeys(account.id)).toEqual([]);
      expect(await second.server.engine.accounts.authenticateKey(API_KEY)).toBeNull();
    } finally {
      await second.close();
    }
  });
});
