import Database from 'better-sqlite3';
import { runCascadeStorageContract } from '@spillway/core/testing';
import { CASCADE_SCHEMA, createCascadeStore } from './cascade-store.ts';

const open = new WeakMap<object, Database.Database>();

runCascadeStorageContract({
  create: () => {
    const db = new Database(':memory:');
    db.exec(CASCADE_SCHEMA);
    // Migrations run at every start: the schema must apply twice.
    db.exec(CASCADE_SCHEMA);
    const store = createCascadeStore(db);
    open.set(store, db);
    return store;
  },
  dispose: (store) => {
    open.get(store)?.close();
  },
});
