/**
 * The text of an MO message as smsbox hands it to the `/mo` route.
 *
 * The MO URL carries `text=%b&coding=%c&charset=%C`: `%b` is the message's bytes as Kannel holds
 * them, url-encoded (`+` for 0x20), `%c` the coding (0 7-bit, 1 8-bit, 2 UCS-2) and `%C` the
 * charset those bytes are in: `UTF-8` for 7-bit texts (Kannel converts GSM to UTF-8), `UTF-16BE`
 * for UCS-2, `8-BIT` for 8-bit data; with smsbox's `mo-recode` a UCS-2 text comes recoded to
 * UTF-8 with `coding=0&charset=UTF-8`. `%a` is not used: it is the text split into words at
 * whitespace bytes and joined with single spaces, which squeezes runs of spaces and breaks UCS-2
 * (whose characters hold such bytes: U+2020 is 0x20 0x20, U+040D ends in 0x0D).
 *
 * An MO URL of older releases (`text=%a`, no `coding` nor `charset`) is read as before: UTF-8.
 */
export function moText(url: URL): string {
  const q = url.searchParams;
  const charset = q.get('charset');
  const coding = q.get('coding');
  if (charset === null && coding === null) return q.get('text') ?? '';
  const raw = rawParam(url.search, 'text');
  if (raw === undefined) return '';
  return new TextDecoder(moEncoding(charset, coding)).decode(percentBytes(raw));
}

/**
 * The encoding to decode an MO's bytes with: the charset Kannel names when TextDecoder knows it
 * (any WHATWG label: `UTF-8`, `UTF-16BE`, `ISO-8859-1`, `windows-1251`, ...), else by the coding
 * (UTF-16BE for UCS-2, UTF-8 otherwise, as the text of older MO URLs was read). WHATWG reads
 * `UTF-16`, `UCS-2` and `unicode` as little-endian; SMS UCS-2 is big-endian, so those mean
 * UTF-16BE here (only `UTF-16LE` is little-endian).
 */
export function moEncoding(charset: string | null, coding: string | null): string {
  const label = charset?.trim() ?? '';
  if (label) {
    let encoding: string | undefined;
    try {
      encoding = new TextDecoder(label).encoding;
    } catch {
      // A label TextDecoder does not know: Kannel's `8-BIT`, `binary`, `gsm`.
    }
    if (encoding === 'utf-16le' && !/le$/i.test(label)) return 'utf-16be';
    if (encoding) return encoding;
  }
  return coding?.trim() === '2' ? 'utf-16be' : 'utf-8';
}

/** The still url-encoded value of `name` in a query string (`?a=1&b=2`). */
function rawParam(search: string, name: string): string | undefined {
  for (const pair of search.replace(/^\?/, '').split('&')) {
    const eq = pair.indexOf('=');
    if ((eq < 0 ? pair : pair.slice(0, eq)) === name) return eq < 0 ? '' : pair.slice(eq + 1);
  }
  return undefined;
}

const encoder = new TextEncoder();

/** The bytes of a url-encoded value: `%XX` is a byte, `+` is 0x20, any other character its UTF-8. */
function percentBytes(raw: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    const hex = c === '%' ? raw.slice(i + 1, i + 3) : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === '+') {
      bytes.push(0x20);
    } else {
      const cp = raw.codePointAt(i)!;
      for (const b of encoder.encode(String.fromCodePoint(cp))) bytes.push(b);
      if (cp > 0xffff) i++;
    }
  }
  return Uint8Array.from(bytes);
}
