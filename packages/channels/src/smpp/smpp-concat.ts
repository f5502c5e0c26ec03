import smpp from 'smpp';
import type { PDU } from 'smpp';
import { wellFormed } from '@spillway/core/adapter';

/** Where a `deliver_sm` sits in a concatenated message, and which reference numbers its message. */
export interface ConcatRef {
  /** `udh8`: UDH IEI 0x00; `udh16`: UDH IEI 0x08; `sar`: the `sar_*` TLVs. */
  scheme: 'udh8' | 'udh16' | 'sar';
  ref: number;
  total: number;
  /** 1-based. */
  seq: number;
}

/** How the octets of a part are turned into text (see {@link payloadOf}). */
export type PayloadCoding = { kind: 'gsm7'; table: number } | { kind: 'ucs2' } | { kind: 'latin1' };

/** A part's message octets without its UDH, and their coding. */
export interface Payload {
  octets: Buffer;
  coding: PayloadCoding;
}

const ESM_UDHI = 0x40;
const IEI_CONCAT_8 = 0x00;
const IEI_CONCAT_16 = 0x08;
const IEI_SINGLE_SHIFT = 0x24;
const IEI_LOCKING_SHIFT = 0x25;

/** What the `smpp` package made of `short_message` (or `message_payload`): the text, and the UDH's elements when UDHI is set. */
interface DecodedMessage {
  message?: unknown;
  udh?: unknown;
}

function decodedMessage(pdu: PDU): DecodedMessage {
  const value = pdu['message_payload'] ?? pdu['short_message'];
  if (Buffer.isBuffer(value) || typeof value === 'string') return { message: value };
  return typeof value === 'object' && value ? (value as DecodedMessage) : {};
}

/** The information elements of the UDH (`[iei, length, ...data]` each); none without UDHI. */
function udhElements(pdu: PDU): Buffer[] {
  if ((Number(pdu['esm_class'] ?? 0) & ESM_UDHI) === 0) return [];
  const { udh } = decodedMessage(pdu);
  return Array.isArray(udh) ? udh.filter((e): e is Buffer => Buffer.isBuffer(e)) : [];
}

/**
 * The concatenation of a `deliver_sm`: from its UDH (8-bit reference IEI 0x00, 16-bit IEI 0x08)
 * or its `sar_*` TLVs; `null` for a message in one part, and for a part number out of range (as
 * Kannel does, such a part is taken as a message of its own rather than held for parts that
 * cannot come).
 */
export function concatRefOf(pdu: PDU): ConcatRef | null {
  let found: ConcatRef | null = null;
  for (const e of udhElements(pdu)) {
    if (e[0] === IEI_CONCAT_8 && e[1] === 3 && e.length >= 5) found = { scheme: 'udh8', ref: e[2]!, total: e[3]!, seq: e[4]! };
    else if (e[0] === IEI_CONCAT_16 && e[1] === 4 && e.length >= 6)
      found = { scheme: 'udh16', ref: e.readUInt16BE(2), total: e[4]!, seq: e[5]! };
    if (found) break;
  }
  if (!found && typeof pdu['sar_msg_ref_num'] === 'number') {
    found = {
      scheme: 'sar',
      ref: pdu['sar_msg_ref_num'],
      total: Number(pdu['sar_total_segments']),
      seq: Number(pdu['sar_segment_seqnum']),
    };
  }
  if (!found || !(found.total >= 2) || !(found.seq >= 1) || found.seq > found.total) return null;
  return found;
}

/**
 * The octets a part's text was sent in, without its UDH. The `smpp` package has already decoded
 * them (GSM-7 for `data_coding` 0 and 1, or the national table a shift element names; Latin-1 for
 * 3; UCS-2 for 8; other codings stay octets); this reverses that decoding exactly, so that the
 * parts' octets are joined before they are decoded. Over SMPP, GSM-7 travels one septet per octet:
 * the UDH is whole octets followed by whole septets, with none of the fill bits that align packed
 * septets after a UDH on the air interface.
 */
export function payloadOf(pdu: PDU): Payload {
  const { message } = decodedMessage(pdu);
  if (Buffer.isBuffer(message)) return { octets: message, coding: { kind: 'latin1' } };
  const text = typeof message === 'string' ? message : '';
  const coding = codingOf(pdu);
  switch (coding.kind) {
    case 'gsm7':
      return { octets: smpp.gsmCoder.encode(text, coding.table), coding };
    case 'ucs2':
      return { octets: Buffer.from(text, 'utf16le').swap16(), coding };
    case 'latin1':
      return { octets: Buffer.from(text, 'latin1'), coding };
  }
}

/** The coding the `smpp` package decoded a part's text with (its `filters.message.decode`). */
function codingOf(pdu: PDU): PayloadCoding {
  // With a shift element the package decodes GSM-7 with that table, whatever the data_coding.
  const shift = udhElements(pdu).find((e) => e[0] === IEI_SINGLE_SHIFT || e[0] === IEI_LOCKING_SHIFT);
  if (shift) return { kind: 'gsm7', table: shift[2] ?? 0 };
  switch (Number(pdu['data_coding'] ?? 0) & 0x0f) {
    case 0x00:
    case 0x01:
      return { kind: 'gsm7', table: 0 };
    case 0x08:
      return { kind: 'ucs2' };
    default:
      return { kind: 'latin1' };
  }
}

/**
 * The text of octets joined from consecutive parts: an escape septet ending one GSM-7 part and a
 * surrogate pair split across UCS-2 parts decode as one character. A surrogate left without its
 * other half (an odd part missing) becomes U+FFFD.
 */
export function decodePayload(octets: Buffer, coding: PayloadCoding): string {
  switch (coding.kind) {
    case 'gsm7':
      return smpp.gsmCoder.decode(octets, coding.table);
    case 'ucs2':
      return wellFormed(
        Buffer.from(octets.subarray(0, octets.length & ~1))
          .swap16()
          .toString('utf16le'),
      );
    case 'latin1':
      return octets.toString('latin1');
  }
}
