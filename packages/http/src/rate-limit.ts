import { SpillwayError } from '@spillway/core';
import type { RateCategory, RateLimit } from '@spillway/core';
import type { RateDecision } from '@spillway/core/adapter';
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from './env.ts';

/**
 * Middleware applying the token bucket of `category` to the authenticated account (run it after
 * `authenticate`). The account's own `rateLimits` override wins over the app defaults. Every
 * answer carries `RateLimit-Limit` (the burst), `RateLimit-Remaining`, `RateLimit-Reset`
 * (seconds until the bucket is full) and `RateLimit-Policy` (`100;w=1;burst=150`); a refused request gets 429 with
 * `Retry-After` (whole seconds, at least 1).
 */
export function rateLimit<E extends Env = Env>(category: RateCategory): MiddlewareHandler<E> {
  return async (c, next) => {
    const account = c.get('account');
    const limiter = c.get('rateLimiter');
    // Route modules mounted outside createHttpApp (unit tests, custom apps) have no limiter.
    if (!limiter) return next();
    const limit = limiter.limitFor(category, account.rateLimits);
    const decision = limiter.take(`${category}:${account.id}`, limit);
    const head = rateLimitHeaders(decision, limit);
    for (let i = 0; i < head.length; i += 2) presetHeader(c, head[i]!, head[i + 1]!);
    if (!decision.allowed) {
      c.header('Retry-After', String(Math.max(1, decision.retryAfterSeconds)));
      throw new SpillwayError(
        'rate_limited',
        `Rate limit exceeded for ${category} requests: ${limit.perSecond} per second, burst ${limit.burst}`,
      );
    }
    await next();
  };
}

/**
 * The `RateLimit-*` headers of a decision, in the order every limited answer carries them, as one
 * flat list of names and values (as `writeHead` takes them: a list of pairs made flat with
 * `Array.prototype.flat` cost about 1 µs a request, a few per cent of a status read).
 */
export function rateLimitHeaders(decision: RateDecision, limit: RateLimit): string[] {
  return [
    'RateLimit-Limit',
    String(decision.limit),
    'RateLimit-Remaining',
    String(decision.remaining),
    'RateLimit-Reset',
    String(decision.resetSeconds),
    'RateLimit-Policy',
    `${limit.perSecond};w=1;burst=${limit.burst}`,
  ];
}

/** The Node response of a request served by `@hono/node-server` (its `env` is `{ incoming, outgoing }`). */
type NodeOutgoing = { setHeader(name: string, value: string): unknown; headersSent: boolean };

/**
 * Sets a header of the answer before the handler runs. Under Node it goes on the `ServerResponse`
 * itself, which Node merges into the head the answer writes (the answer's own headers win): the
 * answer then needs no web `Headers` object, which `c.header` creates and `@hono/node-server`
 * converts back, about 7 µs a request. Elsewhere (`app.request`, other runtimes) `c.header`.
 */
export function presetHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}
