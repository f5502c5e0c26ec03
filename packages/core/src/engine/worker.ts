import type { Clock } from '../clock.ts';
import type { ChannelContext, ChannelDriver, InboundReport, Receipt } from '../ports/channel.ts';
import type { Commit, MessageUpdate } from '../ports/work-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { ChannelId } from '../types/channel.ts';
import type { StoredMessage } from '../types/message.ts';
import { isFinalStatus } from '../types/status.ts';
import type { WorkItem } from '../types/work.ts';
import type { MachineAdvancer } from './advance.ts';
import type { AccountDriverLookup } from './account-channels.ts';
import type { KindHandler } from './kind-handler.ts';
import { awaitsHistory, stepMessage, type StepAwaitingHistory } from './message-step.ts';
import { attemptReportsByMessage, type AttemptReports } from './receipt-repeats.ts';
import { oldestFirst } from '../oldest-first.ts';
import { withoutNul } from '../validation/nul.ts';
import { byOccurrence, receiptEvent, type PendingEvent } from './pending-event.ts';
import { createRoundLoop, yieldToEventLoop } from './round-loop.ts';
import { SendDeadlines } from './send-deadlines.ts';
import { decideSends, sendWithTimeout, type SendJob } from './send-dispatch.ts';
import { SlotMap } from './slot-map.ts';
import { createWorkerRecovery } from './worker-recovery.ts';
import { settledBy, STOP_SETTLE_MS } from '../settled-by.ts';
import type { EngineStopReport } from './engine-types.ts';
import type { HandedOverCopy } from './hand-over-copies.ts';

/** A lease on claimed messages runs out after this long if its worker neither commits nor heartbeats. */
export const LEASE_MS = 60_000;
/** Longest wait between rounds, so work of other processes is picked up. */
const POLL_MS = 250;
/** How long a round waits for more work to gather once some has arrived. */
const GATHER_MS = 2;
/** While stopping, how long to wait before a round whose commit failed is tried again, ms. */
const STOP_RETRY_MS = 100;
/** Messages this worker committed last, kept to apply their receipts without reading them again. */
const KNOWN_MAX = 50_000;
/**
 * Copies of handed-over messages kept at most (about 450 bytes each: 90 MiB), beyond which the ids
 * alone wait and their messages are read when taken. A burst of bulk requests runs ahead of the
 * workers by tens of thousands of messages; past the bound, the reads slow the workers further.
 */
const COPIES_MAX = 200_000;
/**
 * How long a handed-over message read ahead (`WorkerDeps.writerBusy`) is taken without another
 * read: the read answers only messages whose lease holds at least this long (half the lease).
 */
const READ_AHEAD_MS = LEASE_MS / 2;

export interface WorkerDeps {
  storage: Storage;
  clock: Clock;
  drivers: Map<ChannelId, ChannelDriver>;
  /** Accounts' own drivers: picked over `drivers` for their attempts, started and recovered with them. */
  accountDrivers?: AccountDriverLookup | undefined;
  advancer: MachineAdvancer;
  kinds: Record<StoredMessage['kind'], KindHandler>;
  defaultTtlSeconds: number;
  /** Messages claimed per round. */
  batchSize: number;
  /** Sends handed to drivers and not answered yet, at most. @default 4096 */
  maxInFlight?: number;
  /** A driver that has not answered a send after this long fails it temporarily. @default 30000 */
  sendTimeoutMs?: number;
  /** This worker's id in leases and heartbeats. @default a random UUID */
  owner?: string;
  onError: (error: unknown) => void;
  /**
   * Whether another writer holds the database's write lock now (the reference server's ingests on
   * SQLite), so that a round's commit would only wait: the round then reads the handed-over
   * messages the next round takes meanwhile (a read needs no write lock), which that round takes
   * without a read while `READ_AHEAD_MS` lasts.
   */
  writerBusy?: () => boolean;
  /** Called after each round's commit (metrics, audit). */
  onCommit?: (commit: Commit) => void;
  /** Incoming messages reported by drivers. */
  onInbound?: (message: InboundReport) => Promise<void>;
  /** An incoming message `onInbound` did not take (see `EngineOptions.onInboundRefused`). */
  onInboundRefused?: ((refusal: { driver: string; message: InboundReport; error: unknown }) => void) | undefined;
  /** The steps among a round's sends that cannot succeed (the reachability memory), with the reason. */
  unreachable?: (jobs: SendJob[], now: number) => Promise<Map<number, string>>;
  /** Called after each commit with the events applied to each message (the reachability memory learns from them). */
  onApplied?: (applied: Array<{ message: StoredMessage; events: PendingEvent[] }>) => Promise<void>;
}

