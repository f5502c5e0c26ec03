import type { Queryable } from './pg-util.ts';
import { run } from './pg-util.ts';

/** A column of a bulk insert: its name and the PostgreSQL type of its array parameter. */
export type BulkColumn = readonly [name: string, type: string];

/**
 * Inserts many rows of one table in one statement: each column travels as one array parameter
 * and `unnest` turns the arrays back into rows, so that 5000 rows cost one round trip and one
 * parse, whatever their number (no 65535-parameter limit as with a VALUES list).
 */
export async function bulkInsert(db: Queryable, table: string, columns: readonly BulkColumn[], values: readonly unknown[][]): Promise<void> {
  if (values.length === 0 || (values[0]?.length ?? 0) === 0) return;
  const names = columns.map(([name]) => name).join(', ');
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  await run(db, `INSERT INTO ${table} (${names}) SELECT * FROM unnest(${arrays})`, values as unknown[]);
}

/** Columns of an effect row, shared by ingest and commit. */
export const EFFECT_COLUMNS: readonly BulkColumn[] = [
  ['message_id', 'bigint'],
  ['kind', 'text'],
  ['step', 'integer'],
  ['event', 'jsonb'],
  ['event_type', 'text'],
  ['due_at', 'bigint'],
];

/** Columns of a history row, shared by ingest, commit and appendHistory. */
export const HISTORY_COLUMNS: readonly BulkColumn[] = [
  ['message_id', 'bigint'],
  ['step', 'integer'],
  ['channel', 'text'],
  ['status', 'text'],
  ['at', 'bigint'],
  ['error', 'text'],
];

/** Column-wise value arrays for `width` columns. */
export function columnArrays(width: number): unknown[][] {
  return Array.from({ length: width }, () => []);
}
