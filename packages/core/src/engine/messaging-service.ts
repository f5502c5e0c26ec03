import type { Clock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { messageMachine } from '../machines/message-machine.ts';
import type { AttemptDraft, ValidatedMessage } from '../messages/send-request.ts';
import { priceAttempt } from '../pricing/price-attempt.ts';
import type { RateCard } from '../pricing/rate-card.ts';
import type { IngestBatch, NewMessage } from '../ports/message-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { SendResponse, SentMessage } from '../types/api.ts';
import type { MessageStatusView, StepSpec, StoredMessage } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';
import type { MachineAdvancer } from './advance.ts';
import type { MessagingService } from './engine-types.ts';
import type { KindHandler, KindMachine } from './kind-handler.ts';
import { buildStatusRecord } from './status-record.ts';
import { validateSendRequest } from './validate-send.ts';
import { fromMicros } from './money.ts';
import { applyMessagePatch } from './message-patch.ts';
import { fillMessageTexts } from '../clients/phone-data-texts.ts';
import { createIngestGroup, type HandOver } from './ingest-group.ts';
import { isoTime } from '../iso-time.ts';

const MACHINE_KEY = 'message';

export interface MessagingDeps {
  storage: Storage;
  clock: Clock;
  rateCard: RateCard;
  advancer: MachineAdvancer;
  /** Called after new work was stored, to wake the workers, with the messages handed over to each worker. */
  notify: (handedOver?: readonly HandOver[]) => void;
  /** The hand-over lease of an ingest at `at`, if accepted messages go leased to a worker. */
  lease?: (at: number) => IngestBatch['lease'];
}

const MESSAGE_MACHINE: KindMachine = { key: MACHINE_KEY, machine: messageMachine };

/** How messaging API messages run: the message machine; fallbacks are charged when used. Both answer at once. */
export function messageKindHandler(): KindHandler {
  return {
    machineFor: () => MESSAGE_MACHINE,
    prepareSend(message, step) {
      // The primary was charged at acceptance; a fallback is charged when it is used.
      const cost = message.steps[step]?.cost ?? 0;
      if (step === 0 || cost === 0) return {};
      return { charge: { amount: cost, description: `fallback ${step} of message ${message.id}` } };
    },
  };
}

function sentMessage(id: number, steps: StepSpec[], customerMessageId: string | null, expiresAt: number | null): SentMessage {
  const primary = steps[0]!;
  return {
    messageId: id,
    from: primary.from,
    to: primary.to,
    text: primary.text,
    dtExpire: expiresAt === null ? null : isoTime(expiresAt),
    customerMessageId,
    partsCount: primary.partsCount,
    type: primary.type,
  };
}

/**
 * The 409 of a request whose `customerMessageId`s conflict (the `indexes` storage answered): one
 * given twice in the request, or already used with other content. Each detail and the message say
 * which, so that a client retrying the same request is not told its content changed.
 */
function customerMessageIdConflict(messages: readonly ValidatedMessage[], indexes: readonly number[]): SpillwayError {
  // The first two positions of each id: each repeated one is told another (not all: 5000 alike).
  const positions = new Map<string, number[]>();
  messages.forEach((m, i) => {
    if (m.customerMessageId === null) return;
    const seen = positions.get(m.customerMessageId);
    if (!seen) positions.set(m.customerMessageId, [i]);
    else if (seen.length < 2) seen.push(i);
  });
  let repeated = 0;
  const details: ErrorDetail[] = indexes.map((i) => {
    const other = positions.get(messages[i]?.customerMessageId ?? '')?.find((j) => j !== i);
    if (other !== undefined) repeated++;
    return {
      path: `messages[${i}].customerMessageId`,
      message:
        other !== undefined
          ? `this customerMessageId appears again at messages[${other}]`
          : 'this customerMessageId was already used with other content',
    };
  });
  const message =
    repeated === 0
      ? 'customerMessageId reused with other content'
      : repeated === details.length
        ? 'customerMessageId appears more than once in this request'
        : 'customerMessageId reused with other content, or appearing more than once in this request';
  return new SpillwayError('conflict', message, details);
}

/** The messaging API: accept whole requests, read status, change or cancel scheduled messages. */
export function createMessagingService(deps: MessagingDeps): MessagingService {
  const { storage, clock, rateCard, advancer } = deps;
  // Requests accepted in the same turn share one transaction, and the workers one wake-up.
  const group = createIngestGroup(storage, deps.notify);

  /**
   * The first machine steps of a message with `attempts` attempts: its initial state, and the step
   * its DUE event takes. Pure, so computed once per attempt count and shared by a whole request.
   */
  function firstSteps(attempts: number) {
    const initial = advancer.initial(MACHINE_KEY, messageMachine, { attempts });
    return { initial, due: advancer.next(MACHINE_KEY, messageMachine, initial.state, { type: 'DUE' }) };
  }

  /**
   * The first work of a message due at `dueAt`: one array per due time, shared by the messages
   * of a request (never mutated: a step makes a new one), so that it is serialised once.
   */
  function firstWork(dueAt: number, now: number, shared: Map<number, WorkItem[]>): WorkItem[] {
    let work = shared.get(dueAt);
    if (!work) {
      work = [dueAt > now ? { kind: 'event', event: { type: 'DUE' }, dueAt } : { kind: 'send', step: 0, dueAt: now }];
      shared.set(dueAt, work);
    }
    return work;
  }

  /**
   * An attempt with its price. Written out rather than spread: two spreads a message cost about
   * 0.8 µs of a bulk request's budget (and their garbage), the literal a fortieth of it. The keys
   * keep the order the spreads gave (an absent messageData is left out of the JSON).
   */
  function pricedStep(a: AttemptDraft): StepSpec {
    const { rate, cost } = priceAttempt(rateCard, a);
    return {
      channel: a.channel,
      type: a.type,
      from: a.from,
      to: a.to,
      text: a.text,
      ttl: a.ttl,
      partsCount: a.partsCount,
      messageData: a.messageData,
      rate,
      cost,
    };
  }

  /** The stored form of a validated message: priced steps and its first machine steps. */
  function build(v: ValidatedMessage, now: number, machine: ReturnType<typeof firstSteps>, works: Map<number, WorkItem[]>): NewMessage {
    const steps: StepSpec[] = v.attempts.map(pricedStep);
    const dueAt = v.scheduledAt !== null && v.scheduledAt > now ? v.scheduledAt : now;
    // Due now: take the first step at once so the send is in the outbox with the message.
    const step = dueAt > now ? machine.initial : machine.due;
    return {
      kind: 'message',
      guid: null,
      trackinId: null,
      customerMessageId: v.customerMessageId,
      // The item's canonical JSON serves only replays (a customerMessageId) and changes (only a
      // scheduled message changes): without either, the steps say it all and it is not stored twice.
      content: v.customerMessageId !== null || dueAt > now ? v.content : '',
      steps,
      status: step.status,
      snapshot: step.state,
      routeRef: null,
      dueAt,
      expiresAt: v.ttl === null ? null : dueAt + v.ttl * 1000,
      charge: steps[0]!.cost,
      meta: null,
      work: firstWork(dueAt, now, works),
      history: [],
    };
  }

  /** Whether a read message is the account's own messaging API message. */
  const isOwn = <M extends MessageStatusView>(accountId: number, message: M | null): message is M =>
    message !== null && message.accountId === accountId && message.kind === 'message';
  // Another account's message is reported exactly like a missing one.
  const notFound = (messageId: number) => new SpillwayError('not_found', `message ${messageId} not found`);

  async function load(accountId: number, messageId: number): Promise<StoredMessage> {
    const message = Number.isSafeInteger(messageId) ? await storage.getMessage(messageId) : null;
    if (!isOwn(accountId, message)) throw notFound(messageId);
    return message;
  }

  async function currencyOf(accountId: number): Promise<string> {
    return (await storage.getAccount(accountId))?.currency ?? rateCard.currency;
  }

  const service: MessagingService = {
    async send(accountId, body) {
      const now = clock.now();
      const checked = await validateSendRequest(storage, accountId, body, now);
      // Per-phone variables (`%bonus%`) are filled at acceptance, so the price is the sent text's; a
      // placeholder the recipient's data cannot fill is a 400 at its text.
      const validated = await fillMessageTexts(storage, accountId, checked);
      const machines = new Map<number, ReturnType<typeof firstSteps>>();
      const works = new Map<number, WorkItem[]>();
      const batch = validated.map((v) => {
        let machine = machines.get(v.attempts.length);
        if (!machine) machines.set(v.attempts.length, (machine = firstSteps(v.attempts.length)));
        return build(v, now, machine, works);
      });
      const result = await group.ingest({ accountId, at: now, messages: batch, chargeDescription: 'message', lease: deps.lease?.(now) });
      if (result.status === 'conflict') throw customerMessageIdConflict(validated, result.indexes);
      if (result.status === 'insufficient_funds') {
        throw new SpillwayError('payment_required', `balance ${fromMicros(result.balance)} does not cover ${fromMicros(result.required)}`);
      }
      const replays = new Set(result.replays);
      const originals = replays.size
        ? new Map((await storage.getMessages(result.replays.map((i) => result.ids[i]!))).map((m) => [m.id, m]))
        : new Map<number, StoredMessage>();
      const messages = batch.map((m, i) => {
        const id = result.ids[i]!;
        const original = replays.has(i) ? originals.get(id) : undefined;
        return original
          ? sentMessage(id, original.steps, original.customerMessageId, original.expiresAt)
          : sentMessage(id, m.steps, m.customerMessageId, m.expiresAt);
      });
      // A request made only of replays answers the original campaign.
      const allReplays = replays.size === batch.length ? originals.get(result.ids[0]!) : undefined;
      const response: SendResponse = { messagelistId: allReplays?.listId ?? result.listId, messages };
      return response;
    },

    async status(accountId, messageId, currency) {
      // The message and its history in one read.
      const found = Number.isSafeInteger(messageId) ? await storage.getMessageWithHistory(messageId) : null;
      if (!found || !isOwn(accountId, found.message)) throw notFound(messageId);
      return buildStatusRecord(found.message, found.history, currency ?? (await currencyOf(accountId)));
    },

    async update(accountId, messageId, body) {
      // The change is a compare-and-set on the scheduled state: a worker round that had read the
      // message as scheduled then conflicts on its version and works on the changed message.
      const message = await load(accountId, messageId);
      await applyMessagePatch({ storage, clock, rateCard, advancer, notify: deps.notify }, message, body);
      return service.status(accountId, messageId);
    },
  };
  return service;
}
