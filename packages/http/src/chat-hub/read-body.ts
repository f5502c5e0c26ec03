import type { Context } from 'hono';
import { SpillwayError } from '@spillway/core';
import type { ErrorDetail } from '@spillway/core';
import type { z } from 'zod';

/** `['messages', 3, 'to']` → `messages[3].to`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Every issue of a zod error as a detail of a `validation_failed` SpillwayError. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/**
 * Reads the JSON body and validates it: 400 `bad_request` when it is not JSON, 400
 * `validation_failed` listing every bad path when it does not match `schema`.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    const text = await c.req.text();
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    throw new SpillwayError('bad_request', 'request body is not valid JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new SpillwayError('validation_failed', 'request body is invalid', issuesToDetails(parsed.error.issues));
  }
  return parsed.data;
}
