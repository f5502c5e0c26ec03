import type Database from 'better-sqlite3';

/** Rows per statement, largest first; a batch is cut into these sizes. */
const CHUNK_SIZES = [256, 64, 16, 4, 1] as const;

/**
 * Inserts many rows of one table with multi-row `INSERT ... VALUES (...), (...)` statements.
 * One call into SQLite per chunk instead of per row makes a 5000-row insert several times
 * faster; a statement is prepared once per chunk size, on first use.
 */
export interface BatchInserter {
  /** Number of columns each row gives, in order. */
  readonly width: number;
  /** Inserts `values.length / width` rows given as one flat array of column values. */
  insert(values: readonly unknown[]): void;
}

export function createBatchInserter(db: Database.Database, table: string, columns: readonly string[]): BatchInserter {
  const width = columns.length;
  const row = `(${columns.map(() => '?').join(', ')})`;
  const statements = new Map<number, Database.Statement<unknown[]>>();
  const statementFor = (rows: number) => {
    let statement = statements.get(rows);
    if (!statement) {
      statement = db.prepare<unknown[]>(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`);
      statements.set(rows, statement);
    }
    return statement;
  };

  return {
    width,
    insert(values) {
      const total = values.length / width;
      let done = 0;
      for (const size of CHUNK_SIZES) {
        while (total - done >= size) {
          statementFor(size).run(values.slice(done * width, (done + size) * width));
          done += size;
        }
      }
    },
  };
}
