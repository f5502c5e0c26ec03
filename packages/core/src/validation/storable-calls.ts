import { unstorableError } from './nul.ts';
import { holdsLoneSurrogate, wellFormedCopy } from './well-formed.ts';

/**
 * `value` as the engine may take it, looked through once: a `validation_failed` error thrown
 * ({@link unstorableError}) when it holds U+0000 or nests deeper than the bound, else `value` with
 * every lone UTF-16 surrogate of its plain data made U+FFFD ({@link wellFormedCopy}: itself when it
 * holds none, or when it was marked well-formed, as an HTTP body is).
 */
function storable(value: unknown, whole: string): unknown {
  let illFormed = false;
  const error = unstorableError(value, whole, (text) => {
    if (!illFormed && holdsLoneSurrogate(text)) illFormed = true;
  });
  if (error) throw error;
  // Rare: a lone surrogate somewhere; the copy decides which of them are the caller's plain data.
  return illFormed ? wellFormedCopy(value) : value;
}

/**
 * `service` with every method's arguments looked through once before it runs (the methods must
 * answer promises, as the services of the engine do). A call whose arguments hold U+0000, or nest
 * objects and arrays deeper than `MAX_NESTING`, is rejected with `validation_failed` at the path
 * of the first string or member name that holds it (`login`, `messages[0].text`; `arguments[1]`
 * for a string given as an argument itself) or of the first member too deep, and the method does
 * not run: an embedder gets the error HTTP answers, not PostgreSQL's "invalid byte sequence" from
 * deep inside a write or a stack overflowed by JSON. Any other call gets its arguments with each
 * lone UTF-16 surrogate made U+FFFD, as HTTP bodies are at the door, without the caller's objects
 * being written to: what the engine stores, compares and hands to channels is then the same on
 * every storage, whoever called it. Methods named in `checked` do both themselves (the sends, item
 * by item, with their own paths) and are left as they are.
 *
 * @example
 * const accounts = storableCalls(createAccountService(deps));
 */
export function storableCalls<T extends object>(service: T, checked: ReadonlyArray<keyof T> = []): T {
  const guarded = { ...service };
  for (const name of Object.keys(service) as Array<keyof T>) {
    const method = service[name];
    if (typeof method !== 'function' || checked.includes(name)) continue;
    guarded[name] = ((...args: unknown[]) => {
      try {
        for (let at = 0; at < args.length; at++) args[at] = storable(args[at], `arguments[${at}]`);
      } catch (error) {
        return Promise.reject(error);
      }
      return (method as (...a: unknown[]) => unknown).apply(service, args);
    }) as T[keyof T];
  }
  return guarded;
}
