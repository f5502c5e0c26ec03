import Database from 'better-sqlite3';

/** What one checkpoint did: WAL frames in the log, and how many of them are now in the database file. */
export interface CheckpointResult {
  /** A reader or writer kept part of the log from being copied (PASSIVE never waits for them). */
  busy: boolean;
  walFrames: number;
  checkpointed: number;
}

/** A WAL checkpointer over a connection of its own (see {@link createCheckpointer}). */
export interface Checkpointer {
  /** Copies what it can of the WAL into the database file, waiting for no lock. */
  checkpoint(): CheckpointResult;
  close(): void;
}

/**
 * Checkpoints of a SQLite file in WAL mode on a connection of their own, for a thread that does
 * nothing else. By default SQLite checkpoints inside the commit that takes the log past 1000 pages:
 * the committing thread copies the pages into the database file and syncs it, an HTTP request or a
 * worker round waiting meanwhile. With the storages' `walAutocheckpointPages` raised (a backstop)
 * and this run every few hundred milliseconds on its own thread, neither waits. A PASSIVE
 * checkpoint takes no lock that writers need: they go on appending to the log meanwhile, and the
 * log starts over from its beginning at the first commit after a complete checkpoint.
 */
export function createCheckpointer(filename: string): Checkpointer {
  const db = new Database(filename, { fileMustExist: true });
  const run = db.prepare<[], { busy: number; log: number; checkpointed: number }>('PRAGMA wal_checkpoint(PASSIVE)');
  return {
    checkpoint() {
      const row = run.get()!;
      return { busy: row.busy !== 0, walFrames: row.log, checkpointed: row.checkpointed };
    },
    close() {
      db.close();
    },
  };
}
