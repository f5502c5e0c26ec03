import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckpointer } from './checkpointer.ts';
import { createSqliteStorage } from './sqlite-storage.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-checkpoint-'));
  dirs.push(dir);
  return join(dir, 'spillway.db');
}

describe('checkpoints on a connection of their own', () => {
  it('leaves the log to the checkpointer when commits no longer checkpoint, and copies all of it', async () => {
    const filename = tempFile();
    const storage = createSqliteStorage({ filename, walAutocheckpointPages: 0 });
    expect(storage.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    storage.db.exec('CREATE TABLE filler (x BLOB)');
    const fill = (rows: number) =>
      storage.db
        .prepare(
          'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO filler SELECT randomblob(4000) FROM n',
        )
        .run(rows);
    const before = statSync(filename).size;
    // 20 commits of 100 pages each.
    for (let i = 0; i < 20; i++) fill(100);
    // Nothing was copied by the commits: the database file did not grow, the log did.
    expect(statSync(filename).size).toBe(before);
    expect(statSync(`${filename}-wal`).size).toBeGreaterThan(1_000_000);

    const checkpointer = createCheckpointer(filename);
    const done = checkpointer.checkpoint();
    expect(done.busy).toBe(false);
    expect(done.walFrames).toBeGreaterThan(100);
    expect(done.checkpointed).toBe(done.walFrames);
    expect(statSync(filename).size).toBeGreaterThan(before + 1_000_000);
    // The next commit starts the log over instead of growing it.
    const wal = statSync(`${filename}-wal`).size;
    fill(1);
    expect(checkpointer.checkpoint().walFrames).toBeLessThan(done.walFrames);
    expect(statSync(`${filename}-wal`).size).toBe(wal);
    checkpointer.close();
    await storage.close();
  });

  it('keeps SQLite default of checkpointing in the commit unless told otherwise', async () => {
    const storage = createSqliteStorage({ filename: tempFile() });
    expect(storage.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await storage.close();
  });
});
