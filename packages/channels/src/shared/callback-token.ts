import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A short HMAC of the values a callback URL carries, so that only URLs Spillway handed out are
 * accepted back (a delivery-report URL cannot be forged for another message).
 */
export function callbackToken(secret: string, ...values: readonly (string | number)[]): string {
  return createHmac('sha256', secret).update(values.join(':')).digest('base64url').slice(0, 22);
}

/** Whether `token` is the {@link callbackToken} of `values`, compared in constant time. */
export function verifyCallbackToken(secret: string, token: string | null, ...values: readonly (string | number)[]): boolean {
  if (!token) return false;
  const expected = Buffer.from(callbackToken(secret, ...values));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A JSON error answer of a driver route, in the API's error shape. */
export function jsonError(status: number, error: string, message: string): Response {
  return Response.json({ error, message, status }, { status });
}
