import { describe, expect, it } from 'vitest';
import { isPossiblePhoneNumber } from 'libphonenumber-js';
import { countryOfNumber, normalizePhoneNumber } from './phone-number.ts';

describe('normalizePhoneNumber', () => {
  it('strips the + and keeps possible numbers', () => {
    expect(normalizePhoneNumber('+4915112345678')).toBe('4915112345678');
    expect(normalizePhoneNumber('447911123456')).toBe('447911123456');
    expect(normalizePhoneNumber('80012345678')).toBe('80012345678');
  });

  it('refuses other characters, unknown calling codes and impossible lengths', () => {
    for (const raw of ['+49 151 12345678', '49-151', '0049151', '3912345', '1202555012', '', '+4915112345678901']) {
      expect(normalizePhoneNumber(raw)).toBeNull();
    }
  });

  it('agrees with libphonenumber-js isPossiblePhoneNumber', () => {
    const samples = [
      '4930123456',
      '12025550123',
      '120255501234',
      '79161234567',
      '861012345678',
      '3312345678',
      '33123456789',
      '5511912345678',
      '4420712345',
      '97142345678',
      '2348012345678',
    ];
    for (const digits of samples) expect(normalizePhoneNumber(digits) !== null, digits).toBe(isPossiblePhoneNumber('+' + digits));
  });

  it('accepts simulator test numbers: 999 and 6 to 12 digits', () => {
    expect(normalizePhoneNumber('999000000')).toBe('999000000');
    expect(normalizePhoneNumber('999000000000000')).toBe('999000000000000');
    expect(normalizePhoneNumber('99900000')).toBeNull();
  });
});

describe('countryOfNumber', () => {
  it('answers the country, also for shared calling codes, and none for test numbers', () => {
    expect(countryOfNumber('4915112345678')).toBe('DE');
    expect(countryOfNumber('12042345678')).toBe('CA');
    expect(countryOfNumber('12025550123')).toBe('US');
    expect(countryOfNumber('999123456')).toBeUndefined();
    expect(countryOfNumber('80012345678')).toBeUndefined();
  });
});
