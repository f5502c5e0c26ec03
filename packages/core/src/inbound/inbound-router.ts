import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import { hasAlphaNameDirectory } from '../ports/alpha-name-directory.ts';
import type { InboundReport } from '../ports/channel.ts';
import type { Storage } from '../ports/storage.ts';
import { addressSpellings, senderNumber } from './inbound-address.ts';
import { createInboundService } from './inbound-service.ts';
import type { InboundReceipt } from './inbound-service.ts';

export interface InboundRouterDeps {
  storage: Storage;
  clock: Clock;
  /** Called after a webhook delivery was queued, to wake a delivery worker. */
  onQueued?: () => void;
}

/**
 * Incoming messages reported by drivers (a Kannel MO, an SMPP `deliver_sm` that is not a receipt):
 * each goes to the account that owns the address it was sent to, and from there the way of every
 * incoming message (section 6): recorded with its webhook to the alpha-name's callback URL in one
 * transaction, so the returned promise resolving means it is durable and the driver may
 * acknowledge it. The account is the one the driver names (a per-account bind), else the only
 * account owning the alpha-name, preferring those approved on the channel. A number is found however
 * the driver spells it (`+`, `00` or bare digits, see {@link addressSpellings}), once here for every
 * driver; the exact spelling is preferred. The sender's number is read with `00` for `+` too, and
 * in the driver's country when it is in national format ({@link senderNumber}). Its text may be
 * empty (a phone can send an empty SMS). Nobody, or several accounts alike, is an error: the
 * driver refuses the message and the provider keeps it. A message that can never be taken (a
 * sender that is no number, or in national format with no country to read it in; a text over
 * 4096 characters) is `validation_failed`: the driver acknowledges and drops it (see
 * `ChannelContext.inbound`).
 */
export function createInboundRouter(deps: InboundRouterDeps) {
  const inbound = createInboundService({ storage: deps.storage, clock: deps.clock, ...(deps.onQueued ? { onQueued: deps.onQueued } : {}) });

  /** The account an incoming message goes to, and its alpha-name as approved (see {@link addressSpellings}). */
  async function ownerOf(report: InboundReport): Promise<{ accountId: number; alphaName: string }> {
    const spellings = addressSpellings(report.alphaName);
    if (report.accountId !== undefined) {
      for (const name of spellings) {
        const own = await deps.storage.getAlphaName(report.accountId, name);
        if (own) return { accountId: report.accountId, alphaName: own.name };
      }
      // Not the account's: the inbound service refuses it (404).
      return { accountId: report.accountId, alphaName: report.alphaName };
    }
    if (!hasAlphaNameDirectory(deps.storage)) throw new SpillwayError('internal', 'this storage cannot find the owner of an alpha-name');
    const directory = deps.storage;
    // The address as sent first, as it always was; its other spellings only when nobody owns it.
    const [exact, ...others] = spellings as [string, ...string[]];
    let owners = await directory.findAlphaNameOwners(exact);
    if (owners.length === 0) owners = (await Promise.all(others.map((name) => directory.findAlphaNameOwners(name)))).flat();
    const onChannel = owners.filter((a) => a.channels.includes(report.channel));
    // An account owning two spellings of a number is one owner: the first spelling names it.
    const byAccount = new Map<number, string>();
    for (const a of onChannel.length > 0 ? onChannel : owners) if (!byAccount.has(a.accountId)) byAccount.set(a.accountId, a.name);
    const candidates = [...byAccount];
    if (candidates.length === 1) return { accountId: candidates[0]![0], alphaName: candidates[0]![1] };
    if (candidates.length === 0) throw new SpillwayError('not_found', `no account owns the address "${report.alphaName}"`);
    throw new SpillwayError(
      'conflict',
      `${candidates.length} accounts own the address "${report.alphaName}": give each its own, or a per-account driver`,
    );
  }

  return async function receive(report: InboundReport): Promise<InboundReceipt> {
    const { accountId, alphaName } = await ownerOf(report);
    return inbound.receive(accountId, { alphaName, phoneNumber: senderNumber(report), text: report.text }, 'driver');
  };
}
