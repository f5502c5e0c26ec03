import { SpillwayError } from '@spillway/core';
import { issuesToDetails } from '@spillway/core/adapter';
import type { z } from 'zod';

/**
 * Parses `value` with `schema`, or throws a 400 `validation_failed` SpillwayError listing every
 * issue by path. For the few inputs the HTTP layer itself reads (path, query, small bodies of
 * HTTP-only endpoints); send bodies are validated by the engine.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, root = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new SpillwayError('validation_failed', `Invalid ${what}`, issuesToDetails(result.error.issues, root));
}
