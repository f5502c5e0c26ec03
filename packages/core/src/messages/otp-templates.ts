/**
 * The one-time-password templates of `chatapp_otp` messages (interface 2.3): ids, parameters
 * and their English text. The interface names the parameters of template 6 only
 * (`pin`, `business_platform_name`, `code_validity_time`); the others reuse those names.
 */

/** TEXT: a non-empty string. NUMBER: a non-zero integer. */
export type OtpParamType = 'TEXT' | 'NUMBER';

/** A parameter of an {@link OtpTemplate}: its name and type. */
export interface OtpParam {
  name: string;
  type: OtpParamType;
}

/** An OTP template of the chat-app channel: its id, purpose, parameters and English text. */
export interface OtpTemplate {
  /** 1..9, the row of the interface's table. */
  no: number;
  id: string;
  purpose: string;
  /** Parameters in the interface's order. */
  params: readonly OtpParam[];
  /** English text with `{name}` placeholders. */
  textEn: string;
}

const pin: OtpParam = { name: 'pin', type: 'TEXT' };
const platform: OtpParam = { name: 'business_platform_name', type: 'TEXT' };
const validity: OtpParam = { name: 'code_validity_time', type: 'NUMBER' };
const codeType: OtpParam = { name: 'code_type', type: 'TEXT' };
const actionDetails: OtpParam = { name: 'action_details', type: 'TEXT' };
const codeReason: OtpParam = { name: 'code_reason', type: 'TEXT' };

/** The nine templates of interface 2.3. */
export const OTP_TEMPLATES: readonly OtpTemplate[] = [
  {
    no: 1,
    id: '0aac888f-2ee2-4112-9659-1755a951966a',
    purpose: 'Basic OTP',
    params: [pin],
    textEn: 'Your verification code is {pin}. Do not share this code with anyone.',
  },
  {
    no: 2,
    id: 'c2cdc028-a48b-4187-bbaf-3aaa137b6e23',
    purpose: 'Basic OTP, valid 5 minutes',
    params: [pin],
    textEn: 'Your verification code is {pin}. It is valid for 5 minutes. Do not share this code with anyone.',
  },
  {
    no: 3,
    id: 'c33cccaf-735f-4d62-8383-a76bf4999e2d',
    purpose: 'OTP with business/platform name',
    params: [pin, platform],
    textEn: '{pin} is your verification code for {business_platform_name}. Do not share this code with anyone.',
  },
  {
    no: 4,
    id: 'bed0942f-e07e-4879-834b-29cc4cf3ec35',
    purpose: 'Basic OTP with validity time in minutes',
    params: [pin, validity],
    textEn: 'Your verification code is {pin}. It is valid for {code_validity_time} minutes.',
  },
  {
    no: 5,
    id: '60d67b38-b9fb-444a-80e6-754447e010c6',
    purpose: 'OTP with code type and validity time',
    params: [pin, codeType, validity],
    textEn: 'Your {code_type} code is {pin}. It is valid for {code_validity_time} minutes.',
  },
  {
    no: 6,
    id: '6c929cef-29b4-4349-bc9d-2a07bdbb6e43',
    purpose: 'OTP with business/platform name and validity time (in hours)',
    params: [pin, platform, validity],
    textEn: '{pin} is your verification code for {business_platform_name}. It is valid for {code_validity_time} hours.',
  },
  {
    no: 7,
    id: '82ba31a3-db42-4e87-82e8-33fa92b9e5ed',
    purpose: 'OTP with code type',
    params: [pin, codeType],
    textEn: 'Your {code_type} code is {pin}. Do not share this code with anyone.',
  },
  {
    no: 8,
    id: '210ee8a9-1ed5-43cd-96e4-65bba311ab40',
    purpose: 'OTP with details of action/platform',
    params: [pin, actionDetails, platform],
    textEn: 'Use the code {pin} to {action_details} on {business_platform_name}. Do not share this code with anyone.',
  },
  {
    no: 9,
    id: 'be56d97b-2a33-4c89-ac5f-f555a2c827d9',
    purpose: 'OTP with business/platform name and code reason',
    params: [pin, platform, codeReason],
    textEn: '{pin} is your {business_platform_name} code for {code_reason}. Do not share this code with anyone.',
  },
];

