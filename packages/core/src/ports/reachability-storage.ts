import type { ChannelId } from '../types/channel.ts';
import type { ReachabilityKey, UnreachableEntry } from '../types/reachability.ts';

/**
 * The reachability memory's records. Passes `runReachabilityStorageContract` from
 * `@spillway/core/testing`; both bundled adapters implement it.
 */
export interface ReachabilityStorage {
  /** Creates or replaces the entry of each (account, phone, channel); a later `at` wins. */
  rememberUnreachable(entries: UnreachableEntry[]): Promise<void>;
  /** The entries among `keys` that have not expired at `now` (one query for a whole round). */
  findUnreachable(keys: ReachabilityKey[], now: number): Promise<UnreachableEntry[]>;
  /** The unexpired entries of one number of one account, by channel. */
  listUnreachable(accountId: number, phoneNumber: string, now: number): Promise<UnreachableEntry[]>;
  /** Forgets the number's entries (of one channel, or all); answers how many were removed. */
  clearUnreachable(accountId: number, phoneNumber: string, channel?: ChannelId): Promise<number>;
  /** Removes entries expired before `now`; answers how many. */
  pruneUnreachable(now: number): Promise<number>;
}

const METHODS = ['rememberUnreachable', 'findUnreachable', 'listUnreachable', 'clearUnreachable', 'pruneUnreachable'] as const;

/** True when a storage adapter implements {@link ReachabilityStorage} (both bundled adapters do). */
export function hasReachabilityStorage<S extends object>(storage: S): storage is S & ReachabilityStorage {
  return METHODS.every((m) => typeof (storage as Record<string, unknown>)[m] === 'function');
}
