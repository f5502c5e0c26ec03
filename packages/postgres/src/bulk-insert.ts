import { HISTORY_ROW_COLUMNS } from '@spillway/core/storage';
import type { Queryable } from './pg-util.ts';
import { run } from './pg-util.ts';

/** A column of a bulk insert: its name and the PostgreSQL type of its array parameter. */
export type BulkColumn = readonly [name: string, type: string];

/**
 * Pairs the columns of a core row layout (e.g. `MESSAGE_ROW_COLUMNS`) with their PostgreSQL
 * types, in the layout's order; the record must type every column.
 */
export function typedColumns<N extends string>(names: readonly N[], types: Readonly<Record<N, string>>): readonly BulkColumn[] {
  return names.map((name) => [name, types[name]] as const);
}

/**
 * Inserts many rows of one table in one statement: each column travels as one array parameter
 * and `unnest` turns the arrays back into rows, so that 5000 rows cost one round trip and one
 * parse, whatever their number (no 65535-parameter limit as with a VALUES list). `values` are
 * the rows as one row-major list (row `r`, column `c` at `r * columns.length + c`).
 */
export async function bulkInsert(db: Queryable, table: string, columns: readonly BulkColumn[], values: readonly unknown[]): Promise<void> {
  if (values.length === 0) return;
  const width = columns.length;
  const arrays = columns.map(() => [] as unknown[]);
  for (let i = 0; i < values.length; i++) arrays[i % width]!.push(values[i]);
  const names = columns.map(([name]) => name).join(', ');
  const params = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  await run(db, `INSERT INTO ${table} (${names}) SELECT * FROM unnest(${params})`, arrays);
}

/** Columns of a history row, shared by ingest, commit and appendHistory. */
export const HISTORY_COLUMNS = typedColumns(HISTORY_ROW_COLUMNS, {
  message_id: 'bigint',
  step: 'integer',
  channel: 'text',
  status: 'text',
  at: 'bigint',
  error: 'text',
  driver: 'text',
  provider_message_id: 'text',
});
