import { z } from 'zod';

/**
 * A path parameter holding a record's id: a positive integer of at most 15 digits (every one a
 * safe integer), one issue when it is not.
 */
export const idParam = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')
  .transform(Number);
