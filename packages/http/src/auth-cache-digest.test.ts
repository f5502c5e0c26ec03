import type * as NodeCrypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';

// SHA-256 of "abc" (FIPS 180-2, appendix B.1).
const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('digestHex', () => {
  afterEach(() => {
    vi.doUnmock('node:crypto');
    vi.resetModules();
  });

  it("hashes with Node's one-shot crypto.hash", async () => {
    const { digestHex } = await import('./auth-cache.ts');
    expect(digestHex('abc')).toBe(ABC);
    expect(digestHex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes the same with createHash on a Node 20 without crypto.hash (before 20.12)', async () => {
    vi.resetModules();
    const createHash = vi.fn();
    vi.doMock('node:crypto', async (importOriginal) => {
      const real = await importOriginal<typeof NodeCrypto>();
      createHash.mockImplementation(real.createHash);
      return { ...real, hash: undefined, createHash };
    });
    const { digestHex } = await import('./auth-cache.ts');
    expect(digestHex('abc')).toBe(ABC);
    // Keys are UTF-8: a non-ASCII secret hashes as its UTF-8 bytes, as crypto.hash does.
    const real = await vi.importActual<typeof NodeCrypto>('node:crypto');
    expect(digestHex('sk_ключ_🔑')).toBe(real.hash('sha256', 'sk_ключ_🔑', 'hex'));
    expect(createHash).toHaveBeenCalledWith('sha256');
  });
});
