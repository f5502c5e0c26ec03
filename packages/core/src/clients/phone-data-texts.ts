import type { Storage } from '../ports/storage.ts';
import { hasClientStorage } from '../ports/client-storage.ts';
import { countSegments } from '../sms/segments.ts';
import { applyPhoneVariables } from './phone-variables.ts';

/** Whether a text names a per-phone variable (`%bonus%`). */
const HAS_PHONE_VARIABLE = /%[A-Za-z_][A-Za-z0-9_]{0,63}%/;

/** Digits of a recipient, as per-phone data is keyed. */
const digitsOf = (to: string) => to.replace(/^\+/, '');

/**
 * Fills `%member%` in texts with the recipient's per-phone data (`/api/external-data/user-bonuses`),
 * reading each number's data once. Texts without such a token, and storages without client
 * records, are left alone. SMS parts are counted again on the filled text.
 */
export async function fillPhoneVariables<A extends { to: string; text: string; channel: string; partsCount: number }>(
  storage: Storage,
  accountId: number,
  attempts: A[],
): Promise<A[]> {
  if (!hasClientStorage(storage)) return attempts;
  const phones = new Set(attempts.filter((a) => HAS_PHONE_VARIABLE.test(a.text)).map((a) => digitsOf(a.to)));
  if (phones.size === 0) return attempts;
  const data = new Map<string, Record<string, unknown> | null>();
  for (const phone of phones) data.set(phone, (await storage.getPhoneData(accountId, phone))?.data ?? null);
  return attempts.map((a) => {
    const values = HAS_PHONE_VARIABLE.test(a.text) ? data.get(digitsOf(a.to)) : null;
    if (!values) return a;
    const text = applyPhoneVariables(a.text, values);
    return text === a.text ? a : { ...a, text, partsCount: a.channel === 'sms' ? countSegments(text).parts : a.partsCount };
  });
}
