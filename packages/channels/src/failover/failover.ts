import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel';
import type { CircuitBreakerPolicy } from 'cockatiel';
import type { ChannelContext, ChannelDriver, ChannelId, OutboundAttempt, PendingAttempt, SendResult } from '@spillway/core';
import { carriedBy } from '@spillway/core/adapter';
import { memberContexts } from './member-context.ts';
import { watchBreakers } from './breaker-watch.ts';

/** Options of {@link createFailoverDriver}: the providers, in order of preference, and the channels they serve. */
export interface FailoverOptions {
  /** @default 'failover' */
  name?: string;
  /** The providers, in order of preference. */
  drivers: readonly ChannelDriver[];
  /** The channels it serves. @default every channel of its members */
  channels?: readonly ChannelId[];
  /** Consecutive throttled, temporary or thrown sends that open a provider's breaker. @default 3 */
  consecutiveFailures?: number;
  /** How long an open breaker skips its provider before one trial send. @default 30000 */
  halfOpenAfterMs?: number;
}

/** A provider's breaker state, for `check()`, metrics and tests. */
export type ProviderState = 'closed' | 'open' | 'half-open' | 'isolated';

type Failed = Extract<SendResult, { outcome: 'failed' }>;

/** Failures about the provider, not the recipient: they open its breaker and move to the next. */
const providerTrouble = (r: unknown): boolean =>
  typeof r === 'object' &&
  r !== null &&
  (r as Failed).outcome === 'failed' &&
  ((r as Failed).failure === 'throttled' || (r as Failed).failure === 'temporary');

const STATES: Record<CircuitState, ProviderState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

/**
 * Several providers of one channel as one driver: an attempt goes to the first provider whose
 * circuit breaker (cockatiel) is closed; a throttled, temporary or thrown send counts against it
 * and the next provider is tried at once. A recipient's failure (undeliverable, not on channel,
 * permanent) is answered as is: another provider would not change it. The accepted result names
 * the provider in `driver`, and so does every receipt it reports (`Receipt.driver`): the engine
 * files and records both under the provider that carried the attempt. Their routes stay theirs
 * (`members`), mounted under their own names.
 *
 * @example createFailoverDriver({ drivers: [createSmppDriver(primary), createKannelDriver(backup)] })
 */
export function createFailoverDriver(options: FailoverOptions): ChannelDriver & {
  readonly members: readonly ChannelDriver[];
  providerStates(): Record<string, ProviderState>;
} {
  if (options.drivers.length === 0) throw new Error('failover needs at least one driver');
  const name = options.name ?? 'failover';
  const members = options.drivers;
  const halfOpenAfterMs = options.halfOpenAfterMs ?? 30_000;
  const consecutiveFailures = options.consecutiveFailures ?? 3;
  const breakers = new Map<ChannelDriver, CircuitBreakerPolicy>(
    members.map((d) => [
      d,
      circuitBreaker(handleAll.orWhenResult(providerTrouble), {
        halfOpenAfter: halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(consecutiveFailures),
      }),
    ]),
  );
  const channels = options.channels ?? ([...new Set(members.flatMap((d) => d.channels))] as ChannelId[]);
  const watch = watchBreakers({ name, channels, breakers, consecutiveFailures, halfOpenAfterMs });
  const contextOf = memberContexts();
  let closed = false;

  return {
    name,
    channels,
    members,
    providerStates: () => Object.fromEntries(members.map((d) => [d.name, STATES[breakers.get(d)!.state]])),
    // Its own breakers; its members' health (a member's bind) is theirs to tell (`members`).
    watch,
    async send(attempt: OutboundAttempt, ctx: ChannelContext): Promise<SendResult> {
      if (closed) return { outcome: 'failed', failure: 'temporary', error: `${name} is closed` };
      const failures: Failed[] = [];
      let skipped = 0;
      for (const driver of members) {
        if (!driver.channels.includes(attempt.channel)) continue;
        let result: SendResult;
        try {
          result = await breakers.get(driver)!.execute(() => driver.send(attempt, contextOf(driver, ctx)));
        } catch (error) {
          if (error instanceof BrokenCircuitError) {
            skipped++;
            continue;
          }
          result = { outcome: 'failed', failure: 'temporary', error: `${driver.name} threw: ${String(error)}` };
        }
        // A member that is itself a failover already named its own member.
        if (result.outcome === 'accepted') return carriedBy(result, driver.name);
        if (!providerTrouble(result)) return { ...carriedBy(result, driver.name), error: `${driver.name}: ${result.error}` };
        failures.push({ ...result, error: `${driver.name}: ${result.error}` });
      }
      if (failures.length === 0) {
        return {
          outcome: 'failed',
          failure: 'temporary',
          error: skipped ? 'every provider is unavailable (circuit open)' : `no provider serves ${attempt.channel}`,
        };
      }
      // Throttled only if every provider tried throttled: then wait as little as the first to free up.
      const throttled = failures.every((f) => f.failure === 'throttled');
      const waits = failures.map((f) => f.retryAfter).filter((w): w is number => w !== undefined);
      return {
        outcome: 'failed',
        failure: throttled ? 'throttled' : 'temporary',
        error: failures.map((f) => f.error).join('; '),
        ...(waits.length ? { retryAfter: Math.min(...waits) } : {}),
      };
    },
    async start(ctx) {
      await Promise.all(members.map((d) => d.start?.(contextOf(d, ctx))));
    },
    async recover(pending: PendingAttempt[], ctx) {
      // Which provider carried each attempt is not known here: every provider re-arms what it can.
      await Promise.all(members.map((d) => d.recover?.(pending, contextOf(d, ctx))));
    },
    async check() {
      const results = await Promise.all(
        members.map(async (d) => {
          const r = d.check ? await d.check() : { ok: true, detail: 'no check' };
          return { ...r, line: `${d.name} [${STATES[breakers.get(d)!.state]}]: ${r.ok ? 'ok' : 'FAILED'}, ${r.detail}` };
        }),
      );
      return { ok: results.some((r) => r.ok), detail: results.map((r) => r.line).join('\n') };
    },
    async close() {
      closed = true;
      await Promise.all(members.map((d) => d.close?.()));
    },
  };
}
