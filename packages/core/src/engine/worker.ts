import type { Clock } from '../clock.ts';
import type { MachineEvent } from '../machines/events.ts';
import type { ChannelDriver, OutboundAttempt, Receipt } from '../ports/channel.ts';
import type { Commit, MessageUpdate } from '../ports/message-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { ChannelId } from '../types/channel.ts';
import type { Effect, NewEffect } from '../types/effect.ts';
import type { HistoryEntry, StoredMessage } from '../types/message.ts';
import { isFinalStatus } from '../types/status.ts';
import type { MachineAdvancer } from './advance.ts';
import { historyOf } from './history.ts';
import { createRoundLoop } from './round-loop.ts';
import type { KindHandler } from './kind-handler.ts';

/** A crashed worker's leased effects are handed out again after this long. */
const LEASE_MS = 60_000;
/** Longest wait between rounds, so work of other processes is picked up. */
const POLL_MS = 500;
/** How long a round waits for more work to gather once some has arrived. */
const GATHER_MS = 2;

interface Pending {
  messageId: number;
  event: MachineEvent;
  at: number;
  /** Human detail of a failure, kept out of the event so transitions stay memoizable. */
  detail?: string;
  effectId?: number;
  charged?: number;
  /** Resolves the driver's `report` once the round that applied the receipt has committed. */
  ack?: () => void;
}

export interface WorkerDeps {
  storage: Storage;
  clock: Clock;
  drivers: Map<ChannelId, ChannelDriver>;
  advancer: MachineAdvancer;
  kinds: Record<StoredMessage['kind'], KindHandler>;
  defaultTtlSeconds: number;
  batchSize: number;
  onError: (error: unknown) => void;
  /** Called after each round's commit (the cascade API's synchronous variant waits on it). */
  onCommit?: (commit: Commit) => void;
}

function receiptEvent(r: Receipt, step: number): MachineEvent {
  switch (r.outcome) {
    case 'delivered':
      return { type: 'DELIVERED', step };
    case 'read':
      return { type: 'READ', step };
    case 'failed':
      return { type: 'FAILED', step, failure: r.failure ?? 'undeliverable' };
  }
}

/**
 * The engine's worker: claims due effects from the outbox, hands sends to channel drivers, feeds
 * outcomes, timers and receipts to the machines, and writes each round's snapshots and new
 * effects in one commit. Rounds never overlap within a process.
 */
