import type { Clock } from '@spillway/core';
import { oldestFirst, SharedRecords } from '@spillway/core/adapter';

/** Limits of failed password logins, per login and per client address. */
export interface LoginLimits {
  /** Failures of one login before each further attempt waits. @default 5 */
  freeFailuresPerLogin?: number;
  /** Failures from one client address (any logins) before each further attempt waits. @default 20 */
  freeFailuresPerAddress?: number;
  /** The first wait; each further failure doubles it. @default 1000 */
  baseDelayMs?: number;
  /** The longest wait. @default 300000 (5 min) */
  maxDelayMs?: number;
  /** A login or address without a failure for this long starts afresh. @default 900000 (15 min) */
  forgetAfterMs?: number;
  /** Logins and addresses remembered; the least recently seen go first. @default 10000 */
  maxEntries?: number;
}

/** A password attempt that was let through: say how it ended. */
export interface LoginAttempt {
  /** The password was wrong: the lock it started runs from now, not from when it was admitted. */
  failed(): void;
  /** The password was right: the login starts afresh and the address gets its failure back. */
  succeeded(): void;
  /** The attempt was not checked at all (the hashing queue was full): forget it. */
  cancelled(): void;
}

/** The answer of {@link LoginGuard.admit}: an attempt, or how long to wait. */
export type LoginAdmission = { ok: true; attempt: LoginAttempt } | { ok: false; retryAfterSeconds: number };

/** Counts failed password logins and makes them wait, growing, before the slow hash is run. */
export interface LoginGuard {
  admit(login: string, address: string | undefined): LoginAdmission;
}

interface Entry {
  failures: number;
  lockedUntil: number;
  lastAt: number;
}

/** A login's or address's failures and lock: in this guard's memory, or in a buffer threads share. */
interface EntryStore {
  /** Runs `fn` on the entry of `key` (a new one when there is none or it was forgotten at `now`), made the most recent. */
  use<T>(key: string, now: number, fn: (entry: Entry) => T): T;
  /** Runs `fn` on the entry of `key` if there is one; makes none. */
  peek(key: string, fn: (entry: Entry) => void): void;
  delete(key: string): void;
}

/** Fields of an entry in a shared buffer: failures, lockedUntil, lastAt. */
const ENTRY_FIELDS = 3;

/** A buffer for the entries of login guards that share them ({@link createLoginGuard}'s `shared`), `maxEntries` of them. */
export function sharedLoginGuardBuffer(maxEntries = 10_000): SharedArrayBuffer {
  return SharedRecords.buffer(maxEntries, ENTRY_FIELDS);
}

function memoryStore(maxEntries: number, forgotten: (entry: Entry, now: number) => boolean): EntryStore {
  const entries = new Map<string, Entry>();
  const oldest = oldestFirst(entries);
  return {
    use(key, now, fn) {
      let entry = entries.get(key);
      entries.delete(key);
      if (!entry || forgotten(entry, now)) entry = { failures: 0, lockedUntil: 0, lastAt: now };
      entries.set(key, entry);
      oldest.trimTo(maxEntries);
      return fn(entry);
    },
    peek(key, fn) {
      const entry = entries.get(key);
      if (entry) fn(entry);
    },
    delete: (key) => void entries.delete(key),
  };
}

function sharedStore(buffer: SharedArrayBuffer, forgotten: (entry: Entry, now: number) => boolean): EntryStore {
  const scratch: Entry = { failures: 0, lockedUntil: 0, lastAt: 0 };
  const read = (values: Float64Array, at: number): Entry => {
    scratch.failures = values[at]!;
    scratch.lockedUntil = values[at + 1]!;
    scratch.lastAt = values[at + 2]!;
    return scratch;
  };
  const write = (values: Float64Array, at: number) => {
    values[at] = scratch.failures;
    values[at + 1] = scratch.lockedUntil;
    values[at + 2] = scratch.lastAt;
  };
  // A forgotten entry equals a new one: its slot may go to another key.
  const records = new SharedRecords(buffer, ENTRY_FIELDS, (values, at, now) => forgotten(read(values, at), now));
  return {
    use(key, now, fn) {
      return records.update(
        key,
        now,
        (values, at) => {
          values[at] = 0;
          values[at + 1] = 0;
          values[at + 2] = now;
        },
        ({ values, at }) => {
          const answer = fn(read(values, at));
          write(values, at);
          return answer;
        },
      );
    },
    peek(key, fn) {
      records.peek(key, (record) => {
        if (!record) return;
        fn(read(record.values, record.at));
        write(record.values, record.at);
      });
    },
    // Forgotten at once: no failures, no lock, last seen at the dawn of time.
    delete(key) {
      records.peek(key, (record) => {
        if (!record) return;
        record.values[record.at] = 0;
        record.values[record.at + 1] = 0;
        record.values[record.at + 2] = -Infinity;
      });
    },
  };
}

