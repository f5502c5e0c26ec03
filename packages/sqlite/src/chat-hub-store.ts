import type Database from 'better-sqlite3';
import type { ChatHubStorage } from '@spillway/core';

/** Schema of the chat hub tables; run by the storage's migrate(). */
export const CHAT_HUB_SCHEMA = '';

/** The chat hub part of the SQLite storage, over the storage's database handle. */
export function createChatHubStore(_db: Database.Database): ChatHubStorage {
  return {};
}