export function createWorker(deps: WorkerDeps) {
  const { storage, clock, drivers, advancer } = deps;
  const receipts: Pending[] = [];

  const context = {
    clock,
    report(receipt: Receipt): Promise<void> {
      if (!('messageId' in receipt)) return Promise.reject(new Error('receipts by provider message id are not supported yet'));
      return new Promise<void>((ack) => {
        receipts.push({
          messageId: receipt.messageId,
          event: receiptEvent(receipt, receipt.step),
          at: clock.now(),
          ...(receipt.error ? { detail: receipt.error } : {}),
          ack,
        });
        notify();
      });
    },
  };

  async function send(message: StoredMessage, effect: Effect, now: number): Promise<Pending> {
    const base = { messageId: message.id, at: now, effectId: effect.id };
    const spec = message.steps[effect.step];
    if (!spec) return { ...base, event: { type: 'FAILED', step: effect.step, failure: 'permanent' }, detail: 'no such step' };
    const prep = (await deps.kinds[message.kind].prepareSend?.(message, effect.step, now)) ?? {};
    const charged = prep.charged ? { charged: prep.charged } : {};
    if (prep.instead) return { ...base, ...charged, event: prep.instead };
    const driver = drivers.get(spec.channel);
    if (!driver) {
      return { ...base, event: { type: 'FAILED', step: effect.step, failure: 'not_on_channel' }, detail: `no driver for ${spec.channel}` };
    }
    const tryNo = Number(message.snapshot.context['retries'] ?? 0);
    const attempt: OutboundAttempt = {
      messageId: message.id,
      accountId: message.accountId,
      step: effect.step,
      try: tryNo,
      idempotencyKey: `${message.id}:${effect.step}:${tryNo}`,
      partsCount: spec.partsCount,
      channel: spec.channel,
      type: spec.type,
      from: spec.from,
      to: spec.to,
      text: spec.text,
      messageData: spec.messageData,
      ttl: spec.ttl ?? deps.defaultTtlSeconds,
      ...prep.attempt,
    };
    try {
      const result = await driver.send(attempt, context);
      if (result.outcome === 'accepted') return { ...base, ...charged, event: { type: 'ACCEPTED', step: effect.step } };
      return {
        ...base,
        ...charged,
        event: {
          type: 'FAILED',
          step: effect.step,
          failure: result.failure,
          ...(result.retryAfter !== undefined ? { retryAfter: result.retryAfter } : {}),
        },
        detail: result.error,
      };
    } catch (error) {
      deps.onError(error);
      return { ...base, ...charged, event: { type: 'FAILED', step: effect.step, failure: 'temporary' }, detail: String(error) };
    }
  }

  /** Whether a claimed send still belongs to where the message is (not superseded meanwhile). */
  function isCurrentSend(message: StoredMessage, effect: Effect): boolean {
    return !isFinalStatus(message.status) && message.snapshot.context['step'] === effect.step;
  }

  async function round(): Promise<number> {
    const now = clock.now();
    const fromReceipts = receipts.splice(0);
    const effects = await storage.claimDueEffects(now, deps.batchSize, LEASE_MS);
    if (fromReceipts.length === 0 && effects.length === 0) return 0;

    const ids = [...new Set([...effects.map((e) => e.messageId), ...fromReceipts.map((r) => r.messageId)])];
    const messages = new Map((await storage.getMessages(ids)).map((m) => [m.id, m]));
    const doneEffects: number[] = [];
    const pending: Pending[] = [];
    await Promise.all(
      effects.map(async (effect) => {
        const message = messages.get(effect.messageId);
        if (effect.kind === 'event' && effect.event) {
          pending.push({ messageId: effect.messageId, event: effect.event, at: effect.dueAt, effectId: effect.id });
        } else if (message && isCurrentSend(message, effect)) {
          pending.push(await send(message, effect, now));
        } else {
          doneEffects.push(effect.id);
        }
      }),
    );
    pending.push(...fromReceipts);
    pending.sort((a, b) => a.at - b.at);

    const commit: Commit = { at: now, updates: [], history: [], doneEffects, newEffects: [], cancelTimers: [] };
    const byMessage = new Map<number, Pending[]>();
    for (const p of pending) {
      if (p.effectId !== undefined) doneEffects.push(p.effectId);
      const list = byMessage.get(p.messageId);
      if (list) list.push(p);
      else byMessage.set(p.messageId, [p]);
    }
    for (const [messageId, items] of byMessage) {
      const message = messages.get(messageId);
      if (!message) continue;
      await advanceMessage(message, items, now, commit);
    }
    const { conflicts } = await storage.commit(commit);
    const lostIds = new Set(conflicts);
    for (const r of fromReceipts) if (!lostIds.has(r.messageId)) r.ack?.();
    if (conflicts.length === 0) {
      deps.onCommit?.(commit);
    } else {
      // Another worker moved these messages since they were read: nothing of theirs was written
      // and their effects are back in the outbox; their receipts wait for the next round.
      const lost = new Set(conflicts);
      receipts.push(...fromReceipts.filter((r) => lost.has(r.messageId)));
      const keep = (messageId: number) => !lost.has(messageId);
      deps.onCommit?.({
        ...commit,
        updates: commit.updates.filter((u) => keep(u.id)),
        history: commit.history.filter((h) => keep(h.messageId)),
        newEffects: commit.newEffects.filter((e) => keep(e.messageId)),
        cancelTimers: commit.cancelTimers.filter((c) => keep(c.messageId)),
      });
    }
    return effects.length + fromReceipts.length;
  }

  async function advanceMessage(message: StoredMessage, items: Pending[], now: number, commit: Commit): Promise<void> {
    const { key, machine } = await deps.kinds[message.kind].machineFor(message);
    let state = message.snapshot;
    let status = message.status;
    let moved = false;
    let addCost = 0;
    for (const item of items) {
      addCost += item.charged ?? 0;
      const step = advancer.next(key, machine, state, item.event);
      const stepIndex = 'step' in item.event ? item.event.step : Number(state.context['step'] ?? 0);
      const entry = historyOf(item.event, step.changed, item.detail);
      if (entry) commit.history.push(historyEntry(message, stepIndex, entry.status, item.at, entry.error));
      if (!step.changed) continue;
      moved = true;
      state = step.state;
      status = step.status;
      for (const action of step.actions) {
        switch (action.type) {
          case 'send':
            commit.newEffects.push({ messageId: message.id, kind: 'send', step: action.params.step, event: null, dueAt: now });
            break;
          case 'armTimer': {
            const { timer, step: s, seconds } = action.params;
            const ttl = seconds ?? message.steps[s]?.ttl ?? deps.defaultTtlSeconds;
            const effect: NewEffect = {
              messageId: message.id,
              kind: 'event',
              step: s,
              event: { type: 'TIMER', step: s, timer },
              dueAt: now + ttl * 1000,
            };
            commit.newEffects.push(effect);
            break;
          }
          case 'cancelTimers':
            commit.cancelTimers.push({ messageId: message.id, ...(action.params.step !== undefined ? { step: action.params.step } : {}) });
            break;
          case 'note':
            commit.history.push(historyEntry(message, action.params.step, action.params.status, now, action.params.error ?? null));
            break;
        }
      }
    }
    if (moved || addCost) {
      const update: MessageUpdate = { id: message.id, version: message.version, status, snapshot: state, ...(addCost ? { addCost } : {}) };
      commit.updates.push(update);
    }
  }

  function historyEntry(
    message: StoredMessage,
    step: number,
    status: HistoryEntry['status'],
    at: number,
    error: string | null,
  ): HistoryEntry {
    const channel = message.steps[step]?.channel ?? message.steps[0]?.channel ?? 'sms';
    return { messageId: message.id, step, channel, status, at, error };
  }

  const rounds = createRoundLoop({
    clock,
    round,
    onError: deps.onError,
    async pause(found) {
      // A full batch means a backlog: go on at once. Otherwise let receipts and new work gather
      // for a moment, so that a round handles many messages rather than one.
      if (found >= deps.batchSize) return 0;
      if (found > 0 || receipts.length > 0) return GATHER_MS;
      const next = await storage.nextDueAt(clock.now());
      return Math.min(POLL_MS, next === null ? POLL_MS : Math.max(GATHER_MS, next - clock.now()));
    },
  });

  function notify(): void {
    rounds.notify();
  }

  return {
    context,
    tick: rounds.tick,
    notify,
    pendingReceipts: () => receipts.length,
    start: rounds.start,
    stop: rounds.stop,
    drain: rounds.drain,
    exclusive: rounds.exclusive,
  };
}

export type Worker = ReturnType<typeof createWorker>;
