const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A random short-link code (`GET /s/{code}`): 8 base-62 characters, about 47 bits, from the
 * platform's CSPRNG (Web Crypto, present in Node 20 and browsers), so codes cannot be guessed.
 * @default length 8
 */
export function newShortCode(length = 8): string {
  const bytes = new Uint8Array(length * 2);
  globalThis.crypto.getRandomValues(bytes);
  let code = '';
  // Rejection sampling keeps every character equally likely (248 = 4 * 62).
  for (const byte of bytes) {
    if (byte < 248) code += ALPHABET[byte % 62];
    if (code.length === length) return code;
  }
  return code + newShortCode(length - code.length);
}
