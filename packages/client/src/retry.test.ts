import { expect, it } from 'vitest';
import { retryAfterMs } from './retry.ts';

it('reads Retry-After as seconds or as an HTTP date', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  expect(retryAfterMs('3', now)).toBe(3000);
  expect(retryAfterMs('Mon, 23 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  expect(retryAfterMs('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs(null, now)).toBeNull();
  expect(retryAfterMs('soon', now)).toBeNull();
});
