import { describe, expect, it } from 'vitest';
import { createFakeClock, systemClock } from '../clock.ts';
import type { Clock } from '../clock.ts';
import type { ChannelContext, ChannelDriver, OutboundAttempt, PendingAttempt, Receipt, SendResult } from '../ports/channel.ts';
import type { ChannelId, FailureClass } from '../types/channel.ts';

const FAILURES: readonly FailureClass[] = ['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent'];

/** One failure a driver must classify: a recipient, or a whole setup, that fails a known way. */
export interface ContractFailureCase {
  /** What the case is, for the test name (e.g. `the SMSC answers ESME_RTHROTTLED`). */
  name: string;
  failure: FailureClass;
  /** The recipient that fails. @default the deliverable recipient */
  recipient?: string;
  /** A driver set up to fail (a wrong password, a gateway that is down). @default `create` */
  create?: () => ChannelDriver | Promise<ChannelDriver>;
  /** The channel to send on. @default the driver's first channel */
  channel?: ChannelId;
}

/** Options of {@link runChannelDriverContract}: how to create and serve the driver, a deliverable recipient and the failures it must classify. */
export interface ChannelDriverContractOptions {
  name: string;
  create: () => ChannelDriver | Promise<ChannelDriver>;
  /** A recipient the driver delivers to, per channel it serves. */
  deliverableRecipient: string;
  /** How long (ms, on the fake clock or the wall clock) the driver may take to report. @default 60000 (fake), 10000 (real) */
  reportWithinMs?: number;
  /**
   * `fake`: reports are driven by the fake clock (simulators). `real`: reports come from outside
   * processes (a gateway, a local vendor server) and are awaited on the wall clock.
   * @default 'fake'
   */
  time?: 'fake' | 'real';
  /**
   * Makes the driver's routes reachable (a real HTTP server of the test) with this context until
   * the returned function is called. Callbacks arriving while no driver is served should be held.
   */
  serve?: (driver: ChannelDriver, ctx: ChannelContext) => Promise<() => Promise<void>>;
  /** Failures the driver must classify, each as a failed send or a failed report of that class. */
  failures?: readonly ContractFailureCase[];
  /** Idempotency keys the provider saw (the test's provider records them), for drivers that pass them. */
  providerIdempotencyKeys?: () => readonly string[];
  /**
   * Whether a receipt arriving after a restart (a new driver instance, `recover` called with the
   * pending attempt) is still reported. @default false
   */
  receiptsAfterRestart?: boolean;
  /** Skips the suite, naming the reason in the test name (e.g. the gateway is not installed). */
  skip?: string | false;
}

/**
 * The conformance suite of the Channel port: what every driver must do for the engine to run
 * it. A driver's own test file is one call to it.
 */
