import { countSegments } from '@spillway/core';

/** SMPP `data_coding` values used by the driver. */
export const DATA_CODING = { gsm7: 0x00, ucs2: 0x08 } as const;

/** A text cut into the parts it travels in, with the data coding they share. */
export interface SmsParts {
  dataCoding: number;
  /** One entry per SMS; a single-part text has one. */
  parts: string[];
}

const GSM_MULTI = 153;
const UCS2_MULTI = 67;

/**
 * Cuts `text` into SMS parts the way core counts them (`countSegments`): GSM-7 when every
 * character is in the GSM 03.38 alphabet (153 septets a part, an escaped character never split),
 * UCS-2 otherwise (67 units a part, a surrogate pair never split).
 *
 * @example splitSms('hello') // { dataCoding: 0, parts: ['hello'] }
 */
export function splitSms(text: string): SmsParts {
  const count = countSegments(text);
  const dataCoding = count.encoding === 'GSM-7' ? DATA_CODING.gsm7 : DATA_CODING.ucs2;
  if (count.parts === 1) return { dataCoding, parts: [text] };
  const room = count.encoding === 'GSM-7' ? GSM_MULTI : UCS2_MULTI;
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of text) {
    // A character's width: 2 for a GSM extension character or a surrogate pair, else 1.
    const width = count.encoding === 'GSM-7' ? countSegments(ch).units : ch.length;
    if (used + width > room) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += width;
  }
  parts.push(current);
  return { dataCoding, parts };
}

/** The 8-bit concatenation UDH (IEI 0x00): reference, total, sequence (1-based). */
export function concatUdh(ref: number, total: number, seq: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, ref & 0xff, total, seq]);
}
