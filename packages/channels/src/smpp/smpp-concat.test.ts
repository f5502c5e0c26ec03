import { describe, expect, it } from 'vitest';
import smpp from 'smpp';
import { concatRefOf, decodePayload, payloadOf } from './smpp-concat.ts';

/** A `deliver_sm` as the driver gets it: written to the wire and read back by the `smpp` package. */
const received = (fields: Record<string, unknown>) => new smpp.PDU(new smpp.PDU('deliver_sm', fields).toBuffer());

const udhPart = (udh: number[], payload: Buffer, dataCoding = 0) =>
  received({
    source_addr: '4915100000300',
    destination_addr: 'Shop',
    esm_class: 0x40,
    data_coding: dataCoding,
    short_message: Buffer.concat([Buffer.from(udh), payload]),
  });

/** Letters, digits, space and `.,:!?` are the same septets in GSM 03.38 as in ASCII. */
const septets = (text: string) => Buffer.from(text, 'latin1');

describe('smpp concatenation of deliver_sm', () => {
  it('reads the 8-bit (IEI 0x00) and 16-bit (IEI 0x08) references of a UDH, after other elements', () => {
    expect(concatRefOf(udhPart([0x05, 0x00, 0x03, 0x42, 2, 1], septets('First')))).toEqual({ scheme: 'udh8', ref: 0x42, total: 2, seq: 1 });
    // A port addressing element (IEI 0x05) before a 16-bit reference.
    expect(concatRefOf(udhPart([0x0c, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0, 0x08, 0x04, 0x12, 0x34, 3, 2], septets('x')))).toEqual({
      scheme: 'udh16',
      ref: 0x1234,
      total: 3,
      seq: 2,
    });
  });

  it('reads the sar_* TLVs', () => {
    const pdu = received({
      source_addr: '4915100000300',
      destination_addr: 'Shop',
      data_coding: 0,
      short_message: septets('part'),
      sar_msg_ref_num: 700,
      sar_total_segments: 2,
      sar_segment_seqnum: 2,
    });
    expect(concatRefOf(pdu)).toEqual({ scheme: 'sar', ref: 700, total: 2, seq: 2 });
  });

  it('is not concatenated without a UDH indicator, with one part, or with a part number out of range', () => {
    expect(concatRefOf(received({ source_addr: '1', destination_addr: 'Shop', esm_class: 0, short_message: 'hello' }))).toBeNull();
    expect(concatRefOf(udhPart([0x05, 0x00, 0x03, 0x42, 1, 1], septets('one')))).toBeNull();
    expect(concatRefOf(udhPart([0x05, 0x00, 0x03, 0x42, 2, 0], septets('zero')))).toBeNull();
    expect(concatRefOf(udhPart([0x05, 0x00, 0x03, 0x42, 2, 3], septets('three')))).toBeNull();
    // Port addressing only: a UDH, but no concatenation.
    expect(concatRefOf(udhPart([0x06, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0], septets('x')))).toBeNull();
  });

  // SMPP carries data_coding 0 one septet per octet: the UDH (6 or 7 octets) is followed by whole
  // septets, with none of the fill bits that align packed 7-bit text after a UDH on the air interface.
  it('gives back the septets after the UDH, whatever its length', () => {
    for (const udh of [
      [0x05, 0x00, 0x03, 0x42, 2, 1],
      [0x06, 0x08, 0x04, 0x01, 0x42, 2, 1],
    ]) {
      const payload = payloadOf(udhPart(udh, septets('First half of a long MO ')));
      expect(payload.octets).toEqual(septets('First half of a long MO '));
      expect(decodePayload(payload.octets, payload.coding)).toBe('First half of a long MO ');
    }
  });

  it('gives back every septet of the default alphabet as the SMSC sent it', () => {
    const all = Buffer.from(Array.from({ length: 128 }, (_, i) => i));
    expect(payloadOf(udhPart([0x05, 0x00, 0x03, 1, 2, 1], all)).octets).toEqual(all);
  });

  it('decodes the joined octets: an escape ending one GSM-7 part and a surrogate pair split across UCS-2 parts', () => {
    const gsm1 = payloadOf(udhPart([0x05, 0x00, 0x03, 7, 2, 1], Buffer.concat([septets('Price: 5'), Buffer.from([0x1b])])));
    const gsm2 = payloadOf(udhPart([0x05, 0x00, 0x03, 7, 2, 2], Buffer.concat([Buffer.from([0x65]), septets(' only')])));
    expect(decodePayload(Buffer.concat([gsm1.octets, gsm2.octets]), gsm1.coding)).toBe('Price: 5€ only');

    const ucs2 = Buffer.from('Hi 😀!', 'utf16le').swap16();
    const split = 'Hi '.length * 2 + 2; // between the two halves of the emoji
    const u1 = payloadOf(udhPart([0x05, 0x00, 0x03, 8, 2, 1], ucs2.subarray(0, split), 8));
    const u2 = payloadOf(udhPart([0x05, 0x00, 0x03, 8, 2, 2], ucs2.subarray(split), 8));
    expect(decodePayload(Buffer.concat([u1.octets, u2.octets]), u1.coding)).toBe('Hi 😀!');
    // Alone, a half is a lone surrogate: U+FFFD, never an unpaired surrogate.
    expect(decodePayload(u1.octets, u1.coding)).toBe('Hi \uFFFD');
  });

  it('decodes Latin-1 (data_coding 3) and 8-bit data (data_coding 4) octet by octet', () => {
    const latin = payloadOf(udhPart([0x05, 0x00, 0x03, 9, 2, 1], Buffer.from('Café ', 'latin1'), 3));
    expect(decodePayload(latin.octets, latin.coding)).toBe('Café ');
    const binary = payloadOf(udhPart([0x05, 0x00, 0x03, 9, 2, 1], Buffer.from('crème', 'latin1'), 4));
    expect(binary.octets).toEqual(Buffer.from('crème', 'latin1'));
    expect(decodePayload(binary.octets, binary.coding)).toBe('crème');
  });
});
