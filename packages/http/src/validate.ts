import { SpillwayError } from '@spillway/core';
import type { ErrorDetail } from '@spillway/core';
import type { z } from 'zod';

/** `['messages', 3, 'to']` → `messages[3].to`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, root = ''): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/**
 * Parses `value` with `schema`, or throws a 400 `validation_failed` SpillwayError listing every
 * issue by path. For the few inputs the HTTP layer itself reads (path, query, small bodies of
 * HTTP-only endpoints); send bodies are validated by the engine.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, root = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({ path: formatPath(issue.path, root), message: issue.message }));
  throw new SpillwayError('validation_failed', `Invalid ${what}`, details);
}
