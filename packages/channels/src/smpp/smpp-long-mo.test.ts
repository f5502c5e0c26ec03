import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, SpillwayError } from '@spillway/core';
import type { ChannelContext, InboundReport } from '@spillway/core';
import { startTestSmsc } from '../testing/smsc-server.ts';
import type { TestSmsc } from '../testing/smsc-server.ts';
import { createSmppDriver } from './smpp.ts';
import type { SmppOptions } from './smpp.ts';

const ESME_RX_T_APPN = 0x64;

let smsc: TestSmsc | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await smsc?.close();
  smsc = undefined;
});

async function until(done: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

/** A driver bound to a fresh test SMSC (parts it defers stay there for the next test otherwise). */
async function open(over: Partial<SmppOptions> = {}, inboundFails: number | ((m: InboundReport) => Error | null) = 0) {
  smsc ??= await startTestSmsc({ systemId: 'spillway', password: 'secret' });
  const clock = createFakeClock();
  const inbound: InboundReport[] = [];
  const warnings: string[] = [];
  let failures = typeof inboundFails === 'number' ? inboundFails : 0;
  const ctx: ChannelContext = {
    clock,
    report: async () => {},
    inbound: async (m) => {
      if (failures-- > 0) throw new Error('the database is away');
      const refusal = typeof inboundFails === 'function' ? inboundFails(m) : null;
      if (refusal) throw refusal;
      inbound.push(m);
    },
  };
  const driver = createSmppDriver({
    host: '127.0.0.1',
    port: smsc.port,
    systemId: 'spillway',
    password: 'secret',
    reconnect: { initialMs: 50, maxMs: 200 },
    // The tests move the clock by minutes: an enquire_link then would time out on it before its answer came.
    enquireLinkMs: 86_400_000,
    onWarning: (w) => warnings.push(w),
    ...over,
  });
  await driver.start!(ctx);
  closers.push(() => driver.close!());
  return { driver, ctx, clock, inbound, warnings, smsc };
}

/** Letters, digits, space and `.,:!?` are the same septets in GSM 03.38 as in ASCII. */
const septets = (text: string) => Buffer.from(text, 'latin1');
const udh8 = (ref: number, total: number, seq: number) => [0x05, 0x00, 0x03, ref, total, seq];
const udh16 = (ref: number, total: number, seq: number) => [0x06, 0x08, 0x04, ref >> 8, ref & 0xff, total, seq];

/** A part of a long MO with a concatenation UDH, as an SMSC sends it. */
const udhPart = (from: string, udh: number[], payload: Buffer, dataCoding = 0, to = 'Shop') => ({
  source_addr: from,
  destination_addr: to,
  esm_class: 0x40,
  data_coding: dataCoding,
  short_message: Buffer.concat([Buffer.from(udh), payload]),
});

/** Waits until the driver answered `n` deliver_sm in all. */
const answered = (s: TestSmsc, n: number) => until(() => s.answers.length >= n);

describe('smpp long MO (concatenated deliver_sm)', () => {
  // The new-user trial: two parts produced two callbacks, "First half of a long MO " and "and the second half.".
  it('reassembles two UDH parts into one incoming message, and acknowledges every part', async () => {
    const { inbound, smsc } = await open();
    smsc.deliver(udhPart('4915100000301', udh8(0x42, 2, 1), septets('First half of a long MO ')));
    await answered(smsc, 1);
    // Not durable yet: the SMSC keeps the first part and delivers it again later.
    expect(smsc.answers).toEqual([ESME_RX_T_APPN]);
    expect(inbound).toEqual([]);
    smsc.deliver(udhPart('4915100000301', udh8(0x42, 2, 2), septets('and the second half.')));
    await until(() => inbound.length > 0);
    expect(inbound).toEqual([
      { channel: 'sms', phoneNumber: '4915100000301', alphaName: 'Shop', text: 'First half of a long MO and the second half.' },
    ]);
    // The SMSC's retry of the deferred part is acknowledged, and delivers nothing more.
    smsc.retryDeliveries();
    await until(() => smsc.unacknowledged === 0);
    expect(smsc.unacknowledged).toBe(0);
    expect(inbound).toHaveLength(1);
  });

  it("hands a long MO over with how its sender is written (TON 2: national) and the driver's country, for the engine to read", async () => {
    const { inbound, smsc } = await open({ country: 'DE' });
    const national = (seq: number, text: string) => ({ ...udhPart('01511000009', udh8(0x43, 2, seq), septets(text)), source_addr_ton: 2 });
    smsc.deliver(national(1, 'Called from '));
    smsc.deliver(national(2, 'a national number.'));
    await until(() => inbound.length > 0);
    expect(inbound).toEqual([
      {
        channel: 'sms',
        phoneNumber: '01511000009',
        phoneNumberFormat: 'national',
        defaultCountry: 'DE',
        alphaName: 'Shop',
        text: 'Called from a national number.',
      },
    ]);
  });

  it('reassembles three parts arriving out of order, with a 16-bit reference (IEI 0x08)', async () => {
    const { inbound, smsc } = await open();
    smsc.deliver(udhPart('4915100000302', udh16(0x1234, 3, 3), septets('and the end.')));
    smsc.deliver(udhPart('4915100000302', udh16(0x1234, 3, 1), septets('The start, ')));
    await answered(smsc, 2);
    expect(inbound).toEqual([]);
    smsc.deliver(udhPart('4915100000302', udh16(0x1234, 3, 2), septets('the middle ')));
    await until(() => inbound.length > 0);
    expect(inbound.map((m) => m.text)).toEqual(['The start, the middle and the end.']);
    smsc.retryDeliveries();
    await until(() => smsc.unacknowledged === 0);
    expect(smsc.unacknowledged).toBe(0);
    expect(inbound).toHaveLength(1);
  });

  it('reassembles parts numbered with the sar_* TLVs, in 8-bit data', async () => {
    const { inbound, smsc } = await open();
    const sar = (seq: number, text: string) => ({
      source_addr: '4915100000303',
      destination_addr: 'Shop',
      esm_class: 0,
      data_coding: 4,
      short_message: Buffer.from(text, 'latin1'),
      sar_msg_ref_num: 0x0102,
      sar_total_segments: 2,
      sar_segment_seqnum: seq,
    });
    smsc.deliver(sar(2, 'crème brûlée'));
    await answered(smsc, 1);
    smsc.deliver(sar(1, 'Café au lait, '));
    await until(() => inbound.length > 0);
    expect(inbound.map((m) => m.text)).toEqual(['Café au lait, crème brûlée']);
  });

  it('decodes UCS-2 parts joined: an emoji split between two parts arrives whole', async () => {
    const { inbound, smsc } = await open();
    const octets = Buffer.from('Grüße 😀 aus Köln', 'utf16le').swap16();
    const split = 'Grüße '.length * 2 + 2; // the high surrogate ends part 1, the low one starts part 2
    smsc.deliver(udhPart('4915100000304', udh8(9, 2, 2), octets.subarray(split), 8));
    smsc.deliver(udhPart('4915100000304', udh8(9, 2, 1), octets.subarray(0, split), 8));
    await until(() => inbound.length > 0);
    expect(inbound.map((m) => m.text)).toEqual(['Grüße 😀 aus Köln']);
  });

  it('decodes GSM-7 parts joined: an escape ending one part makes one character with the next', async () => {
    const { inbound, smsc } = await open();
    smsc.deliver(udhPart('4915100000305', udh8(10, 2, 1), Buffer.concat([septets('Price: 5'), Buffer.from([0x1b])])));
    smsc.deliver(udhPart('4915100000305', udh8(10, 2, 2), Buffer.concat([Buffer.from([0x65]), septets(' only')])));
    await until(() => inbound.length > 0);
    expect(inbound.map((m) => m.text)).toEqual(['Price: 5€ only']);
  });

  it('takes a part the SMSC delivers twice once', async () => {
    const { inbound, smsc } = await open();
    const first = udhPart('4915100000306', udh8(11, 2, 1), septets('Once, '));
    smsc.deliver(first);
    smsc.deliver(first);
    await answered(smsc, 2);
    smsc.deliver(udhPart('4915100000306', udh8(11, 2, 2), septets('only once.')));
    await until(() => inbound.length > 0);
    smsc.retryDeliveries();
    await until(() => smsc.unacknowledged === 0);
    // And again after the message was delivered: acknowledged, nothing new.
    smsc.deliver(first);
    await until(() => smsc.unacknowledged === 0);
    expect(smsc.unacknowledged).toBe(0);
    expect(inbound.map((m) => m.text)).toEqual(['Once, only once.']);
  });

  it('keeps apart parts with one reference from two senders, and to two addresses', async () => {
    const { inbound, smsc } = await open();
    smsc.deliver(udhPart('4915100000307', udh8(12, 2, 1), septets('Alice says ')));
    smsc.deliver(udhPart('4915100000308', udh8(12, 2, 1), septets('Bob says ')));
    smsc.deliver(udhPart('4915100000307', udh8(12, 2, 1), septets('Alice to Promo says '), 0, 'Promo'));
    smsc.deliver(udhPart('4915100000308', udh8(12, 2, 2), septets('hi.')));
    smsc.deliver(udhPart('4915100000307', udh8(12, 2, 2), septets('hello.')));
    smsc.deliver(udhPart('4915100000307', udh8(12, 2, 2), septets('bye.'), 0, 'Promo'));
    await until(() => inbound.length >= 3);
    expect(inbound.map((m) => [m.phoneNumber, m.alphaName, m.text]).sort()).toEqual([
      ['4915100000307', 'Promo', 'Alice to Promo says bye.'],
      ['4915100000307', 'Shop', 'Alice says hello.'],
      ['4915100000308', 'Shop', 'Bob says hi.'],
    ]);
  });

  it('acknowledges the last part only once the whole message is durable', async () => {
    const { inbound, smsc } = await open({}, 1);
    smsc.deliver(udhPart('4915100000309', udh8(13, 2, 1), septets('Stored ')));
    smsc.deliver(udhPart('4915100000309', udh8(13, 2, 2), septets('at last.')));
    await answered(smsc, 2);
    // The engine could not store it: both parts stay with the SMSC.
    expect(smsc.answers).toEqual([ESME_RX_T_APPN, ESME_RX_T_APPN]);
    expect(inbound).toEqual([]);
    smsc.retryDeliveries();
    await until(() => inbound.length > 0);
    smsc.retryDeliveries();
    await until(() => smsc.unacknowledged === 0);
    expect(smsc.unacknowledged).toBe(0);
    expect(inbound.map((m) => m.text)).toEqual(['Stored at last.']);
  });

  // Regression: a long MO the engine can never take (a sender that is no number) was answered
  // ESME_RX_T_APPN at every retry of the SMSC, and given up and handed over again every 5 minutes, for ever.
  it('acknowledges every part of a message the engine can never take, once it is whole, and drops it', async () => {
    let refusals = 0;
    const { inbound, smsc } = await open({}, () => {
      refusals++;
      return new SpillwayError('validation_failed', 'Invalid incoming message', [
        { path: 'phoneNumber', message: 'not a valid phone number' },
      ]);
    });
    smsc.deliver(udhPart('12', udh8(15, 2, 1), septets('Never ')));
    smsc.deliver(udhPart('12', udh8(15, 2, 2), septets('taken.')));
    await answered(smsc, 2);
    expect(smsc.answers).toEqual([ESME_RX_T_APPN, 0]);
    smsc.retryDeliveries();
    await until(() => smsc.unacknowledged === 0);
    expect(smsc.unacknowledged).toBe(0);
    expect(smsc.answers).toEqual([ESME_RX_T_APPN, 0, 0]);
    // Handed over once; the SMSC's retry of the first part is recognised as delivered.
    expect(refusals).toBe(1);
    expect(inbound).toEqual([]);
  });

  it('loses no part to a restart between parts: the SMSC delivers the deferred one to the next process', async () => {
    const before = await open();
    const s = before.smsc;
    s.deliver(udhPart('4915100000310', udh8(14, 2, 1), septets('Before the restart, ')));
    await answered(s, 1);
    expect(s.answers).toEqual([ESME_RX_T_APPN]);
    await before.driver.close!();

    const after = await open();
    s.deliver(udhPart('4915100000310', udh8(14, 2, 2), septets('after it.')));
    await until(() => after.inbound.length > 0);
    expect(after.inbound.map((m) => m.text)).toEqual(['Before the restart, after it.']);
    expect(before.inbound).toEqual([]);
    s.retryDeliveries();
    await until(() => s.unacknowledged === 0);
    expect(s.unacknowledged).toBe(0);
  });

  it('gives up an incomplete message 5 minutes after its latest new part: what arrived, the gap marked, with a warning', async () => {
    const { inbound, smsc, clock, warnings } = await open();
    smsc.deliver(udhPart('4915100000311', udh8(15, 3, 1), septets('Part one, ')));
    await answered(smsc, 1);
    await clock.advance(60_000);
    // The test SMSC sends the deferred part 1 again with part 3: three answers in all.
    smsc.deliver(udhPart('4915100000311', udh8(15, 3, 3), septets('and part three.')));
    await answered(smsc, 3);
    // The SMSC's retries are no new part: they do not put the deadline off.
    await clock.advance(120_000);
    smsc.retryDeliveries();
    await answered(smsc, 5);
    await clock.advance(179_999);
    expect(inbound).toEqual([]);
    await clock.advance(1);
    await until(() => inbound.length > 0);
    expect(inbound).toEqual([
      { channel: 'sms', phoneNumber: '4915100000311', alphaName: 'Shop', text: 'Part one, [part 2 of 3 missing]and part three.' },
    ]);
    expect(warnings).toEqual([expect.stringContaining('4915100000311')]);
    // It says what to do: the parts may have gone to another process's bind, or come late.
    expect(warnings[0]).toMatch(/part 2 of 3 did not reach this bind within 300000 ms \(moPartsTimeoutMs\)/);
    expect(warnings[0]).toMatch(/other processes bind to the same SMSC account.*deliver MO to one bind only.*raise moPartsTimeoutMs/);
    // The parts the SMSC still holds are acknowledged when it delivers them again.
    smsc.retryDeliveries();
    await until(() => smsc.unacknowledged === 0);
    expect(smsc.unacknowledged).toBe(0);
    expect(inbound).toHaveLength(1);
  });

  it('gives up after moPartsTimeoutMs when set', async () => {
    const { inbound, smsc, clock } = await open({ moPartsTimeoutMs: 10_000 });
    smsc.deliver(udhPart('4915100000312', udh8(16, 2, 2), septets('the end only')));
    await answered(smsc, 1);
    await clock.advance(9_999);
    expect(inbound).toEqual([]);
    await clock.advance(1);
    await until(() => inbound.length > 0);
    expect(inbound.map((m) => m.text)).toEqual(['[part 1 of 2 missing]the end only']);
  });
});
