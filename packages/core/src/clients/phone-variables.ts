/**
 * A `%member%` placeholder of per-phone data, naming a top-level member of the number's data
 * (`%bonus%`): a letter or underscore, then up to 63 letters, digits or underscores. The one
 * definition of the placeholder: the texts whose data is read, filled and checked are picked by it.
 * Not global, so `PHONE_VARIABLE.test(text)` keeps no state between texts; group 1 is the name.
 *
 * @example PHONE_VARIABLE.test('You have %bonus% points') // true
 */
export const PHONE_VARIABLE = /%([A-Za-z_][A-Za-z0-9_]{0,63})%/;

/** Every {@link PHONE_VARIABLE} of a text, for `replace` and `matchAll`. */
const TOKEN = new RegExp(PHONE_VARIABLE.source, 'g');

/** Two hex digits between percent signs: a percent-encoded byte of a link (`%C3%` of `caf%C3%A9`), not a placeholder. */
const PERCENT_ENCODED = /^[0-9A-Fa-f]{2}$/;

/** The member's value as a text inserts it: strings, numbers and booleans; anything else is no value. */
function scalarOf(data: Record<string, unknown> | null | undefined, name: string): string | undefined {
  const value = data && Object.hasOwn(data, name) ? data[name] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/**
 * Replaces `%member%` with the member of `data` when it is a string, number or boolean; other
 * tokens (unknown members, objects, and the `%name=id%` variables) stay as written.
 *
 * @example applyPhoneVariables('You have %bonus% points', { bonus: 120 }) // 'You have 120 points'
 */
export function applyPhoneVariables(text: string, data: Record<string, unknown> | null | undefined): string {
  if (!data) return text;
  return text.replace(TOKEN, (token, name: string) => scalarOf(data, name) ?? token);
}

/**
 * The `%member%` placeholders of `text` that `data` cannot fill (no such member, or one that is no
 * string, number or boolean), each once, in order. Two hex digits (`%C3%` of a percent-encoded
 * link) are never reported: they are filled only when the data has such a member.
 *
 * @example unfilledPhoneVariables('Hi %name%, %bonus% points: caf%C3%A9', { bonus: 1 }) // ['%name%']
 */
export function unfilledPhoneVariables(text: string, data: Record<string, unknown> | null | undefined): string[] {
  if (!text.includes('%')) return [];
  const out = new Set<string>();
  for (const [token, name] of text.matchAll(TOKEN)) {
    if (!PERCENT_ENCODED.test(name!) && scalarOf(data, name!) === undefined) out.add(token);
  }
  return [...out];
}

/**
 * The error message of placeholders that `phone`'s data cannot fill (`unknown placeholder %name%:
 * 79991234567 has no per-phone data (...)`), `field` naming the text when the path does not.
 */
export function unknownPlaceholderMessage(
  unknown: readonly string[],
  phone: string,
  data: Record<string, unknown> | null | undefined,
  field?: string,
): string {
  const what = unknown.length === 1 ? `unknown placeholder ${unknown[0]}` : `unknown placeholders ${unknown.join(', ')}`;
  const why = data ? `the per-phone data of ${phone} has no such string, number or boolean member` : `${phone} has no per-phone data`;
  return `${what}${field ? ` in ${field}` : ''}: ${why} (upload it with POST /api/external-data/user-bonuses first)`;
}
