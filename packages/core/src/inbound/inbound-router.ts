import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import { hasAlphaNameDirectory } from '../ports/alpha-name-directory.ts';
import type { InboundReport } from '../ports/channel.ts';
import type { Storage } from '../ports/storage.ts';
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
 * account owning the alpha-name, preferring those approved on the channel. Nobody, or several
 * accounts alike, is an error: the driver refuses the message and the provider keeps it.
 */
export function createInboundRouter(deps: InboundRouterDeps) {
  const inbound = createInboundService({ storage: deps.storage, clock: deps.clock, ...(deps.onQueued ? { onQueued: deps.onQueued } : {}) });

  async function ownerOf(report: InboundReport): Promise<number> {
    if (report.accountId !== undefined) return report.accountId;
    if (!hasAlphaNameDirectory(deps.storage)) throw new SpillwayError('internal', 'this storage cannot find the owner of an alpha-name');
    const owners = await deps.storage.findAlphaNameOwners(report.alphaName);
    const onChannel = owners.filter((a) => a.channels.includes(report.channel));
    const candidates = onChannel.length > 0 ? onChannel : owners;
    if (candidates.length === 1) return candidates[0]!.accountId;
    if (candidates.length === 0) throw new SpillwayError('not_found', `no account owns the address "${report.alphaName}"`);
    throw new SpillwayError(
      'conflict',
      `${candidates.length} accounts own the address "${report.alphaName}": give each its own, or a per-account driver`,
    );
  }

  return async function receive(report: InboundReport): Promise<InboundReceipt> {
    const accountId = await ownerOf(report);
    return inbound.receive(accountId, { alphaName: report.alphaName, phoneNumber: report.phoneNumber, text: report.text });
  };
}