/** A send handed to a driver whose result has not come back. */
interface InFlight {
  step: number;
  done: Promise<void>;
  /** The message as claimed (this worker holds its lease until the result is committed). */
  message: StoredMessage;
}

/**
 * Due sends of the message's current step, and whatever else is due, split from what is not: of a
 * stored message, or of a step's update (its state after the step).
 */
function splitDue(message: Pick<StoredMessage, 'status' | 'snapshot' | 'work'>, now: number) {
  const step = Number(message.snapshot.context['step'] ?? 0);
  const live = !isFinalStatus(message.status);
  const sends: Array<Extract<WorkItem, { kind: 'send' }>> = [];
  const events: Array<Extract<WorkItem, { kind: 'event' }>> = [];
  const rest: WorkItem[] = [];
  for (const item of message.work) {
    if (item.dueAt > now) rest.push(item);
    else if (item.kind === 'event') events.push(item);
    // A send of another step, or of an ended message, was overtaken: it is dropped.
    else if (live && item.step === step) sends.push(item);
  }
  return { sends, events, rest };
}

/**
 * The engine's worker. A round claims the messages whose work is due (leased to this worker),
 * takes the receipts that arrived (from this process's drivers, or from the durable inbox),
 * applies the events to the machines and writes each message's next state, work and history in
 * one commit. Sends are pipelined: a round hands due sends to their drivers without waiting, the
 * message stays leased, and its result is applied by a later round, so a slow provider holds up
 * nothing else and acceptance is committed within a round of its answer.
 */
