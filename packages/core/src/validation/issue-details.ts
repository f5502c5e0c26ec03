import type { z } from 'zod';
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
