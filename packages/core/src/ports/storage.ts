import type { AccountStorage } from './account-storage.ts';
import type { CascadeStorage } from './cascade-storage.ts';
import type { ChatHubStorage } from './chat-hub-storage.ts';
import type { InboundStorage } from './inbound-storage.ts';
import type { MessageStorage } from './message-storage.ts';
import type { WorkStorage } from './work-storage.ts';

/**
 * The storage port: every adapter (`createSqliteStorage`, `createPostgresStorage`) returns one and
 * passes `runStorageContract` from `@spillway/core/testing`. Asynchronous even where the driver
 * is synchronous, so that adapters are interchangeable.
 */
export interface Storage extends AccountStorage, MessageStorage, WorkStorage, ChatHubStorage, CascadeStorage, InboundStorage {
  readonly name: string;
  /** Creates or upgrades the schema; idempotent. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}
