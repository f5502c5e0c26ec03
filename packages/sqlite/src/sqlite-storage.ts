import Database from 'better-sqlite3';
import type { ClientStorage, RouteStatsStorage, Storage } from '@spillway/core';
import type { AlphaNameDirectory, ReachabilityStorage } from '@spillway/core/storage';
import { createAccountStore } from './account-store.ts';
import { createCascadeStore } from './cascade-store.ts';
import { createChatHubStore } from './chat-hub-store.ts';
import { createClientStore } from './client-store.ts';
import { createInboundStore } from './inbound-store.ts';
import { createReachabilityStore } from './reachability-store.ts';
import { createAlphaNameDirectory } from './alpha-name-directory.ts';
import { createMessageStore } from './message-store.ts';
import { createWorkStore } from './work-store.ts';
import { migrate } from './schema.ts';
import { isBusy } from './sqlite-util.ts';
import { createSqliteRouteStats } from './route-stats.ts';
import { TurnReader } from './turn-reader.ts';
import { ensureFolderOf } from './ensure-folder.ts';

/** Options of {@link createSqliteStorage}. */
export interface SqliteStorageOptions {
  /**
   * Database file; `:memory:` keeps everything in memory (tests). Ignored when `database` is given.
   * @default ':memory:'
   */
  filename?: string;
  /**
   * An open better-sqlite3 handle to use instead of opening `filename`. The storage sets its
   * pragmas but does not close it: the handle stays the caller's.
   */
  database?: Database.Database;
  /**
   * How long a statement waits for another process's write lock, in ms.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * WAL pages past which a commit checkpoints the log into the database file itself
   * (`PRAGMA wal_autocheckpoint`). Raise it when a {@link createCheckpointer} does the checkpoints
   * on a thread of its own, leaving this as a backstop; 0 turns them off.
   * @default 1000 (SQLite's)
   */
  walAutocheckpointPages?: number;
}

function openDatabase(filename: string): Database.Database {
  // The default server database is ./data/spillway.db: its folder may not exist on first start.
  if (filename !== ':memory:' && filename !== '') ensureFolderOf(filename);
  return new Database(filename);
}

/** The SQLite storage, with its database handle for tools and tests, and its route stats reader. */
export type SqliteStorage = Storage &
  ClientStorage &
  ReachabilityStorage &
  RouteStatsStorage &
  AlphaNameDirectory & { readonly db: Database.Database; isBusy(error: unknown): boolean };

/**
 * The embedded default storage: one SQLite file in WAL mode, on better-sqlite3. Opening it
 * creates or upgrades the schema; `migrate()` may be called again at any time.
 *
 * @example
 * const storage = createSqliteStorage({ filename: './data/spillway.db' });
 * await storage.migrate();
 */
export function createSqliteStorage(options: SqliteStorageOptions = {}): SqliteStorage {
  const owned = !options.database;
  const db = options.database ?? openDatabase(options.filename ?? ':memory:');
  // WAL lets readers run beside the writer; NORMAL syncs at checkpoints only, which in WAL mode
  // cannot corrupt the database (a power cut may lose the last commits, never the file).
  if (!db.memory) db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  if (options.walAutocheckpointPages !== undefined)
    db.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(options.walAutocheckpointPages))}`);
  // The composed stores prepare their statements when created, so the tables must exist first.
  migrate(db);
  // Status reads of a turn share a read transaction on a connection of their own (a file only:
  // another connection to an in-memory database is another database).
  const reader = db.memory ? undefined : new TurnReader(db.name, busyTimeoutMs);

  const own = {
    name: 'sqlite',
    db,
    isBusy,
    async migrate() {
      migrate(db);
    },
    async close() {
      reader?.close();
      if (owned && db.open) db.close();
    },
  };
  // The parts are plain objects of closures over `db`: spreading them keeps every method working.
  const storage: SqliteStorage = {
    ...createChatHubStore(db),
    ...createCascadeStore(db),
    ...createInboundStore(db),
    ...createClientStore(db),
    ...createReachabilityStore(db),
    ...createAlphaNameDirectory(db),
    ...createAccountStore(db),
    ...createMessageStore(db, reader),
    ...createWorkStore(db),
    ...createSqliteRouteStats(db),
    ...own,
  };
  if (!reader) return storage;
  // Any other operation may write: the turn's read transaction ends first, so that a read after
  // it sees what it wrote. Only reads that need not see a write of this turn keep it open.
  const methods = storage as unknown as Record<string, unknown>;
  for (const [name, method] of Object.entries(methods)) {
    if (typeof method !== 'function' || KEEPS_TURN_READ.has(name)) continue;
    methods[name] = (...args: unknown[]) => {
      reader.end();
      return (method as (...a: unknown[]) => unknown)(...args);
    };
  }
  return storage;
}

/**
 * Storage operations that leave the turn's read transaction open ({@link TurnReader}): the status
 * read itself, and the reads that every request makes beside it, which write nothing.
 */
const KEEPS_TURN_READ = new Set(['getMessageWithHistory', 'credentialRevision', 'isBusy']);