export function createWorker(deps: WorkerDeps) {
  const { storage, clock, drivers, advancer } = deps;
  const owner = deps.owner ?? globalThis.crypto.randomUUID();
  const maxInFlight = deps.maxInFlight ?? 4096;
  const deadlines = new SendDeadlines(clock, deps.sendTimeoutMs ?? 30_000);
  const queue: PendingEvent[] = [];
  // SlotMaps, not Maps: both gain and lose an entry for every message (see SlotMap).
  const inFlight = new SlotMap<InFlight>();
  /** Ids of messages an ingest stored leased to this worker (a hand-over), to take without a claim. */
  const handedOver: number[] = [];
  /**
   * The handed-over messages as the ingest stored them, by id: taken without a read while their
   * lease holds. Only the lease is checked (by its time), not its owner in the storage: a recovery
   * elsewhere that released this live worker's leases (its heartbeat late) may then send one
   * twice, as it may for the messages this worker already holds; the commit's version check keeps
   * one state.
   */
  const copies = new SlotMap<HandedOverCopy>();
  /** How many ids at the front of `handedOver` were read ahead (`writerBusy`), copies or not. */
  let readAheadTo = 0;
  /**
   * Messages this worker's commits kept leased to it (`MessageUpdate.lease`) for a send due now,
   * by id, as last committed, oldest first: the next rounds take them before they claim anything,
   * without a claim or a read, as long as the lease holds. A later commit of one replaces or
   * removes its copy.
   */
  const kept = new SlotMap<HandedOverCopy>();
  let seq = 0;
  let claiming = true;
  /** Set by `start()`: the next round starts the drivers. */
  let startDrivers = false;
  /** Whether the last round's commit failed (its events wait in the queue for the next). */
  let lastRoundFailed = false;
  // The state this worker last committed of messages still running: a receipt for one is applied
  // over it without a read. A stale copy (another process changed the message) only makes the
  // commit conflict, and the message is then read afresh.
  const known = new SlotMap<StoredMessage>();
  const forgetOldest = oldestFirst(known);
  const remember = (message: StoredMessage) => {
    known.delete(message.id);
    if (isFinalStatus(message.status)) return;
    known.set(message.id, message);
    forgetOldest.trimTo(KNOWN_MAX);
  };
  const started = new Set<ChannelDriver>();

  /** The context a driver reports through; receipts wait in memory and are acknowledged after their commit. */
  function contextOf(driver: ChannelDriver): ChannelContext {
    return {
      clock,
      // What the network hands in keeps its text, with U+FFFD for U+0000 (see withoutNul).
      report(reported: Receipt): Promise<void> {
        const receipt = withoutNul(reported);
        // A failover's member names itself: the attempt is filed, and the receipt recorded, under it.
        const by = receipt.driver ?? driver.name;
        return new Promise<void>((ack) => {
          if ('providerMessageId' in receipt) {
            byProviderId.push({ receipt, driver: by, composite: by === driver.name ? undefined : driver.name, at: clock.now(), ack });
          } else {
            queue.push({
              messageId: receipt.messageId,
              event: receiptEvent(receipt, receipt.step),
              at: clock.now(),
              detail: receipt.error,
              driver: by,
              rank: 1,
              seq: seq++,
              ack,
            });
          }
          notify();
        });
      },
      inbound: async (message) => {
        if (!deps.onInbound) throw new Error('incoming messages are not handled by this engine');
        try {
          await deps.onInbound(withoutNul(message));
        } catch (error) {
          deps.onInboundRefused?.({ driver: message.driver ?? driver.name, message, error });
          throw error;
        }
      },
    };
  }
  const contexts = new Map<ChannelDriver, ChannelContext>();
  const ctx = (driver: ChannelDriver) => {
    let c = contexts.get(driver);
    if (!c) contexts.set(driver, (c = contextOf(driver)));
    return c;
  };

  /**
   * Receipts that name only the provider's id, resolved in batches at the start of a round: under
   * the driver that reports them, a failover's member (`composite` is then the failover).
   */
  const byProviderId: Array<{
    receipt: Receipt & { providerMessageId: string };
    driver: string;
    composite: string | undefined;
    at: number;
    ack: () => void;
  }> = [];
  async function resolveProviderIds(): Promise<void> {
    if (byProviderId.length === 0) return;
    const items = byProviderId.splice(0);
    const byDriver = new Map<string, typeof items>();
    for (const item of items) byDriver.set(item.driver, [...(byDriver.get(item.driver) ?? []), item]);
    for (const [driver, list] of byDriver) {
      const found = await findAttempts(driver, list);
      const orphans = [];
      for (const item of list) {
        const attempt = found.get(item.receipt.providerMessageId);
        if (attempt) {
          queue.push({
            messageId: attempt.messageId,
            event: receiptEvent(item.receipt, attempt.step),
            at: item.at,
            detail: item.receipt.error,
            driver,
            rank: 1,
            seq: seq++,
            ack: item.ack,
          });
        } else {
          orphans.push(item);
        }
      }
      if (orphans.length > 0) {
        // The acceptance that records the id has not committed yet (a fast provider): keep the
        // receipt durably until it has.
        await storage.addOrphanReceipts(
          orphans.map((o) => ({
            driver,
            providerMessageId: o.receipt.providerMessageId,
            outcome: o.receipt.outcome,
            failure: o.receipt.failure ?? null,
            detail: o.receipt.error ?? null,
            at: o.at,
          })),
        );
        for (const o of orphans) o.ack();
      }
    }
  }

  /**
   * The attempts of `driver` that `list` names by provider id. A failover's member's receipt not
   * found under the member is looked up under the failover: attempts accepted before acceptances
   * were filed under the member that carried them (`SendResult.driver`) are filed under it.
   */
  async function findAttempts(
    driver: string,
    list: ReadonlyArray<{ receipt: { providerMessageId: string }; composite: string | undefined }>,
  ) {
    const found = await storage.findAttempts(
      driver,
      list.map((i) => i.receipt.providerMessageId),
    );
    const missed = new Map<string, string[]>();
    for (const { receipt, composite } of list) {
      if (composite === undefined || found.has(receipt.providerMessageId)) continue;
      missed.set(composite, [...(missed.get(composite) ?? []), receipt.providerMessageId]);
    }
    for (const [composite, ids] of missed) for (const [id, attempt] of await storage.findAttempts(composite, ids)) found.set(id, attempt);
    return found;
  }

  const recovery = createWorkerRecovery({
    storage,
    clock,
    owner,
    drivers,
    accountDrivers: deps.accountDrivers,
    defaultTtlSeconds: deps.defaultTtlSeconds,
    contextOf: ctx,
    onError: deps.onError,
  });

  function dispatch(job: SendJob, driver: ChannelDriver, attempt: Parameters<ChannelDriver['send']>[0]): void {
    const done = (async () => {
      if (driver.start && !started.has(driver)) {
        started.add(driver);
        await driver.start(ctx(driver));
      }
      const result = await sendWithTimeout(driver, attempt, ctx(driver), deadlines);
      queue.push({
        messageId: job.message.id,
        event: result.event,
        at: clock.now(),
        detail: result.detail,
        driver: driver.name,
        providerMessageId: result.providerMessageId,
        carrier: result.carrier,
        rank: 0,
        seq: seq++,
      });
      notify();
    })().catch((error: unknown) => {
      deps.onError(error);
      queue.push({
        messageId: job.message.id,
        event: { type: 'FAILED', step: job.step, failure: 'temporary' },
        at: clock.now(),
        detail: String(error),
        driver: driver.name,
        rank: 0,
        seq: seq++,
      });
      notify();
    });
    inFlight.set(job.message.id, { step: job.step, done, message: job.message });
  }

  /**
   * Takes out of the queue every event of its first `limit` messages that a round can apply: a
   * round's commit carries about a batch of messages however many results gathered meanwhile
   * (while the round before waited for the write lock, or a driver answered many sends at once),
   * so that it never holds the write lock for long: an ingest waiting for it is not held up. The
   * events of a message whose send is still with its driver wait in the queue, uncounted, until
   * the send's result joins them: counted, a batch of them would hold up every result behind it
   * for as long as the sends take.
   */
  function takeEvents(limit: number): PendingEvent[] {
    const answered = new Set<number>();
    for (const e of queue) if (e.rank === 0) answered.add(e.messageId);
    const waiting = (id: number) => inFlight.has(id) && !answered.has(id);
    const ids = new Set<number>();
    for (const e of queue) {
      if (ids.has(e.messageId) || waiting(e.messageId)) continue;
      if (ids.size === limit) break;
      ids.add(e.messageId);
    }
    const taken: PendingEvent[] = [];
    const kept: PendingEvent[] = [];
    for (const e of queue) (ids.has(e.messageId) ? taken : kept).push(e);
    queue.length = 0;
    for (const e of kept) queue.push(e);
    return taken;
  }

  async function round(): Promise<number> {
    lastRoundFailed = false;
    const now = clock.now();
    await recovery.maintain(now);
    if (startDrivers) {
      startDrivers = false;
      for (const driver of new Set([...drivers.values(), ...(deps.accountDrivers?.drivers ?? [])])) {
        if (!driver.start || started.has(driver)) continue;
        started.add(driver);
        driver.start(ctx(driver)).catch(deps.onError);
      }
    }
    await resolveProviderIds();
    const events = takeEvents(deps.batchSize);
    const inbox = claiming ? await storage.claimReceipts(now, deps.batchSize, LEASE_MS, owner) : [];
    for (const r of inbox) {
      events.push({
        messageId: r.messageId,
        event: r.event,
        at: r.at,
        detail: r.detail ?? undefined,
        driver: r.driver ?? undefined,
        rank: 1,
        seq: seq++,
        receiptId: r.id,
      });
    }
    const capacity = claiming ? Math.min(deps.batchSize, maxInFlight - inFlight.size) : 0;
    const claimed = capacity > 0 ? takeKept(capacity, now) : [];
    if (capacity > claimed.length) claimed.push(...(await storage.claimDue(now, capacity - claimed.length, LEASE_MS, owner)));
    if (capacity > claimed.length && handedOver.length > 0) {
      // Handed-over messages beyond the capacity wait for a later round (their lease holds them).
      // One this worker already holds (claimed again after its hand-over's lease ran out) is not
      // taken twice; the storage answers only those still leased to this worker.
      const taking = handedOver.splice(0, capacity - claimed.length);
      readAheadTo = Math.max(0, readAheadTo - taking.length);
      const have = new Set(claimed.map((m) => m.id));
      const toRead: number[] = [];
      for (const id of taking) {
        const copy = copies.get(id);
        if (copy) copies.delete(id);
        if (have.has(id) || inFlight.has(id)) continue;
        if (copy && copy.until > now) claimed.push(copy.message);
        else toRead.push(id);
      }
      if (toRead.length > 0) claimed.push(...(await storage.takeHandedOver(toRead, owner, now)));
    }
    if (events.length === 0 && claimed.length === 0) return 0;

    const eventsOf = new Map<number, PendingEvent[]>();
    for (const e of events) {
      const list = eventsOf.get(e.messageId);
      if (list) list.push(e);
      else eventsOf.set(e.messageId, [e]);
    }
    const claimedIds = new Set(claimed.map((m) => m.id));
    const cached: StoredMessage[] = [];
    const toLoad: number[] = [];
    for (const id of eventsOf.keys()) {
      if (claimedIds.has(id)) continue;
      const copy = inFlight.get(id)?.message ?? known.get(id);
      if (copy) cached.push(copy);
      else toLoad.push(id);
    }
    const messages = [...claimed, ...cached, ...(toLoad.length > 0 ? await storage.getMessages(toLoad) : [])];
    const found = new Set(messages.map((m) => m.id));
    const unknownReceipts: Commit['receipts'] = [];
    for (const e of events) {
      if (found.has(e.messageId)) continue;
      // Receipts of messages that do not exist are dropped: nobody will ever apply them.
      e.ack?.();
      if (e.receiptId !== undefined) unknownReceipts.push({ id: e.receiptId, messageId: e.messageId });
    }

    // A round is cut in phases with the event loop let through between them, so that a full
    // batch never holds requests and timers up for long.
    await yieldToEventLoop();
    const held: PendingEvent[] = [];
    /** Sends whose results this round applies: back in flight if its commit fails. */
    const consumed: Array<[number, InFlight]> = [];
    const jobs: SendJob[] = [];
    const ready: Array<{ message: StoredMessage; events: PendingEvent[]; work: WorkItem[] }> = [];
    const timersOf = (messageId: number, items: Array<Extract<WorkItem, { kind: 'event' }>>) =>
      items.map((item): PendingEvent => ({ messageId, event: item.event, at: item.dueAt, rank: 1, seq: seq++ }));
    for (const message of messages) {
      const mine = eventsOf.get(message.id) ?? [];
      const flying = inFlight.get(message.id);
      if (flying && !mine.some((e) => e.rank === 0)) {
        // Its send is still with the driver: everything waits for the send's result.
        held.push(...mine);
        continue;
      }
      const due = splitDue(message, now);
      if (flying) {
        // The result consumes the send it answers.
        inFlight.delete(message.id);
        consumed.push([message.id, flying]);
      } else if (due.sends.length > 0) {
        if (claimedIds.has(message.id)) {
          // Hand the step over first; due events and receipts wait for the send's result.
          jobs.push({ message, step: due.sends[0]!.step });
          held.push(...mine);
          continue;
        }
        // Loaded for a receipt only: the send is for whoever claims the message.
        due.rest.push(...due.sends);
      }
      ready.push({ message, events: [...mine, ...timersOf(message.id, due.events)].sort(byOccurrence), work: due.rest });
    }

    for (const decision of await decideSends(deps, jobs, now)) {
      const { job } = decision;
      if (decision.dispatched) {
        dispatch(job, decision.dispatched.driver, decision.dispatched.attempt);
        continue;
      }
      // Not sent (skipped, funds short, no driver): the step's outcome is known now.
      const id = job.message.id;
      const due = splitDue(job.message, now);
      const instead: PendingEvent = {
        messageId: id,
        event: decision.instead!.event,
        at: now,
        detail: decision.instead!.detail,
        rank: 0,
        seq: seq++,
      };
      const waiting = held.filter((e) => e.messageId === id);
      held.splice(0, held.length, ...held.filter((e) => e.messageId !== id));
      ready.push({ message: job.message, events: [instead, ...timersOf(id, due.events), ...waiting].sort(byOccurrence), work: due.rest });
    }

    const commit: Commit = { at: now, owner, updates: [], providerIds: [], receipts: unknownReceipts };
    const applied = new Map<number, PendingEvent[]>();
    const stepped = new Map<number, StoredMessage>();
    /** Steps stopped at a receipt only their message's history tells from a repeat: resumed once the histories are read. */
    const awaiting: Array<{ message: StoredMessage; events: PendingEvent[]; step: StepAwaitingHistory }> = [];
    const take = (message: StoredMessage, list: PendingEvent[], update: MessageUpdate) => {
      // A step that leaves a send due now (a scheduled message come due, a fallback after a failed
      // step) keeps the message leased to this worker, which sends it next without claiming it.
      if (claiming && splitDue(update, now).sends.length > 0) update.lease = now + LEASE_MS;
      commit.updates.push(update);
      for (const e of list) {
        if (e.receiptId !== undefined) commit.receipts.push({ id: e.receiptId, messageId: message.id });
        // Filed under the driver that carried the attempt (a failover's member), whose receipts name it.
        const carrier = e.carrier ?? e.driver;
        if (e.event.type === 'ACCEPTED' && e.providerMessageId && carrier) {
          commit.providerIds.push({ driver: carrier, providerMessageId: e.providerMessageId, messageId: message.id, step: e.event.step });
        }
      }
    };
    for (const { message, events: list, work } of ready) {
      const found = deps.kinds[message.kind].machineFor(message);
      const machine = found instanceof Promise ? await found : found;
      const step = stepMessage({ message, machine, events: list, work, now, advancer, defaultTtlSeconds: deps.defaultTtlSeconds });
      // Counted as applied at once: should the history's read fail, its events go back as a failed commit's do.
      applied.set(message.id, list);
      stepped.set(message.id, message);
      if (awaitsHistory(step)) awaiting.push({ message, events: list, step });
      else take(message, list, step);
    }
    /**
     * Nothing of the round was written (the database was locked too long, say): its sends'
     * results and its drivers' receipts go back to wait for the next round, as they were, rather
     * than waiting for the lease to run out. Inbox receipts stay leased in the inbox; timers and
     * skipped sends come again from the message's work, which did not change.
     */
    const putBack = () => {
      for (const [id, flying] of consumed) inFlight.set(id, flying);
      const again = [...applied.values()].flat().filter((e) => e.ack !== undefined || (e.rank === 0 && e.driver !== undefined));
      queue.unshift(...again, ...held);
      lastRoundFailed = true;
    };
    if (awaiting.length > 0) {
      let reports: Map<number, AttemptReports>;
      try {
        reports = attemptReportsByMessage(await storage.histories(awaiting.map((a) => a.message.id)));
      } catch (error) {
        putBack();
        throw error;
      }
      for (const { message, events: list, step } of awaiting) take(message, list, step.resume(reports.get(message.id) ?? new Map()));
    }
    await yieldToEventLoop();
    const committing = commit.updates.length > 0 || commit.receipts.length > 0;
    if (committing && deps.writerBusy) await readAhead(deps.writerBusy);
    let conflicts: number[] = [];
    try {
      if (committing) conflicts = (await storage.commit(commit)).conflicts;
    } catch (error) {
      putBack();
      throw error;
    }
    const lost = new Set(conflicts);
    for (const u of commit.updates) {
      const before = stepped.get(u.id)!;
      // Any copy kept of it is older than this commit (and a conflict freed its lease).
      kept.delete(u.id);
      if (lost.has(u.id) || isFinalStatus(u.status)) {
        known.delete(u.id);
        continue;
      }
      const after = { ...before, status: u.status, snapshot: u.snapshot, work: u.work, version: u.version + 1, updatedAt: now };
      remember(after);
      if (u.lease !== undefined) kept.set(u.id, { message: after, until: u.lease });
    }
    for (const [messageId, list] of applied) {
      // A conflicted message's events are applied again over its fresh state: driver receipts
      // wait in memory, inbox receipts stay in the inbox (released by the commit).
      // A send's result over a conflict means another worker took the message (the lease ran out):
      // that worker sends the step again, and this result is dropped.
      if (lost.has(messageId)) held.push(...list.filter((e) => e.ack !== undefined));
      else for (const e of list) e.ack?.();
    }
    queue.unshift(...held);
    if (deps.onApplied)
      await deps.onApplied([...applied].filter(([id]) => !lost.has(id)).map(([id, events]) => ({ message: stepped.get(id)!, events })));
    if (lost.size === 0) deps.onCommit?.(commit);
    else deps.onCommit?.({ ...commit, updates: commit.updates.filter((u) => !lost.has(u.id)) });
    return claimed.length + events.length;
  }

  const rounds = createRoundLoop({
    clock,
    round,
    onError: deps.onError,
    async pause(found) {
      // A full batch means a backlog: go on at once (after yielding to the event loop). Otherwise
      // let receipts and new work gather for a moment, so that a round carries many messages.
      if (found >= deps.batchSize) return 0;
      if (found > 0 || queue.length > 0 || handedOver.length > 0 || kept.size > 0) return GATHER_MS;
      const next = await storage.nextDueAt(clock.now());
      const wait = next === null ? POLL_MS : Math.max(GATHER_MS, next - clock.now());
      return Math.min(POLL_MS, wait, recovery.nextMaintenanceIn(clock.now()));
    },
  });

  function notify(): void {
    rounds.notify();
  }

  /**
   * Up to `limit` of the messages this worker's commits kept leased to it, oldest first. One whose
   * lease ran out is dropped: it is due again, and whoever claims it sends it.
   */
  function takeKept(limit: number, now: number): StoredMessage[] {
    const taken: StoredMessage[] = [];
    for (const id of kept.keys()) {
      if (taken.length === limit) break;
      const copy = kept.get(id)!;
      kept.delete(id);
      if (copy.until > now) taken.push(copy.message);
    }
    return taken;
  }

  /**
   * Reads the handed-over messages the next round takes (a batch from the front) into `copies`,
   * each valid for `READ_AHEAD_MS`, if `busy()` (another writer holds the lock this round's commit
   * is about to wait for): that round needs no read then. A failed read only leaves them to be
   * read when taken.
   *
   * No further: read as far as the ingests ran ahead (tens of thousands of messages in a burst of
   * bulk requests), the messages waited as copies long enough to outlive the young generation,
   * and the young collections that copied and promoted them cost the workers' thread more than
   * the reads saved (`docs/decisions.md`, "Speed, twenty-fourth pass").
   */
  async function readAhead(busy: () => boolean): Promise<void> {
    const next = Math.min(handedOver.length, deps.batchSize);
    if (readAheadTo >= next || copies.size >= COPIES_MAX || !busy()) return;
    const ids = handedOver.slice(readAheadTo, next).filter((id) => !copies.has(id));
    readAheadTo = next;
    const until = clock.now() + READ_AHEAD_MS;
    try {
      // Answers only the messages whose lease holds past `until`.
      for (const message of await storage.takeHandedOver(ids, owner, until)) copies.set(message.id, { message, until });
    } catch (error) {
      deps.onError(error);
    }
  }

  /**
   * Runs rounds until nothing is due, queued or in flight at the clock's current time, or until
   * a round's commit fails (what it applied waits in the queue; draining again retries it).
   */
  async function drain(): Promise<void> {
    for (;;) {
      const found = await rounds.tick();
      if (lastRoundFailed) return;
      if (inFlight.size > 0) {
        await Promise.all([...inFlight.values()].map((f) => f.done));
        continue;
      }
      if (found === 0 && queue.length === 0 && byProviderId.length === 0 && handedOver.length === 0 && kept.size === 0) return;
    }
  }

  /**
   * The stop, within one deadline `graceMs` from now: claims nothing new, waits for the round in
   * flight and the sends in flight until the deadline, applies every result and receipt that
   * arrived (given {@link STOP_SETTLE_MS} past it), then retires the worker. What is still running
   * at the end is left, as a crash leaves it (the worker does not retire), and reported.
   */
  async function stopNow(graceMs: number): Promise<EngineStopReport> {
    const deadline = clock.now() + graceMs;
    const settleBy = deadline + STOP_SETTLE_MS;
    claiming = false;
    const left = (roundRunning: boolean): EngineStopReport => ({
      sendsInFlight: inFlight.size,
      unapplied: queue.length + byProviderId.length,
      roundRunning,
    });
    // The round in flight may wait for a lock (its commit, a claim): not past the settling time.
    if (!(await settledBy(rounds.stop(), settleBy, clock))) return closeDrivers(left(true), settleBy);
    while (inFlight.size > 0 && clock.now() < deadline) {
      // Each send's `done` never rejects (its failure is a result).
      await settledBy(Promise.all([...inFlight.values()].map((f) => f.done)), deadline, clock);
      // A send leaves the flight when a round applies its result (nothing new is claimed now):
      // without this round the loop would spin until the deadline.
      if (!(await settledBy(rounds.tick(), settleBy, clock))) return closeDrivers(left(true), settleBy);
      // A failed commit put the results back in flight, their sends long done: try again after
      // a pause (the database is likely still locked), not in a loop of failing commits.
      if (lastRoundFailed && inFlight.size > 0) {
        const ms = Math.max(1, Math.min(STOP_RETRY_MS, deadline - clock.now()));
        await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), ms));
      }
    }
    // What came back is applied if it can be in the settling time: left, it would be sent again.
    while (queue.length > 0 || byProviderId.length > 0) {
      const applying = rounds.tick();
      if (!(await settledBy(applying, settleBy, clock))) return closeDrivers(left(true), settleBy);
      if ((await applying) === 0) break;
    }
    // Retired, it is adopted at once; else once its heartbeat is stale.
    if (inFlight.size === 0) await settledBy(storage.retireWorker(owner), settleBy, clock);
    return closeDrivers(left(false), settleBy);
  }

  /** Closes the drivers this worker started, waiting for them until `by` at most; answers `report`. */
  async function closeDrivers(report: EngineStopReport, by: number): Promise<EngineStopReport> {
    const closing = Promise.all([...started].map(async (driver) => driver.close?.()));
    await settledBy(closing, by, clock).catch(deps.onError);
    return report;
  }

  return {
    owner,
    /** The context of a driver, for receipts that reach this process some other way. */
    contextOf: ctx,
    notify,
    /**
     * Messages an ingest stored leased to this worker (`IngestBatch.lease` with its `owner`): the
     * next rounds take them by id, without a claim, and without a read for those of `stored` (the
     * same messages as the ingest stored them: `handedOverCopies`) while their lease holds.
     */
    handOver(ids: readonly number[], stored: readonly HandedOverCopy[] = []): void {
      if (ids.length === 0) return;
      for (const id of ids) handedOver.push(id);
      for (const copy of stored) {
        if (copies.size >= COPIES_MAX) break;
        copies.set(copy.message.id, copy);
      }
      notify();
    },
    tick: rounds.tick,
    pending: () => queue.length + byProviderId.length + inFlight.size,
    /**
     * Starts the rounds, and the drivers in the first one, right after the recovery of what a
     * previous process left: a bind also brings incoming messages and held receipts, before any
     * send, and the drivers have been told which attempts to expect.
     */
    start(): void {
      startDrivers = true;
      rounds.start();
    },
    drain,
    /**
     * Stops cleanly within `graceMs` (see `stopNow`): claims nothing new, waits for the sends in
     * flight, applies every result and receipt that arrived, then marks this worker retired so
     * that another adopts at once the attempts whose outcomes are still to come.
     */
    async stop(graceMs = 10_000): Promise<EngineStopReport> {
      // The clock's timers need not keep the process alive (the system clock's do not): a stop
      // under way does, until it is done, or a process with nothing else alive ends midway.
      const alive = globalThis.setInterval(() => undefined, 60_000);
      try {
        return await stopNow(graceMs);
      } finally {
        globalThis.clearInterval(alive);
      }
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
