/**
 * The NUL character (U+0000) in a request: no channel carries it, and PostgreSQL cannot store it
 * in text or jsonb, so Spillway refuses it at the door on every storage alike, by the path of the
 * first string (or member name) that holds it.
 */

const NUL = '\u0000';

/** Whether a string or a member name anywhere in `value` (parsed JSON) holds U+0000. */
export function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  for (const key in value) {
    if (key.includes(NUL) || holdsNul((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * The path (`.text`, `.fallbacks[0].from`, `[2]`) under `value` of the first string or member name
 * that holds U+0000, as the interface writes paths; `''` for `value` itself.
 */
export function nulPath(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  for (const [key, child] of Object.entries(value)) {
    const step = Array.isArray(value) ? `[${key}]` : `.${key}`;
    if (key.includes(NUL)) return step;
    if (holdsNul(child)) return `${step}${nulPath(child)}`;
  }
  return '';
}

/** The message of the error detail for a NUL character. */
export const NUL_MESSAGE = 'Must not contain the NUL character (U+0000)';
