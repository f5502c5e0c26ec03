import { SpillwayError } from '../errors.ts';

/**
 * The NUL character (U+0000) in a request: no channel carries it, and PostgreSQL cannot store it
 * in text or jsonb, so Spillway refuses it at the door on every storage alike, by the path of the
 * first string (or member name) that holds it.
 */

const NUL = '\u0000';

/** An object or array being walked: its member names (indexes for an array) and the next one to look at. */
interface Frame {
  value: object;
  keys: string[];
  next: number;
}

/**
 * The frames down to the first member under `value` (at any depth) for which `stops(key, child,
 * stack)` holds, `stack` being the objects and arrays it is in, outermost first (the last frame's
 * `next - 1` names it); null when none does. Walked with a stack of its own, not by recursion: a
 * request can nest thousands of levels deep.
 */
function framesTo(value: object, stops: (key: string, child: unknown, stack: readonly Frame[]) => boolean): Frame[] | null {
  const stack: Frame[] = [{ value, keys: Object.keys(value), next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next === top.keys.length) {
      stack.pop();
      continue;
    }
    const key = top.keys[top.next++]!;
    const child = (top.value as Record<string, unknown>)[key];
    if (stops(key, child, stack)) return stack;
    if (typeof child === 'object' && child !== null) stack.push({ value: child, keys: Object.keys(child), next: 0 });
  }
  return null;
}

/** Whether a member name, or the string value of a member, holds U+0000. */
const memberHoldsNul = (key: string, child: unknown) => key.includes(NUL) || (typeof child === 'string' && child.includes(NUL));

/** The frames down to the first string or member name under `value` that holds U+0000, `[]` for a string `value` that holds it, null when none does. */
function framesToNul(value: unknown): Frame[] | null {
  if (typeof value === 'string') return value.includes(NUL) ? [] : null;
  if (typeof value !== 'object' || value === null) return null;
  return framesTo(value, memberHoldsNul);
}

/** Whether a string or a member name anywhere in `value` (parsed JSON) holds U+0000. */
export function holdsNul(value: unknown): boolean {
  return framesToNul(value) !== null;
}

/**
 * The path (`.text`, `.fallbacks[0].from`, `[2]`) under `value` of the first string or member name
 * that holds U+0000, as the interface writes paths; `''` for `value` itself.
 */
export function nulPath(value: unknown): string {
  return pathOf(framesToNul(value) ?? []);
}

/** The path (`.a[0].b`) that the frames of a walk lead down to: each frame's member last looked at. */
function pathOf(frames: readonly Frame[]): string {
  let path = '';
  for (const { value: parent, keys, next } of frames) {
    const key = keys[next - 1]!;
    path += Array.isArray(parent) ? `[${key}]` : `.${key}`;
  }
  return path;
}

/** The message of the error detail for a NUL character. */
export const NUL_MESSAGE = 'Must not contain the NUL character (U+0000)';

/**
 * The `validation_failed` error for `value`, which holds U+0000: at the path under `value` of the
 * first string or member name that holds it (`messages[0].text`), or at `whole` when that is
 * `value` itself.
 */
export function nulError(value: unknown, whole: string): SpillwayError {
  return errorAt(framesToNul(value) ?? [], whole, NUL_MESSAGE);
}

/** A `validation_failed` error with `message` at the path the frames lead down to, or at `whole` for the value itself. */
function errorAt(frames: readonly Frame[], whole: string, message: string): SpillwayError {
  const path = pathOf(frames).replace(/^\./, '') || whole;
  return new SpillwayError('validation_failed', message, [{ path, message }]);
}

/**
 * How deep the objects and arrays of a value handed to the engine may nest (`{"a":{"b":1}}` is 2
 * deep): deeper ones are refused. No request of the interface comes near it, and the free-form
 * values it stores (a cascade's `customerData`, a number's data, variables) are written and read
 * again as JSON, which a few thousand levels overflow.
 */
export const MAX_NESTING = 64;

/** The message of the error detail for a value nested deeper than {@link MAX_NESTING}. */
export const NESTING_MESSAGE = `Must not nest objects and arrays more than ${MAX_NESTING} levels deep`;

/**
 * The `validation_failed` error for a value the engine must not store, or null: one that holds
 * U+0000 (at the path of the first string or member name that holds it), or one nested deeper than
 * {@link MAX_NESTING} (at the path of the first member too deep), whichever one walk finds first.
 * At `whole` when that is the value itself. The walk goes no deeper than the bound: a value that
 * refers to itself is refused as nested too deep, not walked forever. `each` is handed every
 * string and member name the walk passes before it stops (to look at them in the same walk).
 */
export function unstorableError(value: unknown, whole: string, each?: (text: string) => void): SpillwayError | null {
  if (typeof value === 'string') {
    if (value.includes(NUL)) return errorAt([], whole, NUL_MESSAGE);
    each?.(value);
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  let tooDeep = false;
  const frames = framesTo(value, (key, child, stack) => {
    tooDeep = stack.length === MAX_NESTING && typeof child === 'object' && child !== null;
    if (tooDeep || memberHoldsNul(key, child)) return true;
    if (each) {
      each(key);
      if (typeof child === 'string') each(child);
    }
    return false;
  });
  if (frames === null) return null;
  return errorAt(frames, whole, tooDeep ? NESTING_MESSAGE : NUL_MESSAGE);
}

/** What U+0000 becomes in text a channel hands the engine: the Unicode replacement character. */
export const NUL_REPLACEMENT = '\uFFFD';

/** The objects and arrays under `value` (itself included) that hold U+0000 somewhere: walked once, with a stack of its own. */
function objectsHoldingNul(value: object): Set<object> {
  const holding = new Set<object>();
  framesTo(value, (key, child, stack) => {
    if (!memberHoldsNul(key, child)) return false;
    // It and the objects it is in, up to one already known to hold it.
    for (let i = stack.length - 1; i >= 0 && !holding.has(stack[i]!.value); i--) holding.add(stack[i]!.value);
    return false;
  });
  return holding;
}

/**
 * `value` with U+0000 replaced by U+FFFD in every string and member name, for what a channel hands
 * the engine (a send's answer, a receipt, an incoming message): what the network gave is kept, not
 * refused (refusing would lose it, or leave a provider retrying it forever), and PostgreSQL can
 * store it. `value` itself when it holds none; otherwise a copy of the arrays and plain objects
 * that hold it (the rest shared), made with a stack of its own, however deep the input goes.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes(NUL) ? value.replaceAll(NUL, NUL_REPLACEMENT) : value) as T;
  if (typeof value !== 'object' || value === null) return value;
  const holding = objectsHoldingNul(value);
  if (!holding.has(value)) return value;
  const clean = (text: string) => (text.includes(NUL) ? text.replaceAll(NUL, NUL_REPLACEMENT) : text);
  const emptyLike = (source: object) => (Array.isArray(source) ? [] : {}) as Record<string, unknown>;
  const root = emptyLike(value);
  const stack: Array<{ from: object; to: Record<string, unknown> }> = [{ from: value, to: root }];
  while (stack.length > 0) {
    const { from, to } = stack.pop()!;
    for (const [key, child] of Object.entries(from)) {
      if (typeof child === 'string') to[clean(key)] = clean(child);
      else if (typeof child === 'object' && child !== null && holding.has(child)) {
        const copy = emptyLike(child);
        to[clean(key)] = copy;
        stack.push({ from: child, to: copy });
      } else to[clean(key)] = child;
    }
  }
  return root as T;
}
