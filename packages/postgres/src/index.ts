// Public API of @spillway/postgres.
export { createPostgresStorage } from './postgres-storage.ts';
export type { PostgresStorage, PostgresStorageOptions } from './postgres-storage.ts';
export { createPostgresRouteStats } from './route-stats.ts';
