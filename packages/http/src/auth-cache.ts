import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Account, Clock } from '@spillway/core';

/**
 * A small LRU of successful authentications keyed by a digest of the credential headers.
 * scrypt costs tens of milliseconds by design, so verifying a password on each of 100+
 * requests a second would be the bottleneck; a hit skips it for `ttlMs`.
 */
export interface AuthCache {
  get(key: string): Account | undefined;
  set(key: string, account: Account): void;
  clear(): void;
}

export interface AuthCacheOptions {
  clock: Clock;
  /** @default 1000 */
  maxEntries?: number;
  /** @default 30000 */
  ttlMs?: number;
}

/** Creates an {@link AuthCache}; entries expire after `ttlMs` and the least recently used go first. */
export function createAuthCache(options: AuthCacheOptions): AuthCache {
  const { clock } = options;
  const maxEntries = options.maxEntries ?? 1000;
  const ttlMs = options.ttlMs ?? 30_000;
  const entries = new Map<string, { account: Account; expiresAt: number }>();

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= clock.now()) return undefined;
      entries.set(key, entry);
      return entry.account;
    },
    set(key, account) {
      entries.delete(key);
      entries.set(key, { account, expiresAt: clock.now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
    },
    clear: () => entries.clear(),
  };
}

/**
 * SHA-256 hex of a string, computed synchronously in JavaScript (`@noble/hashes`). Web Crypto's
 * `digest` runs on libuv's thread pool in Node, where it would queue behind password hashing: an
 * API-key request must never wait for a scrypt.
 */
export function digestHex(value: string): string {
  return bytesToHex(sha256(utf8ToBytes(value)));
}
