import { Metadata, isPossiblePhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Recipient numbers: E.164 digits, checked for a possible length by their country calling code.
 *
 * libphonenumber-js's `isPossiblePhoneNumber` costs about 4 µs a call, most of the per-message
 * budget of a 5000-message request, so the common case is answered from the possible lengths of
 * the calling code's main numbering plan (cached), and only a length outside them asks the
 * library (which also knows the other countries sharing the code).
 */

/** The internal part of libphonenumber-js's Metadata that is used here (not in its typings). */
interface MetadataInternals {
  hasCallingCode(code: string): boolean;
  selectNumberingPlan(code: string): void;
  numberingPlan?: { possibleLengths(): number[] | undefined };
  countryCallingCodes(): Record<string, string[] | undefined>;
}

const metadata = new Metadata() as unknown as MetadataInternals;
const lengthsByCode = new Map<string, ReadonlySet<number> | null>();

const DIGITS = /^\+?(\d{2,15})$/;
const TEST_NUMBER = /^999\d{6,12}$/;

/** Simulator test numbers: `999` (an unassigned calling code) and 6 to 12 more digits. */
export function isTestNumber(digits: string): boolean {
  return TEST_NUMBER.test(digits);
}

/**
 * The recipient as digits only, or null when it is not a possible E.164 number. A leading `+`
 * is accepted; spaces, dashes and brackets are not. Test numbers (`999...`) are accepted.
 *
 * @example
 * normalizePhoneNumber('+4915112345678') // '4915112345678'
 * normalizePhoneNumber('12') // null
 */
export function normalizePhoneNumber(raw: string): string | null {
  const match = DIGITS.exec(raw);
  if (!match) return null;
  const digits = match[1]!;
  if (digits.startsWith('999')) return isTestNumber(digits) ? digits : null;
  const code = callingCodeOf(digits);
  if (code === undefined) return null;
  const lengths = possibleLengths(code);
  if (lengths?.has(digits.length - code.length)) return digits;
  return isPossiblePhoneNumber('+' + digits) ? digits : null;
}

/** The country calling code the digits start with (calling codes are prefix-free). */
export function callingCodeOf(digits: string): string | undefined {
  for (let n = 1; n <= 3 && n < digits.length; n++) {
    const code = digits.slice(0, n);
    if (lengthsByCode.get(code) !== undefined || metadata.hasCallingCode(code)) return code;
  }
  return undefined;
}

/** ISO 3166 alpha-2 codes of the countries sharing the calling code (empty for non-geographic). */
export function countriesOfCallingCode(code: string): readonly string[] {
  const countries = metadata.countryCallingCodes()[code] ?? [];
  return countries.filter((c) => c !== '001');
}

/**
 * The country of a recipient, or undefined (test numbers, non-geographic numbers). Resolved from
 * the calling code when only one country uses it; otherwise parsed by libphonenumber-js.
 */
export function countryOfNumber(digits: string): string | undefined {
  if (digits.startsWith('999')) return undefined;
  const code = callingCodeOf(digits);
  if (code === undefined) return undefined;
  const countries = countriesOfCallingCode(code);
  if (countries.length === 0) return undefined;
  if (countries.length === 1) return countries[0];
  return parsePhoneNumberFromString('+' + digits)?.country;
}

function possibleLengths(code: string): ReadonlySet<number> | null {
  let lengths = lengthsByCode.get(code);
  if (lengths === undefined) {
    metadata.selectNumberingPlan(code);
    const list = metadata.numberingPlan?.possibleLengths();
    lengths = list ? new Set(list) : null;
    lengthsByCode.set(code, lengths);
  }
  return lengths;
}
