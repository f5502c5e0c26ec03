import { createHmac, timingSafeEqual } from 'node:crypto';
import { SpillwayError } from '@spillway/core';

/** What a verified `signed_request` says: the platform user who removed the app, and when. */
export interface SignedRequest {
  userId: string;
  issuedAt: number | null;
}

/** How old a `signed_request` may be, seconds: a replayed old one is refused. */
const MAX_AGE_SECONDS = 3600;

/**
 * Verifies the platform's `signed_request` (Facebook Login's deauthorize callback): two base64url
 * parts `signature.payload`, the signature an HMAC-SHA256 of the payload part (as sent) with the
 * app secret; the payload JSON names `algorithm: "HMAC-SHA256"` and the `user_id`. Throws a 401
 * SpillwayError for anything else: a bad shape, another algorithm, a wrong signature, no user, or
 * an `issued_at` more than an hour away from `now`.
 */
export function verifySignedRequest(signedRequest: string, appSecret: string, now: number): SignedRequest {
  const refuse = (why: string): never => {
    throw new SpillwayError('unauthorized', `invalid signed_request: ${why}`);
  };
  const [sig, payload, extra] = signedRequest.split('.');
  if (!sig || !payload || extra !== undefined || !/^[A-Za-z0-9_-]+={0,2}$/.test(sig) || !/^[A-Za-z0-9_-]+={0,2}$/.test(payload)) {
    return refuse('expected <signature>.<payload> in base64url');
  }
  const expected = createHmac('sha256', appSecret).update(payload).digest();
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse('wrong signature');
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return refuse('the payload is not JSON');
  }
  if (typeof data !== 'object' || data === null) return refuse('the payload is not an object');
  if (String(data['algorithm']).toUpperCase() !== 'HMAC-SHA256') return refuse('algorithm must be HMAC-SHA256');
  const userId = data['user_id'];
  if ((typeof userId !== 'string' && typeof userId !== 'number') || String(userId) === '') return refuse('no user_id');
  const issuedAt = typeof data['issued_at'] === 'number' ? data['issued_at'] : null;
  if (issuedAt !== null && Math.abs(now / 1000 - issuedAt) > MAX_AGE_SECONDS) return refuse('issued_at is too old or in the future');
  return { userId: String(userId), issuedAt };
}
