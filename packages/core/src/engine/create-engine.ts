import { systemClock } from '../clock.ts';
import { SpillwayError } from '../errors.ts';
import type { ChannelDriver, InboundReport, Receipt } from '../ports/channel.ts';
import { defaultRateCard } from '../pricing/rate-card.ts';
import type { ChannelId } from '../types/channel.ts';
import type { MessageKind } from '../types/message.ts';
import type { IngestBatch } from '../ports/message-storage.ts';
import { createAccountDriverLookup } from './account-channels.ts';
import { createAccountService } from './account-service.ts';
import { MachineAdvancer } from './advance.ts';
import type { Engine, EngineOptions, ReceiptFrom } from './engine-types.ts';
import type { KindHandler } from './kind-handler.ts';
import { createCascadeService } from './cascade-service.ts';
import type { HandOver } from './ingest-group.ts';
import { handedOverCopies } from './hand-over-copies.ts';
import { createMessagingService, messageKindHandler } from './messaging-service.ts';
import { receiptEvent } from './pending-event.ts';
import { createWorker, LEASE_MS } from './worker.ts';
import { createReachabilityMemory } from '../reachability/reachability-memory.ts';
import { createInboundRouter } from '../inbound/inbound-router.ts';
import { storableCalls } from '../validation/storable-calls.ts';
import { receiptTargetIssues, type ReceiptTarget, type ReceiptTargetIssue } from './receipt-targets.ts';
import type { OrphanReceipt, QueuedReceipt } from '../ports/work-storage.ts';
import { formatPath } from '../validation/issue-details.ts';

/**
 * Creates the engine over a storage and channel drivers. Nothing runs until `start()` (or, in
 * tests, `drain()`): every message advances through persisted snapshots and the outbox, so any
 * number of restarts resume where they were.
 *
 * @example
 * const engine = createEngine({ storage, channels: [createSimulator()], hasher: createNodeHasher() });
 * engine.start();
 */
