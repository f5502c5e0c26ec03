/**
 * Hashes secrets for storage. Passwords use a slow KDF (scrypt in `@spillway/http`'s node
 * hasher); API keys a fast digest (SHA-256), since they are long random values.
 */
export interface PasswordHasher {
  hashPassword(password: string): Promise<string>;
  verifyPassword(password: string, hash: string): Promise<boolean>;
  /**
   * True when a stored hash was made with weaker parameters than the hasher's own: the engine then
   * re-hashes the password after the next successful login. Absent means never.
   */
  needsRehash?(hash: string): boolean;
  hashKey(key: string): Promise<string>;
}
