import { SpillwayError } from '@spillway/core';
import type { MiddlewareHandler } from 'hono';
import { timingSafeEqual } from 'hono/utils/buffer';
import type { Env } from './env.ts';

/** Header carrying the operator's admin key. */
export const ADMIN_KEY_HEADER = 'x-admin-key';

/**
 * Guards the operator routes (`/admin/...`) with one shared key. Without a configured key the
 * routes answer 403: the admin API is off. A missing or wrong key answers 401.
 */
export function adminAuth(adminKey: string | undefined): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (!adminKey) throw new SpillwayError('forbidden', 'The admin API is disabled: configure an admin key (SPILLWAY_ADMIN_KEY)');
    const given = c.req.header(ADMIN_KEY_HEADER);
    if (!given || !(await timingSafeEqual(given, adminKey)))
      throw new SpillwayError('unauthorized', `Missing or wrong ${ADMIN_KEY_HEADER}`);
    await next();
  };
}
