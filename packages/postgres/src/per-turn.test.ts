import { afterAll, beforeAll } from 'vitest';
import { runPerTurnReadsContract } from '@spillway/core/testing';
import { createPostgresStorage } from './postgres-storage.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

// These need a PostgreSQL server: run them with DATABASE_URL=postgres://... set.
const url = process.env.DATABASE_URL;
let db: TestDatabase | undefined;
beforeAll(() => {
  if (url) db = createTestDatabase(url);
});
afterAll(async () => {
  await db?.end();
});

runPerTurnReadsContract({
  name: 'postgres',
  skip: !url,
  // Two storages on one schema, each with its own pool, as two processes would open it.
  openTwo: async () => {
    const schema = db!.schemaName();
    const a = createPostgresStorage({ connectionString: url!, schema });
    await a.migrate();
    const b = createPostgresStorage({ connectionString: url!, schema });
    await b.migrate();
    const close = async () => {
      await a.close();
      await b.close();
      await db!.drop(schema);
    };
    return { a, b, close };
  },
});
