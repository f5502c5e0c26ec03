import type { Clock } from '../clock.ts';
import type { MachineEvent } from '../machines/events.ts';
import type { ChannelContext, ChannelDriver, OutboundAttempt, SendResult } from '../ports/channel.ts';
import type { StepCharge } from '../ports/work-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { ChannelId } from '../types/channel.ts';
import type { StoredMessage } from '../types/message.ts';
import type { AccountDriverLookup } from './account-channels.ts';
import type { KindHandler } from './kind-handler.ts';
import type { SendDeadlines } from './send-deadlines.ts';
import { withoutNul } from '../validation/nul.ts';

/** A claimed message whose current step is due to be handed to its channel. */
export interface SendJob {
  message: StoredMessage;
  step: number;
}

/** What became of a send job without waiting for a driver. */
export interface SendDecision {
  job: SendJob;
  /** The step was not sent: feed this event now (a skip, funds short, no driver). */
  instead?: { event: MachineEvent; detail?: string };
  /** The attempt went to this driver; its result arrives later as an event. */
  dispatched?: { driver: ChannelDriver; attempt: OutboundAttempt };
}

export interface DispatchDeps {
  storage: Storage;
  clock: Clock;
  drivers: Map<ChannelId, ChannelDriver>;
  /** Accounts' own drivers, picked over `drivers` for their attempts. */
  accountDrivers?: AccountDriverLookup | undefined;
  kinds: Record<StoredMessage['kind'], KindHandler>;
  defaultTtlSeconds: number;
  /** The steps among a round's jobs that cannot succeed (the reachability memory), with the reason. */
  unreachable?: (jobs: SendJob[], now: number) => Promise<Map<number, string>>;
}

/** The attempt of `job` as a driver gets it, before the kind's overrides. */
export function attemptOf(message: StoredMessage, step: number, defaultTtlSeconds: number): OutboundAttempt | null {
  const spec = message.steps[step];
  if (!spec) return null;
  const tryNo = Number(message.snapshot.context['retries'] ?? 0);
  return {
    messageId: message.id,
    accountId: message.accountId,
    step,
    try: tryNo,
    idempotencyKey: `${message.id}:${step}:${tryNo}`,
    channel: spec.channel,
    type: spec.type,
    from: spec.from,
    to: spec.to,
    text: spec.text,
    messageData: spec.messageData,
    partsCount: spec.partsCount,
    ttl: spec.ttl ?? defaultTtlSeconds,
  };
}

/**
 * Prepares the due sends of a round: the kind's checks, then every charge of the round in one
 * storage transaction (each step at most once, whatever crashes happened before), then the
 * driver. Nothing is handed to a driver here: `dispatched` decisions are sent by the caller, which
 * tracks them in flight.
 */
export async function decideSends(deps: DispatchDeps, jobs: SendJob[], now: number): Promise<SendDecision[]> {
  const decisions: SendDecision[] = [];
  const charges: Array<{ index: number; charge: StepCharge }> = [];
  const unreachable = deps.unreachable ? await deps.unreachable(jobs, now) : null;
  for (const job of jobs) {
    const { message, step } = job;
    const base = attemptOf(message, step, deps.defaultTtlSeconds);
    if (!base) {
      decisions.push({ job, instead: { event: { type: 'FAILED', step, failure: 'permanent' }, detail: 'no such step' } });
      continue;
    }
    const remembered = unreachable?.get(message.id);
    if (remembered !== undefined) {
      decisions.push({ job, instead: { event: { type: 'SKIPPED', step, reason: remembered } } });
      continue;
    }
    const prepared = deps.kinds[message.kind].prepareSend?.(message, step, now);
    const prep = (prepared instanceof Promise ? await prepared : prepared) ?? {};
    if (prep.instead) {
      decisions.push({ job, instead: { event: prep.instead } });
      continue;
    }
    const driver =
      (deps.accountDrivers && (await deps.accountDrivers.driverFor(message.accountId, base.channel))) ?? deps.drivers.get(base.channel);
    if (!driver) {
      const event: MachineEvent = { type: 'FAILED', step, failure: 'not_on_channel' };
      decisions.push({ job, instead: { event, detail: `no driver for ${base.channel}` } });
      continue;
    }
    const index = decisions.push({ job, dispatched: { driver, attempt: { ...base, ...prep.attempt } } }) - 1;
    if (prep.charge && prep.charge.amount > 0 && (message.charged & (2 ** step)) === 0) {
      charges.push({
        index,
        charge: {
          messageId: message.id,
          accountId: message.accountId,
          step,
          amount: prep.charge.amount,
          description: prep.charge.description,
          ...(prep.charge.amount !== message.steps[step]?.cost ? { reprices: true } : {}),
        },
      });
    }
  }
  if (charges.length > 0) {
    const results = await deps.storage.chargeSteps(
      charges.map((c) => c.charge),
      now,
    );
    results.forEach((result, i) => {
      if (result !== 'insufficient_funds') return;
      const decision = decisions[charges[i]!.index]!;
      const step = decision.job.step;
      delete decision.dispatched;
      decision.instead = { event: { type: 'SKIPPED', step, reason: 'insufficient funds' } };
    });
  }
  return decisions;
}

/** What a driver's answer to a send means for the step. */
export interface SendOutcome {
  event: MachineEvent;
  detail?: string;
  providerMessageId?: string;
  carrier?: string;
}

/**
 * Hands an attempt to its driver, bounded by the deadlines' time: a driver that hangs fails the
 * step temporarily. A driver that throws, or whose promise rejects, fails it temporarily too.
 */
export function sendWithTimeout(
  driver: ChannelDriver,
  attempt: OutboundAttempt,
  ctx: ChannelContext,
  deadlines: SendDeadlines,
): Promise<SendOutcome> {
  const step = attempt.step;
  const failed = (detail: string): SendOutcome => ({ event: { type: 'FAILED', step, failure: 'temporary' }, detail });
  return new Promise((resolve) => {
    const answered = deadlines.watch(() => resolve(failed(`no answer from ${driver.name} within ${deadlines.ms} ms`)));
    const settle = (outcome: SendOutcome) => {
      answered();
      // A provider's id or error text with U+0000 is kept with U+FFFD in its place (PostgreSQL
      // refuses the character, and a round that cannot commit is retried forever).
      resolve(withoutNul(outcome));
    };
    // A driver that throws, answers something that is not a result, or answers a plain value
    // (not a promise) is handled as the awaiting code handled it: the first two fail the step.
    const answer = (result: SendResult) => {
      let outcome: SendOutcome;
      try {
        outcome = outcomeOf(step, result);
      } catch (error) {
        outcome = failed(String(error));
      }
      settle(outcome);
    };
    try {
      Promise.resolve(driver.send(attempt, ctx)).then(answer, (error: unknown) => settle(failed(String(error))));
    } catch (error) {
      settle(failed(String(error)));
    }
  });
}

function outcomeOf(step: number, result: SendResult): SendOutcome {
  const carrier = result.driver ? { carrier: result.driver } : {};
  if (result.outcome === 'accepted') {
    return {
      event: { type: 'ACCEPTED', step },
      ...(result.providerMessageId ? { providerMessageId: result.providerMessageId } : {}),
      ...carrier,
    };
  }
  const event: MachineEvent = {
    type: 'FAILED',
    step,
    failure: result.failure,
    ...(result.retryAfter !== undefined ? { retryAfter: result.retryAfter } : {}),
  };
  return { event, detail: result.error, ...carrier };
}
