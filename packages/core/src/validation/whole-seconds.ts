import { z } from 'zod';

/**
 * Whole seconds from 1 to `max`, every bad value refused with the one message `error`: a value
 * past 2^53 (1e308) broke zod's own safe-integer bound of `int()` as well as `max`, and got two
 * messages for one field, the first of them about a bound the field does not have.
 */
export function wholeSeconds(max: number, error: string) {
  return z.number({ error }).int({ error, abort: true }).positive({ error }).max(max, { error });
}
