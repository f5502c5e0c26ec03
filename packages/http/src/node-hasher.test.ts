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

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hasher.hashPassword('pw'), hasher.hashPassword('pw')]);
    expect(a).not.toBe(b);
  });

  it('verifies with the parameters stored in the hash', async () => {
    const hash = await hasher.hashPassword('pw');
    expect(await createNodeHasher({ N: 2048 }).verifyPassword('pw', hash)).toBe(true);
  });

  it('refuses malformed hashes instead of throwing', async () => {
    for (const bad of ['', 'plain', 'scrypt$x$8$1$AAAA$BBBB', 'bcrypt$1$2$3$4$5', 'scrypt$1024$8$1$AAAA$AAAA']) {
      expect(await hasher.verifyPassword('pw', bad)).toBe(false);
    }
  });

  it('hashes keys with SHA-256 hex, deterministically', async () => {
    expect(await hasher.hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
