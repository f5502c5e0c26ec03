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
  /** {@link AccountStorage.credentialRevision}, which a whole storage has (optional for a chat hub storage alone). */
  credentialRevision(): Promise<number>;
  /**
   * Whether an error this storage threw means the database was too busy to take the operation (a
   * lock held past its timeout, a serialization failure): its transaction wrote nothing, and a
   * retry is safe. The HTTP adapter answers such errors 503 with `Retry-After`, others 500.
   */
  isBusy?(error: unknown): boolean;
  /** Creates or upgrades the schema; idempotent. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}
