import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock, SpillwayError } from '@spillway/core';
import type { ChannelContext, DriverHealthEvent, InboundReport, OutboundAttempt, Receipt } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { startTestSmsc } from '../testing/smsc-server.ts';
import type { TestSmsc } from '../testing/smsc-server.ts';
import { createSmppDriver } from './smpp.ts';
import type { SmppOptions } from './smpp.ts';
import { splitSms } from './smpp-encoding.ts';
import { relativeValidity } from './smpp-validity.ts';
import { canonicalSmscId, parseReceiptText, receiptState, smppFailure } from './smpp-status.ts';

let smsc: TestSmsc;
beforeAll(async () => {
  smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
});
afterAll(async () => {
  await smsc?.close();
});

const options = (over: Partial<SmppOptions> = {}): SmppOptions => ({
  host: '127.0.0.1',
  port: smsc.port,
  systemId: 'spillway',
  password: 'secret',
  reconnect: { initialMs: 50, maxMs: 200 },
  ...over,
});

async function until(done: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

let nextMessage = 1;
const attempt = (to: string, text: string): OutboundAttempt => {
  const messageId = nextMessage++;
  return {
    messageId,
    accountId: 1,
    step: 0,
    try: 0,
    idempotencyKey: `${messageId}:0:0`,
    partsCount: 1,
    channel: 'sms',
    type: 'sms',
    from: 'Shop',
    to,
    text,
    ttl: 600,
  };
};

runChannelDriverContract({
  name: 'smpp (a test SMSC on the smpp package)',
  time: 'real',
  create: () => createSmppDriver(options()),
  deliverableRecipient: '4915112345678',
  receiptsAfterRestart: true,
  failures: [
    { name: 'the SMSC answers ESME_RTHROTTLED', failure: 'throttled', recipient: '4915100000058' },
    { name: 'the SMSC answers ESME_RMSGQFUL', failure: 'throttled', recipient: '4915100000014' },
    { name: 'the SMSC answers ESME_RINVDSTADR', failure: 'undeliverable', recipient: '4915100000011' },
    { name: 'the receipt says UNDELIV', failure: 'undeliverable', recipient: '4915100000002' },
    {
      name: 'the bind is refused',
      failure: 'temporary',
      create: () => createSmppDriver(options({ password: 'wrong', responseTimeoutMs: 300 })),
    },
    { name: 'the SMSC is unreachable', failure: 'temporary', create: () => createSmppDriver(options({ port: 9, responseTimeoutMs: 300 })) },
  ],
});

describe('smpp driver', () => {
  const open = async (driverOptions: Partial<SmppOptions> = {}, clock = createFakeClock()) => {
    const reports: Receipt[] = [];
    const inbound: InboundReport[] = [];
    const ctx: ChannelContext = { clock, report: async (r) => void reports.push(r), inbound: async (m) => void inbound.push(m) };
    const driver = createSmppDriver(options(driverOptions));
    await driver.start!(ctx);
    return { driver, ctx, reports, inbound, clock };
  };

  it('sends GSM-7 and UCS-2 with their data coding', async () => {
    const { driver, ctx } = await open();
    try {
      const a = await driver.send(attempt('4915100000120', 'Ihr Code: 1234 {ok}'), ctx);
      const b = await driver.send(attempt('4915100000121', 'Ваш код: 1234'), ctx);
      expect(a).toMatchObject({ outcome: 'accepted', providerMessageId: expect.stringMatching(/^smsc-/) });
      expect(b.outcome).toBe('accepted');
      expect(smsc.submitted.find((s) => s.to === '4915100000120')).toMatchObject({
        dataCoding: 0,
        text: 'Ihr Code: 1234 {ok}',
        from: 'Shop',
      });
      expect(smsc.submitted.find((s) => s.to === '4915100000121')).toMatchObject({ dataCoding: 8, text: 'Ваш код: 1234' });
    } finally {
      await driver.close!();
    }
  });

  it("gives each submit_sm the attempt's ttl as its validity_period (SMPP 3.4 relative time), every part alike", async () => {
    const { driver, ctx } = await open();
    try {
      const short = { ...attempt('4915100000130', 'Your code: 1234'), ttl: 90_061 };
      const long = { ...attempt('4915100000131', 'y'.repeat(200)), ttl: 600 };
      expect((await driver.send(short, ctx)).outcome).toBe('accepted');
      expect((await driver.send(long, ctx)).outcome).toBe('accepted');
      // One day, one hour, one minute and one second; ten minutes.
      expect(smsc.submitted.filter((s) => s.to === '4915100000130').map((s) => s.validityPeriod)).toEqual(['000001010101000R']);
      expect(smsc.submitted.filter((s) => s.to === '4915100000131').map((s) => s.validityPeriod)).toEqual([
        '000000001000000R',
        '000000001000000R',
      ]);
    } finally {
      await driver.close!();
    }
  });

  it('sends no validity_period with validityPeriod: false (an SMSC that refuses relative times)', async () => {
    const { driver, ctx } = await open({ validityPeriod: false });
    try {
      expect((await driver.send(attempt('4915100000132', 'Your code: 1234'), ctx)).outcome).toBe('accepted');
      expect(smsc.submitted.find((s) => s.to === '4915100000132')?.validityPeriod).toBeNull();
    } finally {
      await driver.close!();
    }
  });

  it('concatenates a long text with a UDH and reports it delivered once every part is', async () => {
    const { driver, ctx, reports } = await open();
    try {
      const text = 'x'.repeat(200);
      const result = await driver.send(attempt('4915100000122', text), ctx);
      const parts = smsc.submitted.filter((s) => s.to === '4915100000122');
      expect(parts).toHaveLength(2);
      expect(parts.map((p) => p.esmClass & 0x40)).toEqual([0x40, 0x40]);
      const ref = parts[0]!.udh![2];
      expect(parts.map((p) => [...p.udh!])).toEqual([
        [0x00, 0x03, ref, 2, 1],
        [0x00, 0x03, ref, 2, 2],
      ]);
      expect(parts.map((p) => p.text).join('')).toBe(text);
      // The attempt's provider id lists every part, so that they can be counted after a restart.
      const key = parts.map((p) => p.messageId).join(' ');
      // Receipts of earlier tests' messages may come on this bind too (the SMSC retries them): only this message's count.
      const mine = () => reports.filter((r) => 'providerMessageId' in r && r.providerMessageId === key);
      await until(() => mine().length > 0);
      await new Promise((r) => setTimeout(r, 100));
      expect(mine()).toEqual([{ providerMessageId: key, outcome: 'delivered' }]);
      expect(result).toEqual({ outcome: 'accepted', providerMessageId: key });
    } finally {
      await driver.close!();
    }
  });

  it('reports a multipart message failed once when its parts fail', async () => {
    const { driver, ctx, reports } = await open();
    try {
      const result = await driver.send(attempt('4915100000202', 'w'.repeat(300)), ctx);
      const parts = smsc.submitted.filter((s) => s.to === '4915100000202');
      expect(parts).toHaveLength(2);
      const key = parts.map((p) => p.messageId).join(' ');
      const mine = () => reports.filter((r) => 'providerMessageId' in r && r.providerMessageId === key);
      await until(() => mine().length > 0);
      await new Promise((r) => setTimeout(r, 100));
      expect(mine()).toEqual([{ providerMessageId: key, outcome: 'failed', failure: 'undeliverable', error: 'UNDELIV (err:001)' }]);
      expect(result).toMatchObject({ providerMessageId: key });
    } finally {
      await driver.close!();
    }
  });

  it('after a restart, counts every part of a multipart message again from the ids kept with the attempt', async () => {
    const slow = await startTestSmsc({ systemId: 'spillway', password: 'secret', receiptDelayMs: 400 });
    const reports: Receipt[] = [];
    const ctx: ChannelContext = { clock: createFakeClock(), report: async (r) => void reports.push(r) };
    const make = () => createSmppDriver(options({ port: slow.port }));
    try {
      const before = make();
      await before.start!(ctx);
      const sent = (await before.send(attempt('4915100000132', 'y'.repeat(300)), ctx)) as { providerMessageId: string };
      const parts = slow.submitted.filter((s) => s.to === '4915100000132').map((p) => p.messageId);
      expect(parts).toHaveLength(2);
      expect(sent.providerMessageId).toBe(parts.join(' '));
      // The process goes away before any receipt: they wait at the SMSC.
      await before.close!();
      await new Promise((r) => setTimeout(r, 500));
      expect(reports).toEqual([]);

      // The engine hands the new driver the attempt with the ids it kept; the receipts come on the new bind.
      const after = make();
      const pending = {
        ...attempt('4915100000132', 'y'.repeat(300)),
        providerMessageId: sent.providerMessageId,
        acceptedAt: 0,
        delivered: false,
      };
      await after.recover!([pending], ctx);
      await until(() => reports.length > 0);
      // A receipt the first part deferred comes again on the next delivery: still one report.
      slow.deliverMo('4915100000133', 'Shop', 'flush');
      await new Promise((r) => setTimeout(r, 200));
      expect(reports).toEqual([{ providerMessageId: sent.providerMessageId, outcome: 'delivered' }]);
      await after.close!();
    } finally {
      await slow.close();
    }
  });

  /**
   * A short message sent through an SMSC that holds its receipt 400 ms, by a driver that then goes
   * away before the receipt comes (a restart): the receipt waits at the SMSC for the next bind.
   * `close` stops the SMSC.
   */
  async function sentBeforeRestart(to: string) {
    const other = await startTestSmsc({ systemId: 'spillway', password: 'secret', receiptDelayMs: 400 });
    const reports: Receipt[] = [];
    const clock = createFakeClock();
    const ctx: ChannelContext = { clock, report: async (r) => void reports.push(r) };
    const before = createSmppDriver(options({ port: other.port }));
    await before.start!(ctx);
    const sent = (await before.send(attempt(to, 'short'), ctx)) as { providerMessageId: string };
    await before.close!();
    await new Promise((r) => setTimeout(r, 500));
    return { smsc: other, reports, clock, ctx, providerMessageId: sent.providerMessageId, close: () => other.close() };
  }

  it('defers a receipt it does not know for a while after starting, then reports it by its id', async () => {
    const { smsc: other, reports, clock, ctx, providerMessageId, close } = await sentBeforeRestart('4915100000134');
    try {
      // A new driver that was not told about the attempt (recover not called yet): the receipt waits at the SMSC.
      const after = createSmppDriver(options({ port: other.port, unknownReceiptGraceMs: 5_000 }));
      await after.start!(ctx);
      await new Promise((r) => setTimeout(r, 200));
      expect(reports).toEqual([]);
      // Past the grace period it is reported by the SMSC's id (the engine finds the attempt in storage).
      await clock.advance(5_000);
      other.deliverMo('4915100000135', 'Shop', 'flush');
      await until(() => reports.length > 0);
      expect(reports).toEqual([{ providerMessageId, outcome: 'delivered' }]);
      await after.close!();
    } finally {
      await close();
    }
  });

  // The ids a driver knows are bounded (100,000, the oldest forgotten first): receipts that never
  // come must not pile up in memory. A forgotten id's receipt is then one it does not know.
  it.each([
    { others: 99_999, reported: true },
    { others: 100_000, reported: false },
  ])(
    'knows at most 100,000 recovered ids, forgetting the oldest: with $others more, its receipt reported at once: $reported',
    async ({ others, reported }) => {
      const { smsc: other, reports, clock, ctx, providerMessageId, close } = await sentBeforeRestart('4915100000136');
      try {
        // The restarted driver is handed that attempt first, then `others` later ones.
        const pending = (id: string) => ({
          ...attempt('4915100000137', 'x'),
          providerMessageId: id,
          acceptedAt: 0,
          delivered: false,
        });
        const after = createSmppDriver(options({ port: other.port, unknownReceiptGraceMs: 5_000 }));
        await after.recover!([pending(providerMessageId), ...Array.from({ length: others }, (_, i) => pending(`later-${i}`))], ctx);
        if (reported) await until(() => reports.length > 0);
        else await new Promise((r) => setTimeout(r, 300));
        // Known, it is reported on the new bind; forgotten, it waits at the SMSC out the grace period.
        expect(reports).toEqual(reported ? [{ providerMessageId: providerMessageId, outcome: 'delivered' }] : []);
        if (!reported) {
          // Past the grace period the SMSC's next delivery brings it, reported by its id.
          await clock.advance(5_000);
          other.deliverMo('4915100000138', 'Shop', 'flush');
          await until(() => reports.length > 0);
          expect(reports).toEqual([{ providerMessageId: providerMessageId, outcome: 'delivered' }]);
        }
        await after.close!();
      } finally {
        await close();
      }
    },
  );

  it('concatenates with sar_* TLVs or sends one message_payload when configured', async () => {
    const sar = await open({ concatenation: 'sar' });
    const payload = await open({ concatenation: 'payload' });
    try {
      await sar.driver.send(attempt('4915100000123', 'й'.repeat(100)), sar.ctx);
      const parts = smsc.submitted.filter((s) => s.to === '4915100000123');
      expect(parts.map((p) => [p.sar?.total, p.sar?.seq, p.dataCoding, p.udh])).toEqual([
        [2, 1, 8, null],
        [2, 2, 8, null],
      ]);
      expect(parts[0]!.sar!.ref).toBe(parts[1]!.sar!.ref);
      await payload.driver.send(attempt('4915100000124', 'y'.repeat(300)), payload.ctx);
      expect(smsc.submitted.filter((s) => s.to === '4915100000124').map((p) => p.text)).toEqual(['y'.repeat(300)]);
    } finally {
      await sar.driver.close!();
      await payload.driver.close!();
    }
  });

  it('keeps the link alive with enquire_link on the injected clock', async () => {
    const { driver, clock } = await open({ enquireLinkMs: 30_000 });
    try {
      const before = smsc.enquireLinks;
      await clock.advance(29_999);
      expect(smsc.enquireLinks).toBe(before);
      await clock.advance(1);
      await until(() => smsc.enquireLinks > before);
      expect(smsc.enquireLinks).toBe(before + 1);
    } finally {
      await driver.close!();
    }
  });

  it('reconnects with backoff after a dropped connection, and the receipt held by the SMSC arrives on the new bind', async () => {
    const { driver, ctx, clock, reports } = await open({ reconnect: { initialMs: 1000, maxMs: 8000 } });
    try {
      const binds = smsc.binds;
      const result = await driver.send(attempt('4915100000125', 'before the drop'), ctx);
      smsc.dropAll();
      await until(() => !driver.bound);
      expect(driver.bound).toBe(false);
      // While the link is down a send waits for the bind, and gives up as temporary.
      const during = driver.send(attempt('4915100000126', 'during'), ctx);
      await clock.advance(999);
      expect(smsc.binds).toBe(binds);
      await clock.advance(1);
      await until(() => driver.bound);
      expect(smsc.binds).toBe(binds + 1);
      expect(await during).toMatchObject({ outcome: 'accepted' });
      await until(() =>
        reports.some((r) => 'providerMessageId' in r && result.outcome === 'accepted' && r.providerMessageId === result.providerMessageId),
      );
      expect(reports).toContainEqual({
        providerMessageId: (result as { providerMessageId: string }).providerMessageId,
        outcome: 'delivered',
      });
    } finally {
      await driver.close!();
    }
  });

  it('tells its watchers the bind went down once, however many binds fail meanwhile, and up again', async () => {
    const own = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const clock = createFakeClock();
    const driver = createSmppDriver(options({ name: 'smsc', port: own.port, reconnect: { initialMs: 1000, maxMs: 1000 } }));
    const events: DriverHealthEvent[] = [];
    driver.watch!((e) => events.push(e));
    try {
      await driver.start!({ clock, report: async () => {} });
      own.refuseBinds = true;
      own.dropAll();
      await until(() => !driver.bound);
      // The driver schedules its next try in its own time: the clock moves a reconnect delay at a
      // time until it has tried (once moved before the try was scheduled, the try never came).
      const advanceUntil = async (done: () => boolean) => {
        for (let i = 0; i < 100 && !done(); i++) {
          await clock.advance(1000);
          await until(done, 50);
        }
        expect(done()).toBe(true);
      };
      for (let i = 1; i <= 3; i++) await advanceUntil(() => own.bindAttempts > i);
      own.refuseBinds = false;
      await advanceUntil(() => driver.bound);
      const link = { type: 'link', driver: 'smsc', link: `SMPP bind to 127.0.0.1:${own.port}` };
      const bound = `bound to 127.0.0.1:${own.port} as spillway`;
      expect(events).toEqual([
        { ...link, up: true, reason: bound },
        { ...link, up: false, reason: 'the SMSC closed the connection' },
        { ...link, up: true, reason: bound },
      ]);
    } finally {
      await driver.close!();
      await own.close();
    }
    // Closed on purpose: nothing to tell.
    expect(events).toHaveLength(3);
  });

  it('limits throughput in segments per second on the injected clock: over it, sends fail as throttled', async () => {
    const { driver, ctx, clock } = await open({ segmentsPerSecond: 2 });
    try {
      expect((await driver.send(attempt('4915100000127', 'one'), ctx)).outcome).toBe('accepted');
      expect(await driver.send(attempt('4915100000127', 'z'.repeat(200)), ctx)).toMatchObject({
        outcome: 'failed',
        failure: 'throttled',
        retryAfter: 1,
      });
      await clock.advance(500);
      expect((await driver.send(attempt('4915100000127', 'z'.repeat(200)), ctx)).outcome).toBe('accepted');
    } finally {
      await driver.close!();
    }
  });

  it('hands MO messages to ctx.inbound', async () => {
    const { driver, inbound } = await open();
    try {
      smsc.deliverMo('4915100000128', 'Shop', 'STOP');
      await until(() => inbound.length > 0);
      expect(inbound).toEqual([{ channel: 'sms', phoneNumber: '4915100000128', alphaName: 'Shop', text: 'STOP' }]);
    } finally {
      await driver.close!();
    }
  });

  // Regression: an MO the engine refused as invalid (a sender spelled in no way it reads) was
  // answered ESME_RX_T_APPN, so the SMSC delivered it again and again, for ever.
  it('acknowledges and drops an MO the engine can never take (validation_failed); one no account owns yet stays with the SMSC', async () => {
    const own = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const ctx: ChannelContext = {
      clock: createFakeClock(),
      report: async () => {},
      inbound: async (m) => {
        if (m.alphaName === 'Nobody') throw new SpillwayError('not_found', 'no account owns the address "Nobody"');
        throw new SpillwayError('validation_failed', 'Invalid incoming message', [
          { path: 'phoneNumber', message: 'not a valid phone number' },
        ]);
      },
    };
    const driver = createSmppDriver(options({ port: own.port }));
    await driver.start!(ctx);
    try {
      own.deliverMo('12', 'Shop', 'STOP');
      await until(() => own.answers.length > 0);
      expect(own.answers).toEqual([0]);
      expect(own.unacknowledged).toBe(0);
      own.deliverMo('4915100000128', 'Nobody', 'STOP');
      await until(() => own.answers.length > 1);
      expect(own.answers).toEqual([0, 0x64]);
      expect(own.unacknowledged).toBe(1);
    } finally {
      await driver.close!();
      await own.close();
    }
  });

  it('maps a hex submit_sm_resp id to the decimal id of the receipt (msgIdType 1), also after a restart', async () => {
    const hexSmsc = await startTestSmsc({ systemId: 'spillway', password: 'secret', ids: 'hex-then-decimal', receiptDelayMs: 300 });
    const reports: Receipt[] = [];
    const ctx: ChannelContext = { clock: createFakeClock(), report: async (r) => void reports.push(r) };
    // No grace: a receipt it does not know is reported at once, by the id it names.
    const make = (msgIdType?: 1) =>
      createSmppDriver(options({ port: hexSmsc.port, unknownReceiptGraceMs: 0, ...(msgIdType ? { msgIdType } : {}) }));
    try {
      // As the SMSC writes them, the two forms never match: the receipt names another id.
      const plain = make();
      await plain.start!(ctx);
      const sent = await plain.send(attempt('4915100000130', 'hi'), ctx);
      expect(sent).toMatchObject({ outcome: 'accepted', providerMessageId: expect.stringMatching(/^[0-9A-F]+$/) });
      await until(() => reports.length > 0);
      expect(reports[0]).toMatchObject({ outcome: 'delivered' });
      expect((reports[0] as { providerMessageId: string }).providerMessageId).not.toBe(
        (sent as { providerMessageId: string }).providerMessageId,
      );
      await plain.close!();

      // With msgIdType 1 both are kept as one form; the receipt comes to a new driver (a restart).
      reports.length = 0;
      const first = make(1);
      await first.start!(ctx);
      const accepted = (await first.send(attempt('4915100000131', 'hi'), ctx)) as { providerMessageId: string };
      expect(accepted.providerMessageId).toBe(canonicalSmscId(hexSmsc.submitted.at(-1)!.messageId, true));
      await first.close!();
      const second = make(1);
      await second.recover!(
        [{ ...attempt('4915100000131', 'hi'), providerMessageId: accepted.providerMessageId, acceptedAt: 0, delivered: false }],
        ctx,
      );
      await until(() => reports.length > 0);
      expect(reports).toEqual([{ providerMessageId: accepted.providerMessageId, outcome: 'delivered' }]);
      await second.close!();
    } finally {
      await hexSmsc.close();
    }
  });

  it('check() binds and pings, or says why it cannot', async () => {
    const ok = createSmppDriver(options());
    const bad = createSmppDriver(options({ password: 'wrong', responseTimeoutMs: 300 }));
    expect(await ok.check!()).toMatchObject({ ok: true, detail: expect.stringContaining('enquire_link answered') });
    expect(await bad.check!()).toMatchObject({ ok: false, detail: expect.stringContaining('ESME_RBINDFAIL') });
    await ok.close!();
    await bad.close!();
  });
});

describe('smpp mappings', () => {
  it('maps command_status to failure classes, with overrides for vendor codes', () => {
    expect(smppFailure(0x58)).toEqual({ failure: 'throttled', error: 'ESME_RTHROTTLED (0x00000058)' });
    expect(smppFailure(0x14).failure).toBe('throttled');
    expect(smppFailure(0x0b).failure).toBe('undeliverable');
    expect(smppFailure(0x08).failure).toBe('temporary');
    expect(smppFailure(0x0401).failure).toBe('permanent');
    expect(smppFailure(0x0401, { 0x0401: 'not_on_channel' }).failure).toBe('not_on_channel');
  });

  it('writes SMSC ids in one form: the decimal digits of their value', () => {
    expect(canonicalSmscId('A0001', true)).toBe('655361');
    expect(canonicalSmscId('0655361', false)).toBe('655361');
    expect(canonicalSmscId('ffffffffffffffff', true)).toBe('18446744073709551615');
    expect(canonicalSmscId('smsc-7', true)).toBe('smsc-7');
    expect(canonicalSmscId('12AB', false)).toBe('12AB');
  });

  it('reads receipt states from the text or the message_state TLV', () => {
    expect(
      parseReceiptText('id:abc123 sub:001 dlvrd:001 submit date:2601010000 done date:2601010000 stat:DELIVRD err:000 text:hi'),
    ).toEqual({
      id: 'abc123',
      stat: 'DELIVRD',
      err: '000',
    });
    expect(receiptState('DELIVRD')).toEqual({ outcome: 'delivered' });
    expect(receiptState(5)).toEqual({ outcome: 'failed', failure: 'undeliverable' });
    expect(receiptState('EXPIRED')).toEqual({ outcome: 'failed', failure: 'undeliverable' });
    expect(receiptState(8)).toEqual({ outcome: 'failed', failure: 'permanent' });
    expect(receiptState('ENROUTE')).toBeNull();
    expect(receiptState(99)).toBeNull();
  });

  it('cuts texts like core counts them', () => {
    expect(splitSms('a'.repeat(160)).parts).toHaveLength(1);
    expect(splitSms('a'.repeat(161)).parts.map((p) => p.length)).toEqual([153, 8]);
    // An escaped character (two septets) never straddles two parts.
    expect(splitSms('a'.repeat(152) + '€' + 'b'.repeat(10)).parts[0]).toBe('a'.repeat(152));
    expect(splitSms('й'.repeat(71))).toEqual({ dataCoding: 8, parts: ['й'.repeat(67), 'й'.repeat(4)] });
  });
});

describe('relativeValidity', () => {
  it('writes seconds as an SMPP 3.4 relative time (YYMMDDhhmmss000R), days up to 99', () => {
    expect(relativeValidity(1)).toBe('000000000001000R');
    expect(relativeValidity(3_600)).toBe('000000010000000R');
    expect(relativeValidity(14 * 86_400)).toBe('000014000000000R');
    expect(relativeValidity(1_000 * 86_400)).toBe('000099235959000R');
  });
});
