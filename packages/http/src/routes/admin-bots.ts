import { botRevocationSchema } from '@spillway/core/adapter';
import type { Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import { botRevocationResultSchema } from './client-schemas.ts';
import { applicationView, clientServicesOf } from './client-services.ts';
import { idParam } from './id-param.ts';

/**
 * Registers the operator's revocation of an account's approved bot
 * (`POST /admin/accounts/{accountId}/bots/revoke`), behind `admin` (the `X-Admin-Key` guard of the
 * sender routes).
 */
export function registerAdminBotRoutes(app: Hono<Env>, admin: MiddlewareHandler<Env>): void {
  defineRoute(
    app,
    {
      method: 'post',
      path: '/admin/accounts/:accountId/bots/revoke',
      operationId: 'revokeBot',
      summary: 'Operator: revoke an approved bot of an account',
      description:
        'For a bot whose token leaked or whose owner was struck off. Its approved applications (of `kind`, or of both bot ' +
        'kinds without it) become `revoked` with the reason, which the account sees in `GET /api/clientsenders`. From the ' +
        'next request on, a send or a chat binding naming the bot (`botName`) is refused (400 at its path) as one naming a ' +
        'bot never approved; messages accepted before keep going. The account may apply for the bot again. Bots are the ' +
        "account's own, never shared with its sub-clients: a sub-client's bot of the same name is left alone.",
      tags: ['admin'],
      auth: 'admin-key',
      params: { accountId: z.int().positive() },
      body: botRevocationSchema,
      bodyExample: { botName: 'support_bot', kind: 'messenger_bot', reason: 'Bot token leaked' },
      responses: {
        200: { description: 'The revoked applications', schema: botRevocationResultSchema },
        400: { description: 'Invalid request, every bad member listed in `details`' },
        403: { description: 'The admin API is disabled (no admin key configured)' },
        404: { description: 'No such account, or the account has no approved bot of that name (and kind)' },
      },
    },
    admin,
    async (c) => {
      const accountId = parseOrThrow(idParam, c.req.param('accountId'), 'account id', 'accountId');
      const revoked = await clientServicesOf(c.var.engine).senders.revokeBot(accountId, await readJson(c));
      return c.json({
        botName: revoked.botName,
        reason: revoked.reason,
        revokedAt: new Date(revoked.revokedAt).toISOString(),
        applications: revoked.applications.map(applicationView),
      });
    },
  );
}
