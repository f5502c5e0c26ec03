import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from './sqlite-storage.ts';

describe('the database file’s folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-folder-'));

  it('is created with the folders above it that are missing', async () => {
    const storage = createSqliteStorage({ filename: join(dir, 'a', 'b', 'spillway.db') });
    await storage.migrate();
    await storage.close();
    expect(statSync(join(dir, 'a', 'b')).isDirectory()).toBe(true);
  });

  // Node 20's recursive mkdirSync never returns under /proc: createSqliteStorage hung.
  it('fails at once, naming the folder, where it cannot be made (under /proc)', () => {
    expect(() => createSqliteStorage({ filename: '/proc/spillway-nope/x/spillway.db' })).toThrow(
      /cannot create the folder "\/proc\/spillway-nope"/,
    );
  });

  it('names the file in the way when a file stands where a folder should be', () => {
    writeFileSync(join(dir, 'plain'), 'not a folder');
    expect(() => createSqliteStorage({ filename: join(dir, 'plain', 'x', 'spillway.db') })).toThrow(/plain" is not a folder/);
  });
});
