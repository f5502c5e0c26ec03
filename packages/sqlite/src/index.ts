// Public API of @spillway/sqlite.
export { createSqliteStorage } from './sqlite-storage.ts';
export type { SqliteStorage, SqliteStorageOptions } from './sqlite-storage.ts';
export { createSqliteRouteStats } from './route-stats.ts';
