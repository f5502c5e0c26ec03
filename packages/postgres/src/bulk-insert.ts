import { HISTORY_ROW_COLUMNS } from '@spillway/core/storage';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A column of a bulk insert: its name and its PostgreSQL type. */
export type BulkColumn = readonly [name: string, type: string];

/**
 * Pairs the columns of a core row layout (e.g. `MESSAGE_ROW_COLUMNS`) with their PostgreSQL
 * types, in the layout's order; the record must type every column.
 */
export function typedColumns<N extends string>(names: readonly N[], types: Readonly<Record<N, string>>): readonly BulkColumn[] {
  return names.map((name) => [name, types[name]] as const);
}

/** Characters COPY's text format escapes inside a value. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyField(value: string): string {
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]!) : value;
}

/** Rows of a COPY's text built and sent at a time: PostgreSQL parses one while the next is built. */
export const COPY_CHUNK_ROWS = 1000;

/**
 * Inserts many rows of one table with one `COPY … FROM STDIN` (text format). PostgreSQL takes
 * COPY's rows straight into the table: for 5000 message rows it spends about half the CPU an
 * `INSERT … SELECT` over one JSON document of the rows costs (that statement parsed the whole
 * document into `jsonb`, then took every field out of it and cast it), and the rows cost one
 * round trip whatever their number. `values` are the rows as one row-major list (row `r`, column
 * `c` at `r * columns.length + c`); values of `json` and `jsonb` columns are JSON text already. A null is
 * SQL NULL. Text travels as UTF-8, so a lone surrogate arrives as U+FFFD, as in any other query.
 * COPY is one statement: on an error nothing of it is written.
 *
 * More than {@link COPY_CHUNK_ROWS} rows go in chunks, the event loop let through between them:
 * each chunk reaches the socket while the next is built, so PostgreSQL parses and inserts rows
 * meanwhile instead of waiting for the whole text (a 5000-message ingest is about a fifth faster).
 */
export async function bulkInsert(
  client: pg.PoolClient,
  table: string,
  columns: readonly BulkColumn[],
  values: readonly unknown[],
): Promise<void> {
  if (values.length === 0) return;
  const width = columns.length;
  const rows = values.length / width;
  const json = columns.map(([, type]) => type === 'json' || type === 'jsonb');
  /** Rows `from` to `to` (excluded) in COPY's text format. */
  const text = (from: number, to: number): string => {
    let out = '';
    for (let r = from * width; r < to * width; r += width) {
      for (let c = 0; c < width; c++) {
        const v = values[r + c];
        if (c > 0) out += '\t';
        // A JSON null in a JSON column is SQL NULL too (no column stores a JSON null).
        if (v === null || v === undefined || (json[c] && v === 'null')) out += '\\N';
        else if (typeof v === 'string') out += copyField(v);
        else out += String(v);
      }
      out += '\n';
    }
    return out;
  };
  const names = columns.map(([name]) => name).join(', ');
  // The stream is written and ended by hand (it holds the data until PostgreSQL is ready for it):
  // stream.pipeline would build an AbortSignal per call, a cost that single sends noticed.
  await new Promise<void>((resolve, reject) => {
    const copy = client.query(copyFrom(`COPY ${table} (${names}) FROM STDIN`));
    let failed = false;
    copy.once('error', (error) => {
      // PostgreSQL refused a row (a unique violation, say): nothing more is written.
      failed = true;
      reject(error);
    });
    copy.once('finish', resolve);
    let from = 0;
    const next = () => {
      if (failed) return;
      const to = Math.min(rows, from + COPY_CHUNK_ROWS);
      try {
        const chunk = text(from, to);
        from = to;
        if (from >= rows) {
          copy.end(chunk);
        } else {
          copy.write(chunk);
          setImmediate(next);
        }
      } catch (error) {
        failed = true;
        copy.destroy(error as Error);
        reject(error);
      }
    };
    next();
  });
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