/**
 * Creates a {@link LoginGuard}. An attempt is counted as a failure when it is admitted (before its
 * scrypt runs), so that concurrent guesses are limited as well as sequential ones; a success
 * gives it back. Past the free failures, each failure locks the login (or address) for a delay
 * that doubles each time, up to `maxDelayMs`; attempts during a lock are refused at once, without
 * hashing anything. Time comes from the injected clock.
 *
 * With `shared` (a buffer of {@link sharedLoginGuardBuffer}), the counts live in that buffer, so
 * that guards of several threads serving one API count every attempt, whichever thread takes it;
 * its size bounds the entries (`maxEntries` is then ignored).
 */
export function createLoginGuard(clock: Clock, limits: LoginLimits = {}, shared?: SharedArrayBuffer): LoginGuard {
  const freeLogin = limits.freeFailuresPerLogin ?? 5;
  const freeAddress = limits.freeFailuresPerAddress ?? 20;
  const base = limits.baseDelayMs ?? 1000;
  const maxDelay = limits.maxDelayMs ?? 300_000;
  const forgetAfter = limits.forgetAfterMs ?? 900_000;
  const forgotten = (entry: Entry, now: number) => now - entry.lastAt > forgetAfter && entry.lockedUntil <= now;
  const store = shared ? sharedStore(shared, forgotten) : memoryStore(limits.maxEntries ?? 10_000, forgotten);

  const lock = (entry: Entry, free: number, now: number): void => {
    const over = entry.failures - free;
    if (over > 0) entry.lockedUntil = Math.max(entry.lockedUntil, now + Math.min(maxDelay, base * 2 ** Math.min(over - 1, 30)));
  };

  const fail = (entry: Entry, free: number, now: number): void => {
    entry.failures++;
    entry.lastAt = now;
    lock(entry, free, now);
  };

  const giveBack = (key: string, free: number): void =>
    store.peek(key, (entry) => {
      entry.failures = Math.max(0, entry.failures - 1);
      if (entry.failures <= free) entry.lockedUntil = 0;
    });

  return {
    admit(login, address) {
      const now = clock.now();
      const loginKey = `l\0${login}`;
      const addressKey = address === undefined ? undefined : `a\0${address}`;
      const lockedUntil = Math.max(
        store.use(loginKey, now, (entry) => entry.lockedUntil),
        addressKey === undefined ? 0 : store.use(addressKey, now, (entry) => entry.lockedUntil),
      );
      if (lockedUntil > now) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((lockedUntil - now) / 1000)) };
      store.use(loginKey, now, (entry) => fail(entry, freeLogin, now));
      if (addressKey !== undefined) store.use(addressKey, now, (entry) => fail(entry, freeAddress, now));
      let settled = false;
      const settle = (outcome: 'succeeded' | 'failed' | 'cancelled') => {
        if (settled) return;
        settled = true;
        switch (outcome) {
          case 'failed': {
            // A check takes a while (scrypt): the wait starts once the failure is known.
            const at = clock.now();
            store.peek(loginKey, (entry) => lock(entry, freeLogin, at));
            if (addressKey !== undefined) store.peek(addressKey, (entry) => lock(entry, freeAddress, at));
            return;
          }
          case 'succeeded':
            store.delete(loginKey);
            break;
          case 'cancelled':
            giveBack(loginKey, freeLogin);
            break;
        }
        if (addressKey !== undefined) giveBack(addressKey, freeAddress);
      };
      return {
        ok: true,
        attempt: { succeeded: () => settle('succeeded'), failed: () => settle('failed'), cancelled: () => settle('cancelled') },
      };
    },
  };
}
