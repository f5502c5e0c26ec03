import type { Clock } from '@spillway/core';

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

/**
 * Creates a {@link LoginGuard}. An attempt is counted as a failure when it is admitted (before its
 * scrypt runs), so that concurrent guesses are limited as well as sequential ones; a success
 * gives it back. Past the free failures, each failure locks the login (or address) for a delay
 * that doubles each time, up to `maxDelayMs`; attempts during a lock are refused at once, without
 * hashing anything. Time comes from the injected clock.
 */
export function createLoginGuard(clock: Clock, limits: LoginLimits = {}): LoginGuard {
  const freeLogin = limits.freeFailuresPerLogin ?? 5;
  const freeAddress = limits.freeFailuresPerAddress ?? 20;
  const base = limits.baseDelayMs ?? 1000;
  const maxDelay = limits.maxDelayMs ?? 300_000;
  const forgetAfter = limits.forgetAfterMs ?? 900_000;
  const maxEntries = limits.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();

  const entryOf = (key: string, now: number): Entry => {
    let entry = entries.get(key);
    entries.delete(key);
    if (!entry || (now - entry.lastAt > forgetAfter && entry.lockedUntil <= now)) entry = { failures: 0, lockedUntil: 0, lastAt: now };
    entries.set(key, entry);
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
    return entry;
  };

  const lock = (entry: Entry, free: number, now: number): void => {
    const over = entry.failures - free;
    if (over > 0) entry.lockedUntil = Math.max(entry.lockedUntil, now + Math.min(maxDelay, base * 2 ** Math.min(over - 1, 30)));
  };

  const fail = (entry: Entry, free: number, now: number): void => {
    entry.failures++;
    entry.lastAt = now;
    lock(entry, free, now);
  };

  const giveBack = (key: string, free: number): void => {
    const entry = entries.get(key);
    if (!entry) return;
    entry.failures = Math.max(0, entry.failures - 1);
    if (entry.failures <= free) entry.lockedUntil = 0;
  };

  return {
    admit(login, address) {
      const now = clock.now();
      const loginKey = `l\0${login}`;
      const addressKey = address === undefined ? undefined : `a\0${address}`;
      const byLogin = entryOf(loginKey, now);
      const byAddress = addressKey === undefined ? undefined : entryOf(addressKey, now);
      const lockedUntil = Math.max(byLogin.lockedUntil, byAddress?.lockedUntil ?? 0);
      if (lockedUntil > now) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((lockedUntil - now) / 1000)) };
      fail(byLogin, freeLogin, now);
      if (byAddress) fail(byAddress, freeAddress, now);
      let settled = false;
      const settle = (outcome: 'succeeded' | 'failed' | 'cancelled') => {
        if (settled) return;
        settled = true;
        switch (outcome) {
          case 'failed': {
            // A check takes a while (scrypt): the wait starts once the failure is known.
            const at = clock.now();
            lock(byLogin, freeLogin, at);
            if (byAddress) lock(byAddress, freeAddress, at);
            return;
          }
          case 'succeeded':
            entries.delete(loginKey);
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
