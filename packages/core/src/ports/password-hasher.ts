/**
 * Hashes secrets for storage. Passwords use a slow KDF (scrypt in `@spillway/http`'s node
 * hasher); API keys a fast digest (SHA-256), since they are long random values.
 */
export interface PasswordHasher {
  hashPassword(password: string): Promise<string>;
  verifyPassword(password: string, hash: string): Promise<boolean>;
  hashKey(key: string): Promise<string>;
}
