import type { Account, AccountChannels, ChannelContext, ChannelDriver, PendingAttempt, Storage } from '@spillway/core';
import { loginKey } from '@spillway/core/storage';

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
  /**
   * The drivers of the login that finds the account. Logins are one regardless of case: one
   * configured in another spelling is the account's when looking it up finds this account (not
   * so for an older account whose login differs only by case, kept from before).
   */
  const driversOf = async (account: Account): Promise<readonly ChannelDriver[] | undefined> => {
    const exact = byLogin.get(account.login);
    if (exact) return exact;
    for (const [login, drivers] of byLogin) {
      if (loginKey(login) === loginKey(account.login) && (await storage.findAccountByLogin(login))?.account.id === account.id)
        return drivers;
    }
    return undefined;
  };
  return {
    drivers: [...byLogin.values()].flat(),
    forAccount(accountId) {
      let found = known.get(accountId);
      if (!found) {
        found = storage.getAccount(accountId).then((account) => (account ? driversOf(account) : undefined));
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

/**
 * An account's driver whose incoming messages (an MO on the account's own bind, its Kannel's
 * `/mo`) go to that account, whoever else owns the alpha-name they were sent to. `accountId`
 * answers `undefined` while no account has the login: the message is then routed by its address.
 */
export function ownedByAccount(driver: ChannelDriver, accountId: () => Promise<number | undefined>): ChannelDriver {
  const own = (ctx: ChannelContext): ChannelContext => {
    const inbound = ctx.inbound;
    if (!inbound) return ctx;
    return {
      ...ctx,
      inbound: async (message) => {
        const id = message.accountId ?? (await accountId());
        return inbound(id === undefined ? message : { ...message, accountId: id });
      },
    };
  };
  return {
    ...driver,
    send: (attempt, ctx) => driver.send(attempt, own(ctx)),
    ...(driver.start ? { start: (ctx: ChannelContext) => driver.start!(own(ctx)) } : {}),
    ...(driver.recover ? { recover: (attempts: PendingAttempt[], ctx: ChannelContext) => driver.recover!(attempts, own(ctx)) } : {}),
    ...(driver.routes
      ? {
          routes: driver.routes.map((route) => ({
            ...route,
            handle: (request: Request, ctx: ChannelContext) => route.handle(request, own(ctx)),
          })),
        }
      : {}),
  };
}
