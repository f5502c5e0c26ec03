import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { SpillwayError } from '@spillway/core';
import type { PasswordHasher } from '@spillway/core';
import pLimit from 'p-limit';

/** scrypt cost parameters and the bounds of the password queue. */
export interface NodeHasherOptions {
  /** CPU/memory cost, a power of two (OWASP's minimum for scrypt). @default 131072 (2^17) */
  N?: number;
  /** @default 8 */
  r?: number;
  /** @default 1 */
  p?: number;
  /**
   * Password hashes computed at once. Each takes `128·N·r` bytes (128 MiB at the default) and one
   * thread of libuv's pool, so this also keeps threads free for everything else.
   * @default 1
   */
  concurrency?: number;
  /** Password hashes waiting for their turn before new ones are refused with a 429. @default 32 */
  maxQueue?: number;
}

/** What the password queue holds right now. */
export interface HashQueueStats {
  active: number;
  queued: number;
}

/** {@link PasswordHasher} with a view of its password queue. */
export interface NodeHasher extends PasswordHasher {
  queueStats(): HashQueueStats;
}

const KEY_LENGTH = 32;

/** scrypt needs `128·N·r·p` bytes and a little more; Node refuses above `maxmem`. */
const maxmemFor = (N: number, r: number, p: number): number => 128 * N * r * p + 128 * r * p * 2 + 32 * 1024 * 1024;

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: maxmemFor(N, r, p) }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** Reads `scrypt$N$r$p$<salt>$<hash>`; null for anything else. */
function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![N, r, p].every((v) => Number.isSafeInteger(v) && v > 0)) return null;
  // A hash naming a cost far above ours would take the queue hostage; it cannot be one of ours.
  if (N > 2 ** 20 || r > 32 || p > 16) return null;
  const hash = Buffer.from(parts[5]!, 'base64');
  if (hash.length !== KEY_LENGTH) return null;
  return { N, r, p, salt: Buffer.from(parts[4]!, 'base64'), hash };
}

/**
 * The Node implementation of core's `PasswordHasher`: passwords with scrypt at OWASP's cost and a
 * random 16-byte salt, stored as `scrypt$N$r$p$<salt base64>$<hash base64>` (the parameters travel
 * with the hash, so older hashes still verify and `needsRehash` tells which to upgrade); API keys
 * with SHA-256 hex, computed synchronously on the calling thread (they are long random values, and
 * the lookup by key needs a deterministic digest).
 *
 * Password hashing runs on a bounded queue (`concurrency` at once, `maxQueue` waiting): a spray of
 * logins can fill it but never libuv's whole thread pool, and API keys never enter it. A full queue
 * answers `rate_limited` at once instead of a slow 401.
 */
export function createNodeHasher(options: NodeHasherOptions = {}): NodeHasher {
  const N = options.N ?? 2 ** 17;
  const r = options.r ?? 8;
  const p = options.p ?? 1;
  const maxQueue = options.maxQueue ?? 32;
  const limit = pLimit(options.concurrency ?? 1);

  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    if (limit.pendingCount >= maxQueue) {
      return Promise.reject(new SpillwayError('rate_limited', 'Too many password checks are waiting; retry shortly, or use an API key'));
    }
    return limit(work);
  };

  return {
    hashPassword(password) {
      return queued(async () => {
        const salt = randomBytes(16);
        const hash = await scryptAsync(password, salt, N, r, p);
        return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
      });
    },
    async verifyPassword(password, stored) {
      const parsed = parseHash(stored);
      if (!parsed) return false;
      const actual = await queued(() => scryptAsync(password, parsed.salt, parsed.N, parsed.r, parsed.p));
      return timingSafeEqual(actual, parsed.hash);
    },
    needsRehash(stored) {
      const parsed = parseHash(stored);
      return !parsed || parsed.N < N || parsed.r < r || parsed.p < p;
    },
    async hashKey(key) {
      return createHash('sha256').update(key, 'utf8').digest('hex');
    },
    queueStats: () => ({ active: limit.activeCount, queued: limit.pendingCount }),
  };
}
