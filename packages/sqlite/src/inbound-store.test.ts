import Database from 'better-sqlite3';
import { runInboundStorageContract } from '@spillway/core/testing';
import { INBOUND_SCHEMA, createInboundStore } from './inbound-store.ts';

const open = new WeakMap<object, Database.Database>();

runInboundStorageContract({
  create: () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    db.exec(INBOUND_SCHEMA);
    // Migrations run at every start: the schema must apply twice.
    db.exec(INBOUND_SCHEMA);
    const store = createInboundStore(db);
    open.set(store, db);
    return store;
  },
  dispose: (store) => {
    open.get(store)?.close();
  },
});
