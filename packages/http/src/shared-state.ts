import { sharedRateLimiterBuffer } from '@spillway/core/adapter';
import { sharedLoginGuardBuffer } from './login-guard.ts';

/**
 * The state that apps serving one API from several threads must share (`HttpOptions.shared`):
 * the rate limiter's buckets and the failed-login counts, in buffers every thread maps. Without
 * it each app keeps its own, and an account would get each thread's limit.
 */
export interface HttpSharedState {
  rateLimits: SharedArrayBuffer;
  logins: SharedArrayBuffer;
}

/**
 * Buffers for {@link HttpSharedState}: made once, passed to each thread (`workerData`), given to
 * each thread's app.
 *
 * @example
 * const shared = createHttpSharedState();
 * new Worker(url, { workerData: { shared } }); // there: createSpillway({ ..., http: { shared: workerData.shared } })
 */
export function createHttpSharedState(options: { maxBuckets?: number; maxLogins?: number } = {}): HttpSharedState {
  return { rateLimits: sharedRateLimiterBuffer(options.maxBuckets), logins: sharedLoginGuardBuffer(options.maxLogins) };
}
