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
  /**
   * Whether an error this storage threw means the database could not be reached (a restart or
   * failover dropped the connection, a connection was refused or timed out): what it was doing
   * failed, and a retry once the database is back is the answer. The HTTP adapter answers such
   * errors 503 with `Retry-After`, logged as a warning.
   */
  isUnavailable?(error: unknown): boolean;
  /** Creates or upgrades the schema; idempotent. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}
