import { isSpillwayError } from '@spillway/core';
import type { SpillwayErrorCode, Storage } from '@spillway/core';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Env, HttpLogger } from './env.ts';
import { askedPath } from './base-path.ts';

/** The JSON error body of every failed request: `{ error, message, status, details? }`. */
export interface ErrorBody {
  error: string;
  message: string;
  status: number;
  details?: Array<{ path: string; message: string }>;
}

const CODE_OF_STATUS: Partial<Record<number, SpillwayErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** Answers an error body with its status (headers set on `c` before, like `Retry-After`, are kept). */
export function errorResponse(c: Context, body: ErrorBody): Response {
  return c.json(body, body.status as ContentfulStatusCode);
}

/** The body of every 500: nothing of the error itself (its message or stack may hold internals). */
export const INTERNAL_ERROR_BODY: ErrorBody = Object.freeze({ error: 'internal', message: 'Internal server error', status: 500 });

/** What an error is answered with: its body, and `Retry-After` when the client should wait. */
export interface ErrorAnswer {
  body: ErrorBody;
  retryAfter?: string;
}

/**
 * The one place errors become HTTP answers: a SpillwayError keeps its code, status and details;
 * a Hono HTTPException keeps its status; a database too busy to take the request (its transaction
 * wrote nothing) or out of reach (its connection dropped or refused) is a 503 with `Retry-After`; anything else is logged and answered as a bare 500,
 * never with its message or stack (they may hold internals). Shared by the app's error handler and
 * the direct routes (`createDirectRoutes`).
 */
export function errorAnswer(
  err: unknown,
  /** `storage` says which of its driver's errors mean busy or unreachable (`Storage.isBusy`, `isUnavailable`). */
  context: { logger: HttpLogger; method: string; path: string; storage?: Pick<Partial<Storage>, 'isBusy' | 'isUnavailable'> | undefined },
): ErrorAnswer {
  if (isSpillwayError(err)) return { body: err.toJSON() };
  if (err instanceof HTTPException && err.status < 500) {
    const status = err.status;
    return { body: { error: CODE_OF_STATUS[status] ?? 'bad_request', message: err.message || 'Bad request', status } };
  }
  const { logger, method, path } = context;
  // The storage adapter knows its driver's codes for "busy" and "unreachable".
  if (context.storage?.isBusy?.(err)) {
    logger.warn('the database was busy: answered 503', { method, path });
    return unavailable('The database is busy; nothing was written, retry shortly');
  }
  if (context.storage?.isUnavailable?.(err)) {
    // A restart or failover: every request in flight fails at once, so one line each, no stack.
    logger.warn('the database was unavailable: answered 503', { method, path, error: err instanceof Error ? err.message : String(err) });
    return unavailable('The database is unavailable (its connection was lost or refused); retry shortly');
  }
  logger.error('unhandled error in request', {
    method,
    path,
    error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
  });
  return { body: INTERNAL_ERROR_BODY };
}

/** A 503 `unavailable` saying `message`, with `Retry-After: 1`. */
function unavailable(message: string): ErrorAnswer {
  return { body: { error: 'unavailable', message, status: 503 }, retryAfter: '1' };
}

/** The app's error handler: {@link errorAnswer} as a Hono answer. */
export function createErrorHandler(logger: HttpLogger): ErrorHandler<Env> {
  return (err, c) => {
    const answer = errorAnswer(err, { logger, method: c.req.method, path: c.req.path, storage: c.get('engine')?.storage });
    if (answer.retryAfter) c.header('Retry-After', answer.retryAfter);
    return errorResponse(c, answer.body);
  };
}

/**
 * JSON 404 for unknown routes, naming the path as the caller asked for it: with the prefix the app
 * is mounted under (`basePath`), which it routes without.
 */
export function notFoundHandler(basePath = ''): NotFoundHandler<Env> {
  return (c) =>
    errorResponse(c, {
      error: 'not_found',
      message: `No route for ${c.req.method} ${askedPath(c.req.raw, basePath, c.req.path)}`,
      status: 404,
    });
}

/** JSON 405 with `Allow`, for a known path asked with another method (named with the prefix, as the 404). */
export function methodNotAllowedResponse(basePath = '') {
  return (c: Context, methods: string[]): Response => {
    c.header('Allow', methods.join(', '));
    return errorResponse(c, {
      error: 'method_not_allowed',
      message: `${c.req.method} is not allowed on ${askedPath(c.req.raw, basePath, c.req.path)}; allowed: ${methods.join(', ')}`,
      status: 405,
    });
  };
}
