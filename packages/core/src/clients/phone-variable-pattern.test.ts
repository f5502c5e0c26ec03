import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PHONE_VARIABLE, applyPhoneVariables, unfilledPhoneVariables } from './phone-variables.ts';

// The texts whose per-phone data is read are picked by PHONE_VARIABLE; the placeholders filled and
// refused are found by the same pattern. It was written twice, and copies drift apart: a text naming
// a placeholder the pre-check missed would go out as written (`Hello %name%`), unchecked.

/** Characters of names and of near misses (`%a-b%`, `%name=7%`, `%é%`), and the percent sign. */
const char = fc.constantFrom('a', 'Z', '_', '1', '9', 'C', '3', '-', '=', ' ', 'é', '%');

/** Something between percent signs: a name or a near miss, up to 67 characters (the longest name is 64). */
const between = fc
  .tuple(
    fc.constantFrom('', 'a', '_', '1', 'é'),
    fc.constantFrom('', 'x'.repeat(62), 'x'.repeat(63)),
    fc.string({ unit: char, maxLength: 3 }),
  )
  .map(([first, long, rest]) => `%${first}${long}${rest}%`);

/** Texts of placeholders, near misses and other characters. */
const text = fc.array(fc.oneof(between, fc.string({ unit: char, maxLength: 4 })), { maxLength: 4 }).map((parts) => parts.join(''));

/** Data with a string member of every name a text can hold. */
const everything = new Proxy({} as Record<string, unknown>, {
  getOwnPropertyDescriptor: (_target, name) => ({ value: `<${String(name)}>`, enumerable: true, configurable: true }),
  get: (_target, name) => `<${String(name)}>`,
});

describe('PHONE_VARIABLE', () => {
  it('matches a %member% of a letter or underscore then up to 63 letters, digits or underscores', () => {
    for (const t of ['%a%', '%_%', 'Hi %name%!', '%bonus_2%', `%${'x'.repeat(64)}%`, '%C3%'])
      expect([t, PHONE_VARIABLE.test(t)]).toEqual([t, true]);
    for (const t of ['%%', '%1a%', '%a-b%', '%name=7%', '% a%', '50% off', `%${'x'.repeat(65)}%`, '%é%'])
      expect([t, PHONE_VARIABLE.test(t)]).toEqual([t, false]);
  });

  it('is stateless: testing one text twice answers the same', () => {
    expect([PHONE_VARIABLE.test('%a%'), PHONE_VARIABLE.test('%a%')]).toEqual([true, true]);
  });

  it('matches every text with a placeholder to fill or to refuse, and no other', () => {
    fc.assert(
      fc.property(text, (t) => {
        const named = PHONE_VARIABLE.test(t);
        if (unfilledPhoneVariables(t, null).length > 0) expect(named).toBe(true);
        expect(applyPhoneVariables(t, everything) !== t).toBe(named);
      }),
    );
  });
});
