import type Database from 'better-sqlite3';

/** Rows per statement, largest first; a batch is cut into these sizes. */
const CHUNK_SIZES = [256, 64, 16, 4, 1] as const;

/**
 * Statements an inserter keeps at most, one per chunk size and pattern of shared and null columns.
 * Past it, a chunk binds every column (the statement prepared for that size with none shared).
 */
const STATEMENTS_MAX = 64;

/**
 * Inserts many rows of one table with multi-row statements. One call into SQLite per chunk
 * instead of per row makes a 5000-row insert several times faster; a statement is prepared once
 * per chunk size and pattern, on first use.
 *
 * better-sqlite3 binds each parameter through V8's API, and most columns of a request's rows hold
 * the same value in every row (a message's list, account, status, machine state, times, cost,
 * lease...): a column that is the same in every row of a chunk is bound once for the chunk, and
 * the rows bind only the columns that differ:
 * `INSERT INTO t (a, b, c) SELECT ?, column1, NULL FROM (VALUES (?), (?), ...)`. A column null in
 * every row is written as a `NULL` literal. A 256-row chunk of message rows: 1.8 – 2.0 against
 * 3.3 – 3.6 µs a row (`docs/decisions.md`, "Speed, thirteenth pass"). A one-row chunk binds its
 * columns in a plain `VALUES` (nulls as literals). What SQLite stores is the same either way.
 */
export interface BatchInserter {
  /** Number of columns each row gives, in order. */
  readonly width: number;
  /** Inserts `values.length / width` rows given as one flat array of column values. */
  insert(values: readonly unknown[]): void;
}

/** A prepared statement and what it binds: the shared columns once, then each row's `varying` columns. */
interface Prepared {
  statement: Database.Statement<unknown[]>;
  shared: number[];
  varying: number[];
}

export function createBatchInserter(db: Database.Database, table: string, columns: readonly string[]): BatchInserter {
  const width = columns.length;
  // Patterns of columns are bit masks; a wider table always binds every column.
  const maskable = width <= 30;
  const all = Array.from(columns, (_, c) => c);
  const statements = new Map<string, Prepared>();
  const statementFor = (rows: number, same: number, nulls: number): Prepared => {
    const key = `${rows}:${same}:${nulls}`;
    let prepared = statements.get(key);
    if (!prepared) {
      if ((same | nulls) !== 0 && statements.size >= STATEMENTS_MAX) return statementFor(rows, 0, 0);
      const varying = all.filter((c) => !((same | nulls) & (1 << c)));
      const shared = all.filter((c) => same & (1 << c));
      const into = `INSERT INTO ${table} (${columns.join(', ')})`;
      let sql: string;
      if (same === 0) {
        const row = `(${all.map((c) => (nulls & (1 << c) ? 'NULL' : '?')).join(', ')})`;
        sql = `${into} VALUES ${Array(rows).fill(row).join(', ')}`;
      } else {
        const select = all.map((c) => (nulls & (1 << c) ? 'NULL' : same & (1 << c) ? '?' : `column${varying.indexOf(c) + 1}`));
        const row = `(${varying.map(() => '?').join(', ')})`;
        sql = `${into} SELECT ${select.join(', ')} FROM (VALUES ${Array(rows).fill(row).join(', ')})`;
      }
      prepared = { statement: db.prepare<unknown[]>(sql), shared, varying };
      statements.set(key, prepared);
    }
    return prepared;
  };

  /**
   * The columns of rows `from` to `to` (exclusive) that are null in every row, and those that
   * hold one other value in every row (more than one row only, and one column at least left to
   * vary), as two bit masks.
   */
  function patternOf(values: readonly unknown[], from: number, to: number): { same: number; nulls: number } {
    if (!maskable) return { same: 0, nulls: 0 };
    let same = 0;
    let nulls = 0;
    for (let c = 0; c < width; c++) {
      const first = values[from * width + c];
      let r = from + 1;
      while (r < to && values[r * width + c] === first) r++;
      if (r < to) continue;
      if (first === null) nulls |= 1 << c;
      else if (to - from > 1) same |= 1 << c;
    }
    // Rows that are all alike still need a column in their VALUES: the first shared one varies.
    if (same !== 0 && (same | nulls) === 2 ** width - 1) same &= same - 1;
    return { same, nulls };
  }

  function insertChunk(values: readonly unknown[], from: number, rows: number): void {
    const { same, nulls } = patternOf(values, from, from + rows);
    const { statement, shared, varying } = statementFor(rows, same, nulls);
    if (shared.length === 0 && varying.length === width) {
      statement.run(values.slice(from * width, (from + rows) * width));
      return;
    }
    const bound = new Array<unknown>(shared.length + rows * varying.length);
    let k = 0;
    for (const c of shared) bound[k++] = values[from * width + c];
    for (let r = from; r < from + rows; r++) {
      const row = r * width;
      for (const c of varying) bound[k++] = values[row + c];
    }
    statement.run(bound);
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
