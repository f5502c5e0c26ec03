import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { PasswordHasher } from '@spillway/core';

/** scrypt cost parameters. */
export interface NodeHasherOptions {
  /** CPU/memory cost, a power of two. @default 16384 */
  N?: number;
  /** @default 8 */
  r?: number;
  /** @default 1 */
  p?: number;
}

const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/**
 * The Node implementation of core's `PasswordHasher`: passwords with scrypt and a random 16-byte
 * salt, stored as `scrypt$N$r$p$<salt base64>$<hash base64>` (parameters travel with the hash so
 * they can be raised later); API keys with SHA-256 hex (they are long random values, and the
 * lookup by key needs a deterministic digest).
 */
export function createNodeHasher(options: NodeHasherOptions = {}): PasswordHasher {
  const N = options.N ?? 16384;
  const r = options.r ?? 8;
  const p = options.p ?? 1;
  return {
    async hashPassword(password) {
      const salt = randomBytes(16);
      const hash = await scryptAsync(password, salt, N, r, p);
      return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
    },
    async verifyPassword(password, stored) {
      const parts = stored.split('$');
      if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
      const [hN, hr, hp] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
      if (![hN, hr, hp].every((v) => Number.isSafeInteger(v) && v > 0)) return false;
      const salt = Buffer.from(parts[4]!, 'base64');
      const expected = Buffer.from(parts[5]!, 'base64');
      if (expected.length !== KEY_LENGTH) return false;
      const actual = await scryptAsync(password, salt, hN, hr, hp);
      return timingSafeEqual(actual, expected);
    },
    async hashKey(key) {
      return createHash('sha256').update(key, 'utf8').digest('hex');
    },
  };
}
