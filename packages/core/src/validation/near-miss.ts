import type * as z from 'zod';
import type { ErrorDetail } from '../errors.ts';
import { distance } from './edit-distance.ts';
import { formatPath } from './issue-details.ts';

/**
 * Near misses of member names. A request object that drops the members it does not name lets a
 * misspelt one through silently: `scheduledSent` for the interface's `sheduledSent` sent a
 * scheduled cascade at once. A member that nearly names a known one was meant as it and is
 * refused, saying which; any other unknown member stays ignored (clients send fields of their own).
 */

/** The members one object of a request takes, to tell an unknown member that nearly names one. */
export interface KnownMembers {
  /** Every member name the object takes. */
  readonly names: ReadonlySet<string>;
  /** Names as the interface spells them, oddly (`sheduledSent`): a near miss of one is told so. */
  readonly spelledOddly: ReadonlySet<string>;
  /** Length of the shortest and of the longest name: a name 3 or more longer or shorter than all is no near miss. */
  readonly shortest: number;
  readonly longest: number;
  /** Near misses found, by unknown name (null: none): a bulk request repeats its unknown names in every item. */
  readonly found: Map<string, string | null>;
  /**
   * The names, in order, of the last object in which {@link addNearMisses} found no near miss (known
   * names, and unknown ones that nearly name none). A bulk request's items mostly repeat them, and a
   * name compared with the one at its place costs a fraction of a set lookup (the names of parsed
   * JSON are interned).
   */
  readonly lastPassed: string[];
}

/** Unknown names remembered per object kind, at most; the memory starts over when full. */
const REMEMBERED = 256;

/**
 * The members of one object kind (a cascade message, a message item).
 *
 * @example knownMembers(['toPhone', 'sheduledSent'], ['sheduledSent'])
 */
export function knownMembers(names: Iterable<string>, spelledOddly: Iterable<string> = []): KnownMembers {
  const all = new Set(names);
  const lengths = [...all].map((n) => n.length);
  return {
    names: all,
    spelledOddly: new Set(spelledOddly),
    shortest: Math.min(...lengths),
    longest: Math.max(...lengths),
    found: new Map(),
    lastPassed: [],
  };
}

/**
 * The known name `name` was probably meant as, or undefined: one equal to it but for case, else
 * the nearest within an edit distance of 2 (of 1 for a known name of 3 to 5 characters, where 2
 * edits make another word; of none for one of 2, `id` or `to`, where 1 does: `ip`, `tz`). The
 * first of equally near names wins.
 *
 * @example meantMember('scheduledSent', ['toPhone', 'sheduledSent']) // 'sheduledSent'
 */
export function meantMember(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; d: number } | undefined;
  const lower = name.toLowerCase();
  for (const k of known) {
    // The distance is at least the difference of the lengths: most names are never compared.
    if (Math.abs(k.length - name.length) > 2) continue;
    const d = k.toLowerCase() === lower ? 0 : distance(name, k);
    if (d <= (k.length >= 6 ? 2 : k.length >= 3 ? 1 : 0) && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name;
}

/** {@link meantMember} of an unknown `name` among `members`, remembered. */
export function nearMiss(name: string, members: KnownMembers): string | undefined {
  if (name.length < members.shortest - 2 || name.length > members.longest + 2) return undefined;
  let meant = members.found.get(name);
  if (meant === undefined) {
    meant = meantMember(name, members.names) ?? null;
    if (members.found.size >= REMEMBERED) members.found.clear();
    members.found.set(name, meant);
  }
  return meant ?? undefined;
}

/** `did you mean "x"?`, saying so when the interface spells `x` oddly (one of the `spelledOddly` of `members`). */
export function didYouMean(meant: string, members?: KnownMembers): string {
  return `did you mean "${meant}"?${members?.spelledOddly.has(meant) ? ' (the interface spells it so)' : ''}`;
}

/** Whether `value` is an object with named members (not an array), as JSON makes. */
const isMembers = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Adds a detail at `path` + member for every member of `value` that `members` does not take but
 * nearly names (`[0].scheduledSent`: `unknown member; did you mean "sheduledSent"? ...`); answers
 * whether it added any. Only the names are looked at, with nothing allocated for a known one: it
 * runs on every item of a 5000-message request, most of them named as the one before.
 */
export function addNearMisses(
  value: unknown,
  members: KnownMembers,
  path: string,
  details: ErrorDetail[],
  lead = 'unknown member',
): boolean {
  if (!isMembers(value)) return false;
  const last = members.lastPassed;
  let at = 0; // the names so far are those of `last`, up to here
  let same = true;
  let passed = true;
  let any = false;
  for (const name in value) {
    if (same && name === last[at]) {
      at++;
      continue;
    }
    same = false;
    if (members.names.has(name)) continue;
    if (!Object.hasOwn(value, name)) {
      passed = false; // an inherited name is not looked at: nor is it to be passed over later
      continue;
    }
    const meant = nearMiss(name, members);
    if (meant === undefined) continue;
    details.push({ path: formatPath([name], path), message: `${lead}; ${didYouMean(meant, members)}` });
    any = true;
    passed = false;
  }
  if (!same && passed) {
    let n = 0;
    for (const name in value) last[n++] = name;
    last.length = n;
  }
  return any;
}

/**
 * `schema`, a loose object (its output keeps the members it does not name), refusing every member
 * that nearly names one of `members` at that member; checked when other members failed too.
 */
export function refusingNearMisses<S extends z.ZodType<Record<string, unknown>>>(schema: S, members: KnownMembers): S {
  return schema.superRefine(
    (value, ctx) => {
      for (const name in value) {
        if (members.names.has(name) || !Object.hasOwn(value, name)) continue;
        const meant = nearMiss(name, members);
        if (meant !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: `unknown member; ${didYouMean(meant, members)}` });
      }
    },
    { when: (payload) => isMembers(payload.value) },
  );
}
