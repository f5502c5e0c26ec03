import type { AccountChannels, ChannelDriver, Storage } from '@spillway/core';

/** The configured accounts' drivers, and which logins have no account yet. */
export interface ConfiguredAccountChannels extends AccountChannels {
  /** The logins of `SPILLWAY_CONFIG` `accounts` that name no account (yet). */
  unknownLogins(): Promise<string[]>;
}

/**
 * The engine's `accountChannels` from `SPILLWAY_CONFIG`'s `accounts` section (drivers by login).
 * A login is matched to its account at the account's first attempt, not at start, so that an
 * account created later (admin API, `spillway accounts create`) gets its drivers without a
 * restart; logins are never changed, so the answer is kept for the life of the process.
 */
export function createConfiguredAccountChannels(
  byLogin: ReadonlyMap<string, readonly ChannelDriver[]>,
  storage: Pick<Storage, 'getAccount' | 'findAccountByLogin'>,
): ConfiguredAccountChannels {
  const known = new Map<number, Promise<readonly ChannelDriver[] | undefined>>();
  return {
    drivers: [...byLogin.values()].flat(),
    forAccount(accountId) {
      let found = known.get(accountId);
      if (!found) {
        found = storage.getAccount(accountId).then((account) => (account ? byLogin.get(account.login) : undefined));
        // A failed read is asked again at the next attempt rather than remembered.
        found.catch(() => known.delete(accountId));
        known.set(accountId, found);
      }
      return found;
    },
    async unknownLogins() {
      const unknown: string[] = [];
      for (const login of byLogin.keys()) if (!(await storage.findAccountByLogin(login))) unknown.push(login);
      return unknown;
    },
  };
}
