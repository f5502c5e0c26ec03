import type { ChannelDriver } from '../ports/channel.ts';
import type { ChannelId } from '../types/channel.ts';

/**
 * Accounts' own drivers (`EngineOptions.accountChannels`): an account's own SMPP bind or Kannel
 * account, used for its attempts instead of the server-wide driver of the channel.
 *
 * @example
 * const acmeSms = createSmppDriver({ name: 'acme-smpp', host: 'smsc.acme.example', systemId: 'acme', password });
 * createEngine({
 *   storage, hasher, channels: [createSimulator()],
 *   accountChannels: { drivers: [acmeSms], forAccount: (id) => (id === acmeId ? [acmeSms] : undefined) },
 * });
 */
export interface AccountChannels {
  /**
   * Every driver that serves some account, each once, whatever account it serves: the engine
   * starts them with its own (a bind brings held receipts before any send), hands them the
   * attempts to recover after a restart, and closes them. Their names must differ from each other
   * and from the server-wide drivers': receipts are matched to attempts by driver name.
   */
  readonly drivers: readonly ChannelDriver[];
  /**
   * The account's own drivers (one per channel it overrides), or `undefined` when the server-wide
   * drivers serve it. Called when an attempt of the account is due; may look the account up
   * (async), and should remember its answer: it is asked again for every attempt.
   */
  forAccount(accountId: number): readonly ChannelDriver[] | undefined | Promise<readonly ChannelDriver[] | undefined>;
}

/** The engine's side of {@link AccountChannels}: the driver an account's attempt goes through, if it has its own. */
export interface AccountDriverLookup {
  /** The account's own driver for `channel`, or `undefined` (the server-wide driver then serves it). */
  driverFor(accountId: number, channel: ChannelId): Promise<ChannelDriver | undefined>;
  /** Every account driver, started, recovered and closed with the server-wide ones. */
  readonly drivers: readonly ChannelDriver[];
}

/** Wraps {@link AccountChannels} for the worker; `undefined` without account drivers (the hot path stays as it was). */
export function createAccountDriverLookup(accountChannels: AccountChannels | undefined): AccountDriverLookup | undefined {
  if (!accountChannels) return undefined;
  return {
    drivers: accountChannels.drivers,
    async driverFor(accountId, channel) {
      const own = await accountChannels.forAccount(accountId);
      // The last driver naming the channel wins, as with the engine's `channels`.
      return own?.findLast((d) => d.channels.includes(channel));
    },
  };
}
