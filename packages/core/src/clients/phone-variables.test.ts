import { describe, expect, it } from 'vitest';
import { applyPhoneVariables, unfilledPhoneVariables } from './phone-variables.ts';

describe('applyPhoneVariables', () => {
  it('inserts scalar members and leaves everything else as written', () => {
    const data = { bonus: 120, level: 'gold', vip: true, nested: { a: 1 }, toString: 'x' };
    expect(applyPhoneVariables('%level%: %bonus% points, vip %vip%', data)).toBe('gold: 120 points, vip true');
    expect(applyPhoneVariables('%nested% %missing% %name=7% 100%', data)).toBe('%nested% %missing% %name=7% 100%');
    expect(applyPhoneVariables('%bonus%', null)).toBe('%bonus%');
    expect(applyPhoneVariables('%constructor%', {})).toBe('%constructor%');
  });
});

describe('unfilledPhoneVariables', () => {
  it('names the placeholders the data cannot fill, once each, but not percent-encoded bytes', () => {
    const data = { bonus: 120, nested: { a: 1 } };
    expect(unfilledPhoneVariables('Hi %name%, %bonus% points %nested% %name%', data)).toEqual(['%name%', '%nested%']);
    expect(unfilledPhoneVariables('%bonus%', null)).toEqual(['%bonus%']);
    expect(unfilledPhoneVariables('50% off, 100%, %name=7%, https://x.example/caf%C3%A9 %e2%80%99', null)).toEqual([]);
    expect(unfilledPhoneVariables('%constructor%', {})).toEqual(['%constructor%']);
  });
});
