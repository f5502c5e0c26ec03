/**
 * `@spillway/sqlite`: the engine's storage on SQLite (better-sqlite3).
 *
 * @module @spillway/sqlite
 */
export { createSqliteStorage } from './sqlite-storage.ts';
export type { SqliteStorage, SqliteStorageOptions } from './sqlite-storage.ts';
export { createCheckpointer } from './checkpointer.ts';
export type { Checkpointer, CheckpointResult } from './checkpointer.ts';
export { createSqliteRouteStats } from './route-stats.ts';
