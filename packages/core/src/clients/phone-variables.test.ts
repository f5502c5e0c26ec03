import { describe, expect, it } from 'vitest';
import { applyPhoneVariables } from './phone-variables.ts';

describe('applyPhoneVariables', () => {
  it('inserts scalar members and leaves everything else as written', () => {
    const data = { bonus: 120, level: 'gold', vip: true, nested: { a: 1 }, toString: 'x' };
    expect(applyPhoneVariables('%level%: %bonus% points, vip %vip%', data)).toBe('gold: 120 points, vip true');
    expect(applyPhoneVariables('%nested% %missing% %name=7% 100%', data)).toBe('%nested% %missing% %name=7% 100%');
    expect(applyPhoneVariables('%bonus%', null)).toBe('%bonus%');
    expect(applyPhoneVariables('%constructor%', {})).toBe('%constructor%');
  });
});
