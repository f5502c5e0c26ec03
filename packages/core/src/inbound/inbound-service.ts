import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import type { AccountStorage } from '../ports/account-storage.ts';
import type { InboundMessage, InboundStorage, WebhookDelivery } from '../ports/inbound-storage.ts';
import { parseInboundRequest } from './inbound-request.ts';
import type { InboundSource } from './inbound-request.ts';
import { inboundPayloadOf } from './webhook-payload.ts';
import type { InboundPayload } from './webhook-payload.ts';
import { storableCalls } from '../validation/storable-calls.ts';

/** What receiving an incoming message answers: the callback body and whether a webhook is queued. */
export interface InboundReceipt extends InboundPayload {
  /** `queued` when the alpha-name has a callback URL, `no_callback` otherwise. */
  delivery: 'queued' | 'no_callback';
}

/** An incoming message with the state of its webhook delivery. */
export interface InboundRecord extends InboundPayload {
  delivery:
    | (Pick<WebhookDelivery, 'status' | 'attempts' | 'lastError' | 'url'> & { nextAttemptAt: string | null; deliveredAt: string | null })
    | null;
}

/** Dependencies of {@link createInboundService}. */
export interface InboundServiceDeps {
  storage: AccountStorage & InboundStorage;
  clock: Clock;
  /** @default crypto.randomUUID (Web Crypto: browsers and Node alike) */
  newId?: () => string;
  /** Called after a delivery was queued, to wake a delivery worker. */
  onQueued?: () => void;
}

/**
 * Incoming chat-app messages: records one (which opens the chat-app session cascades check) and
 * queues its signed webhook to the alpha-name's callback URL in the same transaction.
 *
 * @example
 * const inbound = createInboundService({ storage, clock });
 * await inbound.receive(account.id, { alphaName: 'Shop', phoneNumber: '79991234567', text: 'hi' });
 */
export function createInboundService(deps: InboundServiceDeps) {
  const newId = deps.newId ?? (() => globalThis.crypto.randomUUID());

  // Every call is looked through before it runs, as the engine's own services are.
  return storableCalls({
    /**
     * Validates `body` (`{ alphaName, phoneNumber, text }`), records it and queues its webhook.
     * `from` a driver, the text may be empty (see {@link InboundSource}).
     */
    async receive(accountId: number, body: unknown, from: InboundSource = 'client'): Promise<InboundReceipt> {
      const request = parseInboundRequest(body, from);
      const alpha = await deps.storage.getAlphaName(accountId, request.alphaName);
      if (!alpha) throw new SpillwayError('not_found', `The account has no alpha-name '${request.alphaName}'`);
      const now = deps.clock.now();
      const inbound: InboundMessage = {
        idUuid: newId(),
        accountId,
        alphaName: alpha.name,
        phoneNumber: request.phoneNumber,
        text: request.text,
        receivedAt: now,
      };
      const url = alpha.callbackUrl;
      await deps.storage.recordInbound(inbound, url ? { url, dueAt: now } : null);
      if (url) deps.onQueued?.();
      return { ...inboundPayloadOf(inbound), delivery: url ? 'queued' : 'no_callback' };
    },

    /** The account's incoming message with its delivery state; 404 for an unknown id. */
    async get(accountId: number, idUuid: string): Promise<InboundRecord> {
      const found = await deps.storage.getInbound(accountId, idUuid);
      if (!found) throw new SpillwayError('not_found', `No incoming message '${idUuid}' on this account`);
      const d = found.delivery;
      return {
        ...inboundPayloadOf(found.inbound),
        delivery: d
          ? {
              url: d.url,
              status: d.status,
              attempts: d.attempts,
              lastError: d.lastError,
              nextAttemptAt: d.status === 'pending' ? new Date(d.dueAt).toISOString() : null,
              deliveredAt: d.deliveredAt === null ? null : new Date(d.deliveredAt).toISOString(),
            }
          : null,
      };
    },
  });
}

/** The service {@link createInboundService} answers. */
export type InboundService = ReturnType<typeof createInboundService>;
