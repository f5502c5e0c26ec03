import type Database from 'better-sqlite3';
import type { AlphaNameDirectory } from '@spillway/core/storage';
import { toAlphaName, type SqliteAlphaNameRow } from './rows.ts';

/** Who owns an alpha-name, for incoming messages (uses `alpha_names_name`). */
export function createAlphaNameDirectory(db: Database.Database): AlphaNameDirectory {
  const owners = db.prepare<[string], SqliteAlphaNameRow>('SELECT * FROM alpha_names WHERE name = ? ORDER BY account_id');
  return {
    async findAlphaNameOwners(name) {
      return owners.all(name).map(toAlphaName);
    },
  };
}
