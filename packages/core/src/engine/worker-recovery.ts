import type { Clock } from '../clock.ts';
import type { ChannelContext, ChannelDriver, PendingAttempt } from '../ports/channel.ts';
import type { Storage } from '../ports/storage.ts';
import type { ChannelId } from '../types/channel.ts';
import type { HistoryEntry, StoredMessage } from '../types/message.ts';
import type { AccountDriverLookup } from './account-channels.ts';
import { hasStateLeaf } from './state-leaf.ts';
import { attemptOf } from './send-dispatch.ts';

/** How often a worker tells the database it is alive. */
export const HEARTBEAT_MS = 1_000;
/** How often a worker looks for dead workers and orphan receipts. */
const CHECK_MS = 2_000;
/** A worker silent for this long is dead: its leases are released and its attempts adopted. */
export const STALE_WORKER_MS = 5_000;
/** Receipts whose provider id never became known are dropped after this long. */
const ORPHAN_TTL_MS = 7 * 86_400_000;
/** Attempts adopted per storage call. */
const ADOPT_BATCH = 500;

export interface WorkerRecoveryDeps {
  storage: Storage;
  clock: Clock;
  owner: string;
  drivers: Map<ChannelId, ChannelDriver>;
  accountDrivers?: AccountDriverLookup | undefined;
  defaultTtlSeconds: number;
  contextOf: (driver: ChannelDriver) => ChannelContext;
  onError: (error: unknown) => void;
}

/**
 * What keeps a worker's peers honest: heartbeats, and the recovery of dead workers' work. Their
 * leases are released (the sends they had claimed are claimed again, with the same idempotency
 * keys), and the attempts they had handed to channels are adopted: each driver is asked to
 * `recover` the outcomes that will never reach the dead process (re-poll the provider, re-arm a
 * simulated report). Receipts that arrived before the acceptance they name are matched here too.
 */
export function createWorkerRecovery(deps: WorkerRecoveryDeps) {
  const { storage, owner } = deps;
  let lastBeat = -Infinity;
  let lastCheck = -Infinity;
  const byName = new Map<string, ChannelDriver>();
  for (const driver of [...deps.drivers.values(), ...(deps.accountDrivers?.drivers ?? [])]) byName.set(driver.name, driver);

  async function pendingOf(
    message: StoredMessage,
    history: HistoryEntry[],
  ): Promise<{ driver: ChannelDriver; attempt: PendingAttempt } | null> {
    const step = Number(message.snapshot.context['step'] ?? 0);
    const base = attemptOf(message, step, deps.defaultTtlSeconds);
    if (!base) return null;
    const sent = history.findLast((h) => h.step === step && h.status === 'Sent');
    const driver =
      (sent?.driver ? byName.get(sent.driver) : undefined) ??
      (await deps.accountDrivers?.driverFor(message.accountId, base.channel)) ??
      deps.drivers.get(base.channel);
    if (!driver) return null;
    return {
      driver,
      attempt: {
        ...base,
        providerMessageId: sent?.providerMessageId ?? null,
        acceptedAt: sent?.at ?? message.updatedAt,
        delivered: hasStateLeaf(message.snapshot.value, 'reading'),
      },
    };
  }

  async function recover(adopted: Array<{ message: StoredMessage; history: HistoryEntry[] }>): Promise<void> {
    const byDriver = new Map<ChannelDriver, PendingAttempt[]>();
    for (const { message, history } of adopted) {
      const pending = await pendingOf(message, history);
      if (pending?.driver.recover) byDriver.set(pending.driver, [...(byDriver.get(pending.driver) ?? []), pending.attempt]);
    }
    for (const [driver, attempts] of byDriver) {
      try {
        await driver.recover!(attempts, deps.contextOf(driver));
      } catch (error) {
        deps.onError(error);
      }
    }
  }

  return {
    /** Heartbeats, then (every few seconds) recovers dead workers' work and orphan receipts. */
    async maintain(now: number): Promise<void> {
      if (now - lastBeat >= HEARTBEAT_MS) {
        lastBeat = now;
        await storage.heartbeat(owner, now);
      }
      if (now - lastCheck < CHECK_MS) return;
      lastCheck = now;
      await storage.adoptOrphanReceipts(now - ORPHAN_TTL_MS);
      const dead = await storage.deadWorkers(now, STALE_WORKER_MS, owner);
      if (dead.length === 0) return;
      await storage.releaseLeases(dead);
      for (;;) {
        const adopted = await storage.adoptAttempts(dead, owner, ADOPT_BATCH);
        if (adopted.length === 0) break;
        await recover(adopted);
      }
      await storage.forgetWorkers(dead);
    },
    /** Milliseconds until `maintain` has something to do. */
    nextMaintenanceIn(now: number): number {
      return Math.max(0, Math.min(lastBeat + HEARTBEAT_MS, lastCheck + CHECK_MS) - now);
    },
  };
}
