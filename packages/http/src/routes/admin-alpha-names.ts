import { alphaNameRevocationSchema } from '@spillway/core/adapter';
import type { Hono, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { defineRoute } from '../openapi.ts';
import { readJson } from '../read-json.ts';
import { parseOrThrow } from '../validate.ts';
import { noQuerySchema, readListQuery } from './list-query.ts';
import { accountAlphaNameSchema, alphaNameRevocationResultSchema } from './client-schemas.ts';
import { clientServicesOf } from './client-services.ts';
import { idParam } from './id-param.ts';

/**
 * Registers the operator's view of an account's alpha-names (`GET /admin/accounts/{accountId}/alpha-names`)
 * and their revocation (`POST /admin/accounts/{accountId}/alpha-names/revoke`), behind `admin`
 * (the `X-Admin-Key` guard of the sender routes).
 */
export function registerAdminAlphaNameRoutes(app: Hono<Env>, admin: MiddlewareHandler<Env>): void {
  defineRoute(
    app,
    {
      method: 'get',
      path: '/admin/accounts/:accountId/alpha-names',
      operationId: 'listAccountAlphaNames',
      summary: 'Operator: the approved alpha-names of an account',
      tags: ['admin'],
      auth: 'admin-key',
      params: { accountId: z.int().positive() },
      responses: {
        200: { description: 'The alpha-names, by name, with their channels', schema: z.array(accountAlphaNameSchema) },
        403: { description: 'The admin API is disabled (no admin key configured)' },
        404: { description: 'No such account' },
      },
    },
    admin,
    async (c) => {
      const accountId = parseOrThrow(idParam, c.req.param('accountId'), 'account id', 'accountId');
      readListQuery(c, noQuerySchema);
      const names = await clientServicesOf(c.var.engine).senders.alphaNames(accountId);
      return c.json(names.map((a) => ({ alphaName: a.name, channels: a.channels, callbackUrl: a.callbackUrl })));
    },
  );

  defineRoute(
    app,
    {
      method: 'post',
      path: '/admin/accounts/:accountId/alpha-names/revoke',
      operationId: 'revokeAlphaName',
      summary: 'Operator: revoke an approved alpha-name of an account, or withdraw it from some channels',
      description:
        'From the next request on, sends from the name are refused (400) as sends from a name never approved, by the account ' +
        'and by the sub-clients it shared the name with, which lose it too; messages of the messaging API accepted before ' +
        'keep going, while a running cascade skips its steps not yet sent. Its approved ' +
        'applications become `revoked` with the reason, which the account sees in `GET /api/clientsenders`; its callback URL ' +
        'goes with it. The account may apply for the name again. ' +
        'With `channels`, the name is withdrawn from those channels only, on the account and the sub-clients alike, and stays ' +
        'approved on the others with its callback URL: sends on a withdrawn channel are refused (400) as on any channel the ' +
        'name lacks, and a cascade skips its steps on them. Where no channel is left, the name is revoked entirely, as ' +
        'above. Only the applications none of whose channels is left become `revoked`. 400 for a channel the name of the ' +
        'account lacks.',
      tags: ['admin'],
      auth: 'admin-key',
      params: { accountId: z.int().positive() },
      body: alphaNameRevocationSchema,
      bodyExample: { alphaName: 'Acme', reason: 'Trademark complaint' },
      responses: {
        200: { description: 'What was revoked or withdrawn', schema: alphaNameRevocationResultSchema },
        400: { description: 'Invalid request, every bad member listed in `details`: among them a channel the alpha-name lacks' },
        403: { description: 'The admin API is disabled (no admin key configured)' },
        404: { description: 'No such account, or the account has no such alpha-name' },
      },
    },
    admin,
    async (c) => {
      const accountId = parseOrThrow(idParam, c.req.param('accountId'), 'account id', 'accountId');
      const revoked = await clientServicesOf(c.var.engine).senders.revokeAlphaName(accountId, await readJson(c));
      return c.json({
        alphaName: revoked.alphaName,
        reason: revoked.reason,
        revokedAt: new Date(revoked.revokedAt).toISOString(),
        accounts: revoked.alphaNames.map((a) => ({ accountId: a.accountId, channels: a.withdrawn, channelsLeft: a.left })),
        applicationIds: revoked.applications.map((a) => a.id).sort((x, y) => x - y),
      });
    },
  );
}
