import type Database from 'better-sqlite3';
import type { CascadeStorage } from '@spillway/core';

/** Schema of the cascade tables (routes, variables, short URLs); run by the storage's migrate(). */
export const CASCADE_SCHEMA = '';

/** The cascade part of the SQLite storage, over the storage's database handle. */
export function createCascadeStore(_db: Database.Database): CascadeStorage {
  return {};
}