export function runChannelDriverContract(options: ChannelDriverContractOptions): void {
  const real = options.time === 'real';
  const within = options.reportWithinMs ?? (real ? 10_000 : 60_000);
  let nextId = Math.floor(Math.random() * 1_000_000) * 10;
  const attempt = (channel: ChannelId, to = options.deliverableRecipient): OutboundAttempt => {
    const messageId = ++nextId;
    return {
      messageId,
      accountId: 1,
      step: 2,
      try: 0,
      idempotencyKey: `${messageId}:2:0`,
      partsCount: 1,
      channel,
      type: channel === 'sms' ? 'sms' : channel,
      from: 'Contract',
      to,
      text: 'contract test',
      ttl: 60,
    };
  };

  /** A context that records reports, on a clock fitting the mode, with the driver served and started. */
  async function open(driver: ChannelDriver, reports: Receipt[] = []) {
    const clock: Clock & { advance?: (ms: number) => Promise<void> } = real ? systemClock : createFakeClock();
    const ctx: ChannelContext = {
      clock,
      report: async (r) => {
        reports.push(r);
      },
    };
    const unserve = (await options.serve?.(driver, ctx)) ?? (async () => {});
    await driver.start?.(ctx);
    return {
      ctx,
      reports,
      /** Waits (or advances the fake clock) until `done` holds or the report window ends. */
      async until(done: () => boolean): Promise<void> {
        if (!real) {
          await (clock as ReturnType<typeof createFakeClock>).advance(within);
          return;
        }
        const end = Date.now() + within;
        while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      },
      async close() {
        await driver.close?.();
        await unserve();
      },
    };
  }

  const about = (a: OutboundAttempt, providerMessageId?: string) => (r: Receipt) =>
    'messageId' in r ? r.messageId === a.messageId && r.step === a.step : r.providerMessageId === providerMessageId;

  const suite = options.skip ? describe.skip : describe;
  const title = `channel driver contract: ${options.name}${options.skip ? ` (skipped: ${options.skip})` : ''}`;

  suite(title, () => {
    it('names itself and the channels it serves', async () => {
      const driver = await options.create();
      expect(driver.name).toEqual(expect.any(String));
      expect(driver.channels.length).toBeGreaterThan(0);
      await driver.close?.();
    });

    it('answers every send with acceptance or a classified failure, and reports delivery of the same attempt', async () => {
      const driver = await options.create();
      const io = await open(driver);
      try {
        for (const channel of driver.channels) {
          io.reports.length = 0;
          const a = attempt(channel);
          const result = await driver.send(a, io.ctx);
          if (result.outcome === 'failed') {
            expect(FAILURES).toContain(result.failure);
            expect(result.error).toEqual(expect.any(String));
            continue;
          }
          expect(result.outcome).toBe('accepted');
          const mine = about(a, result.providerMessageId);
          // Acceptance is never delivery: the outcome comes later, as a report.
          if (!real) expect(io.reports.filter((r) => r.outcome === 'delivered')).toEqual([]);
          await io.until(() => io.reports.some((r) => mine(r) && r.outcome === 'delivered'));
          expect(io.reports.length).toBeGreaterThan(0);
          for (const r of io.reports) {
            expect(mine(r)).toBe(true);
            expect(['delivered', 'read', 'failed']).toContain(r.outcome);
          }
          expect(io.reports.some((r) => r.outcome === 'delivered')).toBe(true);
        }
      } finally {
        await io.close();
      }
    });

    for (const c of options.failures ?? []) {
      it(`classifies a failure as ${c.failure}: ${c.name}`, async () => {
        const driver = await (c.create ?? options.create)();
        const io = await open(driver);
        try {
          const a = attempt(c.channel ?? driver.channels[0]!, c.recipient);
          const result = await driver.send(a, io.ctx);
          if (result.outcome === 'failed') {
            expect(result).toMatchObject({ failure: c.failure, error: expect.any(String) });
            return;
          }
          const mine = about(a, result.providerMessageId);
          await io.until(() => io.reports.some((r) => mine(r) && r.outcome === 'failed'));
          expect(io.reports.find((r) => mine(r) && r.outcome === 'failed')).toMatchObject({
            failure: c.failure,
            error: expect.any(String),
          });
        } finally {
          await io.close();
        }
      });
    }

    if (options.providerIdempotencyKeys) {
      const seen = options.providerIdempotencyKeys;
      it('passes the idempotency key of each attempt to the provider', async () => {
        const driver = await options.create();
        const io = await open(driver);
        try {
          const a = attempt(driver.channels[0]!);
          const again = { ...a, try: 1, idempotencyKey: `${a.messageId}:2:1` };
          expect((await driver.send(a, io.ctx)).outcome).toBe('accepted');
          expect((await driver.send(again, io.ctx)).outcome).toBe('accepted');
          expect(seen()).toEqual(expect.arrayContaining([a.idempotencyKey, again.idempotencyKey]));
        } finally {
          await io.close();
        }
      });
    }

    it('closes: close() may be called twice, and a send after it fails as temporary', async () => {
      const driver = await options.create();
      const io = await open(driver);
      await io.close();
      if (!driver.close) return;
      await expect(driver.close()).resolves.toBeUndefined();
      const result: SendResult = await driver.send(attempt(driver.channels[0]!), io.ctx).catch((error: unknown) => ({
        outcome: 'failed' as const,
        failure: 'temporary' as const,
        error: String(error),
      }));
      expect(result).toMatchObject({ outcome: 'failed', failure: 'temporary' });
    });

    if (options.receiptsAfterRestart) {
      it('reports a receipt that arrives after a restart (a new instance, recover called)', async () => {
        const reports: Receipt[] = [];
        const first = await options.create();
        const a = attempt(first.channels[0]!);
        // The first instance is not served: its callbacks are held until the second one is.
        const clock = real ? systemClock : createFakeClock();
        const quiet: ChannelContext = { clock, report: async () => {} };
        await first.start?.(quiet);
        const result = await first.send(a, quiet);
        expect(result.outcome).toBe('accepted');
        const providerMessageId = result.outcome === 'accepted' ? result.providerMessageId : undefined;
        await first.close?.();

        const second = await options.create();
        const io = await open(second, reports);
        try {
          const pending: PendingAttempt = { ...a, providerMessageId: providerMessageId ?? null, acceptedAt: clock.now(), delivered: false };
          await second.recover?.([pending], io.ctx);
          const mine = about(a, providerMessageId);
          await io.until(() => reports.some((r) => mine(r) && r.outcome === 'delivered'));
          expect(reports.some((r) => mine(r) && r.outcome === 'delivered')).toBe(true);
        } finally {
          await io.close();
        }
      });
    }
  });
}
