import { SpillwayError } from '@spillway/core';
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

/** better-sqlite3's codes of a lock held past the busy timeout (the statement wrote nothing). */
const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']);

/** True for better-sqlite3's error on a database too busy to take the statement: the storage's `isBusy`. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && BUSY_CODES.has(code);
}

/** True for better-sqlite3's error on a UNIQUE or PRIMARY KEY constraint. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Runs `fn`, turning a UNIQUE or PRIMARY KEY violation into a `conflict` saying `message`. */
export function conflictOnUnique<T>(fn: () => T, message: string): T {
  try {
    return fn();
  } catch (error) {
    if (isUniqueViolation(error)) throw new SpillwayError('conflict', message);
    throw error;
  }
}
