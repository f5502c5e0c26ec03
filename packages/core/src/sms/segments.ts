/**
 * SMS segmentation: which encoding a text needs and how many parts it travels in.
 *
 * GSM-7 is the GSM 03.38 default alphabet; characters of its extension table are sent as an
 * escape plus a septet, so they count twice. Any other character switches the whole text to
 * UCS-2, counted in UTF-16 code units. A multipart message loses room to the concatenation
 * header (160 -> 153 septets, 70 -> 67 units), and a two-unit character (an escaped GSM
 * character, a surrogate pair) is never split across parts, so a part may end one unit short.
 */

/** The encoding chosen for a text and its size. */
export interface SegmentCount {
  encoding: 'GSM-7' | 'UCS-2';
  /** Septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2. */
  units: number;
  /** Number of SMS parts; at least 1, also for an empty text (an empty SMS is still one SMS). */
  parts: number;
}

/** GSM 03.38 default alphabet (the escape 0x1B itself is not a character a text may hold). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' + '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** GSM 03.38 extension table: escape + septet, two septets each. */
const GSM_EXTENDED = '\f^{}\\[~]|€';

/** Septets per character: 1 basic, 2 extension, 0 not in GSM-7. ASCII in a flat table for speed. */
const ASCII_SEPTETS = new Uint8Array(128);
const OTHER_SEPTETS = new Map<number, 1 | 2>();
for (const ch of GSM_BASIC) setSeptets(ch.charCodeAt(0), 1);
for (const ch of GSM_EXTENDED) setSeptets(ch.charCodeAt(0), 2);

function setSeptets(code: number, septets: 1 | 2): void {
  if (code < 128) ASCII_SEPTETS[code] = septets;
  else OTHER_SEPTETS.set(code, septets);
}

const GSM_SINGLE = 160;
const GSM_MULTI = 153;
const UCS2_SINGLE = 70;
const UCS2_MULTI = 67;

/**
 * Counts the encoding, units and parts of an SMS text.
 *
 * @example
 * countSegments('hello') // { encoding: 'GSM-7', units: 5, parts: 1 }
 * countSegments('€'.repeat(81)) // { encoding: 'GSM-7', units: 162, parts: 2 }
 * countSegments('привет') // { encoding: 'UCS-2', units: 6, parts: 1 }
 */
export function countSegments(text: string): SegmentCount {
  const length = text.length;
  let septets = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    const s = code < 128 ? ASCII_SEPTETS[code]! : (OTHER_SEPTETS.get(code) ?? 0);
    if (s === 0) return countUcs2(text);
    septets += s;
  }
  if (septets <= GSM_SINGLE) return { encoding: 'GSM-7', units: septets, parts: 1 };
  let parts = 1;
  let used = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    const s = code < 128 ? ASCII_SEPTETS[code]! : OTHER_SEPTETS.get(code)!;
    // An escape sequence stays whole: it opens the next part when it does not fit.
    if (used + s > GSM_MULTI) {
      parts++;
      used = s;
    } else {
      used += s;
    }
  }
  return { encoding: 'GSM-7', units: septets, parts };
}

function countUcs2(text: string): SegmentCount {
  const units = text.length;
  if (units <= UCS2_SINGLE) return { encoding: 'UCS-2', units, parts: 1 };
  let parts = 1;
  let used = 0;
  for (let i = 0; i < units; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by its low surrogate is one character of two units.
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < units && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
    if (used + width > UCS2_MULTI) {
      parts++;
      used = width;
    } else {
      used += width;
    }
    i += width - 1;
  }
  return { encoding: 'UCS-2', units, parts };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
