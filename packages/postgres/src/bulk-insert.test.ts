import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY_CHUNK_ROWS, bulkInsert, typedColumns } from './bulk-insert.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

const url = process.env.DATABASE_URL;

const COLUMNS = typedColumns(['id', 'label', 'doc', 'n'] as const, { id: 'bigint', label: 'text', doc: 'json', n: 'bigint' });
const AWKWARD = 'tab\there, line\nbreak, back\\slash, cr\r, émoji 😀';

describe.skipIf(!url)('bulkInsert (COPY in chunks)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let table: string;
  beforeAll(async () => {
    db = createTestDatabase(url!);
    pool = new pg.Pool({ connectionString: url!, max: 2 });
    const schema = db.schemaName();
    table = `"${schema}".t`;
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, label text, doc json, n bigint)`);
  });
  afterAll(async () => {
    await pool.end();
    await db.end();
  });

  /** Row-major values of `count` rows from id `first`: awkward texts around the chunk boundaries, nulls, JSON. */
  const rowsFrom = (first: number, count: number): unknown[] =>
    Array.from({ length: count }, (_, i) => {
      const id = first + i;
      const edge = i % COPY_CHUNK_ROWS === 0 || i % COPY_CHUNK_ROWS === COPY_CHUNK_ROWS - 1;
      return [
        id,
        edge ? `${AWKWARD} ${id}` : `row ${id}`,
        i % 7 === 0 ? null : JSON.stringify({ id, text: AWKWARD }),
        i % 5 === 0 ? null : id * 3,
      ];
    }).flat();

  const stored = async (first: number, last: number) =>
    (await pool.query(`SELECT id::int, label, doc, n::int FROM ${table} WHERE id BETWEEN $1 AND $2 ORDER BY id`, [first, last])).rows;

  it('writes rows over several chunks exactly as given, in order', async () => {
    const count = COPY_CHUNK_ROWS * 2 + 7;
    const values = rowsFrom(1, count);
    const client = await pool.connect();
    try {
      await bulkInsert(client, table, COLUMNS, values);
    } finally {
      client.release();
    }
    const rows = await stored(1, count);
    expect(rows).toHaveLength(count);
    rows.forEach((row, i) => {
      const [id, label, doc, n] = values.slice(i * 4, i * 4 + 4);
      expect(row).toEqual({ id, label, doc: doc === null ? null : JSON.parse(doc as string), n });
    });
  });

  it('rejects a row PostgreSQL refuses in a later chunk, writing nothing, and the connection goes on', async () => {
    const first = 100_000;
    const values = rowsFrom(first, COPY_CHUNK_ROWS * 3);
    // A duplicate key in the second chunk.
    values[(COPY_CHUNK_ROWS + 5) * 4] = first;
    const client = await pool.connect();
    try {
      const failure = await bulkInsert(client, table, COLUMNS, values).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: '23505' });
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
    expect(await stored(first, first + COPY_CHUNK_ROWS * 3)).toEqual([]);
  });

  it('rejects a value it cannot write, sends no partial COPY, and the connection goes on', async () => {
    const first = 200_000;
    const values = rowsFrom(first, COPY_CHUNK_ROWS * 2);
    values[(COPY_CHUNK_ROWS + 1) * 4 + 3] = {
      toString() {
        throw new Error('not a column value');
      },
    };
    const client = await pool.connect();
    try {
      await expect(bulkInsert(client, table, COLUMNS, values)).rejects.toThrow('not a column value');
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
    expect(await stored(first, first + COPY_CHUNK_ROWS * 2)).toEqual([]);
  });
});
