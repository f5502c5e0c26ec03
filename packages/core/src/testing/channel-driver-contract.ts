import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import type { ChannelDriver, OutboundAttempt, Receipt } from '../ports/channel.ts';
import type { ChannelId, FailureClass } from '../types/channel.ts';

const FAILURES: readonly FailureClass[] = ['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent'];

export interface ChannelDriverContractOptions {
  name: string;
  create: () => ChannelDriver | Promise<ChannelDriver>;
  /** A recipient the driver delivers to, per channel it serves. */
  deliverableRecipient: string;
  /** How long (ms on the fake clock) the driver may take to report. @default 60000 */
  reportWithinMs?: number;
}

/**
 * The conformance suite of the Channel port: what every driver must do for the engine to run
 * it. A driver's own test file is one call to it.
 */
export function runChannelDriverContract(options: ChannelDriverContractOptions): void {
  const within = options.reportWithinMs ?? 60_000;
  const attempt = (channel: ChannelId, messageId: number): OutboundAttempt => ({
    messageId,
    accountId: 1,
    step: 2,
    try: 0,
    idempotencyKey: `${messageId}:2:0`,
    partsCount: 1,
    channel,
    type: channel === 'sms' ? 'sms' : channel,
    from: 'Contract',
    to: options.deliverableRecipient,
    text: 'contract test',
    ttl: 60,
  });

  describe(`channel driver contract: ${options.name}`, () => {
    it('names itself and the channels it serves', async () => {
      const driver = await options.create();
      expect(driver.name).toEqual(expect.any(String));
      expect(driver.channels.length).toBeGreaterThan(0);
    });

    it('answers every send with acceptance or a classified failure, and reports delivery of the same attempt', async () => {
      const driver = await options.create();
      const clock = createFakeClock();
      for (const [i, channel] of driver.channels.entries()) {
        const reports: Receipt[] = [];
        const result = await driver.send(attempt(channel, 100 + i), {
          clock,
          report: async (r) => {
            reports.push(r);
          },
        });
        if (result.outcome === 'failed') {
          expect(FAILURES).toContain(result.failure);
          expect(result.error).toEqual(expect.any(String));
          continue;
        }
        expect(result.outcome).toBe('accepted');
        // Acceptance is never delivery: the outcome comes later, as a report.
        expect(reports.filter((r) => r.outcome === 'delivered')).toEqual([]);
        await clock.advance(within);
        expect(reports.length).toBeGreaterThan(0);
        for (const r of reports) {
          expect(r).toMatchObject({ messageId: 100 + i, step: 2 });
          expect(['delivered', 'read', 'failed']).toContain(r.outcome);
        }
        expect(reports.some((r) => r.outcome === 'delivered')).toBe(true);
      }
    });
  });
}
