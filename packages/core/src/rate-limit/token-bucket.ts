import type { Clock } from '../clock.ts';
import type { RateCategory, RateLimit } from '../types/account.ts';
import { LruMap } from '../lru-map.ts';
import { SharedRecords } from '../shared-records.ts';

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
  /**
   * Keep the buckets in this buffer ({@link sharedRateLimiterBuffer}) instead of this limiter's
   * own memory: limiters of several threads over one buffer share every bucket, so that an
   * account's limit holds whichever thread serves its requests. Its size bounds the buckets
   * (`maxBuckets` is then ignored); a full neighbourhood of slots drops its least recently used
   * bucket, an approximation of the in-memory least recently used order.
   */
  shared?: SharedArrayBuffer;
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

/** A bucket's fields in a shared buffer: tokens, at, fullAt. */
const BUCKET_FIELDS = 3;

/** A buffer for the buckets of limiters that share them ({@link RateLimiterOptions.shared}), `maxBuckets` of them. */
export function sharedRateLimiterBuffer(maxBuckets = 100_000): SharedArrayBuffer {
  return SharedRecords.buffer(maxBuckets, BUCKET_FIELDS);
}

/**
 * Refills `bucket` to `now` and takes a token if one is there: the decision. The one rule of
 * both kinds of limiter, in memory and shared.
 */
function spend(bucket: Bucket, now: number, limit: RateLimit): RateDecision {
  const capacity = Math.max(1, limit.burst);
  const rate = Math.max(limit.perSecond, Number.MIN_VALUE) / 1000; // tokens per ms
  const elapsed = Math.max(0, now - bucket.at);
  bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * rate);
  bucket.at = now;
  // The epsilon absorbs float drift of the refill (0.1 * 10 summed piecewise may be 0.999...).
  const allowed = bucket.tokens >= 1 - 1e-9;
  if (allowed) bucket.tokens = Math.max(0, bucket.tokens - 1);
  bucket.fullAt = now + (capacity - bucket.tokens) / rate;
  const missing = allowed ? 0 : 1 - bucket.tokens;
  return {
    allowed,
    remaining: Math.floor(bucket.tokens),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(missing / rate / 1000)),
    resetSeconds: Math.ceil((capacity - bucket.tokens) / rate / 1000),
    limit: capacity,
  };
}

/** Token buckets in a shared buffer: the same decisions as in memory, whichever thread takes. */
function sharedLimiter(buffer: SharedArrayBuffer, clock: Clock, limitFor: RateLimiter['limitFor']): RateLimiter {
  // A full bucket equals a new one: its slot may go to another key.
  const records = new SharedRecords(buffer, BUCKET_FIELDS, (values, at, now) => values[at + 2]! <= now);
  const bucket: Bucket = { tokens: 0, at: 0, fullAt: 0 };
  return {
    take(key, limit) {
      const now = clock.now();
      return records.update(
        key,
        now,
        (values, at) => {
          // A new bucket is full; spend() then refills nothing (elapsed 0).
          values[at] = Math.max(1, limit.burst);
          values[at + 1] = now;
          values[at + 2] = now;
        },
        ({ values, at }) => {
          bucket.tokens = values[at]!;
          bucket.at = values[at + 1]!;
          bucket.fullAt = values[at + 2]!;
          const decision = spend(bucket, now, limit);
          values[at] = bucket.tokens;
          values[at + 1] = bucket.at;
          values[at + 2] = bucket.fullAt;
          return decision;
        },
      );
    },
    limitFor,
    size: () => records.size(clock.now()),
  };
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
  const limitFor: RateLimiter['limitFor'] = (category, overrides) => overrides?.[category] ?? defaults[category];
  if (options.shared) return sharedLimiter(options.shared, clock, limitFor);
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
      let bucket = buckets.get(key);
      // A bucket full again equals a new one, also under a limit changed meanwhile.
      if (!bucket || bucket.fullAt <= now) {
        bucket = { tokens: Math.max(1, limit.burst), at: now, fullAt: now };
        buckets.set(key, bucket);
      }
      const decision = spend(bucket, now, limit);
      evictIdle(now);
      return decision;
    },
    limitFor,
    size: () => buckets.size,
  };
}
