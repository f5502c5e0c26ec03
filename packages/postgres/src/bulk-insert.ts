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

/** A text value as a JSON string; lone surrogates become U+FFFD, as in the UTF-8 the driver sends. */
function jsonString(value: string): string {
  // ES2024 string methods, in Node since 20 (the TypeScript lib here is older).
  const s = value as string & { isWellFormed(): boolean; toWellFormed(): string };
  return JSON.stringify(s.isWellFormed() ? s : s.toWellFormed());
}

/**
 * Inserts many rows of one table in one statement. The rows travel as one JSON document (an
 * array of row arrays), which PostgreSQL parses once into `jsonb` and takes apart by position:
 * 5000 rows cost one round trip and one parse, whatever their number (no 65535-parameter limit
 * as with a VALUES list). Values of `jsonb` columns are JSON text already and go in as they are,
 * without being quoted and parsed twice; building the document costs the driver far less than
 * encoding one array literal per column. `values` are the rows as one row-major list (row `r`,
 * column `c` at `r * columns.length + c`).
 */
export async function bulkInsert(db: Queryable, table: string, columns: readonly BulkColumn[], values: readonly unknown[]): Promise<void> {
  if (values.length === 0) return;
  const width = columns.length;
  const json = columns.map(([, type]) => type === 'jsonb');
  const rows: string[] = [];
  for (let r = 0; r < values.length; r += width) {
    let row = '[';
    for (let c = 0; c < width; c++) {
      const v = values[r + c];
      if (c > 0) row += ',';
      if (v === null || v === undefined) row += 'null';
      else if (json[c]) row += v as string;
      else if (typeof v === 'string') row += jsonString(v);
      else row += JSON.stringify(v);
    }
    rows.push(`${row}]`);
  }
  const names = columns.map(([name]) => name).join(', ');
  // A JSON null in a jsonb column is SQL NULL (no column stores a JSON null).
  const select = columns.map(([, type], i) => (type === 'jsonb' ? `NULLIF(r -> ${i}, 'null')` : `(r ->> ${i})::${type}`)).join(', ');
  await run(db, `INSERT INTO ${table} (${names}) SELECT ${select} FROM jsonb_array_elements($1::jsonb) AS r`, [`[${rows.join(',')}]`]);
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
