import type { CircuitBreakerPolicy, FailureReason } from 'cockatiel';
import type { ChannelDriver, ChannelId } from '@spillway/core';
import { healthWatchers } from '../shared/health-watchers.ts';
import type { HealthListener } from '../shared/health-watchers.ts';

/** What opened a breaker: the failed send's error, or what its provider threw. */
function whyOf(reason: FailureReason<unknown> | { isolated: true }): string {
  if ('isolated' in reason) return 'isolated by hand';
  if ('error' in reason) return `threw: ${reason.error.message}`;
  const value = reason.value as { error?: unknown } | null;
  return typeof value?.error === 'string' ? value.error : 'failed';
}

/**
 * A failover's breakers as its watchers see them (`ChannelDriver.watch`): each provider's breaker
 * opening (with the failure that opened it), half-opening (its one trial send) and closing again.
 * A breaker changes at most once per `halfOpenAfterMs` while its provider stays down, so these are
 * never a flood. A watcher that throws is not the failover's problem.
 */
export function watchBreakers(options: {
  name: string;
  channels: readonly ChannelId[];
  breakers: ReadonlyMap<ChannelDriver, CircuitBreakerPolicy>;
  consecutiveFailures: number;
  halfOpenAfterMs: number;
}): (listener: HealthListener) => () => void {
  const { watch, tell } = healthWatchers();
  const { name, channels, consecutiveFailures, halfOpenAfterMs } = options;
  for (const [member, breaker] of options.breakers) {
    const about = { type: 'breaker', driver: name, provider: member.name, channels } as const;
    breaker.onBreak((reason) =>
      tell({
        ...about,
        state: 'open',
        reason: `${consecutiveFailures} failed sends in a row, the last: ${whyOf(reason)}; skipped for ${halfOpenAfterMs} ms`,
      }),
    );
    breaker.onHalfOpen(() => tell({ ...about, state: 'half-open', reason: `open for ${halfOpenAfterMs} ms: one trial send` }));
    breaker.onReset(() => tell({ ...about, state: 'closed', reason: 'the trial send went through' }));
  }
  return watch;
}
