import { describe, expect, it } from 'vitest';
import { OTP_TEMPLATES, checkOtpParams, getOtpTemplate, normalizeOtpLanguage, renderOtpTemplate } from './otp-templates.ts';
import type { OtpTemplate } from './otp-templates.ts';

/** A valid value for each parameter type. */
function validParams(t: OtpTemplate): Record<string, unknown> {
  return Object.fromEntries(t.params.map((p) => [p.name, p.type === 'NUMBER' ? 5 : `v-${p.name}`]));
}

describe('OTP templates', () => {
  it('has the nine templates of the interface with their parameter types in order', () => {
    expect(OTP_TEMPLATES.map((t) => [t.no, t.params.map((p) => p.type).join(',')])).toEqual([
      [1, 'TEXT'],
      [2, 'TEXT'],
      [3, 'TEXT,TEXT'],
      [4, 'TEXT,NUMBER'],
      [5, 'TEXT,TEXT,NUMBER'],
      [6, 'TEXT,TEXT,NUMBER'],
      [7, 'TEXT,TEXT'],
      [8, 'TEXT,TEXT,TEXT'],
      [9, 'TEXT,TEXT,TEXT'],
    ]);
    expect(getOtpTemplate('6c929cef-29b4-4349-bc9d-2a07bdbb6e43')?.params.map((p) => p.name)).toEqual([
      'pin',
      'business_platform_name',
      'code_validity_time',
    ]);
  });

  it('finds templates by id case-insensitively and nothing for an unknown id', () => {
    expect(getOtpTemplate('0AAC888F-2EE2-4112-9659-1755A951966A')?.no).toBe(1);
    expect(getOtpTemplate('00000000-0000-0000-0000-000000000000')).toBeUndefined();
  });

  it.each(OTP_TEMPLATES.map((t) => [t.no, t] as const))('template %i accepts its params and renders every placeholder', (_no, t) => {
    const { params, issues } = checkOtpParams(t, validParams(t));
    expect(issues).toEqual([]);
    const text = renderOtpTemplate(t, params);
    expect(text).not.toMatch(/[{}]/);
    expect(text).toContain('v-pin');
  });

  it.each(OTP_TEMPLATES.map((t) => [t.no, t] as const))('template %i reports a missing, a wrong and an unknown param', (_no, t) => {
    const params = validParams(t);
    const last = t.params[t.params.length - 1]!;
    delete params['pin'];
    if (last.name !== 'pin') params[last.name] = last.type === 'NUMBER' ? 'abc' : '';
    params['Pin'] = '1234';
    const { issues } = checkOtpParams(t, params);
    const names = issues.map((i) => i.param);
    expect(names).toContain('pin');
    expect(names).toContain('Pin');
    if (last.name !== 'pin') expect(names).toContain(last.name);
  });

  it('takes an integer pin as text and a digit string as NUMBER, refuses zero and fractions', () => {
    const t = getOtpTemplate('6c929cef-29b4-4349-bc9d-2a07bdbb6e43')!;
    expect(checkOtpParams(t, { pin: 1234, business_platform_name: 'Acme', code_validity_time: '2' })).toEqual({
      params: { pin: '1234', business_platform_name: 'Acme', code_validity_time: 2 },
      issues: [],
    });
    for (const bad of [0, '0', 1.5, '1.5', true, '']) {
      const { issues } = checkOtpParams(t, { pin: '1', business_platform_name: 'Acme', code_validity_time: bad });
      expect(issues.map((i) => i.param)).toEqual(['code_validity_time']);
    }
    expect(checkOtpParams(t, { pin: '', business_platform_name: {}, code_validity_time: 1 }).issues.map((i) => i.param)).toEqual([
      'pin',
      'business_platform_name',
    ]);
  });

  it('accepts the twenty languages and uk, case-insensitively', () => {
    expect(normalizeOtpLanguage('en')).toBe('EN');
    expect(normalizeOtpLanguage('uk')).toBe('UK');
    expect(normalizeOtpLanguage('Vi')).toBe('VI');
    expect(normalizeOtpLanguage('xx')).toBeUndefined();
    expect(normalizeOtpLanguage('eng')).toBeUndefined();
  });
});
