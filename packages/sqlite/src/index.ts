/**
 * `@spillway/sqlite`: the engine's storage on SQLite (better-sqlite3).
 *
 * @module @spillway/sqlite
 */
export { createSqliteStorage } from './sqlite-storage.ts';
export type { SqliteStorage, SqliteStorageOptions } from './sqlite-storage.ts';
export { createSqliteRouteStats } from './route-stats.ts';
