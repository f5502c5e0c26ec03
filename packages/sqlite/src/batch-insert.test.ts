import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBatchInserter } from './batch-insert.ts';

const COLUMNS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] as const;
type Row = Array<string | number | null>;

let db: Database.Database;

beforeEach(() => {
  db = new Database(':memory:');
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, ${COLUMNS.join(', ')}, must TEXT NOT NULL DEFAULT 'x')`);
});

afterEach(() => db.close());

function stored(): Row[] {
  return db
    .prepare(`SELECT ${COLUMNS.join(', ')} FROM t ORDER BY id`)
    .raw()
    .all() as Row[];
}

/** The SQL of every statement prepared on the test's database from now on. */
function preparedStatements(): string[] {
  const prepared: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return prepared;
}

describe('createBatchInserter', () => {
  it('stores every row as given, whichever of its columns are null in a whole chunk or in some rows only', () => {
    const insert = createBatchInserter(db, 't', COLUMNS);
    // 341 rows go in chunks of 256, 64, 16, 4 and 1; columns b and h are null throughout, d in
    // the first 300 rows only, f in every other row, and the rest never.
    const rows: Row[] = Array.from({ length: 341 }, (_, i) => [
      i,
      null,
      `c${i}`,
      i < 300 ? null : i * 2,
      1.5,
      i % 2 === 0 ? null : 'f',
      'g',
      null,
    ]);
    insert.insert(rows.flat());
    expect(stored()).toEqual(rows);
  });

  it('stores any rows, with more patterns of null columns than it keeps statements for', () => {
    const value = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(fc.array(value, { minLength: COLUMNS.length, maxLength: COLUMNS.length }), { maxLength: 300 }), (rows) => {
        db.exec('DELETE FROM t');
        // A fresh inserter per run sees each run's patterns from its first statement on.
        createBatchInserter(db, 't', COLUMNS).insert(rows.flat());
        expect(stored()).toEqual(rows);
      }),
      { numRuns: 60 },
    );
    // 1-row chunks of 8 columns: 256 patterns of nulls, four times what an inserter keeps statements for.
    const insert = createBatchInserter(db, 't', COLUMNS);
    db.exec('DELETE FROM t');
    const rows: Row[] = Array.from({ length: 256 }, (_, i) => COLUMNS.map((_, c) => (i & (1 << c) ? null : i * 10 + c)));
    for (const row of rows) insert.insert(row);
    expect(stored()).toEqual(rows);
  });

  it('keeps at most 64 statements with NULL literals, then binds every column of a new pattern', () => {
    const prepared = preparedStatements();
    const insert = createBatchInserter(db, 't', COLUMNS);
    // 1-row chunks, one new pattern of nulls each (none of them all-bound: i starts at 1).
    const rows: Row[] = Array.from({ length: 100 }, (_, k) => COLUMNS.map((_, c) => ((k + 1) & (1 << c) ? null : k * 10 + c)));
    rows.forEach((row, k) => {
      insert.insert(row);
      // The first 64 patterns get a statement each; the others share the all-bound one.
      expect(prepared).toHaveLength(k < 64 ? k + 1 : 65);
    });
    expect(prepared.filter((sql) => sql.includes('NULL'))).toHaveLength(64);
    expect(prepared.at(-1)).not.toContain('NULL');
    // Patterns seen before the cap keep their statements.
    insert.insert(rows[0]!);
    expect(prepared).toHaveLength(65);
    expect(stored()).toEqual([...rows, rows[0]]);
  });

  it('stores any rows whose columns are shared by every row of a chunk, null throughout, or vary, in any mix', () => {
    // Each column: one value in every row, null throughout, one value but for a row, or anything.
    const column = fc.oneof(
      fc.record({ kind: fc.constant('same' as const), value: fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.string()) }),
      fc.record({ kind: fc.constant('null' as const) }),
      fc.record({
        kind: fc.constant('but one' as const),
        value: fc.integer(),
        odd: fc.nat(),
        other: fc.oneof(fc.constant(null), fc.string()),
      }),
      fc.record({ kind: fc.constant('any' as const) }),
    );
    fc.assert(
      fc.property(
        fc.array(column, { minLength: COLUMNS.length, maxLength: COLUMNS.length }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer(),
        (kinds, count, seed) => {
          db.exec('DELETE FROM t');
          const rows: Row[] = Array.from({ length: count }, (_, r) =>
            kinds.map((k, c) => {
              if (k.kind === 'same') return k.value;
              if (k.kind === 'null') return null;
              if (k.kind === 'but one') return r === k.odd % Math.max(1, count) ? k.other : k.value;
              return (seed + r * 31 + c) % 7 === 0 ? null : `${seed}:${r}:${c}`;
            }),
          );
          createBatchInserter(db, 't', COLUMNS).insert(rows.flat());
          const back = stored();
          expect(back).toEqual(rows);
          // SQLite kept each value's type: an integer, a real and a text stay what they were.
          expect(back.map((row) => row.map((v) => typeof v))).toEqual(rows.map((row) => row.map((v) => typeof v)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('binds a column shared by every row of a chunk once, and rows that are all alike still go in one statement', () => {
    const prepared = preparedStatements();
    const insert = createBatchInserter(db, 't', COLUMNS);
    // Column a varies, b is null throughout, the others hold one value each.
    const rows: Row[] = Array.from({ length: 4 }, (_, i) => [i, null, 'c', 1.5, 'e', 6, 'g', 'h']);
    insert.insert(rows.flat());
    expect(prepared).toEqual([
      `INSERT INTO t (${COLUMNS.join(', ')}) SELECT column1, NULL, ?, ?, ?, ?, ?, ? FROM (VALUES (?), (?), (?), (?))`,
    ]);
    // Four identical rows: the first shared column varies (here a, as above: the same statement).
    const alike: Row[] = Array.from({ length: 4 }, () => ['a', null, 'c', 1.5, 'e', 6, 'g', 'h']);
    insert.insert(alike.flat());
    expect(prepared).toHaveLength(1);
    expect(stored()).toEqual([...rows, ...alike]);
  });

  it('stores the rows of a table too wide for its mask of null columns, binding every column', () => {
    const wide = Array.from({ length: 34 }, (_, c) => `w${c}`);
    db.exec(`CREATE TABLE wide (id INTEGER PRIMARY KEY, ${wide.join(', ')})`);
    // Columns 1 and 31 null throughout; column 33 never is, though a 32-bit mask would take it for column 1.
    const rows: Row[] = Array.from({ length: 21 }, (_, i) => wide.map((_, c) => (c === 1 || c === 31 ? null : i * 100 + c)));
    createBatchInserter(db, 'wide', wide).insert(rows.flat());
    expect(
      db
        .prepare(`SELECT ${wide.join(', ')} FROM wide ORDER BY id`)
        .raw()
        .all(),
    ).toEqual(rows);
  });

  it('refuses a null in a NOT NULL column as a bound null would, whole chunks of it included', () => {
    const insert = createBatchInserter(db, 't', [...COLUMNS, 'must']);
    const rows = Array.from({ length: 4 }, (_, i) => [...COLUMNS.map(() => i), null]);
    expect(() => insert.insert(rows.flat())).toThrow(/NOT NULL constraint failed: t\.must/);
    expect(stored()).toEqual([]);
  });
});
