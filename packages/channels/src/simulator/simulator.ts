import type { ChannelContext, ChannelDriver, ChannelId, OutboundAttempt, PendingAttempt, Receipt, SendResult } from '@spillway/core';
import { CHANNELS } from '@spillway/core';

/** Options of {@link createSimulator}. */
export interface SimulatorOptions {
  /**
   * Delay before each delivery report, ms (and again before a read report).
   * @default 200 (SPILLWAY_SIMULATOR_LATENCY_MS in the reference server)
   */
  latencyMs?: number;
  /** Channels simulated. @default every channel */
  channels?: readonly ChannelId[];
  /**
   * How many attempts `sent` holds at most, the latest, for tests and tools to look at: past that,
   * the oldest nine tenths of them go. Under load, every attempt held outlives the young
   * generation of V8's heap, whose collections then copy and promote it (the reference server
   * keeps 1,000).
   * @default 10000
   */
  keepSent?: number;
}

/** What a test number does on a channel; see the table in DESIGN.md and docs/simulator.md. */
export type SimulatedOutcome = 'delivered' | 'undeliverable' | 'permanent' | 'silent' | 'read' | 'not_on_channel';

const CHAT_CHANNELS: ReadonlySet<ChannelId> = new Set(['messenger', 'chatapp_bot', 'chatapp', 'rcs']);

/**
 * The outcome of sending to `to` on `channel`. Test numbers start with 999 and their last two
 * digits choose the outcome; any other number is delivered.
 */
export function simulatedOutcome(to: string, channel: ChannelId): SimulatedOutcome {
  const digits = to.replace(/^\+/, '');
  if (!digits.startsWith('999')) return 'delivered';
  switch (digits.slice(-2)) {
    case '00':
      return 'delivered';
    case '01':
      return channel === 'sms' ? 'delivered' : 'undeliverable';
    case '02':
      return 'undeliverable';
    case '03':
      return 'permanent';
    case '04':
      return 'silent';
    case '05':
      return CHAT_CHANNELS.has(channel) ? 'read' : 'delivered';
    case '06':
      return CHAT_CHANNELS.has(channel) ? 'not_on_channel' : 'delivered';
    default:
      return 'delivered';
  }
}

/** The reports the simulator makes about an attempt, each `after` ms from its acceptance. */
function reportsOf(attempt: Pick<OutboundAttempt, 'messageId' | 'step' | 'to' | 'channel'>, latency: number) {
  const { messageId, step } = attempt;
  const reports: Array<{ after: number; receipt: Receipt }> = [];
  switch (simulatedOutcome(attempt.to, attempt.channel)) {
    case 'delivered':
      reports.push({ after: latency, receipt: { messageId, step, outcome: 'delivered' } });
      break;
    case 'read':
      reports.push({ after: latency, receipt: { messageId, step, outcome: 'delivered' } });
      reports.push({ after: latency * 2 + 1, receipt: { messageId, step, outcome: 'read' } });
      break;
    case 'undeliverable':
      reports.push({
        after: latency,
        receipt: {
          messageId,
          step,
          outcome: 'failed',
          failure: 'undeliverable',
          error: 'recipient not reachable on this channel (simulator)',
        },
      });
      break;
    case 'permanent':
      reports.push({
        after: latency,
        receipt: { messageId, step, outcome: 'failed', failure: 'permanent', error: 'permanent error (simulator)' },
      });
      break;
    case 'silent':
    case 'not_on_channel':
      break;
  }
  return reports;
}

/**
 * The simulator: the default driver of every channel. It accepts every attempt at once and
 * reports the outcome its test number asks for after `latencyMs` on the engine's clock, so tests
 * drive it with a fake clock. Its pending reports live in memory, like a provider's callbacks in
 * flight: after a restart, `recover` derives them again from the attempts (the outcome is a pure
 * function of the number), as a real driver re-polls its provider.
 */
export function createSimulator(options: SimulatorOptions = {}): ChannelDriver & { sent: OutboundAttempt[] } {
  const latency = Math.max(0, options.latencyMs ?? 200);
  const keepSent = Math.max(1, options.keepSent ?? 10_000);
  const sent: OutboundAttempt[] = [];
  const later = (ctx: ChannelContext, ms: number, receipt: Receipt) => ctx.clock.setTimeout(() => void ctx.report(receipt), ms);

  return {
    name: 'simulator',
    channels: options.channels ?? CHANNELS,
    sent,
    async send(attempt: OutboundAttempt, ctx: ChannelContext): Promise<SendResult> {
      sent.push(attempt);
      if (sent.length > keepSent) sent.splice(0, sent.length - Math.ceil(keepSent / 10));
      if (simulatedOutcome(attempt.to, attempt.channel) === 'not_on_channel') {
        // Refused at once, as a Bot API answers 403 "bot was blocked by the user".
        return { outcome: 'failed', failure: 'not_on_channel', error: 'the recipient is not on this channel (simulator)' };
      }
      for (const { after, receipt } of reportsOf(attempt, latency)) later(ctx, after, receipt);
      return { outcome: 'accepted' };
    },
    async recover(attempts: PendingAttempt[], ctx: ChannelContext): Promise<void> {
      const now = ctx.clock.now();
      for (const attempt of attempts) {
        for (const { after, receipt } of reportsOf(attempt, latency)) {
          // Already reported delivered: only the read is still to come.
          if (attempt.delivered && receipt.outcome === 'delivered') continue;
          later(ctx, Math.max(0, attempt.acceptedAt + after - now), receipt);
        }
      }
    },
  };
}
