import { isoTimeSchema } from '@spillway/core/adapter';
import { z } from 'zod';

const DATE = /^\d{4}-\d\d-\d\d$/;

/** A date-time as every time field of the API reads it; without an offset, UTC. */
const dateTime = isoTimeSchema({ withoutOffset: 'utc' });

/**
 * A point in time in a query parameter: an ISO 8601 date-time with an offset, one without (UTC, as
 * the chat hub's `expiresAt` reads it), or a date (its midnight UTC). Milliseconds since the epoch.
 * Date-times are read as every time field of the API is (`isoTimeSchema`); a refusal names the
 * date too.
 */
export const dateParam = z
  .string()
  .transform((v, ctx) => {
    const read = dateTime.safeParse(DATE.test(v) ? `${v}T00:00Z` : v);
    if (read.success) return read.data;
    ctx.issues.push({
      code: 'custom',
      input: v,
      message: 'must be an ISO 8601 date-time or date (2026-11-28T09:00:00Z, 2026-11-28T09:00:00 for UTC, 2026-11-28)',
    });
    return z.NEVER;
  })
  .meta({ description: 'ISO 8601 date-time (without an offset: UTC) or date (its midnight UTC)' });
