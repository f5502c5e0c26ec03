import { z } from 'zod';

/**
 * A point in time in a query parameter: an ISO 8601 date-time with an offset, one without (UTC, as
 * the chat hub's `expiresAt` reads it), or a date (its midnight UTC). Milliseconds since the epoch.
 */
export const dateParam = z
  .union([z.iso.datetime({ offset: true }), z.iso.datetime({ local: true }), z.iso.date()], {
    error: 'must be an ISO 8601 date-time or date (2026-11-28T09:00:00Z, 2026-11-28T09:00:00 for UTC, 2026-11-28)',
  })
  .transform((v) => Date.parse(v.includes('T') && !/(?:Z|[+-]\d\d:?\d\d)$/i.test(v) ? `${v}Z` : v))
  .meta({ description: 'ISO 8601 date-time (without an offset: UTC) or date (its midnight UTC)' });
