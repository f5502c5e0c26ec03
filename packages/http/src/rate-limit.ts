import { SpillwayError } from '@spillway/core';
import type { RateCategory } from '@spillway/core';
import type { MiddlewareHandler } from 'hono';
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
    c.header('RateLimit-Limit', String(decision.limit));
    c.header('RateLimit-Remaining', String(decision.remaining));
    c.header('RateLimit-Reset', String(decision.resetSeconds));
    c.header('RateLimit-Policy', `${limit.perSecond};w=1;burst=${limit.burst}`);
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
