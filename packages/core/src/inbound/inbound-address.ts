import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CountryCode } from 'libphonenumber-js';
import { SpillwayError } from '../errors.ts';
import { normalizePhoneNumber } from '../messages/phone-number.ts';
import type { InboundReport } from '../ports/channel.ts';

const PLUS = /^\+([1-9]\d{0,14})$/;
const DOUBLE_ZERO = /^00([1-9]\d{0,14})$/;
const DIGITS = /^[1-9]\d{0,14}$/;
/** A number in national format as written when nobody says so: one leading 0, the trunk prefix of most countries. */
const NATIONAL = /^0[1-9]\d*$/;

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
 * Whether `code` is an ISO 3166 alpha-2 country code with a numbering plan, in which a sender's
 * number in national format can be read (a driver's `country`).
 *
 * @example isPhoneCountry('DE') // true
 * @example isPhoneCountry('de') // false
 */
export function isPhoneCountry(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/** Why a sender in national format is refused when the driver has no country to read it in. */
const NO_COUNTRY =
  "a number in national format, and no country to read it in: set the driver's `country` (an ISO 3166 alpha-2 code such as DE)";

/**
 * The number an incoming message came from, as the inbound service reads it (digits, an optional
 * `+`). A number in national format (`phoneNumberFormat: 'national'`, SMPP TON 2, or unsaid and
 * with a single leading 0: `01511234567`) is read in the driver's `defaultCountry` into E.164
 * digits; without one it is refused (`validation_failed`, naming the setting): read as
 * international, `15112345678` would be a US number. A leading `00` is read as the international
 * prefix, as a `+`, when a possible number follows, since SMSCs and gateways write the sender so
 * too (`004915112345678`). Anything else (an alphanumeric sender, a `00` before what is no
 * possible number) is handed on as it is, to be normalised or refused there.
 *
 * @example senderNumber({ phoneNumber: '004915112345678' }) // '4915112345678'
 * @example senderNumber({ phoneNumber: '01511234567', defaultCountry: 'DE' }) // '491511234567'
 * @example senderNumber({ phoneNumber: '0012' }) // '0012' (refused as invalid)
 */
export function senderNumber(report: Pick<InboundReport, 'phoneNumber' | 'phoneNumberFormat' | 'defaultCountry'>): string {
  const { phoneNumber, phoneNumberFormat: format } = report;
  if (format === 'alphanumeric') return phoneNumber;
  if (format === 'national' || (format === undefined && NATIONAL.test(phoneNumber)))
    return nationalSender(phoneNumber, report.defaultCountry);
  const digits = DOUBLE_ZERO.exec(phoneNumber)?.[1];
  return digits !== undefined && normalizePhoneNumber(digits) !== null ? digits : phoneNumber;
}

/** The E.164 digits of a sender number in national format, read in `country`. */
function nationalSender(phoneNumber: string, country: string | undefined): string {
  const refused = (message: string) =>
    new SpillwayError('validation_failed', 'Invalid incoming message', [{ path: 'phoneNumber', message }]);
  if (country === undefined) throw refused(NO_COUNTRY);
  const parsed = isPhoneCountry(country) ? parsePhoneNumberFromString(phoneNumber, country) : undefined;
  if (!parsed?.isPossible()) throw refused(`not a valid phone number of ${country} (the driver's \`country\`)`);
  return parsed.number.slice(1);
}
