import type Database from 'better-sqlite3';

/** Computes a value on first call and answers the same value afterwards. */
export function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

/** True for better-sqlite3's error on a UNIQUE or PRIMARY KEY constraint. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Answers of {@link perTurn}: `get` reads through the memo, `clear` forgets it (after a write). */
export interface PerTurnMemo<K, V> {
  get(key: K): V;
  clear(): void;
}

/**
 * Memoizes a read for the rest of the current turn of the event loop: the requests that arrived
 * together (and are handled in the same turn's I/O callbacks) share one read, and the memo is
 * forgotten before the next turn (`setImmediate`), so a change committed by another connection
 * or process before a turn began is seen by every read of that turn. Nothing is kept while a
 * transaction is open (it could be rolled back); a writer on this handle calls `clear`.
 */
export function perTurn<K, V>(db: Database.Database, read: (key: K) => V): PerTurnMemo<K, V> {
  let memo: Map<K, V> | null = null;
  return {
    get(key) {
      if (db.inTransaction) return read(key);
      if (memo?.has(key)) return memo.get(key) as V;
      const value = read(key);
      if (!memo) {
        const turn = (memo = new Map());
        setImmediate(() => {
          if (memo === turn) memo = null;
        });
      }
      memo.set(key, value);
      return value;
    },
    clear() {
      memo = null;
    },
  };
}
