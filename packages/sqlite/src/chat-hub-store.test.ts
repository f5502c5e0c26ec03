import Database from 'better-sqlite3';
import { runChatHubStorageContract } from '@spillway/core/testing';
import { CHAT_HUB_SCHEMA, createChatHubStore } from './chat-hub-store.ts';

const open = new WeakMap<object, Database.Database>();

runChatHubStorageContract({
  create: () => {
    const db = new Database(':memory:');
    db.exec(CHAT_HUB_SCHEMA);
    // Migrations run at every start: the schema must apply twice.
    db.exec(CHAT_HUB_SCHEMA);
    const store = createChatHubStore(db);
    open.set(store, db);
    return store;
  },
  dispose: (store) => {
    open.get(store)?.close();
  },
});
