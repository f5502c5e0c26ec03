import { SpillwayError } from '../errors.ts';

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

/**
 * The `validation_failed` error for `value`, which holds U+0000: at the path under `value` of the
 * first string or member name that holds it (`messages[0].text`), or at `whole` when that is
 * `value` itself.
 */
export function nulError(value: unknown, whole: string): SpillwayError {
  const path = nulPath(value).replace(/^\./, '') || whole;
  return new SpillwayError('validation_failed', NUL_MESSAGE, [{ path, message: NUL_MESSAGE }]);
}

/**
 * `service` with every method refusing arguments that hold U+0000 before it runs: a rejected
 * `validation_failed` error at the path of the first string or member name that holds one
 * (`login`, `messages[0].text`; `arguments[1]` for a string given as an argument itself). The
 * methods must answer promises, as the engine's services do. Embedders calling the engine then get
 * the error HTTP answers, instead of PostgreSQL's "invalid byte sequence" from deep inside a
 * write. Methods named in `checked` look for the character themselves (the sends, item by item,
 * with their own paths) and are left as they are.
 */
export function refusingNul<T extends object>(service: T, checked: ReadonlyArray<keyof T> = []): T {
  const guarded = { ...service };
  for (const name of Object.keys(service) as Array<keyof T>) {
    const method = service[name];
    if (typeof method !== 'function' || checked.includes(name)) continue;
    guarded[name] = ((...args: unknown[]) => {
      const at = args.findIndex(holdsNul);
      if (at < 0) return (method as (...a: unknown[]) => unknown).apply(service, args);
      return Promise.reject(nulError(args[at], `arguments[${at}]`));
    }) as T[keyof T];
  }
  return guarded;
}

/** What U+0000 becomes in text a channel hands the engine: the Unicode replacement character. */
export const NUL_REPLACEMENT = '\uFFFD';

/**
 * `value` with U+0000 replaced by U+FFFD in every string and member name, for what a channel hands
 * the engine (a send's answer, a receipt, an incoming message): what the network gave is kept, not
 * refused (refusing would lose it, or leave a provider retrying it forever), and PostgreSQL can
 * store it. `value` itself when it holds none; otherwise a copy (arrays and plain objects).
 */
export function withoutNul<T>(value: T): T {
  if (!holdsNul(value)) return value;
  if (typeof value === 'string') return value.replaceAll(NUL, NUL_REPLACEMENT) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) copy[withoutNul(key)] = withoutNul(child);
  return copy as T;
}
