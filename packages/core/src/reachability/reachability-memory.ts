import type { Clock } from '../clock.ts';
import type { PendingEvent } from '../engine/pending-event.ts';
import { SpillwayError } from '../errors.ts';
import { readPhoneNumberParam } from '../clients/client-requests.ts';
import type { Storage } from '../ports/storage.ts';
import { hasReachabilityStorage } from '../ports/reachability-storage.ts';
import type { ReachabilityStorage } from '../ports/reachability-storage.ts';
import { CHANNELS } from '../types/channel.ts';
import type { ChannelId } from '../types/channel.ts';
import type { StoredMessage } from '../types/message.ts';
import type { UnreachableEntry } from '../types/reachability.ts';

/** How long a not-on-this-channel answer is remembered when the engine is not told: 7 days. */
export const DEFAULT_REACHABILITY_TTL_SECONDS = 7 * 86_400;
/** Expired entries are pruned at most this often. */
const PRUNE_EVERY_MS = 3_600_000;

/** The reachability memory as the API and the CLI read and clear it. */
export interface ReachabilityService {
  /** Whether the memory is on (a storage that keeps it, and a ttl above 0). */
  readonly enabled: boolean;
  /** Seconds an answer is remembered. */
  readonly ttlSeconds: number;
  /** The channels the account's number is remembered unreachable on, now. */
  show(accountId: number, phoneNumber: string): Promise<{ phoneNumber: string; entries: UnreachableEntry[] }>;
  /** Forgets the number (on one channel, or every one); answers how many entries went. */
  clear(accountId: number, phoneNumber: string, channel?: string): Promise<{ phoneNumber: string; cleared: number }>;
}

export interface ReachabilityMemoryDeps {
  storage: Storage;
  clock: Clock;
  /** 0 turns the memory off. @default DEFAULT_REACHABILITY_TTL_SECONDS */
  ttlSeconds?: number | undefined;
  onError: (error: unknown) => void;
}

/** A step the worker is about to hand to its driver. */
export interface StepToSend {
  message: StoredMessage;
  step: number;
}

/**
 * Whether the memory applies to this step: every step of a cascade, and the fallbacks of a
 * messaging API message (its primary was priced and charged at acceptance, so it is always tried).
 */
const eligible = (message: StoredMessage, step: number) => message.kind === 'cascade' || step > 0;

const digits = (phone: string) => phone.replace(/^\+/, '');
const keyOf = (accountId: number, phone: string, channel: string) => `${accountId}|${digits(phone)}|${channel}`;

/**
 * The reachability memory: per account, number and channel, a recent definitive
 * `not_on_channel` answer of a driver (no account on the chat app, the bot blocked, never
 * started) is remembered for `ttlSeconds`. Steps it covers are skipped at once (`SKIPPED` with
 * the remembered reason, so they cost nothing and nobody waits on them) until it expires or is
 * cleared. It is a hint, not a record of money: it is written right after the round that learnt
 * it committed, and a crash in between only means one more try.
 */
export function createReachabilityMemory(deps: ReachabilityMemoryDeps) {
  const ttlSeconds = Math.max(0, deps.ttlSeconds ?? DEFAULT_REACHABILITY_TTL_SECONDS);
  const store: ReachabilityStorage | null = hasReachabilityStorage(deps.storage) ? deps.storage : null;
  const enabled = store !== null && ttlSeconds > 0;
  let lastPrune = -Infinity;

  /**
   * The steps among `jobs` that the memory says cannot succeed, with the reason to record:
   * one storage read for the whole round.
   */
  async function unreachable(jobs: readonly StepToSend[], now: number): Promise<Map<number, string>> {
    const skips = new Map<number, string>();
    if (!enabled || jobs.length === 0) return skips;
    const keys = [];
    for (const { message, step } of jobs) {
      const spec = message.steps[step];
      if (spec && eligible(message, step)) keys.push({ accountId: message.accountId, phoneNumber: digits(spec.to), channel: spec.channel });
    }
    if (keys.length === 0) return skips;
    const found = new Map<string, UnreachableEntry>();
    for (const e of await store.findUnreachable(keys, now)) found.set(keyOf(e.accountId, e.phoneNumber, e.channel), e);
    if (found.size === 0) return skips;
    for (const { message, step } of jobs) {
      const spec = message.steps[step];
      if (!spec || !eligible(message, step)) continue;
      const entry = found.get(keyOf(message.accountId, spec.to, spec.channel));
      if (!entry) continue;
      skips.set(
        message.id,
        `not reachable on ${spec.channel} (remembered until ${new Date(entry.expiresAt).toISOString()}): ${entry.reason}`,
      );
    }
    return skips;
  }

  /**
   * Learns from the events a committed round applied: a `not_on_channel` failure that a driver
   * answered (a send's result or a receipt, never the engine's own "no driver" verdict).
   */
  async function observe(applied: ReadonlyArray<{ message: StoredMessage; events: readonly PendingEvent[] }>): Promise<void> {
    if (!enabled) return;
    const entries: UnreachableEntry[] = [];
    for (const { message, events } of applied) {
      for (const e of events) {
        if (e.event.type !== 'FAILED' || e.event.failure !== 'not_on_channel') continue;
        if (e.driver === undefined && e.receiptId === undefined) continue;
        const spec = message.steps[e.event.step];
        if (!spec) continue;
        entries.push({
          accountId: message.accountId,
          phoneNumber: digits(spec.to),
          channel: spec.channel,
          reason: e.detail ?? 'not on this channel',
          driver: e.driver ?? null,
          messageId: message.id,
          at: e.at,
          expiresAt: e.at + ttlSeconds * 1000,
        });
      }
    }
    const now = deps.clock.now();
    const prune = now - lastPrune >= PRUNE_EVERY_MS;
    if (entries.length === 0 && !prune) return;
    if (prune) lastPrune = now;
    try {
      if (entries.length > 0) await store.rememberUnreachable(entries);
      if (prune) await store.pruneUnreachable(now);
    } catch (error) {
      deps.onError(error);
    }
  }

  const service: ReachabilityService = {
    enabled,
    ttlSeconds,
    async show(accountId, raw) {
      const phoneNumber = readPhoneNumberParam(raw);
      return { phoneNumber, entries: store ? await store.listUnreachable(accountId, phoneNumber, deps.clock.now()) : [] };
    },
    async clear(accountId, raw, channel) {
      const phoneNumber = readPhoneNumberParam(raw);
      if (channel !== undefined && !(CHANNELS as readonly string[]).includes(channel)) {
        throw new SpillwayError('validation_failed', `unknown channel "${channel}"`, [
          { path: 'channel', message: `one of ${CHANNELS.join(', ')}` },
        ]);
      }
      const cleared = store ? await store.clearUnreachable(accountId, phoneNumber, channel as ChannelId | undefined) : 0;
      return { phoneNumber, cleared };
    },
  };

  return { unreachable, observe, service };
}

export type ReachabilityMemory = ReturnType<typeof createReachabilityMemory>;
