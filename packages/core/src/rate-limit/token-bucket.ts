import type { Clock } from '../clock.ts';
import type { RateCategory, RateLimit } from '../types/account.ts';
import { LruMap } from '../lru-map.ts';

/** The answer of {@link RateLimiter.take}: whether the request may pass and the figures for the `RateLimit-*` headers. */
export interface RateDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until one token is back (0 when allowed). */
  retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** The bucket's capacity (the burst). */
  limit: number;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  clock: Clock;
  /** Limits used by {@link RateLimiter.limitFor} when an account has no override. */
  defaults: Record<RateCategory, RateLimit>;
  /**
   * Most buckets kept at once; past it the least recently used bucket is dropped (its key starts
   * afresh with a full bucket), so memory stays bounded whatever the number of keys.
   * @default 100000
   */
  maxBuckets?: number;
}

/** Token buckets keyed by string (e.g. `messaging:42`), refilled continuously from the clock. */
export interface RateLimiter {
  /** Takes one token from the bucket of `key`, created full on first use. */
  take(key: string, limit: RateLimit): RateDecision;
  /** The limit of a category: the account's override when set, else the default. */
  limitFor(category: RateCategory, overrides?: Partial<Record<RateCategory, RateLimit>>): RateLimit;
  /** Buckets currently held (for tests and metrics). */
  size(): number;
}

interface Bucket {
  tokens: number;
  /** Time (ms) of the last refill. */
  at: number;
  /** Time (ms) at which the bucket is full again: from then on it equals a fresh bucket. */
  fullAt: number;
}

/**
 * Creates an in-memory token-bucket rate limiter: capacity `burst`, refilled at `perSecond`.
 * Idle buckets (full again) are dropped as the limiter is used, since a full bucket is exactly
 * what a new key gets.
 *
 * @example
 * const limiter = createRateLimiter({ clock, defaults: { messaging: { perSecond: 100, burst: 150 }, data: { perSecond: 50, burst: 75 } } });
 * const d = limiter.take(`messaging:${account.id}`, limiter.limitFor('messaging', account.rateLimits));
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { clock, defaults } = options;
  const maxBuckets = options.maxBuckets ?? 100_000;
  const buckets = new LruMap<string, Bucket>();

  const evictIdle = (now: number): void => {
    for (const [key, bucket] of buckets.entries()) {
      if (bucket.fullAt > now) break;
      buckets.delete(key);
    }
    buckets.trimTo(maxBuckets);
  };

  return {
    take(key, limit) {
      const now = clock.now();
      const capacity = Math.max(1, limit.burst);
      const rate = Math.max(limit.perSecond, Number.MIN_VALUE) / 1000; // tokens per ms
      let bucket = buckets.get(key);
      if (bucket) {
        const elapsed = Math.max(0, now - bucket.at);
        bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * rate);
        bucket.at = now;
      } else {
        bucket = { tokens: capacity, at: now, fullAt: now };
        buckets.set(key, bucket);
      }
      // The epsilon absorbs float drift of the refill (0.1 * 10 summed piecewise may be 0.999...).
      const allowed = bucket.tokens >= 1 - 1e-9;
      if (allowed) bucket.tokens = Math.max(0, bucket.tokens - 1);
      bucket.fullAt = now + (capacity - bucket.tokens) / rate;
      evictIdle(now);

      const missing = allowed ? 0 : 1 - bucket.tokens;
      return {
        allowed,
        remaining: Math.floor(bucket.tokens),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(missing / rate / 1000)),
        resetSeconds: Math.ceil((capacity - bucket.tokens) / rate / 1000),
        limit: capacity,
      };
    },
    limitFor(category, overrides) {
      return overrides?.[category] ?? defaults[category];
    },
    size: () => buckets.size,
  };
}
