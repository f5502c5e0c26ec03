import { normalizePhoneNumber } from '../messages/phone-number.ts';

const PLUS = /^\+([1-9]\d{0,14})$/;
const DOUBLE_ZERO = /^00([1-9]\d{0,14})$/;
const DIGITS = /^[1-9]\d{0,14}$/;

/**
 * The names an address an incoming message was sent to may be approved under, the address itself
 * first. Providers spell a number in international format with a `+`, with `00` or as bare digits
 * (an SMPP `destination_addr` of TON 1, Kannel's `%P`), while alpha-names are approved as typed:
 * a number-like address is also looked up as bare digits and with a `+`, as the sender's number
 * is normalised to digits. `00` is read as the international prefix only before a possible
 * number (a national `00…` short code stays as it is), and no calling code starts with 0.
 * Alpha-names and anything else that is not digits are looked up exactly, case and all.
 *
 * @example addressSpellings('+4915200000000') // ['+4915200000000', '4915200000000']
 * @example addressSpellings('Acme') // ['Acme']
 */
export function addressSpellings(address: string): string[] {
  const digits = PLUS.exec(address)?.[1] ?? (DIGITS.test(address) ? address : undefined) ?? DOUBLE_ZERO.exec(address)?.[1];
  if (digits === undefined) return [address];
  if (address.startsWith('00') && !normalizePhoneNumber(digits)) return [address];
  return [...new Set([address, digits, `+${digits}`])];
}

/**
 * The number an incoming message came from, as the inbound service reads it (digits, an optional
 * `+`): a leading `00` is read as the international prefix, as a `+`, when a possible number
 * follows, since SMSCs and gateways write the sender so too (`004915112345678`). Anything else is
 * handed on as it is, to be normalised or refused there: a `00` before what is no possible number,
 * a national number (`0151…`), whose country nobody can tell.
 *
 * @example senderNumber('004915112345678') // '4915112345678'
 * @example senderNumber('0012') // '0012' (refused as invalid)
 */
export function senderNumber(phoneNumber: string): string {
  const digits = DOUBLE_ZERO.exec(phoneNumber)?.[1];
  return digits !== undefined && normalizePhoneNumber(digits) !== null ? digits : phoneNumber;
}
