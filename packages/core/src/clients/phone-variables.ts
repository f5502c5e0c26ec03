/** `%name%` of per-phone data: a top-level member of the number's data (`%bonus%`). */
const TOKEN = /%([A-Za-z_][A-Za-z0-9_]{0,63})%/g;

/**
 * Replaces `%member%` with the member of `data` when it is a string, number or boolean; other
 * tokens (unknown members, objects, and the `%name=id%` variables) stay as written.
 *
 * @example applyPhoneVariables('You have %bonus% points', { bonus: 120 }) // 'You have 120 points'
 */
export function applyPhoneVariables(text: string, data: Record<string, unknown> | null | undefined): string {
  if (!data) return text;
  return text.replace(TOKEN, (token, name: string) => {
    const value = Object.hasOwn(data, name) ? data[name] : undefined;
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : token;
  });
}