/** Template ids in table order, for schemas. */
export const OTP_TEMPLATE_IDS = OTP_TEMPLATES.map((t) => t.id) as [string, ...string[]];

const BY_ID = new Map(OTP_TEMPLATES.map((t) => [t.id, t]));

/** The template with this id (case-insensitive), or undefined. */
export function getOtpTemplate(id: string): OtpTemplate | undefined {
  return BY_ID.get(id) ?? BY_ID.get(id.toLowerCase());
}

/**
 * `templateLang` codes, upper case: the interface's twenty plus `UK` (Ukrainian), which the
 * interface's own example uses. Accepted case-insensitively.
 */
export const OTP_LANGUAGES = [
  'EN',
  'ES',
  'FR',
  'DE',
  'PT',
  'RU',
  'TR',
  'JA',
  'ZH',
  'KO',
  'AR',
  'FA',
  'NO',
  'DA',
  'SV',
  'CS',
  'HU',
  'NL',
  'PL',
  'VI',
  'UK',
] as const;
/** One of {@link OTP_LANGUAGES}: a language OTP templates are written in. */
export type OtpLanguage = (typeof OTP_LANGUAGES)[number];

const LANGUAGES = new Set<string>(OTP_LANGUAGES);

/** The upper-case language code if it is supported, else undefined. */
export function normalizeOtpLanguage(code: string): OtpLanguage | undefined {
  const upper = code.toUpperCase();
  return LANGUAGES.has(upper) ? (upper as OtpLanguage) : undefined;
}

/** Normalized parameter values: TEXT as strings, NUMBER as integers. */
export type OtpParams = Record<string, string | number>;

/** A problem with one parameter (`param` null: with the params object as a whole). */
export interface OtpParamIssue {
  param: string | null;
  message: string;
}

const INTEGER_STRING = /^-?\d{1,15}$/;

/**
 * Checks `templateParams` against a template: exactly its parameter names (case-sensitive), TEXT
 * as a non-empty string (an integer is taken as its decimal string: the interface's example sends
 * `pin` as an integer), NUMBER as a non-zero integer (a JSON integer or a string of digits).
 * Answers the normalized params, or every issue found.
 */
export function checkOtpParams(template: OtpTemplate, params: Record<string, unknown>): { params: OtpParams; issues: OtpParamIssue[] } {
  const out: OtpParams = {};
  const issues: OtpParamIssue[] = [];
  for (const { name, type } of template.params) {
    const value = params[name];
    if (value === undefined || value === null) {
      issues.push({ param: name, message: `Template ${template.no} requires the ${type} parameter "${name}"` });
    } else if (type === 'TEXT') {
      if (typeof value === 'string' && value.length > 0) out[name] = value;
      else if (typeof value === 'number' && Number.isSafeInteger(value)) out[name] = String(value);
      else issues.push({ param: name, message: `"${name}" must be a non-empty string (TEXT)` });
    } else {
      const n = typeof value === 'number' ? value : typeof value === 'string' && INTEGER_STRING.test(value) ? Number(value) : NaN;
      if (Number.isSafeInteger(n) && n !== 0) out[name] = n;
      else issues.push({ param: name, message: `"${name}" must be a non-zero integer (NUMBER)` });
    }
  }
  for (const name of Object.keys(params)) {
    if (!template.params.some((p) => p.name === name)) {
      const expected = template.params.map((p) => p.name).join(', ');
      issues.push({ param: name, message: `Template ${template.no} has no parameter "${name}" (expected: ${expected})` });
    }
  }
  return { params: out, issues };
}

/** The English text of a template with its parameters filled in. */
export function renderOtpTemplate(template: OtpTemplate, params: OtpParams): string {
  return template.textEn.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}
