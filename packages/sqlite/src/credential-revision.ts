import type Database from 'better-sqlite3';
import { lazy } from './sqlite-util.ts';

/** The settings row counting credential revocations (see `AccountStorage.credentialRevision`). */
export const CREDENTIAL_REVISION_KEY = 'credentials.revision';

/** Reads and bumps the credential revision; statements prepared on first use (after migrate). */
export function createCredentialRevision(db: Database.Database): { read(): number; bump(): void } {
  // The chat hub store also runs alone, on a database without the settings table: nothing caches there.
  const hasSettings = () => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'`).get() !== undefined;
  const st = lazy(() => ({
    read: db.prepare<[string], { value: string }>(`SELECT value FROM settings WHERE key = ?`),
    bump: db.prepare<[string]>(
      `INSERT INTO settings (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
    ),
  }));
  return {
    read: () => Number(st().read.get(CREDENTIAL_REVISION_KEY)?.value ?? 0),
    bump: () => {
      if (hasSettings()) st().bump.run(CREDENTIAL_REVISION_KEY);
    },
  };
}
