import type Database from 'better-sqlite3';

/** Rows per statement, largest first; a batch is cut into these sizes. */
const CHUNK_SIZES = [256, 64, 16, 4, 1] as const;

/**
 * Statements an inserter keeps at most, one per chunk size and set of columns written as NULL.
 * Past it, a chunk binds every column (the statement prepared for that size with none left out).
 */
const STATEMENTS_MAX = 64;

/**
 * Inserts many rows of one table with multi-row `INSERT ... VALUES (...), (...)` statements.
 * One call into SQLite per chunk instead of per row makes a 5000-row insert several times
 * faster; a statement is prepared once per chunk size, on first use.
 *
 * A column that is null in every row of a chunk is written as a `NULL` literal instead of a bound
 * null: better-sqlite3 binds each parameter separately, and the optional columns of a message
 * (its customer id, guid, route, expiry, meta...) are null in most rows. What SQLite stores is the
 * same either way.
 */
export interface BatchInserter {
  /** Number of columns each row gives, in order. */
  readonly width: number;
  /** Inserts `values.length / width` rows given as one flat array of column values. */
  insert(values: readonly unknown[]): void;
}

/** A prepared statement, and the columns it binds when some are written as NULL (null: all of them). */
interface Prepared {
  statement: Database.Statement<unknown[]>;
  bound: number[] | null;
}

export function createBatchInserter(db: Database.Database, table: string, columns: readonly string[]): BatchInserter {
  const width = columns.length;
  // A set of all-null columns is a bit mask; a wider table always binds every column.
  const maskable = width <= 30;
  const statements = new Map<string, Prepared>();
  const statementFor = (rows: number, nulls: number): Prepared => {
    const key = `${rows}:${nulls}`;
    let prepared = statements.get(key);
    if (!prepared) {
      if (nulls !== 0 && statements.size >= STATEMENTS_MAX) return statementFor(rows, 0);
      const row = `(${columns.map((_, c) => (nulls & (1 << c) ? 'NULL' : '?')).join(', ')})`;
      prepared = {
        statement: db.prepare<unknown[]>(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`),
        bound: nulls === 0 ? null : columns.flatMap((_, c) => (nulls & (1 << c) ? [] : [c])),
      };
      statements.set(key, prepared);
    }
    return prepared;
  };

  /** The columns null in every one of rows `from` to `to` (exclusive), as a bit mask. */
  function nullColumns(values: readonly unknown[], from: number, to: number): number {
    if (!maskable) return 0;
    let mask = 0;
    for (let c = 0; c < width; c++) {
      let r = from;
      while (r < to && values[r * width + c] === null) r++;
      if (r === to) mask |= 1 << c;
    }
    return mask;
  }

  function insertChunk(values: readonly unknown[], from: number, rows: number): void {
    const { statement, bound } = statementFor(rows, nullColumns(values, from, from + rows));
    if (bound === null) {
      statement.run(values.slice(from * width, (from + rows) * width));
      return;
    }
    const kept = new Array<unknown>(rows * bound.length);
    let k = 0;
    for (let r = from; r < from + rows; r++) {
      const row = r * width;
      for (const c of bound) kept[k++] = values[row + c];
    }
    statement.run(kept);
  }

  return {
    width,
    insert(values) {
      const total = values.length / width;
      let done = 0;
      for (const size of CHUNK_SIZES) {
        while (total - done >= size) {
          insertChunk(values, done, size);
          done += size;
        }
      }
    },
  };
}