export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const storage = options.storage;
  const rateCard = options.rateCard ?? defaultRateCard;
  const advancer = new MachineAdvancer();
  const drivers = new Map<ChannelId, ChannelDriver>();
  for (const driver of options.channels) for (const channel of driver.channels) drivers.set(channel, driver);
  const onError = options.onError ?? ((error: unknown) => console.error('[spillway] worker error', error));

  const defaultTtlSeconds = options.defaultTtlSeconds ?? 86_400;
  const cascades = createCascadeService({
    storage,
    clock,
    rateCard,
    advancer,
    notify: () => notify(),
    defaultTtlSeconds,
    maxRetries: options.maxRetries,
    publicBaseUrl: options.publicBaseUrl,
  });
  const kinds: Record<MessageKind, KindHandler> = {
    message: messageKindHandler(),
    cascade: cascades.handler,
  };
  const routeInbound = createInboundRouter({ storage, clock, ...(options.onInboundQueued ? { onQueued: options.onInboundQueued } : {}) });
  const receiveInbound = async (report: InboundReport) => {
    await routeInbound(report);
  };
  const reachability = createReachabilityMemory({ storage, clock, ttlSeconds: options.reachabilityTtlSeconds, onError });
  const worker = createWorker({
    storage,
    clock,
    drivers,
    accountDrivers: createAccountDriverLookup(options.accountChannels),
    advancer,
    kinds,
    defaultTtlSeconds,
    ...(reachability.service.enabled ? { unreachable: reachability.unreachable, onApplied: reachability.observe } : {}),
    onInbound: receiveInbound,
    onInboundRefused: options.onInboundRefused,
    onCommit: (commit) => {
      cascades.poke();
      options.onCommit?.(commit);
    },
    ...(options.workerId ? { owner: options.workerId } : {}),
    ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
    ...(options.sendTimeoutMs ? { sendTimeoutMs: options.sendTimeoutMs } : {}),
    batchSize: options.batchSize ?? 500,
    ...(options.writerBusy ? { writerBusy: options.writerBusy } : {}),
    onError,
  });
  const runsWorker = options.worker ?? true;
  /** Whether this engine's own worker runs (started, not stopping): accepted messages are then handed over to it. */
  let ownWorkerRuns = false;
  /** The lease under which an ingest hands its messages due now over to a worker, if any. */
  function lease(at: number): IngestBatch['lease'] {
    const elsewhere = typeof options.handOverTo === 'function' ? options.handOverTo() : options.handOverTo;
    const owner = elsewhere ?? (ownWorkerRuns ? worker.owner : undefined);
    return owner === undefined ? undefined : { owner, until: at + LEASE_MS };
  }
  /** New work was stored: wake this engine's worker and whoever else works on the database. */
  function notify(handedOver: readonly HandOver[] = []): void {
    // Each hand-over goes to the worker its lease names: this engine's own, or the one elsewhere.
    const elsewhere: number[] = [];
    let own = false;
    for (const handOver of handedOver) {
      if (runsWorker && handOver.owner === worker.owner) {
        // This engine's own worker takes the messages as stored, without reading them back.
        worker.handOver(
          handOver.ids,
          handOver.accepted.flatMap(({ batch, result }) => handedOverCopies(batch, result)),
        );
        own = true;
      } else {
        for (const id of handOver.ids) elsewhere.push(id);
      }
    }
    if (runsWorker && !own) worker.notify();
    options.onWork?.(elsewhere);
  }

  /**
   * Checks receipts and writes them to the durable inbox in one transaction (and, naming a provider
   * id not committed yet, keeps them aside as orphans in the same transaction). Answers the issues
   * of receipts naming attempts that do not exist, in which case nothing was written.
   */
  async function store(receipts: readonly ReceiptFrom[], pathOf: (index: number) => string): Promise<ReceiptTargetIssue[]> {
    const at = clock.now();
    const named: Array<ReceiptTarget & { index: number }> = [];
    const byDriver = new Map<string, string[]>();
    // A failover's member names itself (`Receipt.driver`): its attempts are filed under it.
    const filedUnder = ({ receipt, driver }: ReceiptFrom) => receipt.driver ?? driver;
    receipts.forEach((from, index) => {
      const { receipt } = from;
      const driver = filedUnder(from);
      if ('providerMessageId' in receipt) {
        if (!driver) {
          throw new SpillwayError('validation_failed', 'a receipt naming only the provider id needs the driver that sent it', [
            { path: formatPath(['driver'], pathOf(index)), message: 'required with providerMessageId' },
          ]);
        }
        const ids = byDriver.get(driver);
        if (ids) ids.push(receipt.providerMessageId);
        else byDriver.set(driver, [receipt.providerMessageId]);
      } else named.push({ messageId: receipt.messageId, step: receipt.step, index });
    });
    const issues = await receiptTargetIssues(storage, named, (i) => pathOf(named[i]!.index));
    if (issues.length > 0) return issues;
    const found = new Map<string, Map<string, ReceiptTarget>>();
    for (const [driver, ids] of byDriver) found.set(driver, await storage.findAttempts(driver, ids));
    const queued: QueuedReceipt[] = [];
    const orphans: OrphanReceipt[] = [];
    for (const from of receipts) {
      const { receipt } = from;
      const driver = filedUnder(from) ?? null;
      const detail = receipt.error ?? null;
      let ref = 'providerMessageId' in receipt ? found.get(driver!)!.get(receipt.providerMessageId) : receipt;
      if (!ref && 'providerMessageId' in receipt && from.driver && from.driver !== driver) {
        // Accepted before acceptances were filed under a failover's member: filed under the failover.
        ref = (await storage.findAttempts(from.driver, [receipt.providerMessageId])).get(receipt.providerMessageId);
      }
      if (ref) queued.push({ messageId: ref.messageId, event: receiptEvent(receipt, ref.step), detail, driver, at });
      else if ('providerMessageId' in receipt) {
        const { providerMessageId, outcome, failure = null } = receipt;
        orphans.push({ driver: driver!, providerMessageId, outcome, failure, detail, at });
      }
    }
    await storage.enqueueReceipts(queued, orphans);
    notify();
    return [];
  }

  /** Writes a receipt to the durable inbox (or, naming an attempt not committed yet, keeps it aside). */
  async function receive(receipt: Receipt, receiveOptions: { driver?: string } = {}): Promise<void> {
    const [issue] = await store([{ receipt, ...(receiveOptions.driver ? { driver: receiveOptions.driver } : {}) }], () => '');
    if (issue?.missing === 'message') throw new SpillwayError('not_found', issue.detail.message);
    if (issue) throw new SpillwayError('validation_failed', issue.detail.message, [issue.detail]);
  }

  /** Writes receipts to the durable inbox as one: all of them, or none when one names an attempt that does not exist. */
  async function receiveMany(receipts: readonly ReceiptFrom[]): Promise<void> {
    const issues = await store(receipts, (index) => `[${index}]`);
    if (issues.length > 0) {
      throw new SpillwayError(
        'validation_failed',
        'Receipts name attempts that do not exist; none was stored',
        issues.map((i) => i.detail),
      );
    }
  }

  return {
    clock,
    storage,
    // Every call refuses the NUL character at its path before any storage sees it, and has each
    // lone UTF-16 surrogate of its arguments made U+FFFD, as HTTP bodies are at the door, in one
    // walk of its arguments (the sends do both on their items themselves).
    accounts: storableCalls(
      createAccountService({ storage, hasher: options.hasher, clock, currency: options.currency ?? rateCard.currency }),
    ),
    messages: storableCalls(createMessagingService({ storage, clock, rateCard, advancer, notify, lease }), ['send']),
    cascades: storableCalls(cascades.service),
    reachability: storableCalls(reachability.service),
    start: () => {
      if (!runsWorker) return;
      worker.start();
      ownWorkerRuns = true;
    },
    stop: (graceMs) => {
      ownWorkerRuns = false;
      return worker.stop(graceMs);
    },
    ...storableCalls({ receive, receiveMany, receiveInbound }),
    wake: () => worker.notify(),
    handOver: (ids) => worker.handOver(ids),
    drain: () => worker.drain(),
  };
}
