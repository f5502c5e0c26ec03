import { MAX_NESTING } from './nul.ts';

/** A UTF-16 surrogate with no partner: with the `u` flag a pair is one code point, so only lone ones match. */
const LONE_SURROGATE = /\p{Surrogate}/gu;

/** `String.prototype.isWellFormed` (ES2024; Node 20, every current browser), not in the ES2023 typings. */
interface WellFormedString {
  isWellFormed(): boolean;
}

/**
 * Whether `text` holds a lone surrogate (a pair is well-formed). The native check answers a string
 * of one-byte characters (most texts, every digit string) without looking at it.
 */
export const holdsLoneSurrogate: (text: string) => boolean =
  typeof (String.prototype as Partial<WellFormedString>).isWellFormed === 'function'
    ? (text) => !(text as unknown as WellFormedString).isWellFormed()
    : (text) => /\p{Surrogate}/u.test(text);

/**
 * `text` with U+FFFD in place of every lone UTF-16 surrogate, as `String.prototype.toWellFormed`
 * (ES2024) does. A lone surrogate cannot be written as UTF-8: PostgreSQL's driver stores U+FFFD for
 * it, and SQLite keeps the three bytes of its WTF-8 form, read back as three U+FFFD. Text made
 * well-formed first is stored the same on both, and what a route answers is what was stored.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** `text` itself when it is well-formed, else {@link wellFormed}'s copy. */
const wellFormedText = (text: string): string => (holdsLoneSurrogate(text) ? wellFormed(text) : text);

/**
 * Makes every string value and member name in parsed JSON `value` well-formed ({@link wellFormed}),
 * in place, and answers it (a string `value` itself is answered made well-formed). Walked with a
 * stack of its own, as a request can nest deep; a string is rewritten only when it holds a lone
 * surrogate, and an object's members are put back in their order when one of their names is (a
 * name holding one is refused by PostgreSQL's jsonb, escaped as JSON writes it).
 */
export function wellFormedDeep(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    const members = node as Record<string, unknown>;
    const keys = Object.keys(members);
    for (const key of keys) {
      const child = members[key];
      if (typeof child === 'string') {
        if (holdsLoneSurrogate(child)) members[key] = wellFormed(child);
      } else if (typeof child === 'object' && child !== null) stack.push(child);
    }
    if (!Array.isArray(node) && keys.some(holdsLoneSurrogate)) {
      const entries = keys.map((key) => [wellFormed(key), members[key]] as const);
      for (const key of keys) delete members[key];
      for (const [key, child] of entries) members[key] = child;
    }
  }
  return value;
}

/** An array, or an object made by a literal, `JSON.parse` or `Object.create(null)`: data, walked and copied. Anything else (a Date, a Map, a driver) is left as it is. */
function isPlainData(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Whether a string or member name in the plain data under `value` holds a lone surrogate, at most
 * {@link MAX_NESTING} levels down (deeper data is refused where it would be stored, and a value that
 * refers to itself is not walked forever).
 */
function holdsIllFormed(value: Record<string, unknown>): boolean {
  const stack: Array<{ node: Record<string, unknown>; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const keys = Object.keys(node);
    const named = !Array.isArray(node);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (named && holdsLoneSurrogate(key)) return true;
      const child = node[key];
      if (typeof child === 'string') {
        if (holdsLoneSurrogate(child)) return true;
      } else if (depth < MAX_NESTING && isPlainData(child)) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}

/** A copy of the plain data `value` with every string and member name made well-formed (what is not plain data is shared). */
function copyWellFormed(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (!isPlainData(value) || depth > MAX_NESTING) return value;
  if (Array.isArray(value)) return value.map((child: unknown) => copyWellFormed(child, depth + 1));
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  for (const key of Object.keys(value)) copy[wellFormedText(key)] = copyWellFormed(value[key], depth + 1);
  return copy;
}

/**
 * `value` with every string and member name of its plain data made well-formed: `value` itself
 * when none holds a lone surrogate (the common case: nothing is allocated), else a copy, so that a
 * caller's objects are never written to.
 *
 * @example wellFormedCopy({ text: 'a\ud800' }) // { text: 'a\uFFFD' }
 */
export function wellFormedCopy<T>(value: T): T {
  if (typeof value === 'string') return wellFormedText(value) as T;
  if (isMarkedWellFormed(value) || !isPlainData(value) || !holdsIllFormed(value)) return value;
  return copyWellFormed(value, 1) as T;
}

/** Request bodies that were made well-formed already (by the HTTP adapter, as it parsed them). */
const markedWellFormed = new WeakSet<object>();

/**
 * Marks parsed data whose every string is well-formed already (an HTTP body, made so as it was
 * parsed), so that the engine's entry points take it as it is rather than look at it again: a
 * 5000-message send is walked once, at the door. Answers `value`. Only for data nobody changes
 * afterwards.
 */
export function markWellFormed<T>(value: T): T {
  if (typeof value === 'object' && value !== null) markedWellFormed.add(value);
  return value;
}

/** Whether `value` was marked by {@link markWellFormed}. */
export function isMarkedWellFormed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && markedWellFormed.has(value);
}
