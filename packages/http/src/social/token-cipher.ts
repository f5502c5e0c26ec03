import { SpillwayError } from '@spillway/core';

/** Encrypts and decrypts stored tokens with AES-256-GCM; the format is `v1.<iv>.<ciphertext+tag>` in base64url. */
export interface TokenCipher {
  encrypt(plain: string): Promise<string>;
  decrypt(sealed: string): Promise<string>;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * A cipher over a 32-byte key given as base64 or hex (`SPILLWAY_SOCIAL_TOKEN_KEY`), so that a
 * copy of the database alone does not disclose the platform tokens.
 */
export function createTokenCipher(key: string): TokenCipher {
  const raw = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
  if (raw.length !== 32) throw new Error('the token key must be 32 bytes, as 64 hex digits or base64');
  const cryptoKey = globalThis.crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
  return {
    async encrypt(plain) {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
      const sealed = await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await cryptoKey, new TextEncoder().encode(plain));
      return `v1.${b64url(iv)}.${b64url(new Uint8Array(sealed))}`;
    },
    async decrypt(sealed) {
      const [version, iv, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !data) throw new SpillwayError('internal', 'unreadable stored token');
      const plain = await globalThis.crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: Buffer.from(iv, 'base64url') },
        await cryptoKey,
        Buffer.from(data, 'base64url'),
      );
      return new TextDecoder().decode(plain);
    },
  };
}
