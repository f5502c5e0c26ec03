import * as crypto from 'node:crypto';
import type { Account, Clock } from '@spillway/core';
import { LruMap } from '@spillway/core/adapter';

/**
 * A small LRU of successful authentications keyed by a digest of the credential headers.
 * scrypt costs hundreds of milliseconds by design, so verifying a password on each of 100+
 * requests a second would be the bottleneck; a hit skips it for `ttlMs`.
 *
 * Revocation: each entry remembers the storage's credential revision (`credentialRevision`, bumped
 * in the transaction of every key or token revocation and password change) read before it was
 * verified, and is used only while the revision is unchanged. So a revocation in any process
 * drops the cached entries everywhere, at the next request (`revocationCheckMs: 0`) or within
 * the check interval.
 */
export interface AuthCache {
  /** The credential revision now (re-read when the check interval has passed). */
  revision(): Promise<number>;
  /** The cached account, if it was verified under `revision`. */
  get(key: string, revision: number): Account | undefined;
  /**
   * Caches `account` for the cache's ttl, or only until `until` (ms) when that comes first: a
   * token's expiry, which a cached entry must not outlive.
   */
  set(key: string, account: Account, revision: number, until?: number): void;
  /** Drops everything, e.g. after a revocation in this process. */
  clear(): void;
}

export interface AuthCacheOptions {
  clock: Clock;
  /** @default 1000 */
  maxEntries?: number;
  /** @default 30000 */
  ttlMs?: number;
  /** Reads the storage's credential revision; without it entries live out their ttl. */
  readRevision?: () => Promise<number>;
  /**
   * How long a read revision is trusted. 0 reads it on every authenticated request (one primary-key
   * read: revocations take effect at once in every process); 1000 reads it once a second at most.
   * @default 0
   */
  revocationCheckMs?: number;
}

/** Creates an {@link AuthCache}; entries expire after `ttlMs` and the least recently used go first. */
export function createAuthCache(options: AuthCacheOptions): AuthCache {
  const { clock, readRevision } = options;
  const maxEntries = options.maxEntries ?? 1000;
  const ttlMs = options.ttlMs ?? 30_000;
  const checkMs = options.revocationCheckMs ?? 0;
  const entries = new LruMap<string, { account: Account; expiresAt: number; revision: number }>();
  let known = 0;
  let checkedAt = Number.NEGATIVE_INFINITY;

  return {
    async revision() {
      if (!readRevision) return known;
      const now = clock.now();
      if (checkMs > 0 && now - checkedAt < checkMs) return known;
      const read = await readRevision();
      checkedAt = now;
      if (read !== known) {
        known = read;
        entries.clear();
      }
      return known;
    },
    get(key, revision) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= clock.now() || entry.revision !== revision) {
        entries.delete(key);
        return undefined;
      }
      return entry.account;
    },
    set(key, account, revision, until) {
      const expiresAt = Math.min(clock.now() + ttlMs, until ?? Number.POSITIVE_INFINITY);
      entries.set(key, { account, expiresAt, revision });
      entries.trimTo(maxEntries);
    },
    clear() {
      entries.clear();
      // The next request reads the revision again, whatever the interval.
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}

// `crypto.hash` came with Node 20.12; an older Node 20 builds a Hash object (a namespace import,
// because a named import of a missing export would fail to link there).
const sha256Hex: (value: string) => string =
  typeof crypto.hash === 'function'
    ? (value) => crypto.hash('sha256', value, 'hex')
    : (value) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * SHA-256 hex of a string, computed synchronously with Node's one-shot `crypto.hash` (about 0.3 µs
 * for a key alone, less than half of `createHash`'s, which builds a Hash object). Web Crypto's
 * `digest` runs on libuv's thread pool in Node, where it would queue behind password hashing (an
 * API-key request must never wait for a scrypt), and a hash in JavaScript costs several times as
 * much CPU on every authenticated request.
 */
export function digestHex(value: string): string {
  return sha256Hex(value);
}
