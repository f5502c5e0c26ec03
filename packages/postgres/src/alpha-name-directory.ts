import type pg from 'pg';
import { alphaNameFromRow } from '@spillway/core/storage';
import type { AlphaNameDirectory, AlphaNameRow } from '@spillway/core/storage';
import { rows } from './pg-util.ts';

/** Who owns an alpha-name, for incoming messages (uses `alpha_names_name`). */
export function createAlphaNameDirectory(pool: pg.Pool, x: string): AlphaNameDirectory {
  return {
    async findAlphaNameOwners(name) {
      const found = await rows<AlphaNameRow>(pool, `SELECT * FROM ${x}alpha_names WHERE name = $1 ORDER BY account_id`, [name]);
      return found.map(alphaNameFromRow);
    },
  };
}
