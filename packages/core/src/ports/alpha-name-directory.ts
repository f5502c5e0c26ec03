import type { AlphaName } from '../types/account.ts';

/**
 * Who owns an alpha-name (or short code, or number): incoming messages from drivers name only the
 * address they were sent to. Both bundled adapters implement it.
 */
export interface AlphaNameDirectory {
  /** Every account's alpha-name of that exact name, oldest account first. */
  findAlphaNameOwners(name: string): Promise<AlphaName[]>;
}

/** True when a storage adapter implements {@link AlphaNameDirectory}. */
export function hasAlphaNameDirectory<S extends object>(storage: S): storage is S & AlphaNameDirectory {
  return typeof (storage as Record<string, unknown>)['findAlphaNameOwners'] === 'function';
}
