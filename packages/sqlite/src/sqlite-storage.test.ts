import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  runAlphaNameDirectoryContract,
  runClientStorageContract,
  runReachabilityStorageContract,
  runStorageContract,
} from '@spillway/core/testing';
import { createSqliteStorage, type SqliteStorage } from './sqlite-storage.ts';

runStorageContract({
  name: 'sqlite',
  create: async () => {
    const storage = createSqliteStorage();
    await storage.migrate();
    return storage;
  },
});

// On a file, status reads go through a second connection, one read transaction a turn (TurnReader):
// the whole contract again there.
const contractDir = mkdtempSync(join(tmpdir(), 'spillway-sqlite-contract-'));
afterAll(() => rmSync(contractDir, { recursive: true, force: true }));
let contractFiles = 0;
runStorageContract({
  name: 'sqlite file',
  create: async () => {
    const storage = createSqliteStorage({ filename: join(contractDir, `contract-${++contractFiles}.db`) });
    await storage.migrate();
    return storage;
  },
});

describe('sqlite storage on a file', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('keeps data across close and reopen, in WAL mode', async () => {
    dir = mkdtempSync(join(tmpdir(), 'spillway-sqlite-'));
    // A folder that does not exist yet: opening the storage creates it.
    const filename = join(dir, 'data', 'spillway.db');

    const first = createSqliteStorage({ filename });
    await first.migrate();
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const account = await first.createAccount({ login: 'alice', name: 'Alice', passwordHash: 'h', currency: 'EUR' }, 1);
    await first.addWalletTransaction({ accountId: account.id, kind: 'topup', amount: 500, messageId: null, description: 'top' }, 2);
    await first.close();
    expect(first.db.open).toBe(false);

    const second = createSqliteStorage({ filename });
    await second.migrate();
    await second.migrate();
    expect((await second.findAccountByLogin('alice'))?.account.id).toBe(account.id);
    expect(await second.getBalance(account.id)).toBe(500);
    await second.close();
  });

  it('leaves an injected handle open on close', async () => {
    const storage = createSqliteStorage();
    const shared = createSqliteStorage({ database: storage.db });
    await shared.migrate();
    await shared.close();
    expect(storage.db.open).toBe(true);
    await storage.close();
    expect(storage.db.open).toBe(false);
  });
});

// On a file, so that a second handle (another process's) can open the same database.
runClientStorageContract({
  create: async () => {
    const storage = createSqliteStorage({ filename: join(contractDir, `client-contract-${++contractFiles}.db`) });
    await storage.migrate();
    return storage;
  },
  dispose: (storage) => storage.close(),
  share: async (storage) => {
    const other = createSqliteStorage({ filename: (storage as SqliteStorage).db.name });
    await other.migrate();
    return other;
  },
});

runReachabilityStorageContract({
  create: async () => {
    const storage = createSqliteStorage();
    await storage.migrate();
    return storage;
  },
  dispose: (storage) => storage.close(),
});

runAlphaNameDirectoryContract({
  create: async () => {
    const storage = createSqliteStorage();
    await storage.migrate();
    return storage;
  },
  dispose: (storage) => storage.close(),
});
