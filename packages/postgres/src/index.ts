/**
 * `@spillway/postgres`: the engine's storage on PostgreSQL (node-postgres), shared by several
 * engine processes.
 *
 * @module @spillway/postgres
 */
export { createPostgresStorage } from './postgres-storage.ts';
export type { PostgresStorage, PostgresStorageOptions } from './postgres-storage.ts';
export { createPostgresRouteStats } from './route-stats.ts';
