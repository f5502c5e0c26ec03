import { z } from 'zod';

/**
 * The longest wait of a cascade, seconds (30 days): its ttl, a route step's timeout or its wait for
 * a read; and how far ahead the messaging API schedules a message (a cascade's own `sheduledSent`
 * goes up to a year ahead).
 */
export const MAX_WAIT_SECONDS = 30 * 86_400;
/** The bounds of a wait in whole seconds, as its refusals say them. */
export const WAIT_BOUNDS = `whole seconds from 1 to ${MAX_WAIT_SECONDS} (30 days)`;

/**
 * Whole seconds from 1 to `max`, every bad value refused with the one message `error`: a value
 * past 2^53 (1e308) broke zod's own safe-integer bound of `int()` as well as `max`, and got two
 * messages for one field, the first of them about a bound the field does not have.
 */
export function wholeSeconds(max: number, error: string) {
  return z.number({ error }).int({ error, abort: true }).positive({ error }).max(max, { error });
}
