import type { z } from 'zod';
import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';

/**
 * Formats a JSON path the way error details address it: `messages[3].to`, `[0].toPhone`,
 * `steps[2]`. `prefix` is prepended (`messages`, `route`).
 */
export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Turns zod issues into path-addressed error details, one per issue. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ''): ErrorDetail[] {
  return issues.map((issue) => ({ path: formatPath(issue.path, prefix) || '(body)', message: issue.message }));
}

/**
 * Rethrows `error` with the paths of its details rewritten by `rewrite` (a request the caller sent
 * in one shape and the engine validated in another: `messages[0].to` becomes `to`); details that
 * come out the same are kept once. Any other error is rethrown as it is.
 */
export function rethrowAt(error: unknown, rewrite: (path: string) => string): never {
  if (!(error instanceof SpillwayError) || !error.details) throw error;
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const d of error.details) {
    const path = rewrite(d.path) || '(body)';
    if (seen.has(`${path}\0${d.message}`)) continue;
    seen.add(`${path}\0${d.message}`);
    details.push({ ...d, path });
  }
  throw new SpillwayError(error.code, error.message, details);
}
