import { describe, expect, it } from 'vitest';
import { createNodeHasher } from './node-hasher.ts';

describe('createNodeHasher', () => {
  // A low cost keeps the test fast; the format and the checks are the same.
  const hasher = createNodeHasher({ N: 1024 });

  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hasher.hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(hash).not.toContain('correct horse');
    expect(await hasher.verifyPassword('correct horse', hash)).toBe(true);
    expect(await hasher.verifyPassword('correct horsf', hash)).toBe(false);
  });

  it("hashes at OWASP's scrypt cost by default (N=2^17, r=8, p=1)", async () => {
    const hash = await createNodeHasher().hashPassword('pw');
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true);
  });

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hasher.hashPassword('pw'), hasher.hashPassword('pw')]);
    expect(a).not.toBe(b);
  });

  it('verifies with the parameters stored in the hash and asks for weaker ones to be upgraded', async () => {
    const hash = await hasher.hashPassword('pw');
    const stronger = createNodeHasher({ N: 2048 });
    expect(await stronger.verifyPassword('pw', hash)).toBe(true);
    expect(stronger.needsRehash?.(hash)).toBe(true);
    expect(hasher.needsRehash?.(hash)).toBe(false);
    expect(stronger.needsRehash?.(await stronger.hashPassword('pw'))).toBe(false);
    expect(stronger.needsRehash?.('plain')).toBe(true);
  });

  it('refuses malformed hashes, and hashes of an absurd cost, instead of throwing', async () => {
    for (const bad of ['', 'plain', 'scrypt$x$8$1$AAAA$BBBB', 'bcrypt$1$2$3$4$5', 'scrypt$1024$8$1$AAAA$AAAA']) {
      expect(await hasher.verifyPassword('pw', bad)).toBe(false);
    }
    const huge = `scrypt$${2 ** 24}$8$1$AAAA$${Buffer.alloc(32).toString('base64')}`;
    expect(await hasher.verifyPassword('pw', huge)).toBe(false);
  });

  it('hashes keys with SHA-256 hex, deterministically', async () => {
    expect(await hasher.hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('runs password hashes one at a time on a bounded queue and refuses past it at once', async () => {
    const queue = createNodeHasher({ N: 4096, concurrency: 1, maxQueue: 3 });
    const hash = await queue.hashPassword('pw');
    const checks = [1, 2, 3, 4].map(() => queue.verifyPassword('nope', hash));
    expect(queue.queueStats()).toEqual({ active: 1, queued: 3 });
    const refused = queue.verifyPassword('nope', hash);
    await expect(refused).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
    // API keys never enter the queue: hashed now, while four scrypts are still waiting.
    expect(await queue.hashKey('abc')).toHaveLength(64);
    expect(queue.queueStats().active + queue.queueStats().queued).toBeGreaterThan(0);
    expect(await Promise.all(checks)).toEqual([false, false, false, false]);
  });
});
